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
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

import semchunk

from docling_evidence.tables.affinity import named_rows
from docling_evidence.tables.formats import TableFormat
from docling_evidence.tables.rows import TableRows

_log = logging.getLogger(__name__)

BLOCK_DELIM = "\n\n"
"""Between the blocks of a piece (caption, each paragraph, the table, each footnote)."""

LINE_DELIM = "\n"
"""Between the lines of the table block."""

ELLIPSIS = " …"
"""Marks a shortened repeated caption."""

SEMCHUNK_MIN_SIZE = 8
"""Below this many tokens a text is cut by characters instead of by semchunk (which can recurse without end there)."""

CACHE_MAX_ENTRIES = 2_000_000
"""Memoised token counts per splitter (one splitter per unit): enough for every line of a very large table."""

WIDEST_SAMPLE = 3
"""Column groups are sized on this many of the widest rows; a row still too wide is split inside its group."""


def piece_budget(count: Callable[[str], int], limit: int, prefix: str = "") -> int:
    """Tokens left for a piece's text when ``prefix`` is put in front of it (the "limit minus headings" budget).

    ``prefix`` is what ``contextualize`` adds before the text (the headings and the delimiter). Its cost is measured
    as the tokenizer counts it in front of a text (``count(prefix + "x") - count("x")``), so a tokenizer that adds
    special tokens once per text does not pay for them twice. The result can be zero or negative when the prefix
    alone fills the limit.
    """
    return limit - (count(prefix + "x") - count("x")) if prefix else limit


def fragments(text: str, size: int, count: Callable[[str], int]) -> list[str]:
    """Cut ``text`` into consecutive fragments of at most ``size`` tokens that concatenate back to ``text``.

    semchunk cuts at the most meaningful boundary (paragraph, sentence, word); where it cannot (tiny sizes,
    characters worth several tokens), fragments are cut by characters, as long as each still fits.
    """
    if not text:
        return [text]
    size = max(1, size)
    if size >= SEMCHUNK_MIN_SIZE:
        try:
            _chunks, offsets = semchunk.chunk(text, chunk_size=size, token_counter=count, offsets=True)
        except RecursionError:
            offsets = []
        if offsets:
            starts = [0, *(start for start, _ in offsets[1:])]
            ends = [*starts[1:], len(text)]
            pieces = [text[s:e] for s, e in zip(starts, ends, strict=True)]
            if all(count(p) <= size for p in pieces):
                return pieces
    return _char_fragments(text, size, count)


def _char_fragments(text: str, size: int, count: Callable[[str], int]) -> list[str]:
    pieces: list[str] = []
    start = 0
    while start < len(text):
        lo, hi = start + 1, len(text)  # the longest prefix from ``start`` that fits (at least one character)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if count(text[start:mid]) <= size:
                lo = mid
            else:
                hi = mid - 1
        pieces.append(text[start:lo])
        start = lo
    return pieces


@dataclass(frozen=True)
class UnitParts:
    """The rendered parts of one evidence unit, ready to be split.

    ``context_before`` and ``context_after`` are in reading order. ``context_rank`` gives, for each text of
    ``context_before + context_after``, its priority (0 = most important, e.g. the paragraph naming the table): the
    general context of a split unit goes into its first piece most important first. ``context_rows`` gives, for each
    text, the body rows it names (its piece is the one holding the first of them; ``()``: general context); None
    (default) lets :func:`docling_evidence.tables.affinity.named_rows` decide. A table that fits one piece without its
    context is kept whole: texts naming rows go beside them first, then the general context by rank, and what does
    not fit goes into pieces of its own before it.
    """

    caption: str
    context_before: tuple[str, ...]
    context_after: tuple[str, ...]
    footnotes: tuple[str, ...]
    rows: TableRows
    fmt: TableFormat
    context_rank: tuple[int, ...] | None = None
    context_rows: tuple[tuple[int, ...], ...] | None = None

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
        return named_rows(self.context, self.rows)


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
        row_slices: what of each body row the piece shows, in order: ``(row, cols, cell_text)`` with ``cols`` None
            for the whole row, and ``cell_text`` the fragment shown of the last of ``cols`` when a cell was split
            inside (None otherwise).
        context_shown: ``(index, text)`` of each context text the piece shows, in order: the whole text, or the
            fragment of it the piece holds.
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
    row_slices: tuple[tuple[int, tuple[int, ...] | None, str | None], ...] = ()
    context_shown: tuple[tuple[int, str], ...] = ()


Kind = Literal["row", "lead", "tail"]


@dataclass
class _Item:
    """A payload item: a body row line (or part of one), or a once-only text block placed before ("lead") or after
    ("tail") the table block of its piece."""

    kind: Kind
    text: str
    tokens: int
    row: int = -1
    cols: tuple[int, ...] | None = None
    fragment: tuple[int, int, int] | None = None
    cell_text: str | None = None
    header: tuple[str, ...] = ()  # the header lines this row is shown under, when it starts a piece
    group: object = None  # rows pack together only with rows of the same group (None: never with another row)
    is_caption: bool = False  # the full caption, emitted once when the repeated one is shortened
    is_footnote: bool = False  # a footnote emitted once
    is_header: bool = False  # (part of) the table's header shown without rows
    ctx: int | None = None  # index of the context text this item shows
    sticky: bool = False  # keep in the piece of the next item (context placed with its row)
    opens: bool = False  # starts a piece of its own (never joins the items before it)


