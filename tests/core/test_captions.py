"""Caption rules: Docling refs, nearby label text, adjacent page, header row; figure captions never."""

from __future__ import annotations

import pytest
from docling_core.types.doc import DocItemLabel, DoclingDocument
from docs_builder import add_table, paged_doc, prov, table_data
from hypothesis import given, settings
from hypothesis import strategies as st

from docling_evidence import EvidenceChunker, EvidenceParams, UnitParams
from docling_evidence.units.captions import looks_like_caption, mentions_table, table_label


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("Table 3: Revenue by segment", "3"),
        ("TABLE III", "III"),
        ("Tab. 2 Results", "2"),
        ("Table A.1 Extra results", "A.1"),
        ("Table S4", "S4"),
        ("Table 2-1   FUNCTION_USAGE view", "2-1"),
        ("표 3 비교", "3"),
        ("[표 1] 감염병예방법 비교", "1"),
    ],
)
def test_caption_labels_are_recognised(text: str, label: str) -> None:
    assert table_label(text) == label
    assert looks_like_caption(text)


@pytest.mark.parametrize(
    "text",
    ["Table 3 shows revenue by segment.", "Figure 2: Revenue", "Tablet 3 sales", "Table civil rights", "Revenue grew"],
)
def test_sentences_and_figure_captions_are_not_table_captions(text: str) -> None:
    assert not looks_like_caption(text)


def test_mentions_match_the_table_number_only() -> None:
    assert mentions_table("As Table 3 shows, revenue grew.", "3")
    assert mentions_table("Results are presented in Table. 3.", "3")
    assert not mentions_table("As Table 31 shows", "3")
    assert not mentions_table("see Table 3.1", "3")


def _units(doc: DoclingDocument, **kw: object) -> list:
    chunker = EvidenceChunker(**kw)
    return [c for c in chunker.chunk(doc) if c.meta.kind == "table"]


def test_docling_ref_caption_travels_with_the_table_not_the_previous_chunk() -> None:
    doc = DoclingDocument(name="d")
    doc.add_text(label=DocItemLabel.TEXT, text="An unrelated opening paragraph.")
    add_table(doc, [["Year", "Revenue"]], [["2019", "10"], ["2020", "12"]], caption="Table 1: Revenue in USD")
    chunker = EvidenceChunker()
    chunks = list(chunker.chunk(doc))
    table_chunks = [c for c in chunks if c.meta.kind == "table"]
    assert len(table_chunks) == 1
    unit = table_chunks[0]
    assert unit.meta.caption_source == "docling_ref"
    assert unit.text.startswith("Table 1: Revenue in USD")
    cap_ref = doc.tables[0].captions[0].cref
    assert unit.meta.roles[cap_ref] == "caption"
    for c in chunks:
        if c.meta.kind == "text":
            assert cap_ref not in {it.self_ref for it in c.meta.doc_items}


def test_nearby_caption_text_is_linked_by_layout_and_figure_caption_is_not() -> None:
    doc = paged_doc(1)
    doc.add_text(label=DocItemLabel.TEXT, text="Figure 1: A chart of revenue", prov=prov(1, 50, 60, 500, 80))
    doc.add_text(label=DocItemLabel.TEXT, text="Table 2: Costs by region", prov=prov(1, 50, 90, 500, 105))
    doc.add_table(data=table_data([["Region", "Cost"]], [["EU", "5"]]), prov=prov(1, 50, 110, 500, 200))
    (unit,) = _units(doc)
    assert unit.meta.caption_source == "text_nearby"
    assert unit.meta.caption == "Table 2: Costs by region"


def test_caption_in_another_column_is_not_taken() -> None:
    doc = paged_doc(1)
    doc.add_text(label=DocItemLabel.TEXT, text="Table 2: Costs by region", prov=prov(1, 320, 90, 560, 105))
    doc.add_table(data=table_data([["Region", "Cost"]], [["EU", "5"]]), prov=prov(1, 50, 110, 290, 200))
    (unit,) = _units(doc)
    assert unit.meta.caption_source != "text_nearby"


def test_caption_by_reading_order_without_layout() -> None:
    doc = DoclingDocument(name="d")
    doc.add_text(label=DocItemLabel.TEXT, text="TABLE IV")
    doc.add_table(data=table_data([["A", "B"]], [["1", "2"]]))
    (unit,) = _units(doc)
    assert (unit.meta.caption_source, unit.meta.caption) == ("text_nearby", "TABLE IV")


