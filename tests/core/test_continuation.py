"""Tables continued on the next page: which parts are joined into one unit, which are not, and that joining
never loses, duplicates or reorders a row."""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from pathlib import Path

import pytest
from docling_core.types.doc import (
    ContentLayer,
    DocItemLabel,
    DoclingDocument,
    DocumentOrigin,
    TableItem,
)
from docs_builder import add_table, paged_doc, prov, table_data
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from docling_evidence import EvidenceChunker, EvidenceParams, UnitParams
from docling_evidence.assemble.units import unit_tables
from docling_evidence.document.index import build_index
from docling_evidence.tables.rows import TableRows, table_rows
from docling_evidence.units.captions import PageRules
from docling_evidence.units.continuation import (
    ContinuationRules,
    Verdict,
    check_continuation,
    find_runs,
    join_rows,
    repeated_header_rows,
)

HEADER = [["Licence", "Holder", "Route"]]
PAGE_H = 792.0

LABELS = json.loads((Path(__file__).resolve().parents[1] / "data" / "continued_tables.json").read_text())


def body(start: int, n: int, cols: int = 3) -> list[list[str]]:
    """``n`` rows with unique first cells R0000, R0001, ... from ``start``."""
    return [[f"R{start + i:04d}", *(f"cell {start + i}.{j}" for j in range(1, cols))] for i in range(n)]


def two_part_doc(
    header_a: Sequence[Sequence[str]] = HEADER,
    body_a: Sequence[Sequence[str]] | None = None,
    header_b: Sequence[Sequence[str]] = (),
    body_b: Sequence[Sequence[str]] | None = None,
    *,
    between: str | None = None,
    b_page: int = 2,
    a_bottom: float = 740.0,
    b_top: float = 50.0,
    caption_a: str | None = "Table 1: Road service licences",
) -> DoclingDocument:
    """Page 1: a paragraph, then table A (caption above) down to ``a_bottom``; next page: table B from ``b_top``,
    then a closing paragraph. ``between``: ``"heading"``, ``"paragraph"``, ``"page_header"`` (body-layer page
    header label) or ``"furniture"`` (furniture-layer text) placed between A and B in reading order."""
    doc = paged_doc(pages=3, height=PAGE_H)
    doc.add_text(label=DocItemLabel.TEXT, text="The board lists the licences below.", prov=prov(1, 50, 40, 560, 70))
    add_table(
        doc,
        header_a,
        body(0, 6) if body_a is None else body_a,
        caption=caption_a,
        caption_prov=prov(1, 50, 80, 560, 95) if caption_a else None,
        provs=[prov(1, 50, 100, 560, a_bottom)],
    )
    if between == "heading":
        doc.add_heading(text="Another notice", prov=prov(b_page, 50, 20, 560, 40))
    elif between == "paragraph":
        doc.add_text(label=DocItemLabel.TEXT, text="An unrelated paragraph.", prov=prov(b_page, 50, 20, 560, 40))
    elif between == "page_header":
        doc.add_text(label=DocItemLabel.PAGE_HEADER, text="THE GAZETTE 3", prov=prov(b_page, 50, 10, 560, 20))
    elif between == "furniture":
        doc.add_text(
            label=DocItemLabel.PAGE_HEADER,
            text="THE GAZETTE 3",
            prov=prov(b_page, 50, 10, 560, 20),
            content_layer=ContentLayer.FURNITURE,
        )
    add_table(doc, header_b, body(6, 5) if body_b is None else body_b, provs=[prov(b_page, 50, b_top, 560, 400)])
    doc.add_text(label=DocItemLabel.TEXT, text="Objections must be lodged.", prov=prov(b_page, 50, 420, 560, 440))
    return doc


