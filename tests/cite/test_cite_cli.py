"""`docling-evidence cite` and `inspect --answer`: output formats, cited chunks, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from docling_evidence.cli.main import app

from .test_cite import report_doc


@pytest.fixture
def doc_path(tmp_path: Path) -> Path:
    path = tmp_path / "report.json"
    report_doc().save_as_json(path)
    return path


def _run(*args: str, stdin: str | None = None):
    return CliRunner().invoke(app, list(args), input=stdin)


def test_json_output_has_claims_with_page_and_top_left_box(doc_path: Path) -> None:
    result = _run("cite", str(doc_path), "--answer", "Revenue was $1,496.5 and 7.5.", "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    by_text = {c["text"]: c for c in data["claims"]}
    good = by_text["$1,496.5"]
    assert good["supported"] is True
    assert good["evidence"][0] | {} == good["evidence"][0]
    ev = good["evidence"][0]
    assert (ev["ref"], ev["page"], ev["bbox"], ev["row"], ev["col"]) == ("#/tables/0", 1, [300, 130, 340, 140], 1, 1)
    assert by_text["7.5"]["supported"] is False and by_text["7.5"]["evidence"] == []


def test_text_output_is_readable(doc_path: Path) -> None:
    result = _run("cite", str(doc_path), "-a", "Revenue was $1,496.5 and 7.5.")
    assert result.exit_code == 0
    out = result.stdout
    assert "✓ number   $1,496.5" in out and "page 1" in out and "(Revenue / 2019)" in out
    assert "✗ number   7.5" in out and "found nowhere" in out


def test_strict_exit_code_and_stdin_answer(doc_path: Path) -> None:
    assert _run("cite", str(doc_path), "-a", "7.5", "--strict").exit_code == 3
    assert _run("cite", str(doc_path), "-a", "-", "--strict", stdin="Cost was (12).\n").exit_code == 0


def test_cited_chunks_from_chunk_output(doc_path: Path, tmp_path: Path) -> None:
    chunks = tmp_path / "chunks.jsonl"
    assert _run("chunk", str(doc_path), "-o", str(chunks)).exit_code == 0
    records = [json.loads(line) for line in chunks.read_text().splitlines()]
    text_only = tmp_path / "text.jsonl"
    text_only.write_text(
        "".join(json.dumps(r) + "\n" for r in records if r["meta"]["kind"] == "text"), encoding="utf-8"
    )
    ok = _run("cite", str(doc_path), "-a", "1,496.5", "--chunks", str(chunks), "-f", "json")
    assert ok.exit_code == 0
    claim = json.loads(ok.stdout)["claims"][0]
    assert claim["supported"] and claim["evidence"][0]["chunk"] is not None
    miss = _run("cite", str(doc_path), "-a", "1,496.5", "--chunks", str(text_only), "-f", "json")
    claim = json.loads(miss.stdout)["claims"][0]
    assert not claim["supported"] and claim["elsewhere"][0]["ref"] == "#/tables/0"


@pytest.mark.parametrize("answer", ["", "   "])
def test_empty_answer_is_a_usage_error(doc_path: Path, answer: str) -> None:
    result = _run("cite", str(doc_path), "-a", answer)
    assert result.exit_code == 2 and "answer is empty" in result.stderr


def test_missing_document_and_bad_chunks(doc_path: Path, tmp_path: Path) -> None:
    result = _run("cite", str(tmp_path / "missing.json"), "-a", "1")
    assert result.exit_code == 1 and "no such file" in result.stderr and "Traceback" not in result.output
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json\n", encoding="utf-8")
    result = _run("cite", str(doc_path), "-a", "1", "--chunks", str(bad))
    assert result.exit_code == 1 and "bad.jsonl:1: not JSON" in result.stderr
    foreign = tmp_path / "foreign.jsonl"
    foreign.write_text(json.dumps({"text": "x", "meta": {"doc_items": ["#/texts/999"]}}) + "\n", encoding="utf-8")
    result = _run("cite", str(doc_path), "-a", "1", "--chunks", str(foreign))
    assert result.exit_code == 1 and "not in" in result.stderr


def test_inspect_outlines_the_cited_boxes(doc_path: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    result = _run("inspect", str(doc_path), "-o", str(out), "--answer", "Revenue was $1,496.5 and 7.5.")
    assert result.exit_code == 0, result.output
    page = out.read_text(encoding="utf-8")
    assert "Citations (" in page and "✓ C" in page and "✗ C" in page
    # the supported number's cell box, drawn in page coordinates
    assert 'x="300.0" y="130.0" width="40.0" height="10.0" fill="#047857"' in page


def test_cite_help_names_every_default() -> None:
    result = CliRunner().invoke(app, ["cite", "--help"], env={"COLUMNS": "300", "TERMINAL_WIDTH": "300"})
    assert result.exit_code == 0
    for flag in ("--chunks", "--format", "--strict"):
        [row] = [line for line in result.stdout.splitlines() if f"{flag} " in line]
        assert "[default: " in row, row


def test_document_without_layout_gives_null_page_and_box(tmp_path: Path) -> None:
    from docling_core.types.doc import DocItemLabel, DoclingDocument
    from docs_builder import add_table

    doc = DoclingDocument(name="plain")
    add_table(doc, [["", "2019"]], [["Revenue", "1,496.5"]])
    doc.add_text(label=DocItemLabel.TEXT, text="Revenue grew strongly.")
    path = tmp_path / "plain.json"
    doc.save_as_json(path)
    result = _run("cite", str(path), "-a", "Revenue grew strongly to 1,496.5.", "-f", "json")
    data = json.loads(result.stdout)
    assert data["supported"] and not data["has_layout"]
    evidence = [e for c in data["claims"] for e in c["evidence"]]
    assert evidence and all(e["page"] is None and e["bbox"] is None for e in evidence)
