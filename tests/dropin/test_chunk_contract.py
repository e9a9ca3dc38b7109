"""Chunks docling-core consumers accept unchanged: origin, non-empty text, headings, unit ids."""

from __future__ import annotations

import pytest
from docling_core.transforms.chunker import DocChunk
from docling_core.types.doc import DocItemLabel, DoclingDocument, DocumentOrigin, GroupLabel, TableData
from docling_core.types.doc.document import RichTableCell
from docs_builder import add_table
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from docling_evidence import EvidenceChunker


def _shadowed_headings_doc() -> DoclingDocument:
    """docling-core's own test document for headings with no text under them."""
    doc = DoclingDocument(name="")
    for text, level in [("Section 1", 1), ("Section 1.1", 2), ("Section 1.2", 2), ("Section 2", 1)]:
        doc.add_heading(text=text, level=level)
    doc.add_heading(text="Section 2.1", level=2)
    doc.add_heading(text="Section 2.1.1", level=3)
    doc.add_heading(text="Section 3", level=1)
    doc.add_heading(text="Section 3.1", level=2)
    doc.add_text(text="Foo", label=DocItemLabel.TEXT)
    doc.add_heading(text="Section 4", level=1)
    doc.add_heading(text="Section 4.1", level=2)
    return doc


def _with_origin(doc: DoclingDocument, name: str = "report.pdf") -> DoclingDocument:
    doc.origin = DocumentOrigin(mimetype="application/pdf", binary_hash=42, filename=name)
    return doc


def _table_doc(name: str, cells: list[list[str]], caption: str = "Table 1: Results") -> DoclingDocument:
    doc = DoclingDocument(name=name)
    doc.add_heading(text="Results", level=1)
    doc.add_text(label=DocItemLabel.TEXT, text="Table 1 shows the results of the study.")
    add_table(doc, [["Item", "Value"]], cells, caption=caption, footnotes=["(1) In millions."])
    doc.add_text(label=DocItemLabel.TEXT, text="Closing remarks.")
    return doc


@pytest.mark.parametrize("always_emit_headings", [False, True])
def test_every_chunk_has_text_and_the_documents_origin(always_emit_headings: bool) -> None:
    for doc in (_with_origin(_shadowed_headings_doc()), _with_origin(_table_doc("input", [["a", "1"]]))):
        chunks = list(EvidenceChunker(always_emit_headings=always_emit_headings).chunk(doc))
        assert chunks
        for chunk in chunks:
            assert chunk.text.strip()
            assert chunk.meta.origin == doc.origin
            assert DocChunk.model_validate(chunk.export_json_dict()).meta.origin == doc.origin


def test_always_emit_headings_false_drops_empty_sections_as_hybridchunker_does() -> None:
    from docling_core.transforms.chunker.hybrid_chunker import HybridChunker

    from docling_evidence import bundled_tokenizer

    doc = _shadowed_headings_doc()
    theirs = list(HybridChunker(tokenizer=bundled_tokenizer(), always_emit_headings=False).chunk(doc))
    ours = list(EvidenceChunker(always_emit_headings=False).chunk(doc))
    assert [(c.text, c.meta.headings) for c in ours] == [(c.text, c.meta.headings) for c in theirs]
    assert [c.text for c in ours] == ["Foo"]


def test_always_emit_headings_true_emits_each_empty_section_with_its_heading_as_text() -> None:
    from docling_core.transforms.chunker.hybrid_chunker import HybridChunker

    from docling_evidence import bundled_tokenizer

    doc = _shadowed_headings_doc()
    hybrid = HybridChunker(tokenizer=bundled_tokenizer(), always_emit_headings=True)
    theirs = list(hybrid.chunk(doc))
    chunker = EvidenceChunker(always_emit_headings=True)
    ours = list(chunker.chunk(doc))
    assert len(ours) == len(theirs)
    for mine, their in zip(ours, theirs, strict=True):
        assert [it.self_ref for it in mine.meta.doc_items] == [it.self_ref for it in their.meta.doc_items]
        if their.text:
            assert (mine.text, mine.meta.headings) == (their.text, their.meta.headings)
        else:  # HybridChunker: text "" and every heading in meta.headings; here the innermost heading is the text
            assert [*(mine.meta.headings or []), mine.text] == their.meta.headings
            assert chunker.contextualize(mine) == hybrid.contextualize(their).rstrip(chunker.delim)
    shown = {c.text for c in ours} | {h for c in ours for h in c.meta.headings or []}
    assert {h.text for h in doc.texts if h.label == DocItemLabel.SECTION_HEADER} <= shown