def verdict(doc: DoclingDocument, rules: ContinuationRules | None = None) -> Verdict:
    """The verdict on the document's first two tables (by ``rules``, else the defaults)."""
    index = build_index(doc)
    a, b = (i for i, it in enumerate(index.items) if isinstance(it, TableItem))
    rows_a, rows_b = (table_rows(index.items[i], doc) for i in (a, b))  # type: ignore[arg-type]
    return check_continuation(doc, index, a, rows_a, b, rows_b, rules or ContinuationRules())


def table_units(doc: DoclingDocument, **kw: object) -> dict[str, list]:
    found: dict[str, list] = {}
    for c in EvidenceChunker(**kw).chunk(doc):
        if c.meta.kind == "table":
            found.setdefault(c.meta.unit_id, []).append(c)
    return found


def shown_rows(pieces: list) -> list[str]:
    """First cells (R0000 ...) of the body rows the pieces show, in order, each piece's own row range only."""
    ids: list[str] = []
    for c in pieces:
        ids += [line.split("|")[1].strip() for line in c.text.splitlines() if line.startswith("| R")]
    return ids


# --- the rules, one case each -------------------------------------------------------------------------------------
def test_header_not_repeated_is_merged() -> None:
    v = verdict(two_part_doc())
    assert v == Verdict(True, "continued", 0)


def test_repeated_flagged_header_is_merged_and_dropped() -> None:
    doc = two_part_doc(header_b=HEADER)
    assert verdict(doc) == Verdict(True, "continued", 1)
    (pieces,) = table_units(doc).values()
    text = "\n".join(c.text for c in pieces)
    assert text.count("Licence") == len(pieces)  # the header once per piece, never as a body row
    assert shown_rows(pieces) == [f"R{i:04d}" for i in range(11)]


def test_repeated_unflagged_header_is_dropped() -> None:
    """Neither part has flagged header cells; the next part starts with the first part's first row, which reads as
    the header of both (text above rows of values): the joined table has it once, as its header."""
    doc = two_part_doc(header_a=(), body_a=[HEADER[0], *body(0, 6)], body_b=[HEADER[0], *body(6, 5)])
    assert verdict(doc) == Verdict(True, "continued", 1)
    index = build_index(doc)
    rows = [table_rows(t, doc) for t in index.items if isinstance(t, TableItem)]
    joined, starts = join_rows(rows, (0, 1))
    assert joined.header == (tuple(HEADER[0]),)
    assert [r[0] for r in joined.body] == [f"R{i:04d}" for i in range(11)]
    assert starts == (0, 6)


def test_header_matching_ignores_case_and_spacing() -> None:
    first = TableRows(header=(("Licence", "Holder"),), body=(("a", "b"),), label_cols=1)
    nxt = TableRows(header=(("LICENCE ", " holder"),), body=(("c", "d"),), label_cols=1)
    assert repeated_header_rows(first, nxt) == 1


def test_a_different_header_is_another_table() -> None:
    v = verdict(two_part_doc(header_b=[["Vote", "Ministry", "Amount"]]))
    assert v == Verdict(False, "own header")


def test_a_first_row_of_numbers_only_is_not_taken_for_a_header() -> None:
    first = TableRows(header=(), body=(("1", "2"), ("3", "4")), label_cols=1)
    nxt = TableRows(header=(), body=(("1", "2"), ("5", "6")), label_cols=1)
    assert repeated_header_rows(first, nxt) == 0


def test_different_column_counts_are_not_merged() -> None:
    doc = two_part_doc(body_b=body(6, 5, cols=4))
    assert verdict(doc) == Verdict(False, "column count")
    assert len(table_units(doc)) == 2


@pytest.mark.parametrize("between", ["heading", "paragraph"])
def test_a_heading_or_paragraph_between_is_not_merged(between: str) -> None:
    assert verdict(two_part_doc(between=between)) == Verdict(False, "not adjacent")


@pytest.mark.parametrize("between", ["page_header", "furniture"])
def test_page_headers_between_are_furniture(between: str) -> None:
    assert verdict(two_part_doc(between=between)).merge


