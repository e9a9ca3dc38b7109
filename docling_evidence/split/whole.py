"""Units that need no row split: the whole unit as one piece, or a table that fits one piece without its context,
kept whole beside the context that fits and with the rest of the context in pieces of its own before it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Literal

from docling_evidence.split.items import Item, Overhead
from docling_evidence.split.layout import PieceLayout
from docling_evidence.split.packing import pack
from docling_evidence.split.params import share_of
from docling_evidence.split.pieces import BLOCK_DELIM, LINE_DELIM, Piece, UnitParts


def whole_piece(lay: PieceLayout, parts: UnitParts) -> Piece | None:
    """The whole unit as one piece, if it fits."""
    rows, fmt = parts.rows, parts.fmt
    all_cols = tuple(range(rows.num_cols))
    header = tuple(fmt.header_lines(rows.header, all_cols)) if rows.header else ()
    line_items = [
        Item("row", fmt.row_line(row, all_cols, rows.header, rows.label_cols), 0, row=i, header=header)
        for i, row in enumerate(rows.body)
    ]
    oh = Overhead(caption=parts.caption, footnotes=list(parts.footnotes), fmt=fmt)
    n_before = len(parts.context_before)
    before = [Item("lead", t, lay.tokens(t)) for t in parts.context_before]
    after = [Item("tail", t, lay.tokens(t)) for t in parts.context_after]
    # the exact check of the whole unit only when the line-by-line estimate says it may fit: tokenizing a huge table
    # as one string is the single most expensive step for a table that obviously needs splitting
    row_tokens = sum(lay.tokens(it.text) for it in line_items)
    probe = Item("row", "", row_tokens, header=header)
    if lay.estimate(oh, [*before, probe, *after]) > lay.params.whole_estimate_max_ratio * lay.budget:
        return None
    text = _render_whole(parts, line_items, header)
    if not lay.fits(text):
        return None
    return Piece(
        text=text,
        rows=(0, len(rows.body)),
        kept_context=tuple(range(n_before + len(parts.context_after))),
        context_shown=tuple(enumerate(parts.context)),
        context_spans=tuple((i, 0, len(text)) for i, text in enumerate(parts.context)),
        has_caption=bool(parts.caption),
        has_footnotes=bool(parts.footnotes),
        has_header=bool(header) and bool(rows.body),
        row_slices=tuple((i, None, None) for i in range(len(rows.body))),
    )


def _render_whole(parts: UnitParts, line_items: Sequence[Item], header: Sequence[str]) -> str:
    fmt = parts.fmt
    caption = "" if header and fmt.caption_in_header else parts.caption
    blocks = [caption, *parts.context_before]
    if line_items:
        lines = [*fmt.open_lines(), *header, *(it.text for it in line_items), *fmt.close_lines()]
        blocks.append(LINE_DELIM.join(lines))
    blocks += [*parts.footnotes, *parts.context_after]
    return BLOCK_DELIM.join(b for b in blocks if b)


def table_kept_whole(lay: PieceLayout, parts: UnitParts) -> list[Piece] | None:
    """A table that fits one piece without its context is not split by it: the piece holds the table with the
    context that fits beside it (texts naming rows first, then the most important), and the rest of the context goes
    into pieces of its own before it, each under the caption. None when the table does not fit one piece even
    without context."""
    context = parts.context
    if not context:
        return None
    table_piece = whole_piece(lay, _with_context(parts, ()))
    if table_piece is None:
        return None
    # texts naming rows belong with their rows (all in this piece), then the general context, most important first
    named = parts.rows_named()
    ranked = parts.general_order(range(len(context)))
    beside: list[int] = []
    for i in [*(i for i in ranked if named[i]), *(i for i in ranked if not named[i])]:
        with_it = whole_piece(lay, _with_context(parts, [*beside, i]))
        if with_it is not None:
            beside.append(i)
            table_piece = with_it
    kept = sorted(beside)
    table_piece = replace(
        table_piece,
        kept_context=tuple(kept[k] for k in table_piece.kept_context),
        context_shown=tuple((kept[k], text) for k, text in table_piece.context_shown),
        context_spans=tuple((kept[k], start, end) for k, start, end in table_piece.context_spans),
    )
    return [*_context_pieces(lay, parts, beside), table_piece]


def _with_context(parts: UnitParts, indices: Sequence[int]) -> UnitParts:
    """``parts`` with only the context texts ``indices``."""
    chosen = sorted(indices)
    n_before = len(parts.context_before)
    return replace(
        parts,
        context_before=tuple(parts.context[i] for i in chosen if i < n_before),
        context_after=tuple(parts.context[i] for i in chosen if i >= n_before),
        context_rank=None,
        context_rows=None,
    )


def _context_pieces(lay: PieceLayout, parts: UnitParts, beside: Sequence[int]) -> list[Piece]:
    """The pieces of the context texts not ``beside`` the table, in reading order. They repeat the caption,
    shortened when it would take more than ``context_caption_max_share`` of a piece (the table's piece shows it in
    full), and the header."""
    header = lay.repeated_header(parts)
    limit = share_of(lay.budget, lay.params.context_caption_max_share)
    oh = lay.reduce(replace(parts, footnotes=()), header, limit)
    oh.lead = []
    oh.header = header
    n_before = len(parts.context_before)
    stream: list[Item] = []
    for i in sorted(i for i in range(len(parts.context)) if i not in beside):  # every piece is kept
        kind: Literal["lead", "tail"] = "lead" if i < n_before else "tail"
        stream.extend(lay.text_items(kind, parts.context[i], oh, ctx=i))
    return pack(lay, oh, stream)
