"""Render table rows as Markdown, HTML or triplet lines: exactly one line per table row.

One line per row is what makes splitting exact: a piece is a run of whole lines, each line's tokens are counted
once, and a row can never be cut in two by a line-based splitter. Cell text is escaped so that ``|``, newlines and
markup inside a cell cannot break a row apart.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from typing import Literal, Protocol

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

    name: TableFormatName
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

    name: TableFormatName = "markdown"
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

    name: TableFormatName = "html"
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

    name: TableFormatName = "triplets"
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


TABLE_FORMATS: dict[TableFormatName, TableFormat] = {
    "markdown": MarkdownFormat(),
    "html": HtmlFormat(),
    "triplets": TripletFormat(),
}
"""The built-in formats by name."""