def _text_before_second_table(doc: DoclingDocument, text: str, box: tuple[float, float, float, float]) -> None:
    """Add a text on page 2 and move it right before the second table in reading order (as Docling emits a cell it
    left out of the grid)."""
    item = doc.add_text(label=DocItemLabel.TEXT, text=text, prov=prov(2, *box))
    doc.body.children.remove(item.get_ref())
    doc.body.children.insert(doc.body.children.index(doc.tables[1].get_ref()), item.get_ref())


@pytest.mark.parametrize(
    ("text", "box", "merged"),
    [
        ("D2111", (52, 380, 80, 392), True),  # a short text inside the part's box: a stray cell
        ("-", (555, 300, 567, 310), True),  # overhanging the box by a few points still counts
        ("D2111", (52, 500, 80, 512), False),  # below the part, outside its box: something between
        ("Licences renewed for the year 2010 are listed", (52, 380, 500, 392), False),  # a sentence, not a cell
    ],
)
def test_stray_cells_inside_a_part_are_part_of_the_table(
    text: str, box: tuple[float, float, float, float], merged: bool
) -> None:
    doc = two_part_doc()
    _text_before_second_table(doc, text, box)
    v = verdict(doc)
    assert v.merge is merged
    if not merged:
        assert v.reason == "not adjacent"


def test_a_captioned_table_at_the_top_of_the_next_page_is_not_merged() -> None:
    """Its caption stands above it (a body item between the parts), below it (linked by Docling) or as a
    "Table 2" text under it: each time a table of its own."""
    above = two_part_doc()
    table_b = above.tables[1]
    cap = above.add_text(label=DocItemLabel.CAPTION, text="Table 2: Fares", prov=prov(2, 50, 30, 560, 45))
    # move the caption before B in reading order, as Docling emits it
    above.body.children.remove(cap.get_ref())
    above.body.children.insert(above.body.children.index(table_b.get_ref()), cap.get_ref())
    table_b.captions.append(cap.get_ref())
    assert verdict(above) == Verdict(False, "not adjacent")

    linked_below = two_part_doc()
    cap = linked_below.add_text(label=DocItemLabel.CAPTION, text="Fares by route", prov=prov(2, 50, 402, 560, 415))
    linked_below.tables[1].captions.append(cap.get_ref())
    assert verdict(linked_below) == Verdict(False, "own caption")

    text_below = two_part_doc()
    text_below.add_text(label=DocItemLabel.TEXT, text="Table 2: Fares by route", prov=prov(2, 50, 402, 560, 415))
    assert verdict(text_below) == Verdict(False, "own caption")
    assert len(table_units(text_below)) == 2


@pytest.mark.parametrize(
    ("text", "box", "rules"),
    [
        ("D2111", (52, 380, 80, 392), ContinuationRules(stray_cell_max_words=0)),
        ("D2111", (52, 380, 80, 392), ContinuationRules(stray_cell_max_chars=4)),
        ("-", (555, 300, 567, 310), ContinuationRules(stray_cell_tolerance_pt=5.0)),  # 7 points past the box
    ],
)
def test_the_stray_cell_bounds_are_the_continuation_rules(
    text: str, box: tuple[float, float, float, float], rules: ContinuationRules
) -> None:
    doc = two_part_doc()
    _text_before_second_table(doc, text, box)
    assert verdict(doc).merge
    assert verdict(doc, rules) == Verdict(False, "not adjacent")


def test_a_longer_stray_cell_joins_the_parts_when_the_bounds_allow_it() -> None:
    doc = two_part_doc()
    _text_before_second_table(doc, "Licences renewed for the year 2010 are listed", (52, 380, 500, 392))
    assert verdict(doc) == Verdict(False, "not adjacent")
    units = UnitParams(continuation_stray_cell_max_words=8, continuation_stray_cell_max_chars=50)
    assert verdict(doc, ContinuationRules(stray_cell_max_words=8, stray_cell_max_chars=50)).merge
    assert len(table_units(doc)) == 2
    assert len(table_units(doc, params=EvidenceParams(units=units))) == 1


