"""Split an evidence unit into pieces that each fit the tokenizer's limit: by rows, by columns, inside a cell.

A unit that fits is one piece: ``caption + context before + table + footnotes + context after``. A unit that does not
fit is split so that every piece stays dense in rows:

- the **caption** and the table's **header** are repeated in every piece (the header of the columns the piece shows);
  the **footnotes** too while they leave room for rows;
- **context is not repeated**: a context text that names a row (its label, or a number no other row holds, see
  :mod:`docling_evidence.tables.affinity`) goes into the piece holding that row (the first one it names); the rest, the
  general context, goes once per unit, into the first piece (the most important first when it needs more than one),
  which the first rows fill only when that saves a piece;
- a table that fits one piece without its context stays one piece: it keeps the context that fits beside it (texts
  naming its rows first, then the most important), and the rest of the context goes into pieces of its own before
  it, under the caption;
- rows are packed in order, as many whole rows per piece as fit.

When a header row plus a body row does not fit (a wide table), the table is split **by columns**: the columns are
cut into groups, every group repeats the row-label columns, and each group is a table of its own (its header, then
its rows, packed by rows). A header cell is never cut unless the cell alone is longer than a piece. A single row
still too wide for its group is split by columns inside the group, and a single cell longer than a piece is split
inside the cell (semchunk), each fragment under its row and column labels.

``repeat_table_header`` and ``omit_header_on_overflow`` mean what they mean in docling-core's ``HybridChunker``:
with ``repeat_table_header=False`` the header is shown once, in the first piece of the table (of each column group);
with ``omit_header_on_overflow=True`` a row that does not fit beside the header goes out without it (the table is
not split by columns), and the header then still gets a piece of its own.

Nothing is lost: every body cell appears exactly once (in a whole row line, a column group or as fragments that
reassemble to it), in order, and every caption, header, footnote and context text appears at least once.

Token counts: each line and paragraph is counted once and counts are added (plus a per-join allowance measured for
the tokenizer), so splitting stays linear in the table's size; each finished piece is then checked exactly with
``fits`` and shrunk if a join cost more than estimated.

The numbers these rules use (what share of a piece a header may take, how many rows a piece leaves room for, ...)
are the fields of :class:`~docling_evidence.split.params.SplitParams`. The work is done by the modules beside this
one: :mod:`~docling_evidence.split.whole` (units that fit), :mod:`~docling_evidence.split.rows` (planning by rows),
:mod:`~docling_evidence.split.columns` (wide tables), :mod:`~docling_evidence.split.cells` (one row or cell too
big), :mod:`~docling_evidence.split.placement` (context), :mod:`~docling_evidence.split.packing` (items into pieces)
and :mod:`~docling_evidence.split.layout` (rendering and measuring a piece).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from docling_evidence.split.fragments import SEMCHUNK_MIN_SIZE, fragment_spans, fragments, piece_budget
from docling_evidence.split.items import Unsplittable
from docling_evidence.split.layout import PieceLayout
from docling_evidence.split.params import SplitParams, share_of
from docling_evidence.split.pieces import BLOCK_DELIM, ELLIPSIS, LINE_DELIM, Piece, TokenLimitTooSmall, UnitParts
from docling_evidence.split.rows import plan
from docling_evidence.split.whole import table_kept_whole, whole_piece
from docling_evidence.tokenizer import memoised_count

__all__ = [
    "BLOCK_DELIM",
    "ELLIPSIS",
    "LINE_DELIM",
    "SEMCHUNK_MIN_SIZE",
    "Piece",
    "SplitParams",
    "Splitter",
    "TokenLimitTooSmall",
    "UnitParts",
    "fragment_spans",
    "fragments",
    "piece_budget",
]


class Splitter:
    """Splits :class:`UnitParts` into :class:`Piece` objects that each satisfy ``fits``.

    A splitter holds settings and its counter, nothing else: ``split`` can be called on any number of units, in any
    order, with the same results.

    Args:
        count: token count of a text, as the chunker's tokenizer counts it: a
            :class:`~docling_evidence.tokenizer.MemoTokenizer`'s ``count_tokens`` is used as it is, any other counter
            is memoised.
        fits: exact check that a piece text, contextualized as the chunker does, is within the limit.
        budget: tokens available for a piece's text (:func:`piece_budget`).
        repeat_table_header: repeat the header in every piece (default); False shows it once per table (per column
            group), as HybridChunker's field of that name.
        omit_header_on_overflow: a row that does not fit beside the header goes out without it instead of the table
            being split by columns (only with ``repeat_table_header``), as HybridChunker's field of that name.
        params: the numbers of the splitting rules (the defaults are the measured ones).
    """

    def __init__(
        self,
        count: Callable[[str], int],
        fits: Callable[[str], bool],
        budget: int,
        *,
        repeat_table_header: bool = True,
        omit_header_on_overflow: bool = False,
        params: SplitParams = SplitParams(),  # noqa: B008 (frozen: one shared default is safe)
    ) -> None:
        if budget <= 0:
            raise ValueError(f"token budget must be positive, got {budget}")
        # the chunker's counter is its document's token memo; any other counter gets a memo of its own
        self.count = memoised_count(count)
        self.fits = fits
        self.budget = budget
        self.repeat_table_header = repeat_table_header
        self.omit_header_on_overflow = omit_header_on_overflow
        self.params = params
        self._layout = PieceLayout(
            self.count,
            fits,
            budget,
            params,
            repeat_table_header=repeat_table_header,
            omit_header_on_overflow=omit_header_on_overflow,
        )

    def tokens(self, text: str) -> int:
        """Token count of ``text``, memoised."""
        return self._layout.tokens(text)

    def fragments(self, text: str, size: int) -> list[str]:
        """:func:`fragments` with this splitter's memoised counter."""
        return self._layout.fragments(text, size)

    def split(self, parts: UnitParts) -> list[Piece]:
        """Split ``parts`` into pieces (one piece when the whole unit fits)."""
        if parts.rows.header and not parts.rows.body:
            # header rows with nothing under them (e.g. after a header row became the caption) are the content
            parts = replace(parts, rows=parts.rows.content())
        whole = whole_piece(self._layout, parts)
        if whole is not None:
            return [whole]
        kept_whole = table_kept_whole(self._layout, parts)
        if kept_whole is not None:
            return kept_whole
        layout = self._layout
        while True:
            try:
                return plan(layout, parts)
            except Unsplittable as exc:
                layout = self._retry_layout(layout, parts, exc)

    def _retry_layout(self, failed: PieceLayout, parts: UnitParts, exc: Unsplittable) -> PieceLayout:
        """The layout to plan again with after ``failed`` could not fit a row: a join cost more tokens than estimated
        for this tokenizer, so first a smaller budget, then rows without their header."""
        p = self.params
        if failed.budget > p.retry_min_budget:
            return failed.with_budget(failed.budget - max(1, share_of(failed.budget, p.retry_step_share)))
        if not failed.headerless_rows:
            # a row too big for any piece under its header (a tiny limit, a verbose format): without it
            return self._layout.with_budget(self.budget, headerless_rows=True)
        raise TokenLimitTooSmall(
            f"one row of a table (row {exc.row}) does not fit the token limit even alone, in the "
            f"{parts.fmt.name} format"
        ) from None
