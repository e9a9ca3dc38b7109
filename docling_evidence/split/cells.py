"""Splitting one row too wide for a piece: into column groups of its own, and a cell too long for a piece inside it.

Each part is a row item under the row-label columns and the header of its columns; a cell is cut into fragments
(semchunk) that reassemble to it, each under its row and column labels.
"""

from __future__ import annotations

from collections.abc import Sequence

from docling_evidence.split.items import Item, Overhead
from docling_evidence.split.layout import PieceLayout
from docling_evidence.split.pieces import UnitParts
from docling_evidence.tables.formats import TableFormat


def row_split_items(
    lay: PieceLayout,
    parts: UnitParts,
    oh: Overhead,
    r: int,
    labels: tuple[int, ...],
    values: Sequence[int],
    show_labels: bool = True,
) -> list[Item]:
    """Row ``r`` too wide for one piece: column groups of ``values``, each with the row-label columns ``labels``
    and the header of its columns; a cell too long for a group of its own is split inside.

    A row label too long to be repeated is shown once, as a value column, when ``show_labels`` (False: another
    column group of the table shows it)."""
    rows, fmt = parts.rows, parts.fmt
    row = rows.body[r]
    values = list(values)
    if labels and not _labels_leave_room(lay, parts, oh, r, labels, values):
        values = sorted({*labels, *values}) if show_labels else values
        labels = ()
    items: list[Item] = []
    group: list[int] = []

    def flush() -> None:
        if group:
            cols = (*labels, *group)
            line = fmt.row_line(row, cols, rows.header, rows.label_cols)
            hdr = lay.group_header(parts, cols)
            items.append(Item("row", line, lay.tokens(line), row=r, cols=cols, header=hdr))
            group.clear()

    def fits_alone(cols: tuple[int, ...]) -> bool:
        hdr = lay.group_header(parts, cols)
        if not hdr and len(cols) > len(labels) + 1 and lay.splits_for_header(parts):
            # the group's header is too big to show: fewer columns, each group under its header (a row without
            # its column names reads as bare numbers); only one column whose header alone is too big goes without
            return False
        line = fmt.row_line(row, cols, rows.header, rows.label_cols)
        return lay.tokens(line) <= lay.room(oh, hdr)

    for c in values:
        if fits_alone((*labels, *group, c)):
            group.append(c)
            continue
        flush()
        if fits_alone((*labels, c)):
            group.append(c)
        else:
            items.extend(cell_items(lay, parts, oh, r, labels, c))
    flush()
    return items


def _labels_leave_room(
    lay: PieceLayout, parts: UnitParts, oh: Overhead, r: int, labels: tuple[int, ...], values: Sequence[int]
) -> bool:
    """Whether the row-label columns of row ``r`` leave room for a fragment of a value (else they are not repeated:
    each becomes a value column itself)."""
    rows, fmt = parts.rows, parts.fmt
    probe = (*labels, values[0]) if values else labels
    blank = [cell if c < rows.label_cols else "" for c, cell in enumerate(rows.body[r])]
    label_cost = lay.tokens(fmt.row_line(blank, probe, rows.header, rows.label_cols))
    return lay.room(oh, lay.group_header(parts, probe)) - label_cost >= lay.params.semchunk_min_tokens


def cell_items(lay: PieceLayout, parts: UnitParts, oh: Overhead, r: int, labels: tuple[int, ...], c: int) -> list[Item]:
    """Cell ``c`` of row ``r``, too long for a piece beside the labels, as fragments: one row item each."""
    rows, fmt = parts.rows, parts.fmt
    row = list(rows.body[r])
    cols = (*labels, c)
    hdr = lay.group_header(parts, cols)
    text = row[c]
    empty = list(row)
    empty[c] = ""
    labels_in_line = rows.header
    margin = lay.params.cell_fragment_margin_tokens
    frame = lay.tokens(fmt.row_line(empty, cols, labels_in_line, rows.label_cols))
    if lay.room(oh, hdr) - frame - margin < lay.params.semchunk_min_tokens:
        # a format that folds the column label into the row (triplets) under a label longer than the budget:
        # the fragments go without it (the label itself is in the header lines, repeated or emitted once)
        labels_in_line = ()
        frame = lay.tokens(fmt.row_line(empty, cols, labels_in_line, rows.label_cols))
    room = lay.room(oh, hdr)
    size = room - frame - margin
    while True:
        frags = lay.fragments(text, size)
        # escaping (``|`` -> ``\|``, HTML entities) can make a rendered fragment cost more than its raw text
        over = max(lay.tokens(cell_line(fmt, row, c, f, cols, labels_in_line, rows.label_cols)) for f in frags)
        if over <= room or size <= 1:
            break
        size = max(1, size - (over - room))
    items = []
    for k, frag in enumerate(frags):
        line = cell_line(fmt, row, c, frag, cols, labels_in_line, rows.label_cols)
        items.append(
            Item(
                "row", line, lay.tokens(line), row=r, cols=cols, fragment=(c, k, len(frags)), cell_text=frag, header=hdr
            )
        )
    return items


def cell_line(
    fmt: TableFormat,
    row: Sequence[str],
    c: int,
    text: str,
    cols: tuple[int, ...],
    header: Sequence[Sequence[str]],
    label_cols: int,
) -> str:
    """The line of ``row`` over ``cols`` with cell ``c`` replaced by ``text`` (one fragment of it)."""
    cells = list(row)
    cells[c] = text
    return fmt.row_line(cells, cols, header, label_cols)