def _note_below_first_part(box: tuple[float, float, float, float]) -> DoclingDocument:
    """Table A ends mid-page (at 400 pt of 792); a note of another column lies at ``box`` on its page, earlier in
    reading order."""
    doc = two_part_doc(a_bottom=400)
    doc.add_text(label=DocItemLabel.TEXT, text="A note in the left column of the page.", prov=prov(1, *box))
    note = doc.texts[-1].get_ref()
    doc.body.children.remove(note)
    doc.body.children.insert(1, note)
    return doc


def test_edge_fraction_decides_how_near_the_page_bottom_a_part_ends() -> None:
    doc = _note_below_first_part((50, 600, 280, 640))  # 392 pt above the bottom: beyond 15% of the page
    assert verdict(doc) == Verdict(False, "not at page end")
    assert verdict(doc, ContinuationRules(edge_fraction=0.5)).merge
    assert len(table_units(doc, params=EvidenceParams(units=UnitParams(continuation_edge_fraction=0.5)))) == 1
    assert len(table_units(doc)) == 2


def test_edge_tolerance_decides_what_lies_below_a_part() -> None:
    doc = _note_below_first_part((50, 390, 280, 405))  # reaches 5 points below the part's bottom
    assert verdict(doc) == Verdict(False, "not at page end")
    assert verdict(doc, ContinuationRules(edge_tolerance_pt=5.0)).merge
    units = UnitParams(continuation_edge_tolerance_pt=5.0)
    assert len(table_units(doc, params=EvidenceParams(units=units))) == 1


def test_a_continuations_own_caption_is_found_by_the_units_caption_rules() -> None:
    doc = two_part_doc()
    doc.add_text(label=DocItemLabel.TEXT, text="Table 2: Fares by route", prov=prov(2, 50, 402, 560, 415))
    assert verdict(doc) == Verdict(False, "own caption")  # 2 points below the part
    assert verdict(doc, ContinuationRules(caption_page=PageRules(max_gap_pt=1.0))).merge
    assert len(table_units(doc, params=EvidenceParams(units=UnitParams(caption_max_gap_pt=1.0)))) == 1


def test_parts_must_sit_on_consecutive_pages() -> None:
    assert verdict(two_part_doc(b_page=3)) == Verdict(False, "not next page")


def test_first_part_must_end_the_page() -> None:
    """A ends mid-page and a paragraph (earlier in reading order, other column) lies below it."""
    doc = two_part_doc(a_bottom=400)
    doc.add_text(label=DocItemLabel.TEXT, text="Left column note.", prov=prov(1, 50, 600, 280, 640))
    note = doc.texts[-1].get_ref()
    doc.body.children.remove(note)
    doc.body.children.insert(1, note)
    assert verdict(doc) == Verdict(False, "not at page end")


def test_first_part_ending_mid_page_with_nothing_below_is_the_page_end() -> None:
    assert verdict(two_part_doc(a_bottom=400)).merge


def test_next_part_must_start_the_page() -> None:
    doc = two_part_doc(b_top=300)
    doc.add_text(label=DocItemLabel.TEXT, text="Right column note.", prov=prov(2, 300, 60, 560, 90))
    note = doc.texts[-1].get_ref()
    doc.body.children.remove(note)
    doc.body.children.append(note)  # after B in reading order, but above it on the page
    assert verdict(doc) == Verdict(False, "not at page start")


def test_documents_without_pages_and_spreadsheets_are_never_merged() -> None:
    doc = DoclingDocument(name="html")
    add_table(doc, HEADER, body(0, 3))
    add_table(doc, (), body(3, 3))
    assert verdict(doc) == Verdict(False, "not paginated")
    sheets = two_part_doc()
    sheets.origin = DocumentOrigin(
        mimetype="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        binary_hash=1,
        filename="book.xlsx",
    )
    assert verdict(sheets) == Verdict(False, "not paginated")


