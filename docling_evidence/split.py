"""Split an evidence unit into pieces that each fit the tokenizer's limit, by rows, then columns, then inside a cell.

Every piece is ``caption + context before + [table: header rows + a run of whole body rows] + footnotes + context
after``. The parts repeated in every piece (the *overhead*: caption, context, header, footnotes) leave room for rows:
a quarter of the budget, or two of the widest rows up to half of it (``Splitter.overhead_limit``). When they need
more, they are reduced in this order:

1. context paragraphs are dropped, the least important first (``UnitParts.context_rank``: a paragraph naming the
   table ranks highest), and the most important dropped one comes back as an excerpt (its first tokens) when at
   least ``MIN_EXCERPT_TOKENS`` of it fit;
2. footnotes stop being repeated and are emitted once, after the last row;
3. the repeated caption is shortened to its first tokens (the first piece still starts with the full caption,
   or, when even that does not fit, the full caption gets pieces of its own before the rows);
4. the header rows stop being repeated and are emitted once, before the first row.

A row wider than what is left is split by columns, repeating its row-label cells and the header of those columns;
a single cell longer than that is split inside the cell (semchunk), each fragment under its row and column labels.
Nothing is lost: every body row appears exactly once, in order (as a whole line, or as column groups / cell fragments
that reassemble to it), and every caption, header and footnote text appears at least once.

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

from docling_evidence.table_format import TableFormat
from docling_evidence.table_rows import TableRows

_log = logging.getLogger(__name__)

BLOCK_DELIM = "\n\n"
"""Between the blocks of a piece (caption, each paragraph, the table, each footnote)."""

LINE_DELIM = "\n"
"""Between the lines of the table block."""

ELLIPSIS = " …"
"""Marks a shortened repeated caption or a context excerpt."""

SEMCHUNK_MIN_SIZE = 8
"""Below this many tokens a text is cut by characters instead of by semchunk (which can recurse without end there)."""

CACHE_MAX_ENTRIES = 2_000_000
"""Memoised token counts per splitter (one splitter per unit): enough for every line of a very large table."""

MIN_EXCERPT_TOKENS = 16
"""A dropped context paragraph comes back as an excerpt only if at least this many of its tokens fit."""


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

    ``context_before`` and ``context_after`` are in reading order. ``context_rank`` gives, for each paragraph of
    ``context_before + context_after``, its priority (0 = most important, e.g. the paragraph naming the table);
    when the context must shrink, the least important paragraph goes first. Without ranks, the paragraphs farthest
    from the table go first.
    """

    caption: str
    context_before: tuple[str, ...]
    context_after: tuple[str, ...]
    footnotes: tuple[str, ...]
    rows: TableRows
    fmt: TableFormat
    context_rank: tuple[int, ...] | None = None

    def drop_order(self) -> list[int]:
        """Indices into ``context_before + context_after``, least important first."""
        n_before, n = len(self.context_before), len(self.context_before) + len(self.context_after)
        if self.context_rank is not None and len(self.context_rank) == n:
            return sorted(range(n), key=lambda i: (-self.context_rank[i], i))  # type: ignore[index]
        distance = [n_before - i if i < n_before else i - n_before + 1 for i in range(n)]
        return sorted(range(n), key=lambda i: (-distance[i], i))


@dataclass(frozen=True)
class Piece:
    """One piece of a split unit.

    Attributes:
        text: the piece's text (what ``chunk.text`` holds).
        rows: the half-open range of body rows the piece holds (empty range for a piece with no rows).
        cols: the columns rendered, when a row was split by columns (None: all columns).
        fragment: ``(column, index, count)`` when the piece holds one fragment of a cell split inside.
        cell_text: the fragment's exact text (a substring of the cell) when ``fragment`` is set.
        kept_context: indices into the unit's ``context_before + context_after`` of the paragraphs the piece holds
            (in full or as an excerpt).
        has_caption: whether the piece shows the caption (in full or shortened).
        has_footnotes: whether the piece shows the footnotes.
    """

    text: str
    rows: tuple[int, int]
    cols: tuple[int, ...] | None = None
    fragment: tuple[int, int, int] | None = None
    cell_text: str | None = None
    kept_context: tuple[int, ...] = ()
    has_caption: bool = True
    has_footnotes: bool = True


