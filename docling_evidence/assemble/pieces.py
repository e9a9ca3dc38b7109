"""The chunk of one piece of a unit: the items it shows, in the order it shows them, with their roles and the
characters of each context paragraph it holds; and the views of a unit's pieces."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from docling_evidence.assemble.measure import ChunkMeasure
from docling_evidence.assemble.shown import run_spans, shown_spans
from docling_evidence.assemble.units import EvidenceUnit
from docling_evidence.assemble.views import caption_views, piece_row_views, shown_sentences
from docling_evidence.document.index import DocIndex
from docling_evidence.meta import EvidenceChunk, EvidenceMeta, MemberRole
from docling_evidence.split.splitter import Piece

Spans = dict[str, list[tuple[int, int]]]
"""Character spans of each item's own text, by ref (``EvidenceMeta.context_spans``)."""


def piece_chunk(
    unit: EvidenceUnit,
    piece: Piece,
    part: tuple[int, int],
    headings: list[str] | None,
    context_texts: Sequence[str],
    index: DocIndex,
) -> EvidenceChunk:
    """The chunk of one piece, the ``part[0]``-th of ``part[1]``; ``context_texts`` are the unit's context texts as
    the splitter got them."""
    caption_items = list(unit.caption.items) if unit.caption and piece.has_caption else []
    listed, spans = _shown_context(unit, piece, context_texts, index)
    n_before = len(unit.context_before)
    before = [it for i in piece.kept_context if i < n_before for it in listed[i]]
    after = [it for i in piece.kept_context if i >= n_before for it in listed[i]]
    footnotes = list(unit.footnotes) if piece.has_footnotes else []
    members: list[tuple[Any, MemberRole]] = [
        *((it, "caption") for it in caption_items),
        *((it, "context") for it in before),
        *((t, "table") for t in unit.tables_for_rows(*piece.rows)),
        *((it, "footnote") for it in footnotes),
        *((it, "context") for it in after),
    ]
    # a paragraph holding the table's merged caption may also give context: listed once, as the caption
    seen: set[str] = set()
    members = [(it, role) for it, role in members if not (it.self_ref in seen or seen.add(it.self_ref))]
    meta = EvidenceMeta(
        doc_items=[it for it, _ in members],
        headings=headings,
        unit_id=unit.unit_id,
        kind="table",
        part=part[0],
        parts=part[1],
        caption=unit.caption.text if unit.caption else None,
        caption_source=unit.caption.source if unit.caption else None,
        roles={it.self_ref: role for it, role in members},
        rows=piece.rows,
        context_spans=spans,
    )
    return EvidenceChunk(text=piece.text, meta=meta)


def _shown_context(
    unit: EvidenceUnit, piece: Piece, context_texts: Sequence[str], index: DocIndex
) -> tuple[dict[int, list[Any]], Spans]:
    """For each context paragraph ``piece`` keeps (by its index in the unit's context), the items it lists, and the
    characters of each item it shows."""
    context = (*unit.context_before, *unit.context_after)
    spans: Spans = {}
    listed: dict[int, list[Any]] = {}
    for i in piece.kept_context:
        item = context[i]
        fragments = [t for j, t in piece.context_shown if j == i]
        pos = index.order[item.self_ref]
        joined = index.paragraph_text(pos) if pos in index.inline_members else ""
        if pos not in index.inline_members:
            listed[i] = [item]
            spans[item.self_ref] = shown_spans(item.text, unit.spans_of(i), context_texts[i], fragments)
        elif unit.spans_of(i) != ((0, len(joined)),):
            # some sentences of an inline group: each run they touch, with its own part of them
            shown = shown_spans(joined, unit.spans_of(i), context_texts[i], fragments)
            by_run = run_spans(index, pos, shown)
            listed[i] = [index.items[m] for m in index.members(pos) if index.items[m].self_ref in by_run]
            spans.update(by_run)
        elif not fragments or any(f.strip() == context_texts[i].strip() for f in fragments):
            listed[i] = [index.items[m] for m in index.members(pos)]  # an inline group, shown whole
            spans.update({it.self_ref: [(0, len(it.text))] for it in listed[i]})
        else:
            listed[i] = [item]  # part of an inline group, cut over pieces: its text chunk keeps all of it
            spans[item.self_ref] = []
    return listed, spans


def add_piece_views(
    unit: EvidenceUnit,
    pieces: Sequence[Piece],
    chunks: Sequence[EvidenceChunk],
    context_texts: Sequence[str],
    prefix: str,
    measure: ChunkMeasure,
) -> None:
    """Give each piece chunk of ``unit`` its views (docs/views.md): the caption in the piece the table starts in,
    one per row slice it shows, one per sentence of the context it shows; each fits after ``prefix``."""
    caption = unit.caption.text.strip() if unit.caption else ""
    # the table as a whole is asked about by its caption: that view finds the piece the table starts in
    starts = next((k for k, piece in enumerate(pieces) if piece.row_slices), 0)
    for k, (chunk, piece) in enumerate(zip(chunks, pieces, strict=True)):
        shown = [context_texts[i] for i in piece.kept_context]
        chunk.meta.views = [
            *(caption_views(caption, measure.fits_after(prefix)) if k == starts else ()),
            *piece_row_views(unit.rows, piece, caption, measure.fits_after(prefix)),
            *shown_sentences(measure.sentence_views(shown, prefix, 1, within=piece.text), piece.text),
        ]
