"""The row formats: how a table's lines look, exactly one line per table row.

One line per row is what makes splitting exact: a piece is a run of whole lines, each line's tokens are counted
once, and a row can never be cut in two by a line-based splitter. Cell text is escaped so that ``|``, newlines and
markup inside a cell cannot break a row apart.

Every row format is a class here, registered once in :data:`ROW_FORMATS` by its ``kind``:

- ``markdown``, ``html``, ``triplets``: the three ``table_format`` settings, over the table's cell texts
  (:data:`TABLE_FORMATS`);
- ``cell text``: a table of one cell, shown as its text;
- ``serializer pipe rows`` and ``serializer lines``: another serializer's output kept as it wrote it, its pipe
  table's rows cell by cell (so a column subset is still a pipe table) or its other lines (HTML) whole.

A format's ``name`` is the ``table_format`` setting it counts as, which is what messages call it: the one-cell and
pipe-row formats count as ``markdown``, other serializers' lines as ``html``.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, Literal, Protocol, get_args

from docling_evidence.tables.pipes import is_separator_cell, join_pipe_row

TableFormatName = Literal["markdown", "html", "triplets"]
"""The table formats ``EvidenceChunker`` renders, selected by its ``table_format`` field."""

HEADER_SEPARATOR = " - "
"""Joins the labels of stacked header rows into one column label, as docling-core's Markdown serializer does."""

_LINE_BREAKS = re.compile(r"[\r\n\t\v\f\u2028\u2029\x85]+")


def one_line(text: str) -> str:
    """Replace line breaks and tabs inside a cell by single spaces."""
    return _LINE_BREAKS.sub(" ", text)


def column_label(header: Sequence[Sequence[str]], col: int) -> str:
    """The label of column ``col``: its header cells top to bottom, consecutive repeats (merged cells) once."""
    parts: list[str] = []
    for row in header:
        text = row[col].strip() if col < len(row) else ""
        if text and (not parts or parts[-1] != text):
            parts.append(text)
    return HEADER_SEPARATOR.join(parts)


class TableFormat(Protocol):
    """How a table's lines look in one format."""

    kind: ClassVar[str]
    """Which row format this is, unique among them (its key in :data:`ROW_FORMATS`)."""
    name: ClassVar[TableFormatName]
    """The ``table_format`` setting this format counts as (what messages call it)."""
    caption_in_header: bool
    """Whether the header lines show the table's caption (another serializer's HTML ``<table>`` line): a piece
    showing them does not repeat the caption above the table."""

    def open_lines(self) -> list[str]:
        """Lines before the header (e.g. ``<table>``)."""
        ...

    def close_lines(self) -> list[str]:
        """Lines after the last row."""
        ...

    def header_lines(self, header: Sequence[Sequence[str]], cols: Sequence[int]) -> list[str]:
        """Lines rendering the header rows, restricted to ``cols``."""
        ...

    def row_line(
        self, row: Sequence[str], cols: Sequence[int], header: Sequence[Sequence[str]], label_cols: int
    ) -> str:
        """One line rendering a body row, restricted to ``cols``."""
        ...


class MarkdownFormat:
    """GitHub-style pipe table; stacked header rows are merged into one header line per column."""

    kind: ClassVar[str] = "markdown"
    name: ClassVar[TableFormatName] = "markdown"
    caption_in_header = False

    @staticmethod
    def _cell(text: str) -> str:
        return one_line(text).replace("\\", "\\\\").replace("|", "\\|").strip()

    def open_lines(self) -> list[str]:
        return []

    def close_lines(self) -> list[str]:
        return []

    def header_lines(self, header: Sequence[Sequence[str]], cols: Sequence[int]) -> list[str]:
        if not header or not cols:
            return []
        labels = [self._cell(column_label(header, c)) for c in cols]
        return ["| " + " | ".join(labels) + " |", "|" + "|".join("---" for _ in cols) + "|"]

    def row_line(
        self, row: Sequence[str], cols: Sequence[int], header: Sequence[Sequence[str]], label_cols: int
    ) -> str:
        return "| " + " | ".join(self._cell(row[c]) for c in cols) + " |"


class HtmlFormat:
    """An HTML ``<table>``, one ``<tr>`` per line, cell text escaped."""

    kind: ClassVar[str] = "html"
    name: ClassVar[TableFormatName] = "html"
    caption_in_header = False

    @staticmethod
    def _cell(text: str, tag: str) -> str:
        return f"<{tag}>{html.escape(one_line(text).strip(), quote=False)}</{tag}>"

    def open_lines(self) -> list[str]:
        return ["<table>"]

    def close_lines(self) -> list[str]:
        return ["</table>"]

    def header_lines(self, header: Sequence[Sequence[str]], cols: Sequence[int]) -> list[str]:
        return ["<tr>" + "".join(self._cell(row[c], "th") for c in cols) + "</tr>" for row in header]

    def row_line(
        self, row: Sequence[str], cols: Sequence[int], header: Sequence[Sequence[str]], label_cols: int
    ) -> str:
        return "<tr>" + "".join(self._cell(row[c], "td") for c in cols) + "</tr>"


