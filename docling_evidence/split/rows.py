"""Planning a unit that does not fit one piece: the stream of once-only texts, context and rows (whole row lines,
or a table split by columns), packed into the fewest pieces that keep the table's first rows with the rest."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from docling_evidence.split.cells import row_split_items
from docling_evidence.split.columns import column_stream, is_wide, wide_overhead
from docling_evidence.split.items import Item, Overhead, unheaded
from docling_evidence.split.layout import PieceLayout
from docling_evidence.split.packing import pack
from docling_evidence.split.pieces import Piece, UnitParts
from docling_evidence.split.placement import ContextPlacement


def plan(lay: PieceLayout, parts: UnitParts) -> list[Piece]:
    """The pieces of ``parts`` at the layout's budget (raises ``Unsplittable`` when a row does not fit even alone)."""
    rows, fmt = parts.rows, parts.fmt
    all_cols = tuple(range(rows.num_cols))
    header = tuple(fmt.header_lines(rows.header, all_cols)) if rows.header else ()
    lines = [fmt.row_line(row, all_cols, rows.header, rows.label_cols) for row in rows.body]
    line_tokens = [lay.tokens(x) for x in lines]
    repeat = lay.repeat_table_header and bool(header)
    oh = lay.reduce(parts, header if repeat else (), lay.overhead_limit(max(line_tokens, default=0)))
    # a wide table: the header and a typical row do not fit one piece together
    by_columns = is_wide(lay, parts, oh, header, line_tokens)
    if by_columns:
        oh = wide_overhead(lay, parts)
    oh.header = lay.repeated_header(parts)

    placement = ContextPlacement.of(parts)
    stream: list[Item] = []
    for text in oh.lead:
        stream.extend(lay.text_items("lead", text, oh, is_caption=text == parts.caption))
    stream.extend(placement.general_items(lay, oh))
    table_start = len(stream) if placement.general else 0
    if by_columns:
        stream.extend(column_stream(lay, parts, oh, placement, line_tokens))
    else:
        stream.extend(_row_stream(lay, parts, oh, placement, header, lines, line_tokens))
    for text in oh.tail:
        stream.extend(lay.text_items("tail", text, oh, is_footnote=True))
    return _fewest_pieces(lay, oh, stream, table_start)


def _row_stream(
    lay: PieceLayout,
    parts: UnitParts,
    oh: Overhead,
    placement: ContextPlacement,
    header: tuple[str, ...],
    lines: Sequence[str],
    line_tokens: Sequence[int],
) -> list[Item]:
    """The items of a table split by rows: each row line under the header (split by columns inside itself when too
    wide), after the context placed with it."""
    rows = parts.rows
    repeat = lay.repeat_table_header and bool(header)
    shown = header if repeat else ()
    labels = tuple(range(rows.label_cols))
    values = [c for c in range(rows.num_cols) if c not in labels]
    stream: list[Item] = []
    headed = False
    for r in range(len(rows.body)):
        stream.extend(placement.row_items(lay, oh, r))
        line, n = lines[r], line_tokens[r]
        if header and not repeat and not headed and lay.row_fits(oh, header, line, n):
            # repeat_table_header=False: the header once, above the first row it fits with
            stream.append(Item("row", line, n, row=r, header=header, group="rows"))
            headed = True
        elif lay.row_fits(oh, shown, line, n):
            stream.append(Item("row", line, n, row=r, header=shown, group="rows"))
            headed = headed or bool(shown)
        elif shown and lay.omit_header_on_overflow and n <= lay.room(oh):
            # omit_header_on_overflow: a row too wide to go with the header goes without it
            stream.append(Item("row", line, n, row=r, header=(), group="no header"))
        else:
            stream.extend(row_split_items(lay, parts, oh, r, labels, values))
    missing = [] if headed else unheaded(range(rows.num_cols), stream)
    if header and missing and rows.body:
        # no row could show the whole header: the columns no split row shows under its header get pieces of their
        # own, before the rows
        stream[0:0] = lay.header_items(parts, oh, missing)
    return stream


def _fewest_pieces(lay: PieceLayout, oh: Overhead, stream: list[Item], table_start: int) -> list[Piece]:
    """The pieces of ``stream``. The rows fill the room the general context (``stream[:table_start]``) leaves only
    when that saves a piece: otherwise the table's first rows would sit apart from the rest, in a piece that is
    mostly about the context."""
    pieces = pack(lay, oh, list(stream))  # a copy: packing replaces oversized items in place
    if 0 < table_start < len(stream):
        apart = pack(
            lay, oh, [*stream[:table_start], replace(stream[table_start], opens=True), *stream[table_start + 1 :]]
        )
        if len(apart) <= len(pieces):
            return apart
    return pieces
