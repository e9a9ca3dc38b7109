"""Sentence-level context: sentence spans, what counts as explaining a table, spans in the metadata."""

from __future__ import annotations

import itertools
import re

from docling_core.types.doc import DocItemLabel, DoclingDocument
from docs_builder import add_table, paged_doc, prov, table_data
from hypothesis import given, settings
from hypothesis import strategies as st

from docling_evidence import EvidenceChunker
from docling_evidence.text.sentences import _word_before, sentence_spans
from docling_evidence.units.captions import table_mentions

_TEXT = st.text(alphabet=st.sampled_from(list("ab Tt.!?:,19 \n표。e.g")), max_size=80)


@given(_TEXT)
def test_sentence_spans_index_the_text_exactly_and_cover_every_non_blank_character(text: str) -> None:
    spans = sentence_spans(text)
    assert all(0 <= a < b <= len(text) for a, b in spans)
    assert all(b1 <= a2 for (_a1, b1), (a2, _b2) in itertools.pairwise(spans))
    assert all(text[a:b] == text[a:b].strip() for a, b in spans)
    covered = "".join(text[a:b] for a, b in spans)
    assert "".join(covered.split()) == "".join(text.split())


def test_sentences_do_not_end_at_abbreviations_labels_or_initials() -> None:
    text = "Results are in Table. 1. It is, e.g. for J. Smith, 3.5 points. Fig. 2 agrees"
    assert [text[a:b] for a, b in sentence_spans(text)] == [
        "Results are in Table. 1.",
        "It is, e.g. for J. Smith, 3.5 points.",
        "Fig. 2 agrees",
    ]


def test_table_mentions_find_every_label_and_no_figure() -> None:
    assert [m[0] for m in table_mentions("as Tables 2 and 3 show, unlike Figure 4")] == ["2", "3"]
    assert [m[0] for m in table_mentions("see Table 3.1 and Tab. 4a")] == ["3.1", "4A"]


def _long_paragraph_doc(filler_sentences: int) -> DoclingDocument:
    doc = paged_doc(1)
    filler = " ".join(f"Unrelated remark {'x' * (k + 1)} about weather and lunch." for k in range(filler_sentences))
    text = f"{filler} Table 1 shows revenue by year. Revenue rose to 12 in 2020. {filler}"
    doc.add_text(label=DocItemLabel.TEXT, text=text, prov=prov(1, 50, 100, 290, 300))
    add_table(
        doc,
        [["Year", "Revenue"]],
        [["2019", "10"], ["2020", "12"]],
        caption="Table 1: Revenue",
        caption_prov=prov(1, 50, 310, 290, 320),
        provs=[prov(1, 50, 330, 290, 430)],
    )
    doc.add_text(label=DocItemLabel.TEXT, text="Table 2 lists the staff.", prov=prov(1, 50, 440, 290, 450))
    add_table(
        doc, [["Name", "Role"]], [["Ann", "CEO"]], caption="Table 2: Staff", caption_prov=prov(1, 50, 460, 290, 470),
        provs=[prov(1, 50, 480, 290, 520)],
    )  # fmt: skip
    return doc


def _units(doc: DoclingDocument, **kw: object) -> list:
    return [c for c in EvidenceChunker(**kw).chunk(doc) if c.meta.kind == "table"]


def test_a_long_paragraph_contributes_the_sentences_that_explain_the_table() -> None:
    doc = _long_paragraph_doc(30)  # ~450 tokens: far over the 128-token context budget
    first = _units(doc)[0]
    assert "Table 1 shows revenue by year." in first.text
    assert "Revenue rose to 12 in 2020." in first.text
    assert "Unrelated remark x about" not in first.text  # filler far from the table and from its terms
    ((ref, spans),) = first.meta.context_spans.items()
    item = next(it for it in first.meta.doc_items if it.self_ref == ref)
    # the naming sentence with the one after it, and the sentence right above the table (it leads into it)
    assert [item.text[a:b] for a, b in spans] == [
        "Table 1 shows revenue by year. Revenue rose to 12 in 2020.",
        f"Unrelated remark {'x' * 30} about weather and lunch.",
    ]
    # the full paragraph stays in its text chunk
    texts = [c.text for c in EvidenceChunker().chunk(doc) if c.meta.kind == "text"]
    assert any("Unrelated remark x about" in t for t in texts)


def test_a_paragraph_about_another_table_is_not_context() -> None:
    units = {c.meta.caption: c for c in _units(_long_paragraph_doc(1))}
    assert "Table 2 lists the staff." not in units["Table 1: Revenue"].text
    assert "Table 2 lists the staff." in units["Table 2: Staff"].text


@settings(max_examples=25, deadline=None)
@given(st.integers(min_value=0, max_value=40), st.sampled_from([128, 256, 512, 8192]))
def test_context_spans_index_item_text_and_never_hold_another_tables_caption(filler: int, limit: int) -> None:
    doc = _long_paragraph_doc(filler)
    captions = {"Table 1: Revenue", "Table 2: Staff"}
    for chunk in _units(doc, max_tokens=limit):
        items = {it.self_ref: it for it in chunk.meta.doc_items}
        for ref, spans in chunk.meta.context_spans.items():
            assert chunk.meta.roles[ref] == "context"
            text = items[ref].text
            assert spans and all(0 <= a < b <= len(text) for a, b in spans)
            assert all(text[a:b] in chunk.text for a, b in spans)
            assert not any(cap in text for cap in captions)