def test_single_cell_rich_table_text_appears_once() -> None:
    """docling-core's layout-table case: a 1x1 table whose cell is a rich cell pointing at a text group."""
    text = "Important body text inside layout table"
    doc = DoclingDocument(name="single_cell_rich_table")
    table = doc.add_table(data=TableData(num_rows=1, num_cols=1))
    wrapper = doc.add_group(parent=table, label=GroupLabel.UNSPECIFIED)
    doc.add_text(parent=wrapper, label=DocItemLabel.TEXT, text=text)
    cell = RichTableCell(
        start_row_offset_idx=0,
        end_row_offset_idx=1,
        start_col_offset_idx=0,
        end_col_offset_idx=1,
        ref=wrapper.get_ref(),
        text="",
    )
    doc.add_table_cell(table_item=table, cell=cell)
    chunks = list(EvidenceChunker().chunk(doc))
    assert sum(c.text.count(text) for c in chunks) == 1
    assert [it.self_ref for c in chunks for it in c.meta.doc_items if it.self_ref == table.self_ref] == [table.self_ref]


_cell = st.text(alphabet="abcdefghij0123456789 ", min_size=1, max_size=12).map(str.strip).filter(bool)
_rows = st.lists(st.lists(_cell, min_size=2, max_size=2), min_size=1, max_size=4)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(first=_rows, second=_rows, name=st.sampled_from(["input", "", "report"]))
def test_unit_ids_do_not_collide_across_documents_that_share_a_name(
    first: list[list[str]], second: list[list[str]], name: str
) -> None:
    """Max-pooling by unit_id must never merge tables of two documents: without ``origin``, ids come from content."""
    chunker = EvidenceChunker()
    doc_a, doc_b = _table_doc(name, first), _table_doc(name, second)
    ids_a = {c.meta.unit_id for c in chunker.chunk(doc_a)}
    ids_b = {c.meta.unit_id for c in chunker.chunk(doc_b)}
    if first == second:
        assert ids_a == ids_b  # same content, same document: ids are stable
    else:
        assert not ids_a & ids_b
    assert ids_a == {c.meta.unit_id for c in chunker.chunk(_table_doc(name, first))}


def _figure_doc(note: str, note_under_picture: bool) -> DoclingDocument:
    """A figure with a caption, text inside the figure and a footnote, as Docling builds them (under the picture)."""
    doc = DoclingDocument(name="figure")
    doc.add_heading("Results")
    pic = doc.add_picture()
    caption = doc.add_text(DocItemLabel.CAPTION, "Figure 1. Sales by region.", parent=pic)
    pic.captions.append(caption.get_ref())
    doc.add_text(DocItemLabel.TEXT, "axis label inside the figure", parent=pic)
    footnote = doc.add_text(DocItemLabel.FOOTNOTE, note, parent=pic if note_under_picture else None)
    pic.footnotes.append(footnote.get_ref())
    doc.add_text(DocItemLabel.TEXT, "Sales rose in every region.")
    return doc


@pytest.mark.parametrize("note_under_picture", [True, False])
def test_a_pictures_footnote_is_chunked_after_its_caption(note_under_picture: bool) -> None:
    from docling_core.transforms.chunker.hybrid_chunker import HybridChunker

    from docling_evidence.tokenizer import bundled_tokenizer

    note = "Source: company filings, in millions of USD."
    doc = _figure_doc(note, note_under_picture)
    hybrid = HybridChunker(tokenizer=bundled_tokenizer())
    assert all(note not in c.text for c in hybrid.chunk(doc)), "HybridChunker drops it"
    texts = [c.text for c in EvidenceChunker().chunk(doc)]
    joined = "\n".join(texts)
    assert sum(t.count(note) for t in texts) == 1, "the footnote is in exactly one chunk"
    assert joined.index("Figure 1. Sales by region.") < joined.index(note)
    assert "axis label" not in joined, "text inside the figure stays out, as in HybridChunker"


def test_cutting_a_text_to_the_limit_is_no_warning(caplog: pytest.LogCaptureFixture) -> None:
    import logging

    from docling_evidence.tokenizer import bundled_tokenizer

    note = " ".join(f"note{i}" for i in range(200))  # a footnote HybridChunker drops, longer than the limit
    chunker = EvidenceChunker(tokenizer=bundled_tokenizer(128))
    with caplog.at_level(logging.INFO, logger="docling_evidence"):
        chunks = list(chunker.chunk(_figure_doc(note, note_under_picture=True)))
    pieces = [c for c in chunks if "note0" in c.text or "note199" in c.text]
    assert len(pieces) >= 2 and all(chunker.tokenizer.count_tokens(chunker.contextualize(c)) <= 128 for c in chunks)
    assert " ".join(" ".join(c.text.split()) for c in chunks if "note" in c.text).count("note") == 200
    records = [r for r in caplog.records if r.name.startswith("docling_evidence")]
    assert any("cut into" in r.getMessage() and r.levelno == logging.INFO for r in records)
    assert not [r for r in records if r.levelno >= logging.WARNING]
