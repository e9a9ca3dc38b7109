"""How a piece is rendered and measured: its token counts, the overhead every piece repeats, once-only text items.

A :class:`PieceLayout` is one planning attempt's view of a unit's pieces: the budget, the tokenizer's join costs,
and the estimates that keep splitting linear (each line and paragraph counted once, counts added plus a per-join
allowance). The planning modules (:mod:`~docling_evidence.split.rows`, :mod:`~docling_evidence.split.columns`,
:mod:`~docling_evidence.split.cells`, :mod:`~docling_evidence.split.packing`) build on it.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Literal

from docling_evidence.split.fragments import fragment_spans, fragments
from docling_evidence.split.items import Item, Overhead, reading_order, shows_header
from docling_evidence.split.params import SplitParams, share_of
from docling_evidence.split.pieces import BLOCK_DELIM, ELLIPSIS, LINE_DELIM, UnitParts


class PieceLayout:
    """Renders and measures pieces at one budget.

    Args:
        count: token count of a text, as the chunker's tokenizer counts it, memoised (the document's token memo).
        fits: exact check that a piece text, contextualized as the chunker does, is within the limit.
        budget: tokens available for a piece's text.
        params: the splitting rules.
        repeat_table_header: repeat the header in every piece; False shows it once per table (per column group).
        omit_header_on_overflow: a row that does not fit beside the header goes out without it.
    """

    def __init__(
        self,
        count: Callable[[str], int],
        fits: Callable[[str], bool],
        budget: int,
        params: SplitParams,
        *,
        repeat_table_header: bool,
        omit_header_on_overflow: bool,
    ) -> None:
        self.tokens: Callable[[str], int] = count
        """Token count of a text (memoised): every count of the layout goes through it."""
        self.fits = fits
        self.budget = budget
        self.params = params
        self.repeat_table_header = repeat_table_header
        self.omit_header_on_overflow = omit_header_on_overflow
        # last resort, when even the smallest retry budget fails: a row that does not fit under its header goes
        # without it (after the header shown on its own)
        self.headerless_rows = False
        # a header within this many tokens is always shown with its rows; a retry at a smaller budget (when a join
        # cost more than estimated) keeps the threshold of the budget asked for
        self.header_room = share_of(budget, params.header_max_share)
        self.join = max(0, count("a" + BLOCK_DELIM + "b") - count("a") - count("b"))
        self.line_join = max(0, count("a" + LINE_DELIM + "b") - count("a") - count("b"))

    def with_budget(self, budget: int, *, headerless_rows: bool | None = None) -> PieceLayout:
        """The same layout at another budget, with the same counter and header threshold."""
        other = copy.copy(self)
        other.budget = budget
        if headerless_rows is not None:
            other.headerless_rows = headerless_rows
        return other

    # -- counting ---------------------------------------------------------------------------------------------------
    def lines_cost(self, lines: Sequence[str]) -> int:
        """Estimated tokens of ``lines`` joined by line breaks."""
        return sum(self.tokens(x) for x in lines) + self.line_join * max(0, len(lines) - 1)

    def blocks_cost(self, blocks: Sequence[str]) -> int:
        """Estimated tokens of ``blocks`` joined by blank lines."""
        return sum(self.tokens(b) for b in blocks) + self.join * max(0, len(blocks) - 1)

    def fragments(self, text: str, size: int) -> list[str]:
        """:func:`~docling_evidence.split.fragments.fragments` with the memoised counter."""
        return fragments(text, size, self.tokens, semchunk_min_size=self.params.semchunk_min_tokens)

    def prefix(self, text: str, max_tokens: int) -> str:
        """The first fragment of ``text`` within ``max_tokens`` (empty when none fits)."""
        if max_tokens <= 0:
            return ""
        first = self.fragments(text, max_tokens)[0]
        return first if self.tokens(first) <= max_tokens else ""

    # -- rendering --------------------------------------------------------------------------------------------------
    def caption_of(self, oh: Overhead, payload: Sequence[Item]) -> str:
        """The caption block of a piece: none when the piece shows the full caption once, or when its header lines
        show the caption (``fmt.caption_in_header``)."""
        if any(it.is_caption for it in payload):
            return ""
        if oh.fmt.caption_in_header and (shows_header(payload) or bare_header(oh, payload)):
            return ""
        return oh.caption

    def render(self, oh: Overhead, payload: Sequence[Item]) -> str:
        """The text of a piece holding ``payload`` under the overhead."""
        rows = [it for it in payload if it.kind == "row"]
        blocks: list[str] = []
        cap = self.caption_of(oh, payload)
        if cap:
            blocks.append(cap)
        blocks.extend(it.text for it in reading_order([it for it in payload if it.kind == "lead"]))
        if rows:
            fmt = oh.fmt
            lines = [*fmt.open_lines(), *rows[0].header, *(it.text for it in rows), *fmt.close_lines()]
            blocks.append(LINE_DELIM.join(lines))
        elif bare := bare_header(oh, payload):
            blocks.append(LINE_DELIM.join([*oh.fmt.open_lines(), *bare, *oh.fmt.close_lines()]))
        blocks.extend(oh.footnotes)
        blocks.extend(it.text for it in reading_order([it for it in payload if it.kind == "tail"]))
        return BLOCK_DELIM.join(b for b in blocks if b)

    def estimate(self, oh: Overhead, payload: Sequence[Item]) -> int:
        """The tokens of :meth:`render`, estimated from the counts of its lines and blocks."""
        rows = [it for it in payload if it.kind == "row"]
        cap = self.caption_of(oh, payload)
        blocks = [cap] if cap else []
        blocks += oh.footnotes
        texts = [it for it in payload if it.kind != "row" and it.text]
        total = self.blocks_cost(blocks) + sum(it.tokens for it in texts)
        n_blocks = len(blocks) + len(texts)
        if rows:
            frame = [*oh.fmt.open_lines(), *rows[0].header, *oh.fmt.close_lines()]
            total += self.lines_cost(frame) + sum(it.tokens for it in rows) + self.line_join * len(rows)
            n_blocks += 1
        elif bare := bare_header(oh, payload):
            total += self.lines_cost([*oh.fmt.open_lines(), *bare, *oh.fmt.close_lines()])
            n_blocks += 1
        return total + self.join * max(0, n_blocks - 1)

    def row_fits(self, oh: Overhead, header: Sequence[str], line: str, n: int | None = None) -> bool:
        """Whether one row line fits a piece under ``header`` with the overhead: by the estimate, or — when that says
        no — by the exact count of the rendered piece (with a tokenizer whose joins merge, as BPE's do, the estimate
        can be a few tokens too cautious, and a row that fits under its header would lose it)."""
        tokens = self.tokens(line) if n is None else n
        if tokens <= self.room(oh, header) - (0 if line else self.line_join):
            return True
        return bool(header) and self.fits(self.render(oh, [Item("row", line, tokens, header=tuple(header))]))

    def room(self, oh: Overhead, header: Sequence[str] = ()) -> int:
        """Tokens left for row lines in a piece showing ``header`` and the overhead."""
        return self.budget - self.estimate(oh, [Item("row", "", 0, header=tuple(header))])

    # -- overhead ---------------------------------------------------------------------------------------------------
    def reduce(self, parts: UnitParts, header: Sequence[str], limit: int) -> Overhead:
        """The repeated overhead (caption, footnotes), reduced until, with ``header``, it needs at most ``limit``.

        First the footnotes stop being repeated (emitted once, after the last row); then the repeated caption is
        shortened to its first tokens (the full caption is emitted once, before the first row).
        """
        oh = Overhead(caption=parts.caption, footnotes=list(parts.footnotes), fmt=parts.fmt)

        def cost() -> int:
            return self.budget - self.room(oh, header)

        if cost() > limit and oh.footnotes:
            oh.tail = oh.footnotes
            oh.footnotes = []
        # a caption the header lines show (fmt.caption_in_header) is shown in full with them: shortening the one
        # above a piece without a header saves nothing there
        in_header = oh.fmt.caption_in_header and bool(header) and self.lines_cost(header) <= self.header_room
        if cost() > limit and oh.caption and not in_header:
            full = oh.caption
            room = limit - (cost() - self.tokens(full))
            short_room = room - self.tokens(ELLIPSIS)
            short = self.prefix(full, short_room) if short_room >= self.params.short_caption_min_tokens else ""
            oh.caption = (short + ELLIPSIS) if short else ""
            oh.lead = [full]
        return oh

    def overhead_limit(self, widest: int) -> int:
        """Tokens the repeated overhead (with the header) may use, given the widest row line.

        Rows get at least ``row_room_min_share`` of the budget, and room for ``widest_rows_per_piece`` of the widest
        rows up to ``row_room_max_share`` of it.
        """
        p = self.params
        for_widest = min(p.widest_rows_per_piece * widest, share_of(self.budget, p.row_room_max_share))
        return self.budget - max(for_widest, share_of(self.budget, p.row_room_min_share))

    def splits_for_header(self, parts: UnitParts) -> bool:
        """Whether a row too wide beside the header is split by columns so that each part shows its columns' header
        (the header is repeated and has more than one column); with ``omit_header_on_overflow`` it goes without."""
        return (
            self.repeat_table_header
            and bool(parts.rows.header)
            and not self.omit_header_on_overflow
            and parts.rows.num_cols > 1
        )

    def repeated_header(self, parts: UnitParts) -> tuple[str, ...]:
        """The header lines a piece without rows shows (a piece of context or footnotes), so that every piece of the
        table shows its header (with ``repeat_table_header``): none when they take more than the header's room."""
        rows, fmt = parts.rows, parts.fmt
        if not (self.repeat_table_header and rows.header and rows.body):
            return ()
        lines = tuple(fmt.header_lines(rows.header, tuple(range(rows.num_cols))))
        return lines if self.lines_cost([*fmt.open_lines(), *lines, *fmt.close_lines()]) <= self.header_room else ()

    def group_header(self, parts: UnitParts, cols: tuple[int, ...]) -> tuple[str, ...]:
        """The header lines of the columns ``cols``: none when they take more than the header's room."""
        if not parts.rows.header:
            return ()
        lines = parts.fmt.header_lines(parts.rows.header, cols)
        return tuple(lines) if self.tokens(LINE_DELIM.join(lines)) <= self.header_room else ()

    # -- text items -------------------------------------------------------------------------------------------------
    def text_items(
        self,
        kind: Literal["lead", "tail"],
        text: str,
        oh: Overhead,
        *,
        is_caption: bool = False,
        is_footnote: bool = False,
        is_header: bool = False,
        ctx: int | None = None,
        sticky: bool = False,
    ) -> list[Item]:
        """One once-only text, cut into fragments when it does not fit a piece beside the repeated overhead."""
        # the piece of the full caption lists the table as every piece does, so it shows the header too: a caption
        # that does not fit beside it is cut into fragments (each under the header), and a context fragment that
        # follows it gets only the room the caption and the header leave
        room = self.budget - self.estimate(oh, []) - self.join
        n = self.tokens(text)
        # the full caption replaces the shortened one in its piece: it may use that room too
        extra = self.tokens(oh.caption) + self.join if is_caption and oh.caption else 0
        texts = [text] if n <= room + extra else self.fragments(text, room)
        items = [
            Item(
                kind,
                t,
                self.tokens(t),
                is_caption=is_caption and len(texts) == 1,
                is_footnote=is_footnote,
                is_header=is_header,
                ctx=ctx,
                ctx_start=start,
            )
            for t, (start, _end) in zip(texts, fragment_spans(texts), strict=True)
        ]
        for item in items:  # context cut into fragments starts a piece of its own rather than end another one
            item.sticky = sticky
        return items

    def header_items(self, parts: UnitParts, oh: Overhead, cols: Sequence[int]) -> list[Item]:
        """The header of ``cols`` shown on its own, as header-only tables of column groups that fit a piece (a cell
        is cut only when it alone is longer than a piece)."""
        fmt, header_rows = parts.fmt, parts.rows.header
        room = self.budget - self.estimate(replace(oh, header=()), []) - self.join  # these pieces show it instead
        items: list[Item] = []
        group: list[int] = []

        def block(group_cols: Sequence[int]) -> str:
            lines = [*fmt.open_lines(), *fmt.header_lines(header_rows, group_cols), *fmt.close_lines()]
            return LINE_DELIM.join(lines)

        for c in cols:
            if not group or self.tokens(block([*group, c])) <= room:
                group.append(c)
                continue
            items.extend(self.text_items("lead", block(group), oh, is_header=True))
            group = [c]
        if group:
            items.extend(self.text_items("lead", block(group), oh, is_header=True))
        return items


def bare_header(oh: Overhead, payload: Sequence[Item]) -> tuple[str, ...]:
    """The header lines a piece of ``payload`` shows without rows: the overhead's header, unless the piece has rows
    or header lines of its own (the piece of a caption too long to repeat shows it too)."""
    if any(it.kind == "row" or it.is_header for it in payload):
        return ()
    return oh.header
