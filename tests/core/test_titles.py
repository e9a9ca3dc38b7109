"""Tables titled by the heading right above them ("SCHEDULE") are named by references to that title."""

from __future__ import annotations

from docling_core.types.doc import DocItemLabel, DoclingDocument
from docs_builder import add_table, paged_doc, prov

from docling_evidence import EvidenceChunker, EvidenceParams, UnitParams
from docling_evidence.document.index import build_index
from docling_evidence.units.titles import TitleRules, table_title, title_label, title_mentions, title_set


def _notice(doc: DoclingDocument, page: int, top: float, body: str, title: str = "SCHEDULE") -> None:
    doc.add_heading(text="APPOINTMENT", prov=prov(page, 50, top, 290, top + 10))
    doc.add_text(label=DocItemLabel.TEXT, text=body, prov=prov(page, 50, top + 15, 290, top + 60))
    doc.add_heading(text=title, prov=prov(page, 50, top + 65, 290, top + 75))
    add_table(
        doc,
        [["Name of Member", "Designation"]],
        [["Charles Wanje", "Chairperson"], ["Amina Said", "Member"]],
        provs=[prov(page, 50, top + 80, 290, top + 160)],
    )


def _context(doc: DoclingDocument, units: UnitParams | None = None) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for c in EvidenceChunker(params=EvidenceParams(units=units or UnitParams())).chunk(doc):
        if c.meta.kind == "table":
            table = next(r for r, role in c.meta.roles.items() if role == "table")
            out.setdefault(table, []).extend(
                it.text for it in c.meta.doc_items if c.meta.roles[it.self_ref] == "context"
            )
    return out


def test_the_heading_right_above_a_table_is_its_title() -> None:
    doc = paged_doc(1)
    _notice(doc, 1, 40, "The Governor appoints the persons named in the Schedule.")
    index = build_index(doc)
    assert table_title(index, index.order["#/tables/0"]) == "SCHEDULE"
    plain = paged_doc(1)
    plain.add_heading(text="4 Experiments and results on the three benchmarks", prov=prov(1, 50, 40, 290, 50))
    add_table(plain, [["a", "b"]], [["1", "2"]], provs=[prov(1, 50, 60, 290, 120)])
    plain_index = build_index(plain)
    assert table_title(plain_index, plain_index.order["#/tables/0"]) is None  # a section title, too long


def test_a_reference_is_the_title_capitalised_and_not_part_of_a_longer_name() -> None:
    pattern = title_set(["SCHEDULE", "First  Schedule"])
    assert [m[0] for m in title_mentions("the place specified in the First Schedule, as a Customs Area", pattern)] == [
        title_label("FIRST SCHEDULE")
    ]
    assert [m[0] for m in title_mentions("named in the first column of the Schedule as members", pattern)] == [
        title_label("SCHEDULE")
    ]
    assert title_mentions("a schedule of payments follows the schedule", pattern) == []  # not capitalised
    assert title_mentions("Clause 1 of Part III of the Schedule of Tariffs 2023", pattern) == []  # a longer name
    assert title_mentions("named in the Schedule.", title_set([])) == []
    assert [m[0] for m in title_mentions("as set out in the Schedule.", pattern)] == [title_label("SCHEDULE")]
    mentions = title_mentions("see the First Schedule; the Schedule, and The Schedule To Come", pattern)
    assert [(m[0], m[1], m[2]) for m in mentions] == [
        (title_label("FIRST SCHEDULE"), 4, 22),
        (title_label("SCHEDULE"), 24, 36),
    ]


def test_a_notice_naming_its_table_by_title_is_context_across_the_title_heading() -> None:
    """The notice paragraph is above the "SCHEDULE" heading, a section boundary for layout candidates; naming the
    table by its title makes it context. A later notice's own "SCHEDULE" table, pages away, does not take it."""
    body = "The Governor appoints the persons named in the first column of the Schedule as members of the Board."
    doc = paged_doc(3)
    _notice(doc, 1, 40, body)
    _notice(doc, 3, 40, "The Minister appoints the persons listed in the Schedule as inspectors.")
    context = _context(doc)
    assert body in context["#/tables/0"]
    assert body not in context["#/tables/1"]
    assert "The Minister appoints the persons listed in the Schedule as inspectors." in context["#/tables/1"]


def test_the_longest_title_and_subtitle_are_the_title_rules() -> None:
    doc = paged_doc(1)
    doc.add_heading(text="SCHEDULE", prov=prov(1, 50, 40, 290, 50))
    subtitle = "Appointment and limits of a Customs Area."  # 7 words
    doc.add_text(label=DocItemLabel.TEXT, text=subtitle, prov=prov(1, 50, 55, 290, 65))
    add_table(doc, [["a", "b"]], [["1", "2"]], provs=[prov(1, 50, 70, 290, 120)])
    index = build_index(doc)
    t_idx = index.order["#/tables/0"]
    assert table_title(index, t_idx) == "SCHEDULE"
    assert table_title(index, t_idx, TitleRules(subtitle_max_words=6)) is None
    plain = paged_doc(1)
    plain.add_heading(text="4 Experiments and results on the three benchmarks", prov=prov(1, 50, 40, 290, 50))
    add_table(plain, [["a", "b"]], [["1", "2"]], provs=[prov(1, 50, 60, 290, 120)])
    plain_index = build_index(plain)
    long_title = TitleRules(max_words=8)
    assert table_title(plain_index, plain_index.order["#/tables/0"], long_title) == (
        "4 Experiments and results on the three benchmarks"
    )
    assert table_title(index, t_idx, TitleRules(max_words=1)) == "SCHEDULE"


def test_a_reference_is_looked_for_up_to_the_longest_title() -> None:
    pattern = title_set(["First Schedule"])
    text = "the place specified in the First Schedule, as a Customs Area"
    assert [m[0] for m in title_mentions(text, pattern)] == [title_label("FIRST SCHEDULE")]
    assert title_mentions(text, pattern, TitleRules(max_words=1)) == []


def test_title_reach_bounds_how_far_a_reference_by_title_names_its_table() -> None:
    body = "The Governor appoints the persons named in the first column of the Schedule as members of the Board."
    doc = paged_doc(1)
    _notice(doc, 1, 40, body)
    assert body in _context(doc)["#/tables/0"]
    assert body not in _context(doc, UnitParams(title_reach=0))["#/tables/0"]