# --- one unit per continued table -----------------------------------------------------------------------------------
def three_part_doc() -> DoclingDocument:
    """One table over pages 1-3, a footnote under the last two parts, the header repeated on page 3 only."""
    doc = paged_doc(pages=3, height=PAGE_H)
    doc.add_text(label=DocItemLabel.TEXT, text="The board lists the licences below.", prov=prov(1, 50, 40, 560, 70))
    add_table(
        doc,
        HEADER,
        body(0, 6),
        caption="Table 1: Road service licences",
        caption_prov=prov(1, 50, 80, 560, 95),
        provs=[prov(1, 50, 100, 560, 760)],
    )
    add_table(doc, (), body(6, 5), footnotes=["* renewed in 2010"], provs=[prov(2, 50, 40, 560, 760)])
    t3 = add_table(doc, HEADER, body(11, 4), provs=[prov(3, 50, 40, 560, 300)])
    doc.add_text(label=DocItemLabel.TEXT, text="Source: Transport Licensing Board", prov=prov(3, 50, 310, 560, 325))
    doc.add_text(label=DocItemLabel.TEXT, text="Objections must be lodged.", prov=prov(3, 50, 400, 560, 420))
    assert t3.self_ref == "#/tables/2"
    return doc


def test_a_continued_table_is_one_unit() -> None:
    doc = three_part_doc()
    units = table_units(doc)
    assert len(units) == 1
    (pieces,) = units.values()
    metas = [c.meta for c in pieces]
    assert {m.caption for m in metas} == {"Table 1: Road service licences"}
    assert {tuple(m.page_span) for m in metas} == {(1, 2, 3)}
    tables = [ref for m in metas for ref, role in m.roles.items() if role == "table"]
    assert sorted(set(tables)) == ["#/tables/0", "#/tables/1", "#/tables/2"]
    footnotes = {ref for m in metas for ref, role in m.roles.items() if role == "footnote"}
    assert len(footnotes) == 2  # the linked one under page 2's part, the "Source:" line under page 3's
    assert shown_rows(pieces) == [f"R{i:04d}" for i in range(15)]
    assert "The board lists the licences below." in EvidenceChunker().contextualize(pieces[0])
    # nothing of the table is left to the text chunks
    text_items = {d.self_ref for c in EvidenceChunker().chunk(doc) if c.meta.kind == "text" for d in c.meta.doc_items}
    assert not text_items & {"#/tables/1", "#/tables/2", *footnotes}


def test_unsplit_unit_holds_every_table_item() -> None:
    doc = two_part_doc(body_a=body(0, 2), body_b=body(2, 2))
    (pieces,) = table_units(doc, max_tokens=512).values()
    assert len(pieces) == 1
    assert [d.self_ref for d in pieces[0].meta.doc_items if d.label == DocItemLabel.TABLE] == [
        "#/tables/0",
        "#/tables/1",
    ]


def test_split_pieces_hold_the_parts_whose_rows_they_show() -> None:
    doc = three_part_doc()
    (pieces,) = table_units(doc, max_tokens=96).values()
    assert len(pieces) > 3
    for c in pieces:
        start, end = c.meta.rows
        shown = {int(r[1:]) for r in shown_rows([c])}
        held = {ref for ref, role in c.meta.roles.items() if role == "table"}
        expect = {f"#/tables/{0 if r < 6 else 1 if r < 11 else 2}" for r in shown}
        assert held == expect, (start, end, shown)


def test_setting_off_keeps_the_parts_apart() -> None:
    doc = three_part_doc()
    assert len(table_units(doc, merge_continued_tables=False)) == 3
    assert len(table_units(doc)) == 1


def test_unit_id_of_a_merged_table_is_its_first_part_s() -> None:
    doc = three_part_doc()
    merged = set(table_units(doc))
    apart = list(table_units(doc, merge_continued_tables=False))
    assert merged == {apart[0]}


