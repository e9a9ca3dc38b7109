"""Wide tables, whose header and a typical row do not fit one piece together: the columns cut into groups, each a
table of its own (the row-label columns, then its columns' header and rows, packed by rows)."""

from __future__ import annotations

from collections.abc import Sequence

from docling_evidence.split.cells import row_split_items
from docling_evidence.split.items import Item, Overhead, unheaded
from docling_evidence.split.layout import PieceLayout
from docling_evidence.split.params import share_of
from docling_evidence.split.pieces import LINE_DELIM, UnitParts
from docling_evidence.split.placement import ContextPlacement


def is_wide(
    lay: PieceLayout, parts: UnitParts, oh: Overhead, header: Sequence[str], line_tokens: Sequence[int]
) -> bool:
    """Whether the table is split by columns: its header is repeated, has more than one column, and the typical row
    (at ``wide_row_quantile`` of the row costs) does not fit beside the whole header."""
    if not (header and lay.splits_for_header(parts)):
        return False
    typical = sorted(line_tokens)[share_of(len(line_tokens), lay.params.wide_row_quantile)] if line_tokens else 0
    return typical > lay.room(oh, header)


def wide_overhead(lay: PieceLayout, parts: UnitParts) -> Overhead:
    """The repeated overhead of a table split by columns, which never shows the full header: caption and footnotes
    use at most ``wide_overhead_max_share`` of a piece, and leave room for the header of any one column (with the
    row labels) that fits the header's room, plus rows."""
    rows, fmt, p = parts.rows, parts.fmt, lay.params
    labels = tuple(range(rows.label_cols))
    one_column = [
        min(
            (
                lay.lines_cost(lines)
                for lines in (fmt.header_lines(rows.header, (*labels, c)), fmt.header_lines(rows.header, (c,)))
                if lay.tokens(LINE_DELIM.join(lines)) <= lay.header_room
            ),
            default=0,
        )
        for c in range(rows.num_cols)
        if c not in labels
    ]
    widest_header = max(one_column, default=0)
    row_room = max(p.wide_row_room_min_tokens, share_of(lay.budget, p.wide_row_room_share))
    limit = min(share_of(lay.budget, p.wide_overhead_max_share), lay.budget - widest_header - row_room)
    return lay.reduce(parts, (), limit)


def column_stream(
    lay: PieceLayout, parts: UnitParts, oh: Overhead, placement: ContextPlacement, line_tokens: Sequence[int]
) -> list[Item]:
    """The items of a table split by columns: each column group's rows in order (the context placed with a row goes
    with it in the first group), under the group's header."""
    n_body = len(parts.rows.body)
    widest_rows = sorted(range(n_body), key=lambda r: -line_tokens[r])[: lay.params.column_sample_rows]
    labels, groups = column_groups(lay, parts, oh, widest_rows)
    stream: list[Item] = []
    for g, cols in enumerate(groups):
        stream.extend(_group_stream(lay, parts, oh, placement if g == 0 else None, g, cols, labels))
    return stream


def _group_stream(
    lay: PieceLayout,
    parts: UnitParts,
    oh: Overhead,
    placement: ContextPlacement | None,
    g: int,
    cols: tuple[int, ...],
    labels: tuple[int, ...],
) -> list[Item]:
    """The items of column group ``g``; ``placement`` (the first group only) adds the context placed with rows."""
    rows, fmt = parts.rows, parts.fmt
    g_header = tuple(fmt.header_lines(rows.header, cols))
    if not lay.row_fits(oh, g_header, ""):
        g_header = ()  # a header cell longer than a piece: the header gets pieces of its own
    stream: list[Item] = []
    headed = False
    for r in range(len(rows.body)):
        if placement is not None:
            stream.extend(placement.row_items(lay, oh, r))
        line = fmt.row_line(rows.body[r], cols, rows.header, rows.label_cols)
        n = lay.tokens(line)
        if lay.row_fits(oh, g_header, line, n):
            stream.append(Item("row", line, n, row=r, cols=cols, header=g_header, group=("cols", g)))
            headed = headed or bool(g_header)
        else:
            values = [c for c in cols if c not in labels]
            stream.extend(row_split_items(lay, parts, oh, r, labels, values, show_labels=g == 0))
    missing = [] if headed else unheaded(cols, stream)
    if rows.header and missing and rows.body:
        stream[0:0] = lay.header_items(parts, oh, missing)
    return stream


def column_groups(
    lay: PieceLayout, parts: UnitParts, oh: Overhead, widest_rows: Sequence[int]
) -> tuple[tuple[int, ...], list[tuple[int, ...]]]:
    """Cut the columns into groups whose header lines and ``widest_rows_per_piece`` of the widest rows fit a piece
    together (so that a piece holds more than one row, as in row splitting); every group repeats the row-label
    columns (unless they alone would fill ``repeated_labels_max_share`` of a piece). Returns the repeated label
    columns and the groups (each starting with them)."""
    rows, fmt = parts.rows, parts.fmt
    labels = tuple(range(rows.label_cols))
    room = lay.room(oh) - lay.line_join

    def need(cols: tuple[int, ...]) -> int:
        header = fmt.header_lines(rows.header, cols)
        widest = max(
            (lay.tokens(fmt.row_line(rows.body[r], cols, rows.header, rows.label_cols)) for r in widest_rows),
            default=0,
        )
        return lay.lines_cost(header) + lay.line_join * (len(header) + 1) + lay.params.widest_rows_per_piece * widest

    if labels and need(labels) > share_of(room, lay.params.repeated_labels_max_share):
        labels = ()
    values = [c for c in range(rows.num_cols) if c not in labels]
    groups: list[tuple[int, ...]] = []
    group: list[int] = []
    for c in values:
        if not group or need((*labels, *group, c)) <= room:
            group.append(c)
            continue
        groups.append((*labels, *group))
        group = [c]
    if group:
        groups.append((*labels, *group))
    return labels, groups