@dataclass
class _Item:
    """A payload item: a body row line, or a once-only text block (placed before or after the table)."""

    kind: Literal["row", "lead", "tail"]
    text: str
    tokens: int
    row: int = -1
    cols: tuple[int, ...] | None = None
    fragment: tuple[int, int, int] | None = None
    cell_text: str | None = None
    header: tuple[str, ...] | None = None  # header lines of a column group (None: the shared header)
    is_caption: bool = False  # the full caption, emitted once when the repeated one is shortened


@dataclass
class _Overhead:
    caption: str
    context: dict[int, str]  # index into context_before + context_after -> the text shown (maybe an excerpt)
    n_before: int
    footnotes: list[str]
    header: list[str]
    fmt: TableFormat
    lead: list[str] = field(default_factory=list)
    tail: list[str] = field(default_factory=list)

    @property
    def before(self) -> list[str]:
        return [self.context[i] for i in sorted(self.context) if i < self.n_before]

    @property
    def after(self) -> list[str]:
        return [self.context[i] for i in sorted(self.context) if i >= self.n_before]

    @staticmethod
    def of(parts: UnitParts, header: list[str]) -> _Overhead:
        context = dict(enumerate((*parts.context_before, *parts.context_after)))
        return _Overhead(
            caption=parts.caption,
            context=context,
            n_before=len(parts.context_before),
            footnotes=list(parts.footnotes),
            header=header,
            fmt=parts.fmt,
        )