# --- real documents -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("rel", sorted(LABELS["fixtures"]))
def test_hand_checked_fixture_pairs(rel: str, shared_dir: Path) -> None:
    """Every consecutive pair of unit tables of the fixture is listed, and the verdict matches the hand check."""
    path = shared_dir / "fixtures" / rel
    if not path.is_file():
        pytest.skip(f"{rel} absent")
    doc = DoclingDocument.load_from_json(path)
    index = build_index(doc)
    tables = unit_tables(doc, index)
    _runs, verdicts = find_runs(doc, index, tables)
    got = {(index.items[a].self_ref, index.items[b].self_ref): v for a, b, v in verdicts}
    labels = LABELS["fixtures"][rel]
    if rel.endswith("cxi_109.json"):
        assert {(e["first"], e["next"]) for e in labels} == set(got), "the hand-checked list must cover every pair"
    for entry in labels:
        v = got[(entry["first"], entry["next"])]
        assert (v.merge, v.reason) == (entry["merge"], entry["rule"]), entry["why"]


def test_gazette_runs_become_units(shared_dir: Path) -> None:
    path = shared_dir / "fixtures" / "more" / "kenya_gazette_cxi_109.json"
    if not path.is_file():
        pytest.skip("gazette absent")
    doc = DoclingDocument.load_from_json(path)
    units = table_units(doc)
    parts = sorted(
        tuple(sorted({r for c in pieces for r, role in c.meta.roles.items() if role == "table"}, key=_num))
        for pieces in units.values()
    )
    assert ("#/tables/2", "#/tables/3") in parts
    assert tuple(f"#/tables/{k}" for k in range(7, 14)) in parts
    assert len(units) == 15 - 1 - 6
    run = next(p for p in units.values() if len({r for c in p for r in c.meta.roles if "tables/13" in r}))
    assert run[0].meta.page_span == list(range(7, 14))
    expected = sum(len(table_rows(doc.tables[k], doc).body) for k in range(7, 14))
    assert run[-1].meta.rows[1] == expected


def _num(ref: str) -> int:
    return int(ref.rsplit("/", 1)[1])


def test_docling_core_cross_page_table_stays_one_unit(shared_dir: Path) -> None:
    """docling-core's cross-page fixture: one TableItem with provenance on pages 1 and 2 — nothing to join, one
    unit spanning both pages."""
    path = shared_dir / "fixtures" / "docling-core" / "doc__cross_page_table__input.json"
    if not path.is_file():
        pytest.skip("fixture absent")
    doc = DoclingDocument.load_from_json(path)
    (pieces,) = table_units(doc).values()
    assert pieces[0].meta.page_span == [1, 2]
    assert [d.self_ref for d in pieces[0].meta.doc_items] == ["#/tables/0"]


# --- the property ---------------------------------------------------------------------------------------------------
@st.composite
def split_tables(draw: st.DrawFn) -> tuple[DoclingDocument, list[str]]:
    """Up to 5 table parts on pages 1..n, each a page apart or further, of 2 or 3 columns, header repeated or
    not, some with a heading between: a mix of parts that join and parts that do not. Row ids are unique."""
    n = draw(st.integers(2, 5))
    doc = paged_doc(pages=2 * n + 1, height=PAGE_H)
    page, start = 1, 0
    ids: list[str] = []
    cols = draw(st.sampled_from([2, 3]))
    header = [["Licence", "Holder", "Route"][:cols]]
    for k in range(n):
        if k:
            page += draw(st.sampled_from([1, 1, 1, 2]))
            if draw(st.booleans()):
                cols = draw(st.sampled_from([2, 3]))
                header = [["Licence", "Holder", "Route"][:cols]]
            if draw(st.integers(0, 4)) == 0:
                doc.add_heading(text=f"Notice {k}", prov=prov(page, 50, 20, 560, 35))
        rows = body(start, draw(st.integers(1, 8)), cols)
        start += len(rows)
        ids += [r[0] for r in rows]
        repeat = k == 0 or draw(st.booleans())
        doc.add_table(data=table_data(header if repeat else (), rows), prov=prov(page, 50, 40, 560, 760))
    return doc, ids


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=split_tables(), max_tokens=st.sampled_from([64, 128, 512]))
def test_merging_never_loses_duplicates_or_reorders_a_row(
    case: tuple[DoclingDocument, list[str]], max_tokens: int
) -> None:
    doc, ids = case
    units = table_units(doc, max_tokens=max_tokens)
    shown = [r for pieces in units.values() for r in shown_rows(pieces)]
    assert shown == ids
    for pieces in units.values():
        ranges = [c.meta.rows for c in pieces]
        assert ranges[0][0] == 0 and all(a[1] == b[0] for a, b in itertools.pairwise(ranges))