def _captioned_by(*above: str) -> DoclingDocument:
    doc = DoclingDocument(name="d")
    doc.add_text(label=DocItemLabel.TEXT, text="The optimisation is summarised below.")
    for text in above:
        doc.add_text(label=DocItemLabel.TEXT, text=text)
    doc.add_table(data=table_data([["Entry", "Yield"]], [["1", "45%"], ["2", "71%"]]))
    doc.add_text(label=DocItemLabel.TEXT, text="Yields rose with the second reagent.")
    return doc


def test_a_label_alone_takes_the_title_below_it_without_layout() -> None:
    doc = _captioned_by("Table 1", "Optimization of the hydrofluorination of hydrazone 13a")
    units = _units(doc)
    assert units[0].meta.caption == "Table 1 Optimization of the hydrofluorination of hydrazone 13a"
    assert all("Optimization of the" not in c.text for c in EvidenceChunker().chunk(doc) if c.meta.kind == "text")


def test_a_caption_broken_at_italic_runs_is_joined_down_to_the_table() -> None:
    units = _units(_captioned_by("Table 8. In vivo Oral Activity in the", "P. berghei", "Mouse Model Peter's Test"))
    assert units[0].meta.caption == "Table 8. In vivo Oral Activity in the P. berghei Mouse Model Peter's Test"


def test_a_paragraph_or_another_caption_between_is_not_the_rest_of_a_caption() -> None:
    long = "We screened " + "many further conditions and reagents " * 6 + "before the best one."
    assert _units(_captioned_by("Table 1: Yields", long))[0].meta.caption == "Table 1: Yields"
    far = _captioned_by("Table 1: Yields", "of the hydrazones", "Table 2: Costs", "per gram")
    assert _units(far)[0].meta.caption == "Table 2: Costs per gram"
    runs = _captioned_by("Table 1: Yields", "of", "the", "hydrazones", "by entry")  # four texts: too many
    assert _units(runs)[0].meta.caption is None


def test_the_caption_run_follows_params_units() -> None:
    doc = _captioned_by("Table 1", "Optimization of the hydrofluorination of hydrazone 13a")
    none = EvidenceChunker(params=EvidenceParams(units=UnitParams(caption_run_max_items=0)))
    assert next(c for c in none.chunk(doc) if c.meta.kind == "table").meta.caption == "Table 1"
    few = EvidenceChunker(params=EvidenceParams(units=UnitParams(caption_run_max_words=3)))
    assert next(c for c in few.chunk(doc) if c.meta.kind == "table").meta.caption == "Table 1"
    near = EvidenceChunker(params=EvidenceParams(units=UnitParams(caption_max_steps=1, caption_run_max_items=0)))
    assert next(c for c in near.chunk(doc) if c.meta.kind == "table").meta.caption is None


def test_caption_not_taken_across_a_heading() -> None:
    doc = DoclingDocument(name="d")
    doc.add_text(label=DocItemLabel.TEXT, text="Table 1: Belongs elsewhere")
    doc.add_heading(text="New section")
    doc.add_table(data=table_data([["A", "B"]], [["1", "2"]]))
    (unit,) = _units(doc)
    assert unit.meta.caption is None


def test_caption_on_the_adjacent_page_when_table_opens_its_page() -> None:
    doc = paged_doc(2)
    doc.add_text(label=DocItemLabel.TEXT, text="Body text on page one.", prov=prov(1, 50, 100, 500, 300))
    doc.add_text(label=DocItemLabel.TEXT, text="Table 5: Carried over", prov=prov(1, 50, 740, 500, 760))
    doc.add_table(data=table_data([["A", "B"]], [["1", "2"]]), prov=prov(2, 50, 60, 500, 200))
    (unit,) = _units(doc)
    assert (unit.meta.caption_source, unit.meta.caption) == ("adjacent_page", "Table 5: Carried over")
    assert unit.meta.page_span == [1, 2]


def _units_with(doc: DoclingDocument, **units: object) -> list:
    return _units(doc, params=EvidenceParams(units=UnitParams(**units)))


