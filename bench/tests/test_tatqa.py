"""TAT-QA loader: document building, header rows, table placement and each scoring trap, on hand-made contexts;
plus a check on the first contexts of the real dev file when ../shared is present."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from docling_evidence_bench.dataset import BenchDataError
from docling_evidence_bench.normalize import contains_answer
from docling_evidence_bench.tatqa import count_header_rows, derivation_numbers, load_tatqa, table_position
from shared_paths import SHARED

TATQA_DEV = SHARED / "data" / "tatqa" / "tatqa_dataset_dev.json"

TABLE = [
    ["", "", "Years Ended September 30,", ""],
    ["", "2019", "2018", "2017"],
    ["Fixed Price", "$  1,452.4", "$  1,146.2", "$  1,036.9"],
    ["Other", "44.1", "56.7", "70.8"],
    ["Total sales", "$1,496.5", "$1,202.9", "$1,107.7"],
]


def _q(uid: str, answer: Any, answer_from: str, answer_type: str, derivation: str = "", rel: list[str] | None = None):
    return {
        "uid": uid,
        "order": 1,
        "question": f"question {uid}?",
        "answer": answer,
        "derivation": derivation,
        "answer_type": answer_type,
        "answer_from": answer_from,
        "rel_paragraphs": rel or [],
        "req_comparison": False,
        "scale": "",
    }


def _contexts() -> list[dict[str, Any]]:
    announced = {
        "table": {"uid": "t1", "table": TABLE},
        "paragraphs": [
            {"uid": "p1", "order": 1, "text": "Sales by Contract Type: most of our contracts are fixed-price."},
            {
                "uid": "p2",
                "order": 2,
                "text": "The table below presents net sales by contract type (in millions):",
            },
            {"uid": "p3", "order": 3, "text": "Other sales were 3 percent of the total in fiscal 2019."},
        ],
        "questions": [
            _q("span", ["$1,496.5"], "table-text", "span", rel=["2"]),
            _q("arith", -12.6, "table", "arithmetic", "44.1-56.7"),
            _q("average", 50.4, "table", "arithmetic", "(44.1+56.7)/2"),
            _q("count", 2, "table", "count", "Fixed Price##Other"),
            _q("compare", ["2019"], "table", "span", "1,496.5>1,202.9>1,107.7"),
            _q("missing", ["a phrase that is nowhere"], "text", "span", rel=["1"]),
            _q("text", ["fixed-price"], "text", "span", rel=["1"]),
        ],
    }
    unannounced = {
        "table": {"uid": "t2", "table": [["", "2019", "2018"], ["Revenue", "120", "100"], ["Cost", "(30)", "(25)"]]},
        "paragraphs": [
            {"uid": "p4", "order": 1, "text": "Revenue grew by 20 percent."},
            {"uid": "p5", "order": 2, "text": "Costs rose in line with volume."},
        ],
        "questions": [
            _q("growth", 20, "table-text", "arithmetic", "(120-100)/100*100", rel=["1"]),
            _q("lost", 7.5, "table", "arithmetic", "15/2"),
            _q("negative", ["(30)"], "table", "span"),
        ],
    }
    third = {
        "table": {"uid": "t3", "table": [["Item", "Amount"], ["Rent", "7,000"]]},
        "paragraphs": [{"uid": "p6", "order": 1, "text": "Rent is paid monthly."}],
        "questions": [_q("rent", ["7,000"], "table", "span")],
    }
    return [announced, unannounced, third]


@pytest.fixture
def dev_file(tmp_path: Path) -> Path:
    path = tmp_path / "tatqa_dataset_dev.json"
    path.write_text(json.dumps(_contexts()), encoding="utf-8")
    return path


def test_documents_grouped_and_named(dev_file: Path) -> None:
    ds = load_tatqa(dev_file, contexts_per_doc=2)
    assert list(ds.documents) == ["tatqa-dev-0000", "tatqa-dev-0001"]
    assert ds.name == "tatqa-dev"
    assert ds.stats["contexts"] == 3 and ds.stats["documents"] == 2
    headings = [t.text for t in ds.documents["tatqa-dev-0000"].texts if t.label == "section_header"]
    assert headings == ["Report excerpt 1", "Report excerpt 2"]
    assert load_tatqa(dev_file, limit_contexts=1).stats["contexts"] == 1


def test_table_placed_after_announcing_paragraph_else_at_end(dev_file: Path) -> None:
    doc = load_tatqa(dev_file, contexts_per_doc=2).documents["tatqa-dev-0000"]
    order = [child.cref for child in doc.body.children]
    texts = {t.self_ref: t.text for t in doc.texts}
    kinds = ["table" if ref.startswith("#/tables/") else texts[ref][:14] for ref in order]
    assert kinds == [
        "Report excerpt",
        "Sales by Contr",
        "The table belo",
        "table",
        "Other sales we",
        "Report excerpt",
        "Revenue grew b",
        "Costs rose in ",
        "table",
    ]


def test_header_rows_all_marked_and_super_header_spans(dev_file: Path) -> None:
    doc = load_tatqa(dev_file).documents["tatqa-dev-0000"]
    table = doc.tables[0]
    grid = table.data.grid
    assert all(cell.column_header for cell in grid[0] + grid[1])
    assert not any(cell.column_header for row in grid[2:] for cell in row)
    assert [row[0].row_header for row in grid[2:]] == [True, True, True]
    assert grid[0][1].text == grid[0][3].text == "Years Ended September 30,"  # one cell spanning the value columns
    columns = list(table.export_to_dataframe(doc).columns)
    assert all("2019" in c or "2018" in c or "2017" in c for c in columns[1:])


@pytest.mark.parametrize(
    ("rows", "expected"),
    [
        (TABLE, 2),
        ([["", "2019", "2018"], ["Revenue", "120", "100"]], 1),
        ([["Income tax", "", ""], ["", "2019", "2018"], ["", "€m", "€m"], ["Current:", "", ""], ["UK", "21", "70"]], 3),
        ([["Name", "Title"], ["Ann", "CEO"], ["Bob", "CFO"]], 1),  # a text table: first row only
        ([["Revenue", "$120", "100"]], 0),
        ([["", "2 0 1 9", "2018 (4)"], ["Sales", "1", "2"]], 1),
    ],
)
def test_count_header_rows(rows: list[list[str]], expected: int) -> None:
    assert count_header_rows(rows) == expected


def test_table_position_rules() -> None:
    heading = "7. INCOME TAXES:"
    assert table_position([heading, "The components of income tax expense consisted of the following:"]) == 1
    assert table_position(["The following table sets forth our data.", "Other text."]) == 0
    assert table_position(["Some text.", "More text."]) == 1
    listing = [
        "We use it for the following reasons for our readers:",
        "it is comparable;",
        "A reconciliation of these measures is provided below.",
        "Closing remark.",
    ]
    assert table_position(listing) == 2  # paragraph 0 announces the list that follows it, not the table


def test_table_goes_above_its_own_notes() -> None:
    rows = [["", "2019", "2018"], ["Sales and marketing (2)", "7,398", "7,213"], ["Total revenues (1)", "32,582", "1"]]
    notes_first = ["(1) Includes cloud services.", "(2) Excludes stock-based compensation.", "Revenues grew."]
    assert table_position(notes_first, rows) == -1  # before the first note, not after every paragraph
    announced = ["Operating income included the following items:", "(1) Represents a write-off.", "See below."]
    assert table_position(announced, [["Spare parts (1)", "12.5"]]) == 0
    # a marker no cell carries, or a note after the announced place, changes nothing
    assert table_position(["Some text.", "(3) Another table's note.", "More."], rows) == 2
    assert table_position(["The following table sets forth data:", "x", "(1) Note."], rows) == 0
    assert table_position(["* Unaudited.", "Text."], [["Net income*", "5"]]) == -1
    assert table_position(notes_first) == 2  # without the rows there are no markers to match


def test_loader_puts_the_table_above_its_notes(tmp_path: Path) -> None:
    ctx = {
        "table": {"uid": "t", "table": [["", "2019"], ["Total expenses (2)", "10,995"]]},
        "paragraphs": [
            {"uid": "p1", "order": 1, "text": "(2) Excludes stock-based compensation and certain expense allocations."},
            {"uid": "p2", "order": 2, "text": "Total expenses increased due to higher headcount."},
        ],
        "questions": [
            {
                "uid": "q1",
                "order": 1,
                "question": "What is excluded?",
                "answer": ["stock-based compensation"],
                "derivation": "",
                "answer_type": "span",
                "answer_from": "text",
                "rel_paragraphs": ["1"],
                "req_comparison": False,
                "scale": "",
            }
        ],
    }
    path = tmp_path / "tatqa_dataset_dev.json"
    path.write_text(json.dumps([ctx]), encoding="utf-8")
    ds = load_tatqa(path)
    doc = next(iter(ds.documents.values()))
    order = [type(item).__name__ for item, _level in doc.iterate_items()]
    assert order[1:] == ["TableItem", "TextItem", "TextItem"]  # heading, table, its note, the discussion
    assert ds.stats["tables_above_their_notes"] == 1


def test_derivation_numbers_drop_constants() -> None:
    assert derivation_numbers("(428,501 + 423,209 )/2") == (["428,501", "423,209"], 1)
    assert derivation_numbers("(53.7-65.6)/65.6*100") == (["53.7", "65.6", "65.6"], 1)
    assert derivation_numbers("126 / 67 - 1") == (["126", "67"], 1)
    assert derivation_numbers("6 - 41") == (["6", "41"], 0)
    assert derivation_numbers("34% + 11%") == (["34", "11"], 0)


def test_answers_for_each_trap(dev_file: Path) -> None:
    ds = load_tatqa(dev_file)
    by_id = {q.qid: q for q in ds.questions}
    assert by_id["span"].answers == ("$1,496.5",)
    assert by_id["arith"].answers == ("44.1", "56.7")
    assert by_id["average"].answers == ("44.1", "56.7")  # "/2" is a constant, not gold
    assert by_id["count"].answers == ("Fixed Price", "Other")  # items, not the count "2"
    assert by_id["compare"].answers == ("2019", "1,496.5", "1,202.9", "1,107.7")
    assert by_id["growth"].answers == ("120", "100")  # "*100" dropped, "/100" is a table value here
    assert by_id["negative"].answers == ("(30)",)
    assert "missing" not in by_id and "lost" not in by_id
    assert ds.stats["dropped_span_not_in_context"] == 1
    assert ds.stats["dropped_arithmetic_no_number_in_context"] == 1
    assert ds.stats["dropped"] == 2
    assert ds.stats["questions"] == len(ds.questions) == 9


def test_types_required_texts_and_refs(dev_file: Path) -> None:
    ds = load_tatqa(dev_file)
    by_id = {q.qid: q for q in ds.questions}
    doc = ds.documents[by_id["span"].doc_id]
    span = by_id["span"]
    assert span.qtype == "table-text"
    assert span.required_texts == ("The table below presents net sales by contract type (in millions):",)
    assert span.evidence_refs[0] == doc.tables[0].self_ref
    para = next(t for t in doc.texts if t.self_ref == span.evidence_refs[1])
    assert para.text == span.required_texts[0]
    text_q = by_id["text"]
    assert text_q.qtype == "text" and text_q.required_texts == ()
    assert [next(t.text for t in doc.texts if t.self_ref == r) for r in text_q.evidence_refs] == [
        "Sales by Contract Type: most of our contracts are fixed-price."
    ]
    assert by_id["arith"].evidence_refs == (doc.tables[0].self_ref,)
    assert by_id["growth"].evidence_refs == (doc.tables[1].self_ref, by_id["growth"].evidence_refs[1])
    assert all(q.evidence_pages == () for q in ds.questions)


def test_every_answer_in_its_document_markdown(dev_file: Path) -> None:
    ds = load_tatqa(dev_file)
    markdown = {doc_id: doc.export_to_markdown() for doc_id, doc in ds.documents.items()}
    for q in ds.questions:
        for s in q.answers + q.required_texts:
            assert contains_answer(markdown[q.doc_id], s), (q.qid, s)


def test_bad_input(tmp_path: Path) -> None:
    with pytest.raises(BenchDataError, match=r"nope\.json: file not found"):
        load_tatqa(tmp_path / "nope.json")
    bad = tmp_path / "bad.json"
    bad.write_text("[{", encoding="utf-8")
    with pytest.raises(BenchDataError, match=r"bad\.json:1: not JSON"):
        load_tatqa(bad)
    bad.write_text("{}", encoding="utf-8")
    with pytest.raises(BenchDataError, match="non-empty JSON list"):
        load_tatqa(bad)
    bad.write_text(json.dumps([{"table": {"table": []}, "paragraphs": []}]), encoding="utf-8")
    with pytest.raises(BenchDataError, match="context 0: missing or malformed field 'questions'"):
        load_tatqa(bad)
    with pytest.raises(ValueError, match="contexts_per_doc"):
        load_tatqa(bad, contexts_per_doc=0)


@pytest.mark.skipif(not TATQA_DEV.is_file(), reason="../shared TAT-QA dev file not present")
def test_real_dev_slice() -> None:
    ds = load_tatqa(TATQA_DEV, limit_contexts=20)
    assert ds.stats["contexts"] == 20 and len(ds.documents) == 2
    raw = json.loads(TATQA_DEV.read_text(encoding="utf-8"))[:20]
    assert len(ds.questions) + ds.stats["dropped"] == sum(len(c["questions"]) for c in raw)
    tables = [t for doc in ds.documents.values() for t in doc.tables]
    assert len(tables) == 20
    for ctx, table in zip(raw, tables, strict=True):
        rows = ctx["table"]["table"]
        n = count_header_rows(rows)
        flags = [any(c.column_header for c in row) for row in table.data.grid]
        assert flags == [True] * n + [False] * (len(rows) - n)
        # a year row right after a blank-celled super-header is a header row too
        if len(rows) > 2 and rows[0][1:].count("") >= 1 and any(c.strip() in {"2019", "2018"} for c in rows[1]):
            assert flags[1]
    markdown = {doc_id: doc.export_to_markdown() for doc_id, doc in ds.documents.items()}
    for q in ds.questions:
        for s in q.answers + q.required_texts:
            assert contains_answer(markdown[q.doc_id], s), (q.qid, s)
    placed = ds.stats.get("tables_after_announcing_paragraph", 0)
    kinds = ("tables_after_announcing_paragraph", "tables_above_their_notes", "tables_after_all_paragraphs")
    assert sum(ds.stats.get(k, 0) for k in kinds) == 20 and placed > 0