def test_inspector_draws_a_continued_table_across_its_pages() -> None:
    from docling_evidence.cli.inspect_report import render_report

    doc = three_part_doc()
    chunker = EvidenceChunker()
    page = render_report(doc, list(chunker.chunk(doc)), chunker)
    card = page[page.index("<h2>Table units") : page.index("<h2>All chunks")]
    assert "continued table: 3 parts" in card
    assert [f"part {k}/3" in card for k in (1, 2, 3)] == [True, True, True]
    assert [f"<figcaption>page {p}</figcaption>" in card for p in (1, 2, 3)] == [True, True, True]
    apart = render_report(doc, list(EvidenceChunker(merge_continued_tables=False).chunk(doc)), chunker)
    assert "continued table" not in apart and "part 1/3" not in apart


def test_fixture_count_script_counts_joined_parts(tmp_path: Path) -> None:
    """``docling_evidence_bench.tools.continued_tables`` on a folder holding the three-page table: 2 parts joined,
    1 unit instead of 3, the Markdown table written between the page's markers and nothing else of the page changed."""
    from docling_evidence_bench.tools import continued_tables as module

    fixtures = tmp_path / "fixtures"
    fixtures.mkdir()
    three_part_doc().save_as_json(fixtures / "three.json")
    page = tmp_path / "page.md"
    page.write_text(f"intro\n{module.START}\nold\n{module.END}\noutro\n", encoding="utf-8")
    out = tmp_path / "results" / "counts.json"
    assert module.main(["--fixtures", str(fixtures), "--json", str(out), "--markdown", str(page)]) == 0
    (row,) = json.loads(out.read_text())["fixtures"]
    assert (row["parts_joined"], row["units_merged"], row["units_apart"]) == (2, 1, 3)
    assert row["runs"][0]["pages"] == [1, 2, 3] and row["runs"][0]["header_rows_dropped"] == 1
    text = page.read_text()
    assert text.startswith("intro\n") and text.endswith("outro\n") and "old" not in text
    assert "| `three.json` | 3 | 2 | 2 | 3: 1–3 | 1 / 3 |" in text
    assert row["output_changed"] is True


def test_a_part_holding_only_the_repeated_header_is_still_listed() -> None:
    """Page 2 holds only the repeated header row (then page 3 the rows): the part adds no row but stays in a
    piece's doc_items, so every TableItem of the unit is cited somewhere and none is lost to the text chunks."""
    doc = paged_doc(pages=3, height=PAGE_H)
    add_table(doc, HEADER, body(0, 3), provs=[prov(1, 50, 100, 560, 760)])
    add_table(doc, HEADER, [], provs=[prov(2, 50, 40, 560, 760)])
    add_table(doc, (), body(3, 3), provs=[prov(3, 50, 40, 560, 300)])
    (pieces,) = table_units(doc).values()
    held = {ref for c in pieces for ref, role in c.meta.roles.items() if role == "table"}
    assert held == {"#/tables/0", "#/tables/1", "#/tables/2"}
    assert shown_rows(pieces) == [f"R{i:04d}" for i in range(6)]