def test_caption_max_gap_pt_bounds_how_far_a_caption_found_by_layout_lies() -> None:
    doc = paged_doc(1)
    doc.add_text(label=DocItemLabel.TEXT, text="Table 2: Costs by region", prov=prov(1, 50, 40, 500, 50))
    doc.add_table(data=table_data([["Region", "Cost"]], [["EU", "5"]]), prov=prov(1, 50, 110, 500, 200))  # 60 pt
    (unit,) = _units(doc)
    assert (unit.meta.caption_source, unit.meta.caption) == ("text_nearby", "Table 2: Costs by region")
    (unit,) = _units_with(doc, caption_max_gap_pt=50.0)
    assert unit.meta.caption is None


def test_caption_page_edge_items_bounds_the_search_on_the_adjacent_page() -> None:
    doc = paged_doc(2)
    doc.add_text(label=DocItemLabel.TEXT, text="Body text on page one.", prov=prov(1, 50, 100, 500, 300))
    doc.add_text(label=DocItemLabel.TEXT, text="Table 5: Carried over", prov=prov(1, 50, 700, 500, 715))
    doc.add_text(label=DocItemLabel.TEXT, text="Notes of the editor.", prov=prov(1, 50, 730, 500, 740))
    doc.add_text(label=DocItemLabel.TEXT, text="More notes of the editor.", prov=prov(1, 50, 750, 500, 760))
    doc.add_table(data=table_data([["A", "B"]], [["1", "2"]]), prov=prov(2, 50, 60, 500, 200))
    (unit,) = _units(doc)  # the third item from the page's end
    assert (unit.meta.caption_source, unit.meta.caption) == ("adjacent_page", "Table 5: Carried over")
    (unit,) = _units_with(doc, caption_page_edge_items=2)
    assert unit.meta.caption is None
    (unit,) = _units_with(doc, caption_page_edge_items=0)
    assert unit.meta.caption is None


def test_full_width_first_header_row_becomes_the_caption() -> None:
    doc = DoclingDocument(name="d")
    data = table_data([["Summary of quarterly results"] * 3, ["Quarter", "Sales", "Cost"]], [["Q1", "1", "2"]])
    doc.add_table(data=data)
    (unit,) = _units(doc)
    assert unit.meta.caption_source == "header_row"
    assert unit.meta.caption == "Summary of quarterly results"
    assert unit.text.count("Summary of quarterly results") == 1


def test_each_caption_goes_to_one_table() -> None:
    doc = DoclingDocument(name="d")
    doc.add_text(label=DocItemLabel.TEXT, text="Table 1: First")
    doc.add_table(data=table_data([["A", "B"]], [["1", "2"]]))
    doc.add_table(data=table_data([["C", "D"]], [["3", "4"]]))
    units = _units(doc)
    captions = [u.meta.caption for u in units]
    assert captions.count("Table 1: First") == 1


def test_caption_can_be_switched_off_without_losing_it() -> None:
    doc = DoclingDocument(name="d")
    add_table(doc, [["A", "B"]], [["1", "2"]], caption="Table 1: Kept somewhere")
    chunker = EvidenceChunker(params=EvidenceParams(units=UnitParams(with_caption=False)))
    chunks = list(chunker.chunk(doc))
    assert all(c.meta.caption is None for c in chunks)
    assert any("Table 1: Kept somewhere" in chunker.contextualize(c) for c in chunks)


_CAPTION_ALPHABET = st.sampled_from(
    [*"tablTABLe .:;)(\n12I", "Table 3: ", "tab. 2", "TBL. 4", "표 1", " Tables 2 and 3", "ﬅ", "İ", "K", "ſ"]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_CAPTION_ALPHABET, max_size=24).map("".join))
def test_the_table_word_test_never_hides_a_match(text: str) -> None:
    # table_mentions and embedded_caption skip texts without a table word before running their patterns: whatever
    # the text, they find what the patterns alone find
    from docling_evidence.units.captions import _EMBEDDED_START, _MENTION, embedded_caption, table_mentions

    assert bool(table_mentions(text)) == bool(_MENTION.search(text))
    if embedded_caption(text) is not None or _EMBEDDED_START.search(text) is None:
        return
    assert all(not looks_like_caption(text[m.end() :].strip()) for m in _EMBEDDED_START.finditer(text))
