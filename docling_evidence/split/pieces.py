"""What the splitter takes and gives: the rendered parts of a unit, and the pieces it is split into."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from docling_evidence.tables.affinity import named_rows
from docling_evidence.tables.formats import TableFormat
from docling_evidence.tables.params import DEFAULT_TABLE_PARAMS, TableParams
from docling_evidence.tables.rows import TableRows

BLOCK_DELIM = "\n\n"
"""Between the blocks of a piece (caption, each paragraph, the table, each footnote)."""

LINE_DELIM = "\n"
"""Between the lines of the table block."""

ELLIPSIS = " …"
"""Marks a shortened repeated caption."""


@dataclass(frozen=True)
class UnitParts:
    """The rendered parts of one evidence unit, ready to be split.

    ``context_before`` and ``context_after`` are in reading order. ``context_rank`` gives, for each text of
    ``context_before + context_after``, its priority (0 = most important, e.g. the paragraph naming the table): the
    general context of a split unit goes into its first piece most important first. ``context_rows`` gives, for each
    text, the body rows it names (its piece is the one holding the first of them; ``()``: general context); None
    (default) lets :func:`docling_evidence.tables.affinity.named_rows` decide, by the rules of ``tables``. A table
    that fits one piece without its context is kept whole: texts naming rows go beside them first, then the general
    context by rank, and what does not fit goes into pieces of its own before it.
    """

    caption: str
    context_before: tuple[str, ...]
    context_after: tuple[str, ...]
    footnotes: tuple[str, ...]
    rows: TableRows
    fmt: TableFormat
    context_rank: tuple[int, ...] | None = None
    context_rows: tuple[tuple[int, ...], ...] | None = None
    tables: TableParams = DEFAULT_TABLE_PARAMS

    @property
    def context(self) -> tuple[str, ...]:
        """``context_before + context_after``: what the indices of ``Piece.kept_context`` refer to."""
        return (*self.context_before, *self.context_after)

    def general_order(self, general: Sequence[int]) -> list[int]:
        """The general context indices in the order they fill the first piece: by rank, then in reading order."""
        rank = self.context_rank
        if rank is not None and len(rank) == len(self.context):
            return sorted(general, key=lambda i: (rank[i], i))
        return sorted(general)

    def rows_named(self) -> tuple[tuple[int, ...], ...]:
        """For each context text, the body rows it names (``context_rows``, or computed)."""
        n = len(self.context)
        if self.context_rows is not None and len(self.context_rows) == n:
            return self.context_rows
        return named_rows(self.context, self.rows, self.tables)


@dataclass(frozen=True)
class Piece:
    """One piece of a split unit.

    Attributes:
        text: the piece's text (what ``chunk.text`` holds).
        rows: the half-open range of body rows the piece holds (empty range for a piece with no rows).
        cols: the columns rendered when the table or a row was split by columns (None: all columns).
        fragment: ``(column, index, count)`` when the piece holds one fragment of a cell split inside.
        cell_text: the fragment's exact text (a substring of the cell) when ``fragment`` is set.
        kept_context: indices into the unit's ``context_before + context_after`` of the texts the piece holds (in
            full or a fragment of one).
        has_caption: whether the piece shows the caption (in full or shortened).
        has_footnotes: whether the piece shows the footnotes.
        has_header: whether the piece's table block starts with header lines.
        caption_once: whether the piece is the one that shows, whole, the caption the other pieces repeat
            shortened.
        row_slices: what of each body row the piece shows, in order: ``(row, cols, cell_text)`` with ``cols`` None
            for the whole row, and ``cell_text`` the fragment shown of the last of ``cols`` when a cell was split
            inside (None otherwise).
        context_shown: ``(index, text)`` of each context text the piece shows, in order: the whole text, or the
            fragment of it the piece holds.
        context_spans: ``(index, start, end)`` for each entry of ``context_shown``: where its text is in the context
            text (``context[index][start:end] == text``), so a fragment is located without searching for it.
    """

    text: str
    rows: tuple[int, int]
    cols: tuple[int, ...] | None = None
    fragment: tuple[int, int, int] | None = None
    cell_text: str | None = None
    kept_context: tuple[int, ...] = ()
    has_caption: bool = True
    has_footnotes: bool = True
    has_header: bool = False
    caption_once: bool = False
    row_slices: tuple[tuple[int, tuple[int, ...] | None, str | None], ...] = ()
    context_shown: tuple[tuple[int, str], ...] = ()
    context_spans: tuple[tuple[int, int, int], ...] = ()


class TokenLimitTooSmall(ValueError):
    """The token limit is too small to chunk this document: it cannot hold a single table row even cut into cell
    fragments (a few dozen tokens with HTML tables), or docling-core's text splitter cannot cut a text that short."""
