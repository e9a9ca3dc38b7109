"""QA generator: determinism, answers present in the document, the context_dependent invariant, question hygiene."""

from __future__ import annotations

from pathlib import Path

import pytest
from docling_core.types.doc import (
    BoundingBox,
    DocItemLabel,
    DoclingDocument,
    ProvenanceItem,
    Size,
    TableData,
    TableItem,
)
from docling_evidence_bench.dataset import QAItem
from docling_evidence_bench.normalize import contains_answer
from docling_evidence_bench.qa_generate import context_invariant_holds, generate_qa, main
from docling_evidence_bench.qa_jsonl import load_qa_jsonl
from docs_builder import table_data
from shared_paths import FIXTURES

ROWS = [
    ["Segment", "2019", "2018"],
    ["Retail", "1,250.5", "1,100.2"],
    ["Wholesale", "830.7", "790.1"],
    ["Online", "412.9", "305.4"],
    ["Total", "2,494.1", "2,195.7"],
]
ONLINE = "Online sales reached 412.9 million as mobile ordering doubled across all regions this year."
DISTRIBUTORS = "Volumes sold to distributors of 830.7 thousand units benefited from new contracts signed in spring."
OTHER_PAGE = "On the next page we repeat that 1,250.5 was booked by stores in the northern district overall."


def _prov(page: int, top: float) -> ProvenanceItem:
    return ProvenanceItem(page_no=page, bbox=BoundingBox(l=50, t=top, r=550, b=top + 40), charspan=(0, 0))


def _table_data(rows: list[list[str]], header_rows: int = 1) -> TableData:
    return table_data(rows[:header_rows], rows[header_rows:])


def _doc() -> DoclingDocument:
    doc = DoclingDocument(name="report")
    for page in (1, 2):
        doc.add_page(page_no=page, size=Size(width=600, height=800))
    doc.add_text(label=DocItemLabel.TEXT, text=ONLINE, prov=_prov(1, 100))
    caption = doc.add_text(label=DocItemLabel.CAPTION, text="Table 1: Revenue by business segment", prov=_prov(1, 200))
    doc.add_table(data=_table_data(ROWS), caption=caption, prov=_prov(1, 260))
    doc.add_text(label=DocItemLabel.TEXT, text=DISTRIBUTORS, prov=_prov(1, 400))
    doc.add_table(data=_table_data([["x"]]), prov=_prov(1, 500))  # 1x1: not a document table
    sparse = [["Key", "", ""], ["", "", ""], ["", "", ""]]
    doc.add_table(data=_table_data(sparse), prov=_prov(1, 600))  # mostly empty
    doc.add_text(label=DocItemLabel.TEXT, text=OTHER_PAGE, prov=_prov(2, 100))
    return doc


def _table_text(doc: DoclingDocument, ref: str) -> str:
    table = next(t for t in doc.tables if t.self_ref == ref)
    assert isinstance(table, TableItem)
    return "\n".join(c.text for c in table.data.table_cells)


def _check_items(docs: dict[str, DoclingDocument], items: list[QAItem]) -> None:
    markdown = {doc_id: doc.export_to_markdown() for doc_id, doc in docs.items()}
    for item in items:
        assert "|" not in item.question and " = " not in item.question, item.question
        assert item.answers and all(contains_answer(markdown[item.doc_id], a) for a in item.answers), item
        assert item.evidence_refs[0].startswith("#/tables/")
        if item.qtype == "context_dependent":
            doc = docs[item.doc_id]
            table_text = _table_text(doc, item.evidence_refs[0])
            paragraph = next(t.text for t in doc.texts if t.self_ref == item.evidence_refs[1])
            assert context_invariant_holds(item.answers, table_text, paragraph)
            assert all(contains_answer(f"{table_text}\n{paragraph}", a) for a in item.answers)
            assert not all(contains_answer(table_text, a) for a in item.answers)
            assert not all(contains_answer(paragraph, a) for a in item.answers)
            assert item.required_texts and item.required_texts[0] in paragraph


def test_generate_on_hand_made_doc() -> None:
    docs = {"report.json": _doc()}
    stats: dict[str, int] = {}
    items = generate_qa(docs, seed=0, per_table=2, stats=stats)
    _check_items(docs, items)
    by_type: dict[str, list[QAItem]] = {}
    for item in items:
        by_type.setdefault(item.qtype, []).append(item)
    assert stats["tables"] == 3
    assert stats["tables_skipped_too_small"] == 1 and stats["tables_skipped_mostly_empty"] == 1

    cells = by_type["cell_value"]
    assert len(cells) == 2
    for item in cells:
        value, label = item.answers
        row = next(r for r in ROWS if r[0] == label)
        assert value in row[1:] and label != "Total"  # generic labels do not locate a cell
        column = ROWS[0][row.index(value)]
        assert item.question == f"What is the {column} of {label} in the table about Revenue by business segment?"
        assert item.evidence_pages == (1,)

    (about,) = by_type["table_about"]
    assert about.answers == ("Retail", "Wholesale", "Online")
    assert "revenue business segment" in about.question and "Table 1" not in about.question

    # The "Online" paragraph names the row itself, so it alone would answer: dropped by the invariant check.
    (context,) = by_type["context_dependent"]
    assert context.answers[:2] == ("830.7", "Wholesale")
    assert context.answers[2] == "thousand units benefited from"
    assert context.required_texts == (DISTRIBUTORS,)
    assert stats["dropped_context_invariant"] == 1
    assert "1250.5" not in " ".join(context.answers)  # the page-2 paragraph is not on the table's page