class TripletFormat:
    """docling-core's triplet style, one line per row: ``row label, column label = value. ...``.

    The column labels are folded into every row; the one header line lists the labels of the columns shown (so the
    label columns' own header, which no triplet carries, is not lost).
    """

    kind: ClassVar[str] = "triplets"
    name: ClassVar[TableFormatName] = "triplets"
    caption_in_header = False

    def open_lines(self) -> list[str]:
        return []

    def close_lines(self) -> list[str]:
        return []

    def header_lines(self, header: Sequence[Sequence[str]], cols: Sequence[int]) -> list[str]:
        labels = [one_line(column_label(header, c)) for c in cols]
        return ["Columns: " + "; ".join(labels)] if any(labels) else []

    def row_line(
        self, row: Sequence[str], cols: Sequence[int], header: Sequence[Sequence[str]], label_cols: int
    ) -> str:
        label_set = [c for c in cols if c < label_cols]
        value_cols = [c for c in cols if c >= label_cols]
        row_label = one_line(" ".join(row[c].strip() for c in label_set if row[c].strip()))
        if not value_cols:  # a piece holding only label cells
            return row_label
        parts = []
        for c in value_cols:
            col_label = one_line(column_label(header, c)) or f"column {c + 1}"
            lead = f"{row_label}, {col_label}" if row_label else col_label
            parts.append(f"{lead} = {one_line(row[c].strip())}")
        return ". ".join(parts)


class CellTextFormat:
    """A table of one cell shown as its text (a layout table, e.g. a rich cell wrapping body text)."""

    kind: ClassVar[str] = "cell text"
    name: ClassVar[TableFormatName] = "markdown"
    caption_in_header = False

    def open_lines(self) -> list[str]:
        return []

    def close_lines(self) -> list[str]:
        return []

    def header_lines(self, header: Sequence[Sequence[str]], cols: Sequence[int]) -> list[str]:
        return [" ".join(row[c] for c in cols) for row in header]

    def row_line(
        self, row: Sequence[str], cols: Sequence[int], header: Sequence[Sequence[str]], label_cols: int
    ) -> str:
        return " ".join(row[c] for c in cols)


class SerializerPipeRowsFormat:
    """Rows of a pipe table made by another serializer, kept exactly: each cell is its raw text between pipes
    (padding included), so a whole row renders back to the serializer's own line and a column subset is a valid
    pipe table."""

    kind: ClassVar[str] = "serializer pipe rows"
    name: ClassVar[TableFormatName] = "markdown"
    caption_in_header = False

    def open_lines(self) -> list[str]:
        return []

    def close_lines(self) -> list[str]:
        return []

    def header_lines(self, header: Sequence[Sequence[str]], cols: Sequence[int]) -> list[str]:
        return [join_pipe_row([row[c] for c in cols]) for row in header]

    def row_line(
        self, row: Sequence[str], cols: Sequence[int], header: Sequence[Sequence[str]], label_cols: int
    ) -> str:
        return join_pipe_row([row[c] if _as_written(row[c]) else f" {row[c]} " for c in cols])


def _as_written(cell: str) -> bool:
    """Whether a pipe-table cell is shown as it is: the serializer's own cells (padded, or a separator row's bare
    dashes, which a one-row table shows as content); a fragment of a cell split inside gets the padding back."""
    # any run of dashes: a serializer writes as many as its column is wide
    return cell.startswith(" ") or (cell == cell.strip() and is_separator_cell(cell, min_dashes=1))


@dataclass(frozen=True)
class SerializerLinesFormat:
    """Lines of a table made by another serializer, one body line per row, framed by its opening/closing lines."""

    kind: ClassVar[str] = "serializer lines"
    name: ClassVar[TableFormatName] = "html"
    opening: tuple[str, ...] = ()
    closing: tuple[str, ...] = ()
    caption_in_header: bool = False

    def open_lines(self) -> list[str]:
        return list(self.opening)

    def close_lines(self) -> list[str]:
        return list(self.closing)

    def header_lines(self, header: Sequence[Sequence[str]], cols: Sequence[int]) -> list[str]:
        return [row[0] for row in header]

    def row_line(
        self, row: Sequence[str], cols: Sequence[int], header: Sequence[Sequence[str]], label_cols: int
    ) -> str:
        return row[0]


ROW_FORMATS: dict[str, type[TableFormat]] = {
    fmt.kind: fmt
    for fmt in (
        MarkdownFormat,
        HtmlFormat,
        TripletFormat,
        CellTextFormat,
        SerializerPipeRowsFormat,
        SerializerLinesFormat,
    )
}
"""Every row format by its ``kind``."""

TABLE_FORMATS: dict[TableFormatName, TableFormat] = {name: ROW_FORMATS[name]() for name in get_args(TableFormatName)}
"""The formats of the ``table_format`` settings, by name."""