def test_without_layout_a_long_paragraph_gives_its_most_relevant_sentences_first() -> None:
    doc = DoclingDocument(name="d")
    doc.add_heading(text="Results")
    filler = " ".join(f"Offices moved {'x' * (k + 1)} in spring." for k in range(40))
    doc.add_text(label=DocItemLabel.TEXT, text=f"{filler} Revenue was 12 in 2020 as shown. {filler}")
    doc.add_table(data=table_data([["Year", "Revenue"]], [["2019", "10"], ["2020", "12"]]))
    (unit,) = _units(doc)
    assert "Revenue was 12 in 2020 as shown." in unit.text  # ranked first although mid-paragraph
    ((ref, spans),) = unit.meta.context_spans.items()
    item = next(it for it in unit.meta.doc_items if it.self_ref == ref)
    assert sum(b - a for a, b in spans) < len(item.text)  # not the whole paragraph: it is over the budget


def test_without_layout_the_text_leading_into_the_next_table_is_not_this_tables() -> None:
    doc = DoclingDocument(name="d")
    doc.add_heading(text="Results")
    doc.add_table(data=table_data([["Year", "Revenue"]], [["2019", "10"], ["2020", "12"]]))
    doc.add_text(label=DocItemLabel.TEXT, text="Revenue was 12 in 2020.")
    doc.add_text(label=DocItemLabel.TEXT, text="Costs by year were as follows:")
    doc.add_table(data=table_data([["Year", "Costs"]], [["2019", "4"], ["2020", "5"]]))
    doc.add_text(label=DocItemLabel.TEXT, text="Costs grew in 2020.")
    first, second = _units(doc)
    assert "Revenue was 12 in 2020." in first.text
    assert "Costs by year were as follows:" not in first.text and "Costs grew" not in first.text
    assert "Costs by year were as follows:" in second.text and "Costs grew in 2020." in second.text


def test_a_piece_holding_a_later_fragment_of_context_reports_the_characters_it_shows() -> None:
    """A context text cut over several pieces: each piece's ``context_spans`` are the characters of the item that
    piece shows (a fragment from the middle of a paragraph, or of its excerpt joined by " … "), not a prefix."""
    from docling_evidence.assemble.shown import shown_spans
    from docling_evidence.assemble.views import CONTEXT_GAP

    text = "Alpha beta gamma. Delta epsilon zeta. Eta theta iota. Kappa lambda mu."
    whole = ((0, len(text)),)
    assert shown_spans(text, whole, text, ["Delta epsilon zeta. Eta"]) == [(18, 41)]
    assert shown_spans(text, whole, text, [text]) == [(0, len(text))]
    spans = ((0, 17), (38, 53))  # "Alpha beta gamma." and "Eta theta iota."
    rendered = CONTEXT_GAP.join(text[a:b] for a, b in spans)
    middle = rendered[6:].split(" Eta")[0]  # "beta gamma. …" : the end of the first span and the gap mark
    assert shown_spans(text, spans, rendered, [middle]) == [(6, 17)]
    assert shown_spans(text, spans, rendered, ["gamma. … Eta theta"]) == [(11, 17), (38, 47)]
    assert shown_spans(text, spans, rendered, ["theta iota."]) == [(42, 53)]


def test_a_paragraph_read_to_two_ends_keeps_both_readings() -> None:
    """``ContextIndex.paragraph(idx, end)`` memoises per (paragraph, end): reading a paragraph only up to one end
    must not answer a later read to another end (nor the whole paragraph) with the first sentences."""
    from docling_core.types.doc import DocItemLabel, DoclingDocument

    from docling_evidence.context.choose import build_context_index
    from docling_evidence.document.index import build_index

    doc = DoclingDocument(name="d")
    text = "Revenue rose in 2020. Costs fell by 12.5 percent. Margins widened to 40 percent."
    doc.add_text(label=DocItemLabel.TEXT, text=text)
    ctx = build_context_index(build_index(doc), {})
    idx = ctx.paragraphs[0]
    short, longer, whole = ctx.paragraph(idx, 21), ctx.paragraph(idx, 49), ctx.paragraph(idx)
    assert [text[s:e] for s, e in short.spans] == ["Revenue rose in 2020."]
    assert [text[s:e] for s, e in longer.spans] == ["Revenue rose in 2020.", "Costs fell by 12.5 percent."]
    assert len(whole.spans) == 3
    assert ctx.paragraph(idx, 21) is short


_WORD_ENDING_AT = re.compile(r"([\w.]+)$")


def _word_before_by_regex(text: str, stop: int) -> str:
    """The definition the splitter reads backwards: the ``[\\w.]+`` run at the end of ``text[:stop]``."""
    m = _WORD_ENDING_AT.search(text[:stop])
    return m.group(1) if m else ""


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([*"ab.Z_9 \n\t!?é。”", "e.g", "Fig", "Table", "J"]), max_size=30).map("".join))
def test_word_before_a_stop_is_the_word_run_ending_there(text: str) -> None:
    for stop in range(len(text) + 1):
        assert _word_before(text, stop) == _word_before_by_regex(text, stop), (text, stop)


def test_a_long_paragraph_of_short_sentences_splits_at_each_stop() -> None:
    text = " ".join(f"Row {i} grew by {i}.{i} percent." for i in range(4000))
    spans = sentence_spans(text)
    assert len(spans) == 4000
    assert text[spans[1][0] : spans[1][1]] == "Row 1 grew by 1.1 percent."
