"""References to a table by its place ("the following table", "the table above") name it as "Table 3" would."""

from __future__ import annotations

from docling_core.types.doc import DocItemLabel, DoclingDocument
from docs_builder import add_table, paged_doc, prov, table_data
from hypothesis import given, settings
from hypothesis import strategies as st

from docling_evidence import EvidenceChunker, EvidenceParams, UnitParams
from docling_evidence.units.deixis import pointing_mentions


def _units(doc: DoclingDocument, **kw: object) -> list:
    return [c for c in EvidenceChunker(**kw).chunk(doc) if c.meta.kind == "table"]


def test_pointing_mentions_find_forward_and_backward_references_only() -> None:
    text = "The following table sets forth X. See the table below; the amounts in the table above exclude Y."
    assert [d for d, _a, _b in pointing_mentions(text)] == [1, 1, -1]
    assert [text[a:b] for _d, a, b in pointing_mentions(text)] == ["following table", "table below", "table above"]
    assert [d for d, _a, _b in pointing_mentions("As shown in the preceding tables and the next table.")] == [-1, 1]
    for text in ("A table of contents.", "Two tablespoons below.", "The table shows sales.", "Table 3 above"):
        assert pointing_mentions(text) == []


def _far_paragraph_doc(text: str) -> DoclingDocument:
    """A table at the top of a page and, 500 pt below it (beyond the 300 pt layout window), ``text``."""
    doc = paged_doc(1)
    doc.add_text(label=DocItemLabel.TEXT, text="Revenue by year was as follows:", prov=prov(1, 50, 40, 560, 50))
    add_table(doc, [["Year", "Revenue"]], [["2019", "10"], ["2020", "12"]], provs=[prov(1, 50, 60, 560, 120)])
    doc.add_text(label=DocItemLabel.TEXT, text="Our offices moved in spring.", prov=prov(1, 50, 300, 560, 310))
    doc.add_text(label=DocItemLabel.TEXT, text=text, prov=prov(1, 50, 620, 560, 640))
    return doc


def test_a_paragraph_pointing_back_at_the_table_is_its_context_beyond_the_layout_window() -> None:
    pointing = "The amounts in the table above exclude deferred items."
    (unit,) = _units(_far_paragraph_doc(pointing))
    assert pointing in unit.text
    assert unit.meta.roles["#/texts/2"] == "context"
    # the same words without the reference are too far and share nothing with the table: not its context (a
    # one-piece unit may still show them as a section peer, role "text")
    (unit,) = _units(_far_paragraph_doc("The amounts exclude deferred items."))
    assert unit.meta.roles.get("#/texts/2") != "context"
    assert "#/texts/2" not in unit.meta.context_spans


def test_pointing_reach_bounds_how_many_paragraphs_a_reference_by_place_crosses() -> None:
    pointing = "The amounts in the table above exclude deferred items."
    doc = _far_paragraph_doc(pointing)  # one paragraph between the table and the reference
    for reach, named in ((8, True), (2, True), (1, False), (0, False)):
        (unit,) = _units(doc, params=EvidenceParams(units=UnitParams(pointing_reach=reach)))
        assert (unit.meta.roles.get("#/texts/2") == "context") is named, reach


def test_a_lead_in_points_at_the_next_table_across_its_title_heading() -> None:
    doc = paged_doc(1)
    lead_in = "The following table sets forth our obligations by maturity date:"
    doc.add_text(label=DocItemLabel.TEXT, text=lead_in, prov=prov(1, 50, 40, 560, 50))
    doc.add_heading(text="Contractual Obligations", prov=prov(1, 50, 60, 560, 70))
    add_table(doc, [["Item", "Total"]], [["Debt", "373"], ["Leases", "41"]], provs=[prov(1, 50, 80, 560, 140)])
    (unit,) = _units(doc)
    # a section header between a paragraph and the table keeps it out of the layout window; the reference does not
    assert lead_in in unit.text


def test_a_reference_names_only_the_table_it_points_at() -> None:
    doc = DoclingDocument(name="d")
    doc.add_heading(text="Results")
    doc.add_table(data=table_data([["Year", "Revenue"]], [["2019", "10"], ["2020", "12"]]))
    doc.add_text(label=DocItemLabel.TEXT, text="The table above excludes 2018, when revenue was 9.")
    doc.add_table(data=table_data([["Year", "Costs"]], [["2019", "4"], ["2020", "5"]]))
    first, second = _units(doc)
    assert "The table above excludes 2018" in first.text
    # right before the second table and in its section, but about the first one
    assert "The table above excludes 2018" not in second.text


def test_a_forward_reference_does_not_reach_past_a_heading_and_another_texts_table() -> None:
    doc = DoclingDocument(name="d")
    doc.add_heading(text="Excerpt 1")
    doc.add_table(data=table_data([["Year", "Revenue"]], [["2019", "10"], ["2020", "12"]]))
    trailing = "The following table is in the appendix of the filing."
    doc.add_text(label=DocItemLabel.TEXT, text=trailing)
    doc.add_heading(text="Excerpt 2")
    doc.add_text(label=DocItemLabel.TEXT, text="Costs were as follows:")
    doc.add_table(data=table_data([["Year", "Costs"]], [["2019", "4"], ["2020", "5"]]))
    first, second = _units(doc)
    assert trailing not in second.text  # a paragraph of another section lies between
    assert trailing in first.text  # it is still a paragraph of the first table's section


_PIECES = {
    "table": "",
    "plain": "Revenue rose in 2020 and costs fell.",
    "back": "The table above shows revenue for 2020.",
    "forward": "The following table shows revenue for 2020.",
}


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(sorted(_PIECES)), max_size=7))
def test_a_pointing_paragraph_is_context_only_on_the_side_it_points_to(middle: list[str]) -> None:
    """Between two tables, with a table in reach on each side: a paragraph saying "the table above" is never the
    context of a table after it, nor "the following table" of one before it."""
    doc = DoclingDocument(name="d")
    for n, kind in enumerate(["table", *middle, "table"]):
        if kind == "table":
            doc.add_table(data=table_data([["Year", f"Revenue {n}"]], [["2019", "10"], ["2020", "12"]]))
        else:
            doc.add_text(label=DocItemLabel.TEXT, text=f"{_PIECES[kind]} ({n})")
    order = {item.self_ref: pos for pos, (item, _level) in enumerate(doc.iterate_items())}
    for unit in _units(doc, max_tokens=8192):
        table = next(ref for ref, role in unit.meta.roles.items() if role == "table")
        for ref in unit.meta.context_spans:
            text = doc.texts[int(ref.rsplit("/", 1)[1])].text
            if text.startswith(_PIECES["back"]):
                assert order[ref] > order[table]
            elif text.startswith(_PIECES["forward"]):
                assert order[ref] < order[table]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(["the ", "TABLE", "tables ", "Table", "following ", "above", " below", "ŧ", "İ", "x"]),
        max_size=10,
    )
)
def test_the_table_word_test_never_hides_a_reference(parts: list[str]) -> None:
    # pointing_mentions skips a text without "table" before running its patterns: it finds what they find
    from docling_evidence.units.deixis import _BACKWARD, _FORWARD

    text = "".join(parts)
    expected = sorted(
        [(1, m.start(), m.end()) for m in _FORWARD.finditer(text)]
        + [(-1, m.start(), m.end()) for m in _BACKWARD.finditer(text)],
        key=lambda m: (m[1], m[0]),
    )
    assert pointing_mentions(text) == expected
