"""QA JSONL: loading, round trip, atomic writing, and a line-precise error for every bad input."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from docling_core.types.doc import DocItemLabel, DoclingDocument
from docling_evidence_bench.dataset import BenchDataError, QAItem
from docling_evidence_bench.qa_jsonl import load_qa_jsonl, qa_item_to_json, write_qa_jsonl
from docs_builder import table_data


def _doc() -> DoclingDocument:
    doc = DoclingDocument(name="report")
    doc.add_text(label=DocItemLabel.TEXT, text="Revenue grew by 20 percent in 2019.")
    doc.add_table(data=table_data([], [["", "2019"], ["Revenue", "120"]]))
    return doc


def _line(**overrides: Any) -> dict[str, Any]:
    line: dict[str, Any] = {
        "id": "q1",
        "doc": "sub/report.json",
        "question": "What was revenue in 2019?",
        "answers": ["120"],
        "type": "cell_value",
        "evidence": {"refs": ["#/tables/0"], "pages": []},
    }
    line.update(overrides)
    return line


@pytest.fixture
def docs_dir(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    (root / "sub").mkdir(parents=True)
    _doc().save_as_json(root / "sub" / "report.json")
    return root


def _write(path: Path, lines: list[Any]) -> Path:
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines), encoding="utf-8")
    return path


def test_load(tmp_path: Path, docs_dir: Path) -> None:
    second = _line(
        id="q2",
        type="context_dependent",
        answers=["120", "20 percent"],
        required_texts=["Revenue grew by 20 percent in 2019."],
        evidence={"refs": ["#/tables/0", "#/texts/0"], "pages": [3]},
    )
    qa = _write(tmp_path / "qa.jsonl", [_line(), "", second])
    ds = load_qa_jsonl(qa, docs_dir)
    assert ds.name == "qa"
    assert list(ds.documents) == ["sub/report.json"]
    assert ds.documents["sub/report.json"].tables[0].data.num_rows == 2
    assert [q.qid for q in ds.questions] == ["q1", "q2"]
    q2 = ds.questions[1]
    assert q2.answers == ("120", "20 percent")
    assert q2.required_texts == ("Revenue grew by 20 percent in 2019.",)
    assert q2.evidence_refs == ("#/tables/0", "#/texts/0") and q2.evidence_pages == (3,)
    assert ds.questions[0].required_texts == ()
    assert ds.stats == {"documents": 1, "questions": 2, "questions_cell_value": 1, "questions_context_dependent": 1}


def test_round_trip(tmp_path: Path, docs_dir: Path) -> None:
    items = [
        QAItem("a", "sub/report.json", "Q?", ("120",), "cell_value", (), ("#/tables/0",), (1,)),
        QAItem("b", "sub/report.json", "Q2?", ("120", "20"), "context_dependent", ("Revenue grew",), ("#/texts/0",)),
    ]
    out = tmp_path / "nested" / "qa.jsonl"
    assert write_qa_jsonl(items, out) == 2
    assert load_qa_jsonl(out, docs_dir).questions == items
    assert "required_texts" not in qa_item_to_json(items[0])
    assert [p.name for p in out.parent.iterdir()] == ["qa.jsonl"]  # no temp file left


def test_write_is_atomic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "qa.jsonl"
    out.write_text("old\n", encoding="utf-8")

    def failing_replace(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(OSError, match="disk full"):
        write_qa_jsonl([QAItem("a", "d.json", "Q?", ("x",), "t")], out)
    assert out.read_text(encoding="utf-8") == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["qa.jsonl"]


@pytest.mark.parametrize("field", ["id", "doc", "question", "answers", "type", "evidence"])
def test_missing_field(tmp_path: Path, docs_dir: Path, field: str) -> None:
    line = _line()
    del line[field]
    qa = _write(tmp_path / "qa.jsonl", [_line(id="ok"), line])
    with pytest.raises(BenchDataError, match=rf"qa\.jsonl:2: missing field '{field}'"):
        load_qa_jsonl(qa, docs_dir)


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ("{not json", r"qa\.jsonl:2: not JSON"),
        ("[1, 2]", r"qa\.jsonl:2: expected a JSON object, got list"),
        (_line(id=""), r"qa\.jsonl:2: field 'id' must be a non-empty string"),
        (_line(question=3), r"qa\.jsonl:2: field 'question' must be a non-empty string"),
        (_line(answers=[]), r"qa\.jsonl:2: field 'answers' must be a non-empty list"),
        (_line(answers="120"), r"qa\.jsonl:2: field 'answers' must be a list of strings"),
        (_line(answers=["120", " "]), r"qa\.jsonl:2: field 'answers' must be a non-empty list"),
        (_line(evidence=["#/tables/0"]), r"qa\.jsonl:2: field 'evidence' must be an object"),
        (_line(evidence={"refs": "#/tables/0"}), r"qa\.jsonl:2: field 'evidence\.refs' must be a list of strings"),
        (_line(evidence={"pages": ["6"]}), r"qa\.jsonl:2: field 'evidence\.pages' must be a list of integers"),
        (_line(required_texts="x"), r"qa\.jsonl:2: field 'required_texts' must be a list of strings"),
        (_line(id="ok"), r"qa\.jsonl:2: duplicate id 'ok'"),
        (_line(doc="missing.json"), r"qa\.jsonl:2: doc file not found: .*missing\.json"),
        (_line(evidence={"refs": ["#/tables/5"]}), r"qa\.jsonl:2: evidence ref '#/tables/5' does not exist"),
        (_line(evidence={"refs": ["tables/0"]}), r"qa\.jsonl:2: evidence ref 'tables/0' does not exist"),
    ],
)
def test_bad_line(tmp_path: Path, docs_dir: Path, bad: Any, message: str) -> None:
    qa = _write(tmp_path / "qa.jsonl", [_line(id="ok"), bad])
    with pytest.raises(BenchDataError, match=message):
        load_qa_jsonl(qa, docs_dir)


@pytest.mark.parametrize("content", ["{not json", '{"just": "an object"}'])
def test_unloadable_doc(tmp_path: Path, docs_dir: Path, content: str) -> None:
    (docs_dir / "broken.json").write_text(content, encoding="utf-8")
    qa = _write(tmp_path / "qa.jsonl", [_line(doc="broken.json")])
    with pytest.raises(BenchDataError, match=r"qa\.jsonl:1: doc file .*broken\.json is not a loadable DoclingDocument"):
        load_qa_jsonl(qa, docs_dir)


@pytest.mark.parametrize("content", ["", "\n  \n"])
def test_empty_file(tmp_path: Path, docs_dir: Path, content: str) -> None:
    qa = tmp_path / "qa.jsonl"
    qa.write_text(content, encoding="utf-8")
    with pytest.raises(BenchDataError, match=r"qa\.jsonl: no questions"):
        load_qa_jsonl(qa, docs_dir)


def test_missing_paths(tmp_path: Path, docs_dir: Path) -> None:
    with pytest.raises(BenchDataError, match=r"nope\.jsonl: QA file not found"):
        load_qa_jsonl(tmp_path / "nope.jsonl", docs_dir)
    qa = _write(tmp_path / "qa.jsonl", [_line()])
    with pytest.raises(BenchDataError, match="docs folder not found"):
        load_qa_jsonl(qa, tmp_path / "no_docs")


def test_error_is_a_value_error(tmp_path: Path, docs_dir: Path) -> None:
    qa = _write(tmp_path / "qa.jsonl", ["{oops"])
    with pytest.raises(ValueError) as info:
        load_qa_jsonl(qa, docs_dir)
    assert info.value.line == 1 and info.value.path == str(qa)  # type: ignore[attr-defined]