@dataclass
class _Overhead:
    """What every piece repeats, and the once-only texts the reduction moved out of it."""

    caption: str
    footnotes: list[str]
    fmt: TableFormat
    lead: list[str] = field(default_factory=list)
    tail: list[str] = field(default_factory=list)
    header: tuple[str, ...] = ()  # shown by a piece without rows (of context, footnotes), so every piece shows it


class Splitter:
    """Splits :class:`UnitParts` into :class:`Piece` objects that each satisfy ``fits``.

    A splitter holds settings and a memo of token counts, nothing else: ``split`` can be called on any number of
    units, in any order, with the same results.

    Args:
        count: token count of a text, as the chunker's tokenizer counts it.
        fits: exact check that a piece text, contextualized as the chunker does, is within the limit.
        budget: tokens available for a piece's text (:func:`piece_budget`).
        repeat_table_header: repeat the header in every piece (default); False shows it once per table (per column
            group), as HybridChunker's field of that name.
        omit_header_on_overflow: a row that does not fit beside the header goes out without it instead of the table
            being split by columns (only with ``repeat_table_header``), as HybridChunker's field of that name.
    """

    def __init__(
        self,
        count: Callable[[str], int],
        fits: Callable[[str], bool],
        budget: int,
        *,
        repeat_table_header: bool = True,
        omit_header_on_overflow: bool = False,
    ) -> None:
        if budget <= 0:
            raise ValueError(f"token budget must be positive, got {budget}")
        self.count = count
        self.fits = fits
        self.budget = budget
        self.repeat_table_header = repeat_table_header
        self.omit_header_on_overflow = omit_header_on_overflow
        self._cache: dict[str, int] = {}
        # last resort, when even the smallest retry budget fails: a row that does not fit under its header goes
        # without it (after the header shown on its own)
        self._headerless_rows = False
        # a header that fits in half of the budget is always shown with its rows; a retry at a smaller budget (when a
        # join cost more than estimated) keeps the threshold of the budget asked for
        self._half = budget // 2
        self.join = max(0, count("a" + BLOCK_DELIM + "b") - count("a") - count("b"))
        self.line_join = max(0, count("a" + LINE_DELIM + "b") - count("a") - count("b"))

    # -- counting ---------------------------------------------------------------------------------------------------
    def tokens(self, text: str) -> int:
        """Token count of ``text``, memoised."""
        n = self._cache.get(text)
        if n is None:
            n = self.count(text)
            if len(self._cache) < CACHE_MAX_ENTRIES:
                self._cache[text] = n
        return n

    def _lines_cost(self, lines: Sequence[str]) -> int:
        return sum(self.tokens(x) for x in lines) + self.line_join * max(0, len(lines) - 1)

    def _blocks_cost(self, blocks: Sequence[str]) -> int:
        return sum(self.tokens(b) for b in blocks) + self.join * max(0, len(blocks) - 1)

    def fragments(self, text: str, size: int) -> list[str]:
        """:func:`fragments` with this splitter's memoised counter."""
        return fragments(text, size, self.tokens)

    def _prefix(self, text: str, max_tokens: int) -> str:
        if max_tokens <= 0:
            return ""
        first = self.fragments(text, max_tokens)[0]
        return first if self.tokens(first) <= max_tokens else ""

    # -- rendering --------------------------------------------------------------------------------------------------
    @staticmethod
    def _caption_of(oh: _Overhead, payload: Sequence[_Item]) -> str:
        """The caption block of a piece: none when the piece shows the full caption once, or when its header lines
        show the caption (``fmt.caption_in_header``)."""
        if any(it.is_caption for it in payload):
            return ""
        if oh.fmt.caption_in_header and (_shows_header(payload) or Splitter._bare(oh, payload)):
            return ""
        return oh.caption

    def _render(self, oh: _Overhead, payload: Sequence[_Item]) -> str:
        rows = [it for it in payload if it.kind == "row"]
        blocks: list[str] = []
        cap = self._caption_of(oh, payload)
        if cap:
            blocks.append(cap)
        blocks.extend(it.text for it in _reading_order([it for it in payload if it.kind == "lead"]))
        if rows:
            fmt = oh.fmt
            lines = [*fmt.open_lines(), *rows[0].header, *(it.text for it in rows), *fmt.close_lines()]
            blocks.append(LINE_DELIM.join(lines))
        elif bare := self._bare(oh, payload):
            blocks.append(LINE_DELIM.join([*oh.fmt.open_lines(), *bare, *oh.fmt.close_lines()]))
        blocks.extend(oh.footnotes)
        blocks.extend(it.text for it in _reading_order([it for it in payload if it.kind == "tail"]))
        return BLOCK_DELIM.join(b for b in blocks if b)

    def _estimate(self, oh: _Overhead, payload: Sequence[_Item]) -> int:
        rows = [it for it in payload if it.kind == "row"]
        cap = self._caption_of(oh, payload)
        blocks = [cap] if cap else []
        blocks += oh.footnotes
        texts = [it for it in payload if it.kind != "row" and it.text]
        total = self._blocks_cost(blocks) + sum(it.tokens for it in texts)
        n_blocks = len(blocks) + len(texts)
        if rows:
            frame = [*oh.fmt.open_lines(), *rows[0].header, *oh.fmt.close_lines()]
            total += self._lines_cost(frame) + sum(it.tokens for it in rows) + self.line_join * len(rows)
            n_blocks += 1
        elif bare := self._bare(oh, payload):
            total += self._lines_cost([*oh.fmt.open_lines(), *bare, *oh.fmt.close_lines()])
            n_blocks += 1
        return total + self.join * max(0, n_blocks - 1)

    @staticmethod
    def _bare(oh: _Overhead, payload: Sequence[_Item]) -> tuple[str, ...]:
        """The header lines a piece of ``payload`` shows without rows: the overhead's header, unless the piece has
        rows or header lines of its own, or is the one piece of a caption too long to repeat."""
        if any(it.kind == "row" or it.is_header or it.is_caption for it in payload):
            return ()
        return oh.header

    def _row_fits(self, oh: _Overhead, header: Sequence[str], line: str, n: int | None = None) -> bool:
        """Whether one row line fits a piece under ``header`` with the overhead: by the estimate, or — when that says
        no — by the exact count of the rendered piece (with a tokenizer whose joins merge, as BPE's do, the estimate
        can be a few tokens too cautious, and a row that fits under its header would lose it)."""
        tokens = self.tokens(line) if n is None else n
        if tokens <= self._room(oh, header) - (0 if line else self.line_join):
            return True
        return bool(header) and self.fits(self._render(oh, [_Item("row", line, tokens, header=tuple(header))]))

    def _room(self, oh: _Overhead, header: Sequence[str] = ()) -> int:
        """Tokens left for row lines in a piece showing ``header`` and the overhead."""
        return self.budget - self._estimate(oh, [_Item("row", "", 0, header=tuple(header))])

    # -- overhead ---------------------------------------------------------------------------------------------------
    def _reduce(self, parts: UnitParts, header: Sequence[str], limit: int) -> _Overhead:
        """The repeated overhead (caption, footnotes), reduced until, with ``header``, it needs at most ``limit``.

        First the footnotes stop being repeated (emitted once, after the last row); then the repeated caption is
        shortened to its first tokens (the full caption is emitted once, before the first row).
        """
        oh = _Overhead(caption=parts.caption, footnotes=list(parts.footnotes), fmt=parts.fmt)

        def cost() -> int:
            return self.budget - self._room(oh, header)

        if cost() > limit and oh.footnotes:
            oh.tail = oh.footnotes
            oh.footnotes = []
        # a caption the header lines show (fmt.caption_in_header) is shown in full with them: shortening the one
        # above a piece without a header saves nothing there
        in_header = oh.fmt.caption_in_header and bool(header) and self._lines_cost(header) <= self._half
        if cost() > limit and oh.caption and not in_header:
            full = oh.caption
            room = limit - (cost() - self.tokens(full))
            short = self._prefix(full, room - self.tokens(ELLIPSIS)) if room > self.tokens(ELLIPSIS) + 1 else ""
            oh.caption = (short + ELLIPSIS) if short else ""
            oh.lead = [full]
        return oh

    def overhead_limit(self, widest: int) -> int:
        """Tokens the repeated overhead (with the header) may use, given the widest row line.

        Rows get at least a quarter of the budget, and room for two of the widest rows up to half the budget.
        """
        return self.budget - max(min(2 * widest, self.budget // 2), self.budget // 4)

    # -- text items -------------------------------------------------------------------------------------------------
    def _text_items(
        self,
        kind: Literal["lead", "tail"],
        text: str,
        oh: _Overhead,
        *,
        is_caption: bool = False,
        is_footnote: bool = False,
        is_header: bool = False,
        ctx: int | None = None,
        sticky: bool = False,
    ) -> list[_Item]:
        """One once-only text, cut into fragments when it does not fit a piece beside the repeated overhead."""
        # the piece of the full caption shows no header of its own: the caption is longer than half a piece
        room = self.budget - self._estimate(replace(oh, header=()) if is_caption else oh, []) - self.join
        n = self.tokens(text)
        # the full caption replaces the shortened one in its piece: it may use that room too
        extra = self.tokens(oh.caption) + self.join if is_caption and oh.caption else 0
        texts = [text] if n <= room + extra else self.fragments(text, room)
        items = [
            _Item(
                kind,
                t,
                self.tokens(t),
                is_caption=is_caption and len(texts) == 1,
                is_footnote=is_footnote,
                is_header=is_header,
                ctx=ctx,
            )
            for t in texts
        ]
        for item in items:  # context cut into fragments starts a piece of its own rather than end another one
            item.sticky = sticky
        return items

    def _header_items(self, parts: UnitParts, oh: _Overhead, cols: Sequence[int]) -> list[_Item]:
        """The header of ``cols`` shown on its own, as header-only tables of column groups that fit a piece (a cell
        is cut only when it alone is longer than a piece)."""
        fmt, header_rows = parts.fmt, parts.rows.header
        room = self.budget - self._estimate(replace(oh, header=()), []) - self.join  # these pieces show it instead
        items: list[_Item] = []
        group: list[int] = []

        def block(group_cols: Sequence[int]) -> str:
            lines = [*fmt.open_lines(), *fmt.header_lines(header_rows, group_cols), *fmt.close_lines()]
            return LINE_DELIM.join(lines)

        for c in cols:
            if not group or self.tokens(block([*group, c])) <= room:
                group.append(c)
                continue
            items.extend(self._text_items("lead", block(group), oh, is_header=True))
            group = [c]
        if group:
            items.extend(self._text_items("lead", block(group), oh, is_header=True))
        return items

    # -- row items --------------------------------------------------------------------------------------------------
    def _group_header(self, parts: UnitParts, cols: tuple[int, ...], oh: _Overhead) -> tuple[str, ...]:
        if not parts.rows.header:
            return ()
        lines = parts.fmt.header_lines(parts.rows.header, cols)
        return tuple(lines) if self.tokens(LINE_DELIM.join(lines)) <= self._half else ()

    def _row_split_items(
        self,
        parts: UnitParts,
        oh: _Overhead,
        r: int,
        labels: tuple[int, ...],
        values: Sequence[int],
        show_labels: bool = True,
    ) -> list[_Item]:
        """Row ``r`` too wide for one piece: column groups of ``values``, each with the row-label columns ``labels``
        and the header of its columns; a cell too long for a group of its own is split inside.

        A row label too long to be repeated is shown once, as a value column, when ``show_labels`` (False: another
        column group of the table shows it)."""
        rows, fmt = parts.rows, parts.fmt
        row = rows.body[r]
        values = list(values)
        # A row label that leaves no room for a fragment of a value is not repeated: it becomes a value column itself.
        probe = (*labels, values[0]) if values else labels
        blank = [cell if c < rows.label_cols else "" for c, cell in enumerate(row)]
        label_cost = self.tokens(fmt.row_line(blank, probe, rows.header, rows.label_cols))
        if labels and self._room(oh, self._group_header(parts, probe, oh)) - label_cost < SEMCHUNK_MIN_SIZE:
            values = sorted({*labels, *values}) if show_labels else values
            labels = ()
        items: list[_Item] = []
        group: list[int] = []

        def flush() -> None:
            if group:
                cols = (*labels, *group)
                line = fmt.row_line(row, cols, rows.header, rows.label_cols)
                hdr = self._group_header(parts, cols, oh)
                items.append(_Item("row", line, self.tokens(line), row=r, cols=cols, header=hdr))
                group.clear()

        for c in values:
            cols = (*labels, *group, c)
            line = fmt.row_line(row, cols, rows.header, rows.label_cols)
            if self.tokens(line) <= self._room(oh, self._group_header(parts, cols, oh)):
                group.append(c)
                continue
            flush()
            cols = (*labels, c)
            line = fmt.row_line(row, cols, rows.header, rows.label_cols)
            if self.tokens(line) <= self._room(oh, self._group_header(parts, cols, oh)):
                group.append(c)
            else:
                items.extend(self._cell_items(parts, oh, r, labels, c))
        flush()
        return items

    def _cell_items(self, parts: UnitParts, oh: _Overhead, r: int, labels: tuple[int, ...], c: int) -> list[_Item]:
        rows, fmt = parts.rows, parts.fmt
        row = list(rows.body[r])
        cols = (*labels, c)
        hdr = self._group_header(parts, cols, oh)
        text = row[c]
        empty = list(row)
        empty[c] = ""
        labels_in_line = rows.header
        frame = self.tokens(fmt.row_line(empty, cols, labels_in_line, rows.label_cols))
        if self._room(oh, hdr) - frame - 1 < SEMCHUNK_MIN_SIZE:
            # a format that folds the column label into the row (triplets) under a label longer than the budget:
            # the fragments go without it (the label itself is in the header lines, repeated or emitted once)
            labels_in_line = ()
            frame = self.tokens(fmt.row_line(empty, cols, labels_in_line, rows.label_cols))
        room = self._room(oh, hdr)
        size = room - frame - 1
        while True:
            frags = self.fragments(text, size)
            # escaping (``|`` -> ``\|``, HTML entities) can make a rendered fragment cost more than its raw text
            over = max(
                self.tokens(self._cell_line(fmt, row, c, f, cols, labels_in_line, rows.label_cols)) for f in frags
            )
            if over <= room or size <= 1:
                break
            size = max(1, size - (over - room))
        items = []
        for k, frag in enumerate(frags):
            line = self._cell_line(fmt, row, c, frag, cols, labels_in_line, rows.label_cols)
            items.append(
                _Item(
                    "row",
                    line,
                    self.tokens(line),
                    row=r,
                    cols=cols,
                    fragment=(c, k, len(frags)),
                    cell_text=frag,
                    header=hdr,
                )
            )
        return items

    @staticmethod
    def _cell_line(
        fmt: TableFormat,
        row: Sequence[str],
        c: int,
        text: str,
        cols: tuple[int, ...],
        header: Sequence[Sequence[str]],
        label_cols: int,
    ) -> str:
        cells = list(row)
        cells[c] = text
        return fmt.row_line(cells, cols, header, label_cols)

    # -- column groups ----------------------------------------------------------------------------------------------
    def _column_groups(
        self, parts: UnitParts, oh: _Overhead, widest_rows: Sequence[int]
    ) -> tuple[tuple[int, ...], list[tuple[int, ...]]]:
        """Cut the columns into groups whose header lines and two of the widest rows fit a piece together (so that a
        piece holds more than one row, as in row splitting); every group repeats the row-label columns (unless they
        alone would fill half a piece). Returns the repeated label columns and the groups (each starting with them).
        """
        rows, fmt = parts.rows, parts.fmt
        labels = tuple(range(rows.label_cols))
        room = self._room(oh) - self.line_join

        def need(cols: tuple[int, ...]) -> int:
            header = fmt.header_lines(rows.header, cols)
            widest = max(
                (self.tokens(fmt.row_line(rows.body[r], cols, rows.header, rows.label_cols)) for r in widest_rows),
                default=0,
            )
            return self._lines_cost(header) + self.line_join * (len(header) + 1) + 2 * widest

        if labels and need(labels) > room // 2:
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

    # -- planning ---------------------------------------------------------------------------------------------------
    def split(self, parts: UnitParts) -> list[Piece]:
        """Split ``parts`` into pieces (one piece when the whole unit fits)."""
        if parts.rows.header and not parts.rows.body:
            # header rows with nothing under them (e.g. after a header row became the caption) are the content
            parts = replace(parts, rows=parts.rows.content())
        whole = self._whole(parts)
        if whole is not None:
            return [whole]
        kept_whole = self._table_kept_whole(parts)
        if kept_whole is not None:
            return kept_whole
        planner = self
        while True:
            try:
                return planner._plan(parts)
            except _Unsplittable as exc:
                # a join cost more tokens than estimated for this tokenizer: plan again with a safety margin
                if planner.budget > 8:
                    planner = planner._with_budget(planner.budget - max(1, planner.budget // 16))
                elif not planner._headerless_rows:
                    # a row too big for any piece under its header (a tiny limit, a verbose format): without it
                    planner = self._with_budget(self.budget)
                    planner._headerless_rows = True
                else:
                    raise TokenLimitTooSmall(
                        f"one row of a table (row {exc.row}) does not fit the token limit even alone, in the "
                        f"{parts.fmt.name} format"
                    ) from None

    def _with_budget(self, budget: int) -> Splitter:
        """The same splitter with another budget, sharing the token memo."""
        other = Splitter(
            self.count,
            self.fits,
            budget,
            repeat_table_header=self.repeat_table_header,
            omit_header_on_overflow=self.omit_header_on_overflow,
        )
        other._cache = self._cache
        other._half = self._half
        other._headerless_rows = self._headerless_rows
        return other

    def _whole(self, parts: UnitParts) -> Piece | None:
        """The whole unit as one piece, if it fits."""
        rows, fmt = parts.rows, parts.fmt
        all_cols = tuple(range(rows.num_cols))
        header = tuple(fmt.header_lines(rows.header, all_cols)) if rows.header else ()
        line_items = [
            _Item("row", fmt.row_line(row, all_cols, rows.header, rows.label_cols), 0, row=i, header=header)
            for i, row in enumerate(rows.body)
        ]
        oh = _Overhead(caption=parts.caption, footnotes=list(parts.footnotes), fmt=fmt)
        n_before = len(parts.context_before)
        before = [_Item("lead", t, self.tokens(t)) for t in parts.context_before]
        after = [_Item("tail", t, self.tokens(t)) for t in parts.context_after]
        # the exact check of the whole unit only when the line-by-line estimate says it may fit: tokenizing a huge
        # table as one string is the single most expensive step for a table that obviously needs splitting
        row_tokens = sum(self.tokens(it.text) for it in line_items)
        probe = _Item("row", "", row_tokens, header=header)
        if self._estimate(oh, [*before, probe, *after]) > 2 * self.budget:
            return None
        text = self._render_whole(parts, line_items, header)
        if not self.fits(text):
            return None
        return Piece(
            text=text,
            rows=(0, len(rows.body)),
            kept_context=tuple(range(n_before + len(parts.context_after))),
            context_shown=tuple(enumerate(parts.context)),
            has_caption=bool(parts.caption),
            has_footnotes=bool(parts.footnotes),
            has_header=bool(header) and bool(rows.body),
            row_slices=tuple((i, None, None) for i in range(len(rows.body))),
        )

    def _table_kept_whole(self, parts: UnitParts) -> list[Piece] | None:
        """A table that fits one piece without its context is not split by it: the piece holds the table with the
        context that fits beside it (texts naming rows first, then the most important), and the rest of the context
        goes into pieces of its own before it, each under the caption. None when the table does not fit one piece
        even without context."""
        context = parts.context
        if not context:
            return None
        n_before = len(parts.context_before)

        def subset(indices: Sequence[int]) -> UnitParts:
            chosen = sorted(indices)
            return replace(
                parts,
                context_before=tuple(context[i] for i in chosen if i < n_before),
                context_after=tuple(context[i] for i in chosen if i >= n_before),
                context_rank=None,
                context_rows=None,
            )

        table_piece = self._whole(subset(()))
        if table_piece is None:
            return None
        # texts naming rows belong with their rows (all in this piece), then the general context, most important first
        named = parts.rows_named()
        ranked = parts.general_order(range(len(context)))
        beside: list[int] = []
        for i in [*(i for i in ranked if named[i]), *(i for i in ranked if not named[i])]:
            with_it = self._whole(subset([*beside, i]))
            if with_it is not None:
                beside.append(i)
                table_piece = with_it
        kept = sorted(beside)
        table_piece = replace(
            table_piece,
            kept_context=tuple(kept[k] for k in table_piece.kept_context),
            context_shown=tuple((kept[k], text) for k, text in table_piece.context_shown),
        )
        # the pieces of context repeat the caption, shortened when it would take more than half of a piece (the
        # table's piece shows it in full), and the header
        header = self._repeated_header(parts)
        oh = self._reduce(replace(parts, footnotes=()), header, self.budget // 2)
        oh.lead = []
        oh.header = header
        stream: list[_Item] = []
        for i in sorted(i for i in range(len(context)) if i not in beside):  # every piece is kept: in reading order
            kind: Literal["lead", "tail"] = "lead" if i < n_before else "tail"
            stream.extend(self._text_items(kind, context[i], oh, ctx=i))
        return [*self._pack(oh, stream), table_piece]

    def _repeated_header(self, parts: UnitParts) -> tuple[str, ...]:
        """The header lines a piece without rows shows (a piece of context or footnotes), so that every piece of the
        table shows its header (with ``repeat_table_header``): none when they take more than half a piece."""
        rows, fmt = parts.rows, parts.fmt
        if not (self.repeat_table_header and rows.header and rows.body):
            return ()
        lines = tuple(fmt.header_lines(rows.header, tuple(range(rows.num_cols))))
        return lines if self._lines_cost([*fmt.open_lines(), *lines, *fmt.close_lines()]) <= self._half else ()

    @staticmethod
    def _render_whole(parts: UnitParts, line_items: Sequence[_Item], header: Sequence[str]) -> str:
        fmt = parts.fmt
        caption = "" if header and fmt.caption_in_header else parts.caption
        blocks = [caption, *parts.context_before]
        if line_items:
            lines = [*fmt.open_lines(), *header, *(it.text for it in line_items), *fmt.close_lines()]
            blocks.append(LINE_DELIM.join(lines))
        blocks += [*parts.footnotes, *parts.context_after]
        return BLOCK_DELIM.join(b for b in blocks if b)

    def _plan(self, parts: UnitParts) -> list[Piece]:
        rows, fmt = parts.rows, parts.fmt
        all_cols = tuple(range(rows.num_cols))
        header = tuple(fmt.header_lines(rows.header, all_cols)) if rows.header else ()
        lines = [fmt.row_line(row, all_cols, rows.header, rows.label_cols) for row in rows.body]
        line_tokens = [self.tokens(x) for x in lines]
        widest = max(line_tokens, default=0)
        repeat = self.repeat_table_header and bool(header)
        oh = self._reduce(parts, header if repeat else (), self.overhead_limit(widest))
        # a wide table: the header and a typical row do not fit one piece together
        typical = sorted(line_tokens)[len(line_tokens) // 2] if line_tokens else 0
        by_columns = (
            repeat and not self.omit_header_on_overflow and len(all_cols) > 1 and typical > self._room(oh, header)
        )
        if by_columns:
            # the full header is never shown: caption and footnotes may use up to half of a piece, and leave room
            # for the header of any one column (with the row labels) that fits in half a piece, plus rows
            labels = tuple(range(rows.label_cols))
            one_column = [
                min(
                    (
                        self._lines_cost(lines)
                        for lines in (labelled, alone)
                        if self.tokens(LINE_DELIM.join(lines)) <= self._half
                    ),
                    default=0,
                )
                for c in all_cols
                if c not in labels
                for labelled, alone in [
                    (fmt.header_lines(rows.header, (*labels, c)), fmt.header_lines(rows.header, (c,)))
                ]
            ]
            widest_header = max(one_column, default=0)
            oh = self._reduce(parts, (), min(self.budget // 2, self.budget - widest_header - max(2, self.budget // 8)))
        oh.header = self._repeated_header(parts)

        # context: texts naming rows go with their row, the rest once, into the first piece
        named = parts.rows_named()
        n_before = len(parts.context_before)
        with_row: dict[int, list[int]] = {}
        general: list[int] = []
        for i, rs in enumerate(named):
            if rs and rs[0] < len(rows.body):
                with_row.setdefault(rs[0], []).append(i)
            else:
                general.append(i)
        context = parts.context

        def context_items(indices: Sequence[int], sticky: bool) -> list[_Item]:
            items: list[_Item] = []
            for i in indices:
                kind: Literal["lead", "tail"] = "lead" if i < n_before else "tail"
                items.extend(self._text_items(kind, context[i], oh, ctx=i, sticky=sticky))
            return items

        stream: list[_Item] = []
        for text in oh.lead:
            stream.extend(self._text_items("lead", text, oh, is_caption=text == parts.caption))
        stream.extend(context_items(parts.general_order(general), sticky=False))
        table_start = len(stream) if general else 0

        if by_columns:
            order = sorted(range(len(rows.body)), key=lambda r: -line_tokens[r])[:WIDEST_SAMPLE]
            labels, groups = self._column_groups(parts, oh, order)
            for g, cols in enumerate(groups):
                g_header = tuple(fmt.header_lines(rows.header, cols))
                if not self._row_fits(oh, g_header, ""):
                    g_header = ()  # a header cell longer than a piece: the header gets pieces of its own
                start, done = len(stream), False
                for r in range(len(rows.body)):
                    if g == 0:
                        stream.extend(context_items(with_row.get(r, ()), sticky=True))
                    line = fmt.row_line(rows.body[r], cols, rows.header, rows.label_cols)
                    n = self.tokens(line)
                    if self._row_fits(oh, g_header, line, n):
                        stream.append(_Item("row", line, n, row=r, cols=cols, header=g_header, group=("cols", g)))
                        done = done or bool(g_header)
                    else:
                        values = [c for c in cols if c not in labels]
                        stream.extend(self._row_split_items(parts, oh, r, labels, values, show_labels=g == 0))
                missing = [] if done else _unheaded(cols, stream[start:])
                if rows.header and missing and rows.body:
                    stream[start:start] = self._header_items(parts, oh, missing)
        else:
            shown = header if repeat else ()
            start, done = len(stream), False
            for r in range(len(rows.body)):
                stream.extend(context_items(with_row.get(r, ()), sticky=True))
                line, n = lines[r], line_tokens[r]
                if header and not repeat and not done and self._row_fits(oh, header, line, n):
                    # repeat_table_header=False: the header once, above the first row it fits with
                    stream.append(_Item("row", line, n, row=r, header=header, group="rows"))
                    done = True
                elif self._row_fits(oh, shown, line, n):
                    stream.append(_Item("row", line, n, row=r, header=shown, group="rows"))
                    done = done or bool(shown)
                elif shown and self.omit_header_on_overflow and n <= self._room(oh):
                    # omit_header_on_overflow: a row too wide to go with the header goes without it
                    stream.append(_Item("row", line, n, row=r, header=(), group="no header"))
                else:
                    labels = tuple(range(rows.label_cols))
                    values = [c for c in all_cols if c not in labels]
                    stream.extend(self._row_split_items(parts, oh, r, labels, values))
            missing = [] if done else _unheaded(all_cols, stream[start:])
            if header and missing and rows.body:
                # no row could show the whole header: the columns no split row shows under its header get pieces of
                # their own, before the rows
                stream[start:start] = self._header_items(parts, oh, missing)
        for text in oh.tail:
            stream.extend(self._text_items("tail", text, oh, is_footnote=True))
        pieces = self._pack(oh, list(stream))  # a copy: _pack replaces oversized items in place
        if 0 < table_start < len(stream):
            # the rows fill the room the general context leaves only when that saves a piece: otherwise the table's
            # first rows would sit apart from the rest, in a piece that is mostly about the context
            apart = self._pack(
                oh, [*stream[:table_start], replace(stream[table_start], opens=True), *stream[table_start + 1 :]]
            )
            if len(apart) <= len(pieces):
                return apart
        return pieces

    # -- packing ----------------------------------------------------------------------------------------------------
    @staticmethod
    def _joins(payload: Sequence[_Item], item: _Item) -> bool:
        """Whether ``item`` may join ``payload`` in one piece: rows only with rows of the same group, and a row
        carrying a header only where that header is shown (a piece renders its first row's header)."""
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

    def _pack(self, oh: _Overhead, stream: list[_Item]) -> list[Piece]:
        pieces: list[Piece] = []
        i = 0
        while i < len(stream):
            payload = [stream[i]]
            j = i + 1
            while j < len(stream) and self._joins(payload, stream[j]):
                if self._estimate(oh, [*payload, stream[j]]) > self.budget:
                    break
                payload.append(stream[j])
                j += 1
            # context placed with its row does not end a piece without that row
            while len(payload) > 1 and payload[-1].sticky and i + len(payload) < len(stream):
                payload.pop()
            text = self._render(oh, payload)
            while not self.fits(text) and len(payload) > 1:
                payload.pop()
                text = self._render(oh, payload)
            if not self.fits(text):
                # a single item over the limit after all (a join cost more than estimated): cut it finer
                stream[i : i + 1] = self._shrink(payload[0], oh)
                continue
            pieces.append(self._piece(oh, stream, i, payload, text))
            i += len(payload)
        return pieces

    def _piece(self, oh: _Overhead, stream: list[_Item], i: int, payload: list[_Item], text: str) -> Piece:
        row_items = [it for it in payload if it.kind == "row"]
        row_ids = [it.row for it in row_items]
        nxt = self._next_row(stream, i)
        frag_items = [it for it in payload if it.fragment is not None]
        return Piece(
            text=text,
            rows=(min(row_ids), max(row_ids) + 1) if row_ids else (nxt, nxt),
            cols=row_items[0].cols if row_items else None,
            fragment=frag_items[0].fragment if frag_items else None,
            cell_text=frag_items[0].cell_text if frag_items else None,
            kept_context=tuple(sorted({it.ctx for it in payload if it.ctx is not None})),
            context_shown=tuple((it.ctx, it.text) for it in _reading_order(list(payload)) if it.ctx is not None),
            has_caption=bool(oh.caption) or any(it.is_caption for it in payload),
            has_footnotes=bool(oh.footnotes) or any(it.is_footnote for it in payload),
            has_header=bool(row_items and row_items[0].header) or bool(not row_items and self._bare(oh, payload)),
            row_slices=tuple((it.row, it.cols, it.cell_text) for it in row_items),
        )

    @staticmethod
    def _next_row(stream: list[_Item], i: int) -> int:
        for it in stream[i:]:
            if it.kind == "row":
                return it.row
        last = [it.row for it in stream if it.kind == "row"]
        return (max(last) + 1) if last else 0

    def _shrink(self, item: _Item, oh: _Overhead) -> list[_Item]:
        """Cut a single payload item that does not fit into smaller ones.

        A row (or cell fragment) that does not fit under its repeated header, which happens at tiny limits with a
        verbose format (HTML markup costs ~15 tokens a cell), goes without it, after the header shown on its own.
        """
        if item.kind == "row" and item.header and self._headerless_rows:
            block = LINE_DELIM.join([*oh.fmt.open_lines(), *item.header, *oh.fmt.close_lines()])
            return [*self._text_items("lead", block, oh, is_header=True), replace(item, header=())]
        if item.kind != "row" and item.tokens > 1:
            frags = self.fragments(item.text, max(1, item.tokens // 2))
            marks = {"is_footnote": item.is_footnote, "is_header": item.is_header, "ctx": item.ctx}
            items = [_Item(item.kind, f, self.tokens(f), **marks) for f in frags]  # type: ignore[arg-type]
            for fragment in items:
                fragment.sticky = item.sticky
            return items
        raise _Unsplittable(item)


def _reading_order(items: list[_Item]) -> list[_Item]:
    """``items`` with the context texts among them in reading order, in the places context takes: a piece fills with
    context most important first, and shows it as the document reads (the fragments of one text stay in order)."""
    slots = [k for k, it in enumerate(items) if it.ctx is not None]
    ordered = sorted((items[k] for k in slots), key=lambda it: it.ctx)  # type: ignore[arg-type, return-value]
    out = list(items)
    for k, it in zip(slots, ordered, strict=True):
        out[k] = it
    return out


def _shows_header(payload: Sequence[_Item]) -> bool:
    """Whether a piece of ``payload`` shows header lines: above its rows, or on their own."""
    rows = [it for it in payload if it.kind == "row"]
    return bool(rows and rows[0].header) or any(it.is_header for it in payload)


def _unheaded(cols: Sequence[int], items: Sequence[_Item]) -> list[int]:
    """The columns of ``cols`` that no row item of ``items`` shows under a header (the column groups of a row split
    by columns carry their own header when it fits): only these need header-only pieces."""
    headed = {c for it in items if it.kind == "row" and it.header and it.cols is not None for c in it.cols}
    return [c for c in cols if c not in headed]


class TokenLimitTooSmall(ValueError):
    """The token limit is too small to chunk this document: it cannot hold a single table row even cut into cell
    fragments (a few dozen tokens with HTML tables), or docling-core's text splitter cannot cut a text that short."""


class _Unsplittable(RuntimeError):
    def __init__(self, item: _Item) -> None:
        super().__init__(f"cannot fit row {item.row} within the token limit")
        self.row = item.row
