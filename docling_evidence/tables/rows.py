"""A table as header rows and body rows of cell texts: the unit that splitting and rendering work on."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from docling_core.transforms.serializer.base import BaseDocSerializer
from docling_core.types.doc import DoclingDocument, TableItem
from docling_core.types.doc.document import NodeItem, RichTableCell

from docling_evidence.tables.params import DEFAULT_TABLE_PARAMS, TableParams


@dataclass(frozen=True)
class TableRows:
    """Cell texts of one table, laid out on its grid (a merged cell repeats its text in every slot it covers).

    Attributes:
        header: the column-header rows (Docling's ``column_header`` cells), top first.
        body: the remaining rows, in order.
        label_cols: how many leading columns label a row (``row_header`` cells; at least 1 when there are 2+
            columns): they are repeated when a row is split by columns.
    """

    header: tuple[tuple[str, ...], ...]
    body: tuple[tuple[str, ...], ...]
    label_cols: int

    @property
    def num_cols(self) -> int:
        """Number of grid columns."""
        rows = self.header or self.body
        return len(rows[0]) if rows else 0

    def content(self) -> TableRows:
        """These rows, with header rows that have no body rows under them as the body: they are the table's content,
        not a header to repeat (a one-row table, or a header row left after another became the caption)."""
        if self.header and not self.body:
            return TableRows(header=(), body=self.header, label_cols=self.label_cols)
        return self


def has_rich_cells(table: TableItem) -> bool:
    """Whether a cell of ``table`` holds document items (a list, a nested table, ...) rather than plain text."""
    return any(isinstance(cell, RichTableCell) for cell in table.data.table_cells)


def rich_cell_serializer(doc: DoclingDocument) -> BaseDocSerializer:
    """The serializer that writes a rich cell's items as its text: docling-core's Markdown serializer, as
    ``RichTableCell`` uses when given none. Creating one validates the whole document, so make one per document and
    pass it to every :func:`table_rows` call (docling-core's own table serializers share theirs the same way)."""
    from docling_core.transforms.serializer.markdown import MarkdownDocSerializer

    return MarkdownDocSerializer(doc=doc)


class RowReader:
    """:func:`table_rows` for the tables of one document, with one rich-cell serializer made when first needed."""

    def __init__(
        self,
        doc: DoclingDocument,
        cell_serializer: BaseDocSerializer | None = None,
        params: TableParams = DEFAULT_TABLE_PARAMS,
    ) -> None:
        """Read tables of ``doc`` by ``params``, writing rich cells with ``cell_serializer`` (default: one
        :func:`rich_cell_serializer`, made when a table first has a rich cell)."""
        self.doc = doc
        self.params = params
        self._serializer = cell_serializer

    def __call__(self, table: TableItem) -> TableRows:
        """The rows of ``table`` (a table of ``doc``)."""
        if self._serializer is None and has_rich_cells(table):
            self._serializer = rich_cell_serializer(self.doc)
        return table_rows(table, self.doc, self._serializer, params=self.params)


NESTED_CELL_SEP = ", "
"""Between the cells of one row of a table nested in a cell."""

NESTED_ROW_SEP = "; "
"""Between the rows of a table nested in a cell."""

NESTED_OPEN, NESTED_CLOSE = "[", "]"
"""Around a table nested inside a nested table's cell, so that its rows stay apart from the rows around it."""


def _holds_table(doc: DoclingDocument, node: NodeItem) -> bool:
    return isinstance(node, TableItem) or any(
        isinstance(item, TableItem)
        for item, _ in doc.iterate_items(root=node, with_groups=True, traverse_pictures=True)
    )


def nested_table_text(table: TableItem, doc: DoclingDocument, serializer: BaseDocSerializer | None) -> str:
    """A table nested in a cell, flattened to one line: each cell's text once (a merged cell in its first row), cells
    joined by :data:`NESTED_CELL_SEP`, rows by :data:`NESTED_ROW_SEP`, a table nested deeper in brackets.

    Written as plain text, so that the outer table's format escapes it once: docling-core's serializers write a
    nested table as a Markdown table of its own (whose pipes the outer row escapes again) and write the tables
    nested inside it once more after it."""
    by_row: dict[int, list[tuple[int, str]]] = {}
    for cell in table.data.table_cells:
        text = _cell_text(cell, doc, serializer, nested=True).strip()
        if text:
            by_row.setdefault(cell.start_row_offset_idx, []).append((cell.start_col_offset_idx, text))
    rows = [NESTED_CELL_SEP.join(text for _, text in sorted(by_row[r])) for r in sorted(by_row)]
    return NESTED_ROW_SEP.join(rows)


def _node_text(node: NodeItem, doc: DoclingDocument, serializer: BaseDocSerializer | None, nested: bool) -> str:
    """A rich cell's content: a table flattened (:func:`nested_table_text`), a group child by child, any other item
    as ``serializer`` writes it."""
    if isinstance(node, TableItem):
        text = nested_table_text(node, doc, serializer)
        return f"{NESTED_OPEN}{text}{NESTED_CLOSE}" if nested and text else text
    if not _holds_table(doc, node) or not node.children:
        if serializer is None:
            serializer = rich_cell_serializer(doc)
        return serializer.serialize(item=node).text
    parts = (_node_text(child.resolve(doc), doc, serializer, nested) for child in node.children)
    return " ".join(p.strip() for p in parts if p.strip())


def _cell_text(cell: object, doc: DoclingDocument, serializer: BaseDocSerializer | None, nested: bool = False) -> str:
    if isinstance(cell, RichTableCell):
        node = cell.ref.resolve(doc)
        if _holds_table(doc, node):
            return _node_text(node, doc, serializer, nested)
        return cell._get_text(doc=doc, doc_serializer=serializer)
    return getattr(cell, "text", "") or ""


def _grid(
    table: TableItem, doc: DoclingDocument, serializer: BaseDocSerializer | None
) -> tuple[list[list[str]], list[list[bool]], list[list[bool]]]:
    """Lay the cells on the grid. A merged cell fills every slot it spans; when Docling gives two cells for one
    slot (overlapping spans), both texts are kept, joined by a space, so no cell text is lost."""
    n_rows, n_cols = table.data.num_rows, table.data.num_cols
    slots = [[""] * n_cols for _ in range(n_rows)]
    col_header = [[False] * n_cols for _ in range(n_rows)]
    row_header = [[False] * n_cols for _ in range(n_rows)]
    for cell in table.data.table_cells:
        text = _cell_text(cell, doc, serializer).strip()
        r0, r1 = (
            max(0, cell.start_row_offset_idx),
            min(n_rows, max(cell.end_row_offset_idx, cell.start_row_offset_idx + 1)),
        )
        c0, c1 = (
            max(0, cell.start_col_offset_idx),
            min(n_cols, max(cell.end_col_offset_idx, cell.start_col_offset_idx + 1)),
        )
        for r in range(r0, r1):
            for c in range(c0, c1):
                current = slots[r][c]
                if text and text != current:
                    slots[r][c] = f"{current} {text}" if current else text
                col_header[r][c] = col_header[r][c] or cell.column_header
                row_header[r][c] = row_header[r][c] or cell.row_header
    return slots, col_header, row_header


def _reads_as_header(row: Sequence[str], max_cell_words: int) -> bool:
    """Whether a row can head columns: it holds text, no value cell, and no cell over ``max_cell_words`` words."""
    return (
        any(row)
        and not any(_is_value(cell) for cell in row)
        and all(len(cell.split()) <= max_cell_words for cell in row)
    )


def _is_value(cell: str) -> bool:
    """Whether a cell reads as a value: it holds a digit and at most one letter ("345", "39.1c", "1*", "0.12±0.02",
    "n 53"), not a label that mentions a number ("95% C.I.", "10 min", "Kma (mM)")."""
    return any(ch.isdigit() for ch in cell) and sum(ch.isalpha() for ch in cell) <= 1


def inferred_header_rows(texts: Sequence[Sequence[str]], params: TableParams = DEFAULT_TABLE_PARAMS) -> int:
    """How many leading rows of a table read as its header when Docling marked no ``column_header`` cell (HTML
    tables written with ``<td>`` only, JATS tables without ``<thead>``): the leading run, at most
    ``params.max_inferred_header_rows`` rows, of rows that hold text, no value cell and no cell over
    ``params.max_header_cell_words`` words (a table of contents' "Notices . . . . | vii" is an entry), when at least
    twice as many rows follow it and at least half of them hold a value (as ``csv.Sniffer.has_header`` tells a header
    by the rows under it). 0 otherwise: a table of text alone, whose first row holds a value ("| | 2019 | 2018 |"), or
    whose body rows mostly hold none ("n.d", "–"), keeps every row in its body."""
    n = 0
    while n < min(params.max_inferred_header_rows, len(texts) - 1) and _reads_as_header(
        texts[n], params.max_header_cell_words
    ):
        n += 1
    below = texts[n:]
    valued = sum(1 for row in below if any(_is_value(cell) for cell in row))
    return n if n and len(below) >= 2 * n and 2 * valued >= len(below) else 0


def table_rows(
    table: TableItem,
    doc: DoclingDocument,
    cell_serializer: BaseDocSerializer | None = None,
    *,
    params: TableParams = DEFAULT_TABLE_PARAMS,
) -> TableRows:
    """Read a ``TableItem`` into :class:`TableRows`.

    The header is the leading run of grid rows holding at least one ``column_header`` cell (as docling-core's Markdown
    serializer decides it); in a table with no such cell, the leading rows that read as a header by ``params``
    (:func:`inferred_header_rows`); a table made only of header rows has them all as body rows. A table whose cells
    cannot be laid on a grid (no rows or columns) gives empty rows. Rich cells are written by ``cell_serializer``
    (default: a :func:`rich_cell_serializer` made for this call; reading many tables, pass one or use
    :class:`RowReader`), except the tables nested in them, which are flattened by :func:`nested_table_text`.
    """
    data = table.data
    if data.num_rows <= 0 or data.num_cols <= 0:
        return TableRows(header=(), body=(), label_cols=0)
    if cell_serializer is None and has_rich_cells(table):
        cell_serializer = rich_cell_serializer(doc)
    slots, col_header, row_header = _grid(table, doc, cell_serializer)
    n_header = 0
    for flags in col_header:
        if any(flags):
            n_header += 1
        else:
            break
    texts = [tuple(row) for row in slots]
    if n_header == 0 and not any(any(flags) for flags in col_header):
        n_header = inferred_header_rows(texts, params)
    if n_header == len(slots):
        n_header = 0  # a table of header cells only: its rows are its content, not a header to repeat
    body_flags = row_header[n_header:]
    label_cols = 0
    for col in range(data.num_cols):
        if body_flags and any(flags[col] for flags in body_flags):
            label_cols = col + 1
        else:
            break
    if label_cols == 0 and data.num_cols > 1:
        label_cols = 1
    label_cols = min(label_cols, max(data.num_cols - 1, 0))
    return TableRows(header=tuple(texts[:n_header]), body=tuple(texts[n_header:]), label_cols=label_cols)