class Splitter:
    """Splits :class:`UnitParts` into :class:`Piece` objects that each satisfy ``fits``.

    Args:
        count: token count of a text, as the chunker's tokenizer counts it.
        fits: exact check that a piece text, contextualized as the chunker does, is within the limit.
        budget: tokens available for a piece's text (``max_tokens`` minus what contextualize adds).
    """

    def __init__(self, count: Callable[[str], int], fits: Callable[[str], bool], budget: int) -> None:
        if budget <= 0:
            raise ValueError(f"token budget must be positive, got {budget}")
        self.count = count
        self.fits = fits
        self.budget = budget
        self._cache: dict[str, int] = {}
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

    # -- rendering --------------------------------------------------------------------------------------------------
    def _render(self, oh: _Overhead, payload: Sequence[_Item]) -> str:
        rows = [it for it in payload if it.kind == "row"]
        lead = [it.text for it in payload if it.kind == "lead"]
        tail = [it.text for it in payload if it.kind == "tail"]
        blocks: list[str] = []
        cap = "" if any(it.is_caption for it in payload) else oh.caption
        if cap:
            blocks.append(cap)
        blocks.extend(oh.before)
        blocks.extend(lead)
        if rows:
            fmt = oh.fmt
            header = list(rows[0].header) if rows[0].header is not None else oh.header
            lines = [*fmt.open_lines(), *header, *(it.text for it in rows), *fmt.close_lines()]
            blocks.append(LINE_DELIM.join(lines))
        blocks.extend(oh.footnotes)
        blocks.extend(tail)
        blocks.extend(oh.after)
        return BLOCK_DELIM.join(b for b in blocks if b)

    def _estimate(self, oh: _Overhead, payload: Sequence[_Item]) -> int:
        rows = [it for it in payload if it.kind == "row"]
        cap = "" if any(it.is_caption for it in payload) else oh.caption
        blocks = [cap] if cap else []
        blocks += oh.before + oh.footnotes + oh.after
        total = self._blocks_cost(blocks) + sum(it.tokens for it in payload if it.kind != "row")
        n_blocks = len(blocks) + sum(1 for it in payload if it.kind != "row")
        if rows:
            header = list(rows[0].header) if rows[0].header is not None else oh.header
            frame = [*oh.fmt.open_lines(), *header, *oh.fmt.close_lines()]
            total += self._lines_cost(frame) + sum(it.tokens for it in rows) + self.line_join * len(rows)
            n_blocks += 1
        return total + self.join * max(0, n_blocks - 1)

    # -- overhead ---------------------------------------------------------------------------------------------------
    def _overhead(self, parts: UnitParts) -> _Overhead:
        """The repeated overhead, reduced in the documented order until it leaves room for rows.

        Steps 1-3 are tried with the header repeated. Only if even a fully shortened caption leaves no room, and the
        header needs more than half the budget, is the header emitted once instead; then steps 1-3 are redone
        without it, so caption, footnotes and context get back the room the header held.
        """
        all_cols = tuple(range(parts.rows.num_cols))
        header = parts.fmt.header_lines(parts.rows.header, all_cols) if parts.rows.header else []
        limit = self.overhead_limit(parts)
        oh = self._reduce(parts, header, limit)
        # a header that fits in half the budget is always repeated (rows then split by columns if they must)
        if header and self._overhead_cost(oh) > limit and self._lines_cost(header) > self.budget // 2:
            oh = self._reduce(parts, [], limit)
            oh.lead = [*oh.lead, LINE_DELIM.join(header)]
        return oh

    def _overhead_cost(self, oh: _Overhead) -> int:
        return self._estimate(oh, [_Item("row", "", 0, header=None)])

    def _reduce(self, parts: UnitParts, header: list[str], limit: int) -> _Overhead:
        oh = _Overhead.of(parts, header)

        def cost() -> int:
            return self._overhead_cost(oh)

        # 1. context, least important first ...
        dropped: list[int] = []
        for i in parts.drop_order():
            if cost() <= limit:
                break
            dropped.append(i)
            del oh.context[i]
        # ... then the most important dropped paragraph comes back as an excerpt if there is room for one
        if dropped:
            i = dropped[-1]
            room = limit - cost() - self.join - self.tokens(ELLIPSIS)
            full = (*parts.context_before, *parts.context_after)[i]
            excerpt = self._prefix(full, room) if room >= MIN_EXCERPT_TOKENS else ""
            if excerpt:
                oh.context[i] = excerpt + ELLIPSIS
                if cost() > limit:  # a join cost more than estimated
                    del oh.context[i]
        # 2. footnotes emitted once after the rows
        if cost() > limit and oh.footnotes:
            oh.tail = oh.footnotes
            oh.footnotes = []
        # 3. shortened repeated caption (the full one is emitted once, before the rows)
        if cost() > limit and oh.caption:
            full = oh.caption
            room = limit - (cost() - self.tokens(full))
            short = self._prefix(full, room - self.tokens(ELLIPSIS)) if room > self.tokens(ELLIPSIS) + 1 else ""
            oh.caption = (short + ELLIPSIS) if short else ""
            oh.lead = [full]
        return oh

    def overhead_limit(self, parts: UnitParts) -> int:
        """Tokens the repeated overhead may use: what is left after room for rows.

        Rows get at least a quarter of the budget, and room for two of the widest rows up to half the budget; so the
        overhead may use between half and three quarters of the budget, and header rows that fit in half the budget
        are always repeated.
        """
        rows = parts.rows
        cols = tuple(range(rows.num_cols))
        widest = max(
            (self.tokens(parts.fmt.row_line(r, cols, rows.header, rows.label_cols)) for r in rows.body), default=0
        )
        return self.budget - max(min(2 * widest, self.budget // 2), self.budget // 4)

    def _prefix(self, text: str, max_tokens: int) -> str:
        if max_tokens <= 0:
            return ""
        first = self.fragments(text, max_tokens)[0]
        return first if self.tokens(first) <= max_tokens else ""

    # -- fragments --------------------------------------------------------------------------------------------------
    def fragments(self, text: str, size: int) -> list[str]:
        """:func:`fragments` with this splitter's memoised counter."""
        return fragments(text, size, self.tokens)

    # -- payload ----------------------------------------------------------------------------------------------------
    def _room(self, oh: _Overhead, header: Sequence[str] | None = None) -> int:
        probe = _Item("row", "", 0, header=tuple(header) if header is not None else None)
        return self.budget - self._estimate(oh, [probe])

    def _text_items(
        self, kind: Literal["lead", "tail"], texts: Sequence[str], oh: _Overhead, caption: str = ""
    ) -> list[_Item]:
        room = self.budget - self._estimate(oh, []) - self.join
        items: list[_Item] = []
        for text in texts:
            n = self.tokens(text)
            is_caption = bool(caption) and text == caption
            if n <= room + (self.tokens(oh.caption) + self.join if is_caption and oh.caption else 0):
                items.append(_Item(kind, text, n, is_caption=is_caption))
            else:
                for frag in self.fragments(text, room):
                    items.append(_Item(kind, frag, self.tokens(frag)))
        return items

    def _row_items(self, parts: UnitParts, oh: _Overhead, r: int) -> list[_Item]:
        rows, fmt = parts.rows, parts.fmt
        row = rows.body[r]
        all_cols = tuple(range(rows.num_cols))
        line = fmt.row_line(row, all_cols, rows.header, rows.label_cols)
        n = self.tokens(line)
        if n <= self._room(oh):
            return [_Item("row", line, n, row=r)]
        return self._column_items(parts, oh, r)

    def _group_header(self, parts: UnitParts, cols: tuple[int, ...], oh: _Overhead) -> tuple[str, ...]:
        if not oh.header:
            return ()
        lines = parts.fmt.header_lines(parts.rows.header, cols)
        return tuple(lines) if self._lines_cost(lines) <= self.budget // 2 else ()

    def _column_items(self, parts: UnitParts, oh: _Overhead, r: int) -> list[_Item]:
        rows, fmt = parts.rows, parts.fmt
        row = rows.body[r]
        labels = tuple(range(rows.label_cols))
        values = list(range(rows.label_cols, rows.num_cols))
        # A row label that leaves no room for a fragment of a value is not repeated: it becomes a value column itself.
        probe = (*labels, values[0]) if values else labels
        blank = [cell if c < rows.label_cols else "" for c, cell in enumerate(row)]
        label_cost = self.tokens(fmt.row_line(blank, probe, rows.header, rows.label_cols))
        if labels and self._room(oh, self._group_header(parts, probe, oh)) - label_cost < SEMCHUNK_MIN_SIZE:
            labels, values = (), list(range(rows.num_cols))
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
            hdr = self._group_header(parts, cols, oh)
            if self.tokens(line) <= self._room(oh, hdr):
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

    # -- packing ----------------------------------------------------------------------------------------------------
    def split(self, parts: UnitParts) -> list[Piece]:
        """Split ``parts`` into pieces (one piece when the whole unit fits)."""
        if parts.rows.header and not parts.rows.body:
            # header rows with nothing under them (e.g. after a header row became the caption) are the content
            parts = replace(parts, rows=replace(parts.rows, header=(), body=parts.rows.header))
        rows = parts.rows
        all_cols = tuple(range(rows.num_cols))
        whole = _Overhead.of(parts, parts.fmt.header_lines(rows.header, all_cols) if rows.header else [])
        whole_rows = [
            _Item("row", parts.fmt.row_line(row, all_cols, rows.header, rows.label_cols), 0, row=i)
            for i, row in enumerate(rows.body)
        ]
        # the exact check of the whole unit only when the line-by-line estimate says it may fit: tokenizing a huge
        # table as one string is the single most expensive step for a table that obviously needs splitting
        row_tokens = sum(self.tokens(it.text) for it in whole_rows)
        whole_estimate = self._estimate(whole, [_Item("row", "", row_tokens, header=None)])
        text = self._render(whole, whole_rows) if whole_estimate <= 2 * self.budget else ""
        if text and self.fits(text):
            return [
                Piece(
                    text=text,
                    rows=(0, len(rows.body)),
                    kept_context=tuple(range(len(parts.context_before) + len(parts.context_after))),
                    has_caption=bool(parts.caption),
                    has_footnotes=bool(parts.footnotes),
                )
            ]
        planner = self
        while True:
            try:
                return planner._plan(parts)
            except _Unsplittable:
                # a join cost more tokens than estimated for this tokenizer: plan again with a safety margin
                if planner.budget <= 8:
                    raise
                planner = planner._with_budget(planner.budget - max(1, planner.budget // 16))

    def _with_budget(self, budget: int) -> Splitter:
        """The same splitter with another budget, sharing the token memo."""
        other = Splitter(self.count, self.fits, budget)
        other._cache = self._cache
        return other

    def _plan(self, parts: UnitParts) -> list[Piece]:
        rows = parts.rows
        oh = self._overhead(parts)
        stream: list[_Item] = self._text_items("lead", oh.lead, oh, caption=parts.caption)
        for r in range(len(rows.body)):
            stream.extend(self._row_items(parts, oh, r))
        stream.extend(self._text_items("tail", oh.tail, oh))
        return self._pack(oh, stream)

    def _same_group(self, a: _Item, b: _Item) -> bool:
        if a.kind != "row" or b.kind != "row":
            return True
        return a.cols is None and b.cols is None

    def _pack(self, oh: _Overhead, stream: list[_Item]) -> list[Piece]:
        pieces: list[Piece] = []
        i = 0
        while i < len(stream):
            payload = [stream[i]]
            j = i + 1
            while j < len(stream) and self._same_group(payload[-1], stream[j]):
                if self._estimate(oh, [*payload, stream[j]]) > self.budget:
                    break
                payload.append(stream[j])
                j += 1
            text = self._render(oh, payload)
            while not self.fits(text) and len(payload) > 1:
                payload.pop()
                text = self._render(oh, payload)
            if not self.fits(text):
                # a single item over the limit after all (a join cost more than estimated): cut it finer
                item = payload[0]
                smaller = self._shrink(item, oh)
                stream[i : i + 1] = smaller
                continue
            row_ids = [it.row for it in payload if it.kind == "row"]
            rng = (
                (min(row_ids), max(row_ids) + 1) if row_ids else (self._next_row(stream, i), self._next_row(stream, i))
            )
            frag_items = [it for it in payload if it.fragment is not None]
            pieces.append(
                Piece(
                    text=text,
                    rows=rng,
                    cols=next((it.cols for it in payload if it.kind == "row"), None),
                    fragment=frag_items[0].fragment if frag_items else None,
                    cell_text=frag_items[0].cell_text if frag_items else None,
                    kept_context=tuple(sorted(oh.context)),
                    has_caption=bool(oh.caption) or any(it.is_caption for it in payload),
                    has_footnotes=bool(oh.footnotes) or any(it.kind == "tail" for it in payload),
                )
            )
            i += len(payload)
        return pieces

    @staticmethod
    def _next_row(stream: list[_Item], i: int) -> int:
        for it in stream[i:]:
            if it.kind == "row":
                return it.row
        last = [it.row for it in stream if it.kind == "row"]
        return (max(last) + 1) if last else 0

    def _shrink(self, item: _Item, oh: _Overhead) -> list[_Item]:
        """Cut a single payload item that does not fit into smaller ones."""
        if item.kind != "row" and item.tokens > 1:
            frags = self.fragments(item.text, max(1, item.tokens // 2))
            return [_Item(item.kind, f, self.tokens(f)) for f in frags]
        raise _Unsplittable(item)


class _Unsplittable(RuntimeError):
    def __init__(self, item: _Item) -> None:
        super().__init__(f"cannot fit row {item.row} within the token limit")