COORDINATES = [["Point", "Longitude", "Latitude"], ["L1", "39.6612", "-4.0573"], ["L2", "39.6698", "-4.0611"]]
OTHER_COORDINATES = [["Point", "Longitude", "Latitude"], ["L1", "40.1234", "-3.2101"], ["L2", "40.1302", "-3.2244"]]


def _coordinate_doc(captioned: bool) -> DoclingDocument:
    """Two coordinate tables with the same columns and row labels (a gazette's repeated schedules); the first has a
    caption when ``captioned``."""
    doc = DoclingDocument(name="gazette")
    doc.add_page(page_no=1, size=Size(width=600, height=800))
    caption = None
    if captioned:
        caption = doc.add_text(label=DocItemLabel.CAPTION, text="Area - 5,383.2 km2", prov=_prov(1, 80))
    doc.add_table(data=_table_data(COORDINATES), caption=caption, prov=_prov(1, 100))
    doc.add_table(data=_table_data(OTHER_COORDINATES), prov=_prov(1, 400))
    return doc


def test_a_question_another_table_could_be_asked_is_dropped() -> None:
    # "What is the Latitude of L2 in the table with the columns Longitude and Latitude?" fits both tables: it has two
    # right answers, so neither table's cell questions may stand (nor their table_about questions, same columns)
    assert generate_qa({"g.json": _coordinate_doc(captioned=False)}, seed=0, per_table=2) == []
    # a caption tells the first table apart: its questions name it by its caption and stay; the second table's
    # questions, naming it by columns the captioned table has too, are still ambiguous (though asked only once)
    stats: dict[str, int] = {}
    items = generate_qa({"g.json": _coordinate_doc(captioned=True)}, seed=0, per_table=2, stats=stats)
    cells = [item for item in items if item.qtype == "cell_value"]
    assert len(cells) == 2 and all("the table about Area" in item.question for item in cells)
    assert {item.evidence_refs[0] for item in items} == {"#/tables/0"}
    assert stats["dropped_cell_value_other_table_same_question"] == 2


def test_deterministic_for_same_seed() -> None:
    first = generate_qa({"report.json": _doc()}, seed=7)
    again = generate_qa({"report.json": _doc()}, seed=7)
    assert first == again and first


def test_invariant_helper() -> None:
    table, paragraph = "Wholesale 830.7", "sold 830.7 thousand units"
    assert context_invariant_holds(("830.7", "Wholesale", "thousand units"), table, paragraph)
    assert not context_invariant_holds(("830.7", "thousand units"), table, paragraph)  # paragraph alone suffices
    assert not context_invariant_holds(("830.7", "Wholesale"), table, paragraph)  # table alone suffices
    assert not context_invariant_holds(("830.7", "Retail"), table, paragraph)  # not answerable at all


def test_per_table_validated() -> None:
    with pytest.raises(ValueError, match="per_table"):
        generate_qa({}, per_table=0)


def test_cli_bad_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(tmp_path / "missing"), "-o", str(tmp_path / "qa.jsonl")]) == 2
    assert "fixture folder not found" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert main([str(tmp_path / "empty"), "-o", str(tmp_path / "qa.jsonl")]) == 2
    assert not (tmp_path / "qa.jsonl").exists()


@pytest.mark.skipif(not FIXTURES.is_dir(), reason="../shared fixtures not present")
def test_real_fixtures_end_to_end(tmp_path: Path) -> None:
    folder = FIXTURES / "docling"
    out = tmp_path / "qa.jsonl"
    assert main([str(folder), "-o", str(out), "--seed", "3"]) == 0
    dataset = load_qa_jsonl(out, folder)
    docs = dataset.documents  # generation is per document: documents without items add nothing
    items = generate_qa(docs, seed=3)
    assert dataset.questions == items
    assert {"cell_value", "table_about"} <= {q.qtype for q in items}
    _check_items(docs, items)
    assert len({(q.doc_id, q.question) for q in items}) == len(items)  # no ambiguous duplicates


def test_page_window_reaches_adjacent_page() -> None:
    docs = {"report.json": _doc()}
    items = generate_qa(docs, page_window=1, per_table=3)
    _check_items(docs, items)
    labels = {item.answers[1] for item in items if item.qtype == "context_dependent"}
    assert labels == {"Wholesale", "Retail"}
    retail = next(i for i in items if i.qtype == "context_dependent" and i.answers[1] == "Retail")
    assert retail.answers[0] == "1250.5" and retail.evidence_pages == (1, 2)
    assert retail.answers[2] == "was booked by stores"
    with pytest.raises(ValueError, match="page_window"):
        generate_qa(docs, page_window=-1)
