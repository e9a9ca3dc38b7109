"""Packing a stream of items into pieces: as many items per piece as the estimate allows, each piece then checked
exactly with ``fits`` and shrunk (an item cut finer) when a join cost more than estimated."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from docling_evidence.split.fragments import fragment_spans
from docling_evidence.split.items import Item, Overhead, Unsplittable, reading_order
from docling_evidence.split.layout import PieceLayout, bare_header
from docling_evidence.split.params import share_of
from docling_evidence.split.pieces import LINE_DELIM, Piece


def joins(payload: Sequence[Item], item: Item) -> bool:
    """Whether ``item`` may join ``payload`` in one piece: rows only with rows of the same group, and a row carrying
    a header only where that header is shown (a piece renders its first row's header)."""
    if item.opens:
        return False
    if item.kind != "row":
        return True
    last = next((it for it in reversed(payload) if it.kind == "row"), None)
    if last is None:
        return True
    first = next(it for it in payload if it.kind == "row")
    if item.header and item.header != first.header:
        # repeat_table_header=False: the row that shows the header once must open a piece, or the header is lost
        return False
    return item.group is not None and last.group == item.group and last.fragment is None


def pack(lay: PieceLayout, oh: Overhead, stream: list[Item]) -> list[Piece]:
    """The pieces of ``stream``, in order; an item that does not fit after all is replaced in ``stream`` by smaller
    ones."""
    pieces: list[Piece] = []
    i = 0
    while i < len(stream):
        payload = [stream[i]]
        j = i + 1
        while j < len(stream) and joins(payload, stream[j]):
            if lay.estimate(oh, [*payload, stream[j]]) > lay.budget:
                break
            payload.append(stream[j])
            j += 1
        # context placed with its row does not end a piece without that row
        while len(payload) > 1 and payload[-1].sticky and i + len(payload) < len(stream):
            payload.pop()
        text = lay.render(oh, payload)
        while not lay.fits(text) and len(payload) > 1:
            payload.pop()
            text = lay.render(oh, payload)
        if not lay.fits(text):
            # a single item over the limit after all (a join cost more than estimated): cut it finer
            stream[i : i + 1] = shrink(lay, payload[0], oh)
            continue
        pieces.append(_piece(oh, stream, i, payload, text))
        i += len(payload)
    return pieces


def _piece(oh: Overhead, stream: list[Item], i: int, payload: list[Item], text: str) -> Piece:
    row_items = [it for it in payload if it.kind == "row"]
    row_ids = [it.row for it in row_items]
    nxt = _next_row(stream, i)
    frag_items = [it for it in payload if it.fragment is not None]
    context_items = [it for it in reading_order(list(payload)) if it.ctx is not None]
    return Piece(
        text=text,
        rows=(min(row_ids), max(row_ids) + 1) if row_ids else (nxt, nxt),
        cols=row_items[0].cols if row_items else None,
        fragment=frag_items[0].fragment if frag_items else None,
        cell_text=frag_items[0].cell_text if frag_items else None,
        kept_context=tuple(sorted({it.ctx for it in payload if it.ctx is not None})),
        context_shown=tuple((it.ctx, it.text) for it in context_items),
        context_spans=tuple((it.ctx, it.ctx_start, it.ctx_start + len(it.text)) for it in context_items),
        has_caption=bool(oh.caption) or any(it.is_caption for it in payload),
        has_footnotes=bool(oh.footnotes) or any(it.is_footnote for it in payload),
        has_header=bool(row_items and row_items[0].header) or bool(not row_items and bare_header(oh, payload)),
        caption_once=any(it.is_caption for it in payload),
        row_slices=tuple((it.row, it.cols, it.cell_text) for it in row_items),
    )


def _next_row(stream: list[Item], i: int) -> int:
    for it in stream[i:]:
        if it.kind == "row":
            return it.row
    last = [it.row for it in stream if it.kind == "row"]
    return (max(last) + 1) if last else 0


def shrink(lay: PieceLayout, item: Item, oh: Overhead) -> list[Item]:
    """Cut a single payload item that does not fit into smaller ones.

    A row (or cell fragment) that does not fit under its repeated header, which happens at tiny limits with a verbose
    format (HTML markup costs ~15 tokens a cell), goes without it, after the header shown on its own.
    """
    if item.kind == "row" and item.header and lay.headerless_rows:
        block = LINE_DELIM.join([*oh.fmt.open_lines(), *item.header, *oh.fmt.close_lines()])
        return [*lay.text_items("lead", block, oh, is_header=True), replace(item, header=())]
    if item.kind != "row" and item.tokens > 1:
        frags = lay.fragments(item.text, max(1, share_of(item.tokens, lay.params.overflow_fragment_share)))
        marks = {"is_footnote": item.is_footnote, "is_header": item.is_header, "ctx": item.ctx}
        items = [
            Item(item.kind, f, lay.tokens(f), ctx_start=start, **marks)  # type: ignore[arg-type]
            for f, (start, _end) in zip(frags, fragment_spans(frags, item.ctx_start), strict=True)
        ]
        for fragment in items:
            fragment.sticky = item.sticky
        if len(items) > 1:
            return items
        # one character worth several tokens cannot be cut finer: planning again must change the layout
    raise Unsplittable(item)
