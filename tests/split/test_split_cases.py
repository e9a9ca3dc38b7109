"""Hand-written edge cases for token-exact splitting, and cases the property suite found."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from docling_core.types.doc import DoclingDocument
from docs_builder import add_table
from split_helpers import (
    DocSpec,
    Grid,
    WhitespaceTokenizer,
    build_doc,
    check_rows,
    covered_in_order,
    make_tokenizer,
    skeleton,
)

from docling_evidence import EvidenceChunker
from docling_evidence.split.splitter import ELLIPSIS, Piece, Splitter, UnitParts
from docling_evidence.tables.formats import TABLE_FORMATS
from docling_evidence.tables.rows import TableRows, table_rows
from docling_evidence.tokenizer import bundled_tokenizer


def words(n: int, word: str = "net") -> str:
    """``n`` copies of ``word``: ``n`` tokens for the whitespace tokenizer."""
    return " ".join([word] * n)


def ws_splitter(budget: int) -> Splitter:
    """A splitter over the whitespace tokenizer with no headings: one token per word, joins are free."""
    count = WhitespaceTokenizer(max_tokens=budget).count_tokens
    return Splitter(count=count, fits=lambda t: count(t) <= budget, budget=budget)


def parts(
    header: tuple[tuple[str, ...], ...],
    body: tuple[tuple[str, ...], ...],
    *,
    label_cols: int = 1,
    fmt: str = "markdown",
    caption: str = "",
    before: tuple[str, ...] = (),
    after: tuple[str, ...] = (),
    footnotes: tuple[str, ...] = (),
) -> UnitParts:
    return UnitParts(
        caption=caption,
        context_before=before,
        context_after=after,
        footnotes=footnotes,
        rows=TableRows(header=header, body=body, label_cols=label_cols),
        fmt=TABLE_FORMATS[fmt],
    )


def test_budget_must_be_positive() -> None:
    with pytest.raises(ValueError, match="positive"):
        Splitter(count=len, fits=lambda t: True, budget=0)


def test_unit_that_fits_is_one_piece_with_everything() -> None:
    p = parts((("Year", "Revenue"),), (("2023", "5"), ("2024", "7")), caption="Table 1: Revenue", footnotes=("* est.",))
    (piece,) = ws_splitter(64).split(p)
    assert piece.rows == (0, 2)
    assert piece.text == "Table 1: Revenue\n\n| Year | Revenue |\n|---|---|\n| 2023 | 5 |\n| 2024 | 7 |\n\n* est."
    assert piece.has_caption and piece.has_footnotes


@pytest.mark.parametrize("fmt", ["markdown", "html"])
def test_long_table_repeats_caption_and_header_in_every_piece(fmt: str) -> None:
    body = tuple((f"row{i}", words(5, f"v{i}")) for i in range(40))
    p = parts((("Item", "Values"),), body, caption="Table 2: Values", fmt=fmt)
    pieces = ws_splitter(64).split(p)
    assert len(pieces) > 3
    check_rows(pieces, body, p.rows.header, 1, p.fmt)
    header = "\n".join([*p.fmt.open_lines(), *p.fmt.header_lines(p.rows.header, (0, 1))])
    for piece in pieces:
        assert piece.text.startswith("Table 2: Values\n\n")
        assert header in piece.text
        assert len(piece.text.split()) <= 64


def test_pipe_newline_and_backslash_cells_stay_on_one_markdown_line() -> None:
    body = (("a | b", "line one\nline two", "x\\"),)
    (piece,) = ws_splitter(64).split(parts((("h1", "h|2", "h3"),), body))
    lines = piece.text.split("\n")
    assert lines[-1] == "| a \\| b | line one line two | x\\\\ |"
    # every header and body line has exactly num_cols + 1 unescaped pipes
    for line in lines:
        if line.startswith("|"):
            assert len(re.findall(r"(?<!\\)\|", line.replace("\\\\", ""))) == 4, line


def test_html_like_cell_text_is_escaped_in_html() -> None:
    body = (("<b>x</b>", "</tr><tr>", "a &amp; b"),)
    (piece,) = ws_splitter(64).split(parts((("h", "i", "j"),), body, fmt="html"))
    assert "<tr><td>&lt;b&gt;x&lt;/b&gt;</td><td>&lt;/tr&gt;&lt;tr&gt;</td><td>a &amp;amp; b</td></tr>" in piece.text
    assert piece.text.count("<tr>") == 2  # header + one body row: the cell text opened no row


def test_empty_cells_and_empty_table() -> None:
    (piece,) = ws_splitter(64).split(parts((("a", ""),), (("", ""), ("x", ""))))
    assert "| x |  |" in piece.text
    # a table with no cells never becomes a unit; the splitter must still not invent rows for it
    assert all(pc.rows == (0, 0) for pc in ws_splitter(64).split(parts((), ())))


def test_row_wider_than_budget_is_split_by_columns_repeating_the_row_label() -> None:
    """One row much wider than the others: the table stays split by rows, that row alone is split by columns."""
    header = (("Metric", "A", "B", "C", "D"),)
    wide = ("wide", words(20, "a"), words(20, "b"), words(20, "c"), words(20, "d"))
    body = (*((f"small{i}", "1", "2", "3", "4") for i in range(5)), wide)
    p = parts(header, body, caption="Table 3")
    pieces = ws_splitter(64).split(p)
    check_rows(pieces, body, header, 1, p.fmt)
    split_row = [pc for pc in pieces if pc.cols is not None]
    assert len(split_row) >= 2
    assert all(pc.cols is None for pc in pieces if pc.rows[0] < 5)
    for pc in split_row:
        assert pc.rows == (5, 6)
        assert pc.cols[0] == 0 and "| wide |" in pc.text
        # the header of the piece's own columns is repeated
        assert "| Metric | " + " | ".join(header[0][c] for c in pc.cols[1:]) + " |" in pc.text
        assert len(pc.text.split()) <= 64


def test_cell_longer_than_budget_is_split_inside() -> None:
    long_cell = " ".join(f"w{i}" for i in range(300))
    header = (("Name", "Description"),)
    body = (("alpha", "short"), ("beta", long_cell), ("gamma", "short"))
    p = parts(header, body)
    pieces = ws_splitter(64).split(p)
    check_rows(pieces, body, header, 1, p.fmt)
    frags = [pc for pc in pieces if pc.fragment is not None]
    assert len(frags) >= 5
    assert "".join(pc.cell_text for pc in frags) == long_cell
    for pc in frags:
        assert pc.rows == (1, 2) and 1 in pc.cols
        assert "Description |" in pc.text
        assert len(pc.text.split()) <= 64


def test_context_is_not_repeated_general_first_row_context_with_its_row() -> None:
    """Pieces stay dense in rows. General context goes once, into the first piece; a sentence naming a row
    (its label or a value no other row has) goes into the piece holding that row; neither is repeated."""
    body = tuple((f"region{i}", f"{1000 + i}.5") for i in range(60))
    general = "The table lists revenue by region for the year."
    about_row_40 = "Revenue in region40 rose the most."
    about_value = "One region reached 1052.5 in total."  # the value of region52, in no other row
    p = parts(
        (("Region", "Revenue"),), body, caption="Table 4: Revenue", before=(general,), after=(about_row_40, about_value)
    )
    assert p.rows_named() == ((), (40,), (52,))
    pieces = ws_splitter(64).split(p)
    check_rows(pieces, body, p.rows.header, 1, p.fmt)
    assert len(pieces) > 3
    assert [k for k, pc in enumerate(pieces) if general in pc.text] == [0]
    assert pieces[0].kept_context == (0,)
    holding_40 = [k for k, pc in enumerate(pieces) if pc.rows[0] <= 40 < pc.rows[1]]
    holding_52 = [k for k, pc in enumerate(pieces) if pc.rows[0] <= 52 < pc.rows[1]]
    assert [k for k, pc in enumerate(pieces) if about_row_40 in pc.text] == holding_40
    assert [k for k, pc in enumerate(pieces) if about_value in pc.text] == holding_52
    # the context after the table stays after the table in its piece
    piece_40 = pieces[holding_40[0]].text
    assert piece_40.index("| region40 |") < piece_40.index(about_row_40)
    # every other piece is caption, header and rows only
    for k, pc in enumerate(pieces):
        if k not in (0, holding_40[0], holding_52[0]):
            assert pc.kept_context == ()
            assert pc.text.split("\n\n")[1].startswith("| Region | Revenue |")


def test_general_context_shares_a_piece_with_rows_only_when_that_saves_a_piece() -> None:
    """A split table's general context goes into the first piece. The table's first rows fill the room it leaves only
    when that takes fewer pieces; with as many pieces either way, the rows start a piece of their own, so no piece
    holds the context and a stray row or two (as VGGSounder's Table 1 would be: one row beside two paragraphs, then
    eight). Whitespace tokens, budget 40: a piece of rows holds 6, the context's piece has room for 4 more."""
    general = words(10, "context")

    def split(n: int) -> list[Piece]:
        body = tuple((f"r{i}", str(i)) for i in range(n))
        p = parts((("Key", "Value"),), body, caption="Table 2: Values", before=(general,))
        pieces = ws_splitter(40).split(p)
        check_rows(pieces, body, p.rows.header, 1, p.fmt)
        assert [k for k, pc in enumerate(pieces) if general in pc.text] == [0]
        return pieces

    # 11 rows: three pieces either way, so the rows start fresh: 6 + 5, not 4 beside the context + 6 + 1
    assert [pc.rows for pc in split(11)] == [(0, 0), (0, 6), (6, 11)]
    # 10 rows: filling the context's piece saves one (4 + 6 in two pieces, against context + 6 + 4 in three)
    assert [pc.rows for pc in split(10)] == [(0, 4), (4, 10)]


def test_table_that_fits_without_its_context_is_not_split_by_it() -> None:
    """A table that fits one piece stays one piece however much context it has: the most important context that fits
    beside it stays there, the rest goes into pieces of its own before it, under the caption; nothing is repeated."""
    body = tuple((f"region{i}", f"{1000 + i}") for i in range(8))
    naming = "Table 4 lists revenue by region."  # rank 0: the most important
    long_before = words(40, "growth")
    long_after = words(30, "outlook")
    p = replace(
        parts(
            (("Region", "Revenue"),),
            body,
            caption="Table 4: Revenue",
            before=(long_before, naming),
            after=(long_after,),
        ),
        context_rank=(1, 0, 2),
    )
    assert len(ws_splitter(64).split(replace(p, context_before=(), context_after=()))) == 1
    pieces = ws_splitter(64).split(p)
    check_rows(pieces, body, p.rows.header, 1, p.fmt)
    *context_pieces, table_piece = pieces
    assert table_piece.rows == (0, 8) and table_piece.kept_context == (1,)
    assert naming in table_piece.text and table_piece.text.index(naming) < table_piece.text.index("| region0 |")
    assert context_pieces and all(
        pc.rows[0] == pc.rows[1] and pc.text.startswith("Table 4: Revenue") for pc in context_pieces
    )
    assert sorted(k for pc in context_pieces for k in pc.kept_context) == [0, 2]
    for text in (long_before, long_after, naming):
        assert sum(text in pc.text for pc in pieces) == 1


def test_a_table_kept_whole_keeps_the_context_naming_its_rows_beside_them() -> None:
    """In a table that fits one piece, all rows are in that piece, so a text naming a row (or given rows by the
    caller's ``context_rows``) goes beside them before general context of higher rank."""
    body = tuple((f"region{i}", f"{1000 + i}") for i in range(8))
    general, about_row = words(12, "growth"), "Revenue in region5 rose the most."
    p = parts((("Region", "Revenue"),), body, caption="Table 4: Revenue", before=(general,), after=(about_row,))
    assert len(ws_splitter(64).split(replace(p, context_after=()))) == 1  # the general text alone would fit beside
    pieces = ws_splitter(64).split(p)
    assert [pc.rows for pc in pieces] == [(0, 0), (0, 8)]
    assert pieces[-1].kept_context == (1,) and pieces[0].kept_context == (0,)
    by_caller = replace(p, context_after=("Some other words are written here.",), context_rows=((), (5,)))
    assert by_caller.rows_named() == ((), (5,))
    assert ws_splitter(64).split(by_caller)[-1].kept_context == (1,)


def test_pieces_of_context_shorten_a_caption_longer_than_half_a_piece() -> None:
    """The table's piece shows a long caption in full; the pieces of context that did not fit beside it repeat only
    its start, so a 50-token caption does not leave 14-token fragments of context."""
    caption, context = words(50, "cap"), words(30, "ctx")
    p = parts((("k", "v"),), (("a", "1"),), caption=caption, before=(context,))
    context_piece, table_piece = ws_splitter(64).split(p)
    assert table_piece.rows == (0, 1) and table_piece.text.startswith(caption)
    assert context_piece.rows == (0, 0) and context in context_piece.text
    assert (
        context_piece.text.startswith("cap cap")
        and caption not in context_piece.text
        and ELLIPSIS in context_piece.text
    )


def test_context_rows_given_by_the_caller_win() -> None:
    """``UnitParts.context_rows`` (e.g. from the context module) overrides the splitter's own matching."""
    body = tuple((f"r{i}", str(i)) for i in range(40))
    p = UnitParts(
        caption="",
        context_before=("about the last row",),
        context_after=(),
        footnotes=(),
        rows=TableRows(header=(("k", "v"),), body=body, label_cols=1),
        fmt=TABLE_FORMATS["markdown"],
        context_rows=((39,),),
    )
    pieces = ws_splitter(32).split(p)
    (k,) = [k for k, pc in enumerate(pieces) if 0 in pc.kept_context]
    assert pieces[k].rows[0] <= 39 < pieces[k].rows[1]


def test_degrade_order_footnotes_then_caption_then_header() -> None:
    body = tuple((f"r{i}", words(3, "v")) for i in range(30))
    long_caption = "Table 5: " + words(60, "cap")  # with the header, over 3/4 of the budget
    p = parts((("k", "v"),), body, caption=long_caption, footnotes=(words(20, "note"),))
    pieces = ws_splitter(64).split(p)
    check_rows(pieces, body, p.rows.header, 1, p.fmt)
    # footnotes are emitted once, after the last row
    assert sum("note" in pc.text for pc in pieces) == 1
    assert "note" in pieces[-1].text
    # every piece repeats a shortened caption; the full caption, too long to fit beside the header, is shown once in
    # consecutive fragments, each under the shortened caption
    assert all(pc.text.split("\n\n")[0].endswith(ELLIPSIS) for pc in pieces)
    blocks = [b for pc in pieces for b in pc.text.split("\n\n")[1:]]
    assert "".join(b for b in blocks if b.startswith(("Table 5", "cap"))) == long_caption
    # the header still fits in half the budget: it is in every piece, the caption's too
    assert all("| k | v |" in pc.text for pc in pieces)


def test_header_that_fits_is_in_every_piece_even_when_wider_than_half() -> None:
    """No piece without its header when the header fits in the limit (here 56 of 64 words)."""
    header = (("k", words(50, "head")),)
    body = tuple((f"r{i}", "1") for i in range(30))
    p = parts(header, body)
    pieces = ws_splitter(64).split(p)
    check_rows(pieces, body, header, 1, p.fmt)
    assert len(pieces) == 30  # header and separator: 55 words, a row: 5
    assert all(pc.has_header and words(50, "head") in pc.text for pc in pieces)
    assert all(len(pc.text.split()) <= 64 for pc in pieces)


def _wide_table(n_cols: int = 50) -> tuple[tuple[tuple[str, ...], ...], tuple[tuple[str, ...], ...]]:
    """docling-core's ``_build_wide_header_table``: one header row "Column N heading", one row "Value N"."""
    return (tuple(f"Column {c} heading" for c in range(n_cols)),), (tuple(f"Value {c}" for c in range(n_cols)),)


@pytest.mark.parametrize(("kind", "max_tokens"), [("tiktoken", 64), ("bundled", 128), ("bundled", 256)])
def test_wide_table_is_split_by_columns_into_valid_tables(kind: str, max_tokens: int) -> None:
    """A header row plus a body row does not fit, so the table is split by columns: every piece is a valid
    Markdown table (header, separator, rows) of the row-label column and a group of columns, no header cell is cut,
    and every value is in exactly one piece."""
    header, body = _wide_table()
    count = make_tokenizer(kind, max_tokens).count_tokens
    p = parts(header, body, caption="Wide table caption")
    pieces = Splitter(count=count, fits=lambda t: count(t) <= max_tokens, budget=max_tokens).split(p)
    check_rows(pieces, body, header, 1, p.fmt)
    assert len(pieces) > 1
    for pc in pieces:
        assert count(pc.text) <= max_tokens
        assert pc.has_header and pc.cols is not None and pc.cols[0] == 0
        lines = pc.text.split("\n")
        table = lines[lines.index("") + 1 :] if "" in lines else lines
        assert table[0] == "| " + " | ".join(header[0][c] for c in pc.cols) + " |"
        assert re.fullmatch(r"\|(---\|)+", table[1]) and table[1].count("---") == len(pc.cols)
        assert all(line.startswith("|") and line.count("|") == len(pc.cols) + 1 for line in table)
        # no header cell is cut: every "Column" is followed by its number and "heading"
        assert len(re.findall(r"Column \d+ heading", pc.text)) == pc.text.count("Column")
    values = [v for pc in pieces for v in re.findall(r"Value \d+", pc.text)]
    assert sorted(values) == sorted([*(f"Value {c}" for c in range(50)), *(["Value 0"] * (len(pieces) - 1))])


def test_wide_table_with_escaped_pipes_and_empty_cells_loses_nothing() -> None:
    """docling-core's ``test_split_markdown_table_with_escaped_pipes_and_empty_cells``: 12 columns, header cells with
    ``\\|``, values with ``\\|`` and empty cells, tiktoken at 64 tokens."""
    header = (tuple(f"Header \\| {c}" if c % 2 == 0 else f"Header {c}" for c in range(12)),)
    body = tuple(
        tuple(f"Val \\| {r}_{c}" if c % 3 == 0 else "" if c % 3 == 1 else f"Val_{r}_{c}" for c in range(12))
        for r in (1, 2)
    )
    count = make_tokenizer("tiktoken", 64).count_tokens
    p = parts(header, body)
    pieces = Splitter(count=count, fits=lambda t: count(t) <= 64, budget=64).split(p)
    check_rows(pieces, body, header, 1, p.fmt)
    assert len(pieces) > 1 and all(count(pc.text) <= 64 and pc.has_header for pc in pieces)
    for pc in pieces:
        cells = [c for c in pc.cols]
        for r in range(pc.rows[0], pc.rows[1]):
            assert p.fmt.row_line(body[r], cells, header, 1) in pc.text  # empty cells keep their slot: "|  |"


def test_tall_and_wide_table_is_split_by_columns_then_rows() -> None:
    """docling-core's ``test_tall_and_wide_table_chunks_respect_token_limit``: 12 columns, 24 rows, tiktoken at 96."""
    header = (tuple(f"Metric_{c}" for c in range(12)),)
    body = tuple(tuple(f"R{r}C{c}_val" for c in range(12)) for r in range(1, 25))
    count = make_tokenizer("tiktoken", 96).count_tokens
    p = parts(header, body)
    pieces = Splitter(count=count, fits=lambda t: count(t) <= 96, budget=96).split(p)
    check_rows(pieces, body, header, 1, p.fmt)
    groups = sorted({pc.cols for pc in pieces})
    assert len(groups) >= 2 and all(g[0] == 0 for g in groups)
    assert all(count(pc.text) <= 96 and pc.has_header for pc in pieces)
    assert any(pc.rows[1] - pc.rows[0] > 1 for pc in pieces)  # a column group packs several rows per piece


def test_repeat_table_header_false_shows_the_header_once() -> None:
    """HybridChunker's ``repeat_table_header=False``: the header is not repeated, it opens the first piece only."""
    body = tuple((f"r{i}", words(3, "v")) for i in range(40))
    p = parts((("k", "v"),), body)
    count = WhitespaceTokenizer(max_tokens=32).count_tokens
    pieces = Splitter(count=count, fits=lambda t: count(t) <= 32, budget=32, repeat_table_header=False).split(p)
    check_rows(pieces, body, p.rows.header, 1, p.fmt)
    assert [pc.has_header for pc in pieces] == [True] + [False] * (len(pieces) - 1)
    assert sum("| k | v |" in pc.text for pc in pieces) == 1
    default = ws_splitter(32).split(p)
    assert len(pieces) < len(default) and all(pc.has_header for pc in default)


def test_repeat_table_header_false_never_loses_a_header_the_first_row_cannot_carry() -> None:
    # the first row is too wide to go with the (long) header; the second fits with it. The header rides on that
    # second row, so that row opens a piece (a piece renders its first row's header): the header is not lost
    header = (("k", words(20, "head")),)
    body = (("r0", words(12, "wide")), ("r1", "v"), ("r2", "w"))
    p = parts(header, body)
    count = WhitespaceTokenizer(max_tokens=32).count_tokens
    pieces = Splitter(count=count, fits=lambda t: count(t) <= 32, budget=32, repeat_table_header=False).split(p)
    check_rows(pieces, body, header, 1, p.fmt)
    assert sum(words(20, "head") in pc.text for pc in pieces) == 1, [pc.text for pc in pieces]
    assert all(count(pc.text) <= 32 for pc in pieces)


def test_omit_header_on_overflow_sends_a_wide_row_without_the_header() -> None:
    """HybridChunker's ``omit_header_on_overflow=True``: a row that does not fit beside the header goes without it
    (instead of the table being split by columns); the other rows keep the header."""
    header = (("Metric", "A", "B"),)
    body = (("small", "1", "2"), ("wide", words(20, "a"), words(20, "b")), ("small2", "3", "4"))
    count = WhitespaceTokenizer(max_tokens=48).count_tokens
    p = parts(header, body)
    splitter = Splitter(count=count, fits=lambda t: count(t) <= 48, budget=48, omit_header_on_overflow=True)
    pieces = splitter.split(p)
    check_rows(pieces, body, header, 1, p.fmt)
    (wide,) = [pc for pc in pieces if pc.rows == (1, 2)]
    assert wide.cols is None and not wide.has_header and "| Metric |" not in wide.text
    assert all(pc.has_header for pc in pieces if pc.rows != (1, 2))
    # the default splits that row by columns, each part under its header
    default = [pc for pc in ws_splitter(48).split(p) if pc.rows == (1, 2)]
    assert len(default) == 2 and all(pc.has_header and pc.cols for pc in default)


def test_a_row_too_wide_beside_a_header_over_half_the_piece_is_split_under_its_columns_header() -> None:
    """The header (34 tokens) is over half the piece (60) yet fits beside the short rows; one row does not fit beside
    it. That row is split into column groups, each under the header of its columns, rather than sent out as bare
    numbers that no longer say what they measure; the other rows keep the whole header."""
    header = (("Metric", *(f"heading {c} of quantity" for c in range(6))),)
    short = tuple(str(c) for c in range(6))
    body = (("alpha", *short), ("wide", *(f"{c}.7 million units" for c in range(6))), ("beta", *short))
    p = parts(header, body)
    pieces = ws_splitter(60).split(p)
    check_rows(pieces, body, header, 1, p.fmt)
    wide = [pc for pc in pieces if pc.rows == (1, 2)]
    assert len(wide) == 2 and all(pc.has_header and pc.cols for pc in wide)
    for pc in wide:
        assert "\n".join(p.fmt.header_lines(header, pc.cols)) in pc.text
    assert all(pc.has_header and pc.cols is None for pc in pieces if pc.rows != (1, 2))


def test_header_too_wide_for_a_piece_is_shown_by_column_groups_never_cut() -> None:
    """With ``omit_header_on_overflow=True`` a header longer than a piece cannot go with any row: it gets pieces of its
    own, split between columns (never inside a cell), each a header-only table."""
    header, body = _wide_table(30)
    count = make_tokenizer("bundled", 64).count_tokens
    p = parts(header, body)
    splitter = Splitter(count=count, fits=lambda t: count(t) <= 64, budget=64, omit_header_on_overflow=True)
    pieces = splitter.split(p)
    check_rows(pieces, body, header, 1, p.fmt)
    shown = " ".join(pc.text for pc in pieces)
    assert sorted(re.findall(r"Column \d+ heading", shown)) == sorted(header[0])
    assert len(re.findall(r"Column \d+ heading", shown)) == shown.count("Column")


def test_splitter_keeps_no_state_between_units() -> None:
    """One splitter, units in any order, the same pieces as fresh splitters."""
    a = parts((("k", "v"),), tuple((f"r{i}", words(5, "x")) for i in range(30)), caption="Table A")
    b = parts(_wide_table(20)[0], _wide_table(20)[1], caption="Table B", fmt="html")
    shared = ws_splitter(40)
    first_a, first_b = shared.split(a), shared.split(b)
    assert shared.split(a) == first_a == ws_splitter(40).split(a)
    assert shared.split(b) == first_b == ws_splitter(40).split(b)
    assert shared.budget == 40


def test_splitting_is_deterministic() -> None:
    body = tuple((f"r{i}", words(7, "v")) for i in range(50))
    p = parts((("k", "v"),), body, caption="Table 6")
    assert ws_splitter(64).split(p) == ws_splitter(64).split(p)


# -- end to end -----------------------------------------------------------------------------------------------------


def test_chunker_multi_row_header_merged_cells_and_pages() -> None:
    header = (("Segment", "2023", "2023", "2024", "2024"), ("Segment", "Q1", "Q2", "Q1", "Q2"))
    body = tuple((f"seg {i}", *(str(i * k) for k in range(1, 5))) for i in range(60))
    grid = Grid(header=header, body=body, label_cols=1, spans=((0, 0, 2, 1), (0, 1, 1, 2), (0, 3, 1, 2)))
    spec = DocSpec(
        grid=grid,
        caption="Table 7: Revenue by segment",
        before=("The segments grew.",),
        after=(),
        footnotes=("* unaudited",),
        headings=("Results",),
        pages=3,
        row_headers=True,
    )
    doc = build_doc(spec)
    rows = table_rows(doc.tables[0], doc)
    assert rows.header == header and rows.body == body and rows.label_cols == 1
    chunker = EvidenceChunker(tokenizer=make_tokenizer("bundled", 128))
    pieces = [c for c in chunker.chunk(doc) if c.meta.kind == "table"]
    assert len(pieces) > 3
    assert [p.meta.part for p in pieces] == list(range(len(pieces)))
    assert {p.meta.parts for p in pieces} == {len(pieces)}
    assert len({p.meta.unit_id for p in pieces}) == 1
    assert all(p.meta.page_span == [1, 2, 3] for p in pieces)
    starts = [p.meta.rows[0] for p in pieces]
    ends = [p.meta.rows[1] for p in pieces]
    assert starts[0] == 0 and ends[-1] == 60 and starts[1:] == ends[:-1]
    for p in pieces:
        assert chunker.tokenizer.count_tokens(chunker.contextualize(p)) <= 128
        assert "| Segment | 2023 - Q1 | 2023 - Q2 | 2024 - Q1 | 2024 - Q2 |" in p.text
        assert p.text.startswith("Table 7: Revenue by segment")


def test_chunker_triplets_fold_the_header_into_rows() -> None:
    grid = Grid(header=(("Name", "Score"),), body=(("ann", "3"), ("bob", "4")), label_cols=1)
    spec = DocSpec(grid, "Table 8: Scores", (), (), (), (), 1, False)
    (piece,) = [c for c in EvidenceChunker(table_format="triplets").chunk(build_doc(spec)) if c.meta.kind == "table"]
    assert "ann, Score = 3" in piece.text and "bob, Score = 4" in piece.text


# -- cases found by the property suite ------------------------------------------------------------------------------


def _pieces_text(pieces: list[Piece]) -> str:
    return "\n\n".join(p.text for p in pieces)


def test_cell_fragments_repeat_the_row_label() -> None:
    """A single cell longer than the budget is split inside the cell, each fragment labelled with its row and column
    headers. Whether the label leaves room for a value is probed with the label alone (the value cell blanked): with
    the whole value cell, longer than the budget, the probe would always fail and the fragments would carry no row
    label."""
    long_cell = " ".join(f"w{i}" for i in range(300))
    p = parts((("Name", "Description"),), (("beta", long_cell),))
    frags = [pc for pc in ws_splitter(64).split(p) if pc.fragment is not None]
    assert frags
    for pc in frags:
        assert pc.cols == (0, 1)
        assert pc.text.splitlines()[-1].startswith("| beta | ")


def test_caption_piece_packed_with_a_column_group_reports_its_columns() -> None:
    """A caption too long to repeat (34 words, budget 64) becomes a once-only lead item, packed with the first column
    group of a wide row: the piece reports the columns of its rows, (0, 1), not ``cols=None`` (the whole row 0) from
    the caption item that opens it."""
    body = (("a", words(20, "b"), words(20, "c"), words(20, "d")),)
    p = parts((), body, caption=words(34, "cap"))
    pieces = ws_splitter(64).split(p)
    assert [pc.cols for pc in pieces] == [(0, 1), (0, 2), (0, 3)]
    check_rows(pieces, body, (), 1, p.fmt)


def test_header_only_rows_keep_their_header() -> None:
    """Header rows with no body (what is left when the caption rule ``header_row`` takes the first of two header
    rows) are the content: they are shown, though the table block is otherwise rendered only above body rows."""
    p = parts((("Year", "Revenue"),), (), caption="Table 1")
    text = "\n\n".join(pc.text for pc in ws_splitter(64).split(p))
    assert "Year" in text and "Revenue" in text


def test_triplets_keep_the_row_label_header() -> None:
    """The triplet format folds column labels into value cells only (``row label, column label = value``): the header
    text of a label column ("Name") must still appear in some piece, as every header text does."""
    p = parts((("Name", "Score"),), (("ann", "3"), ("bob", "4")), fmt="triplets")
    text = "\n\n".join(pc.text for pc in ws_splitter(64).split(p))
    assert "Name" in text


def test_shortened_caption_of_multi_token_characters() -> None:
    """With tiktoken cl100k, U+FE4AA is 4 tokens. When the room left for the shortened caption is 2-3 tokens,
    the caption's prefix would be cut by ``semchunk.chunk(chunk_size=2)``, which recurses without end on a text whose
    single characters exceed the chunk size: ``fragments`` cuts by characters below ``semchunk_min_tokens``."""
    tok = make_tokenizer("tiktoken", 64)
    count = tok.count_tokens
    assert count("\U000fe4aa") == 4
    splitter = Splitter(count=count, fits=lambda t: count(t) <= 64, budget=64)
    body = tuple((f"r{i}", "1 2 3 4 5 6 7 8 9") for i in range(20))
    p = parts((("k", words(25, "h")),), body, caption="\U000fe4aa" * 30)
    pieces = splitter.split(p)
    check_rows(pieces, body, p.rows.header, 1, p.fmt)
    assert all(count(pc.text) <= 64 for pc in pieces)


def test_a_footnote_character_worth_several_tokens_that_fits_no_piece_ends_the_planning() -> None:
    """A footnote fragment of one character worth 3 tokens (tiktoken cl100k) that does not fit beside a piece's
    overhead cannot be cut finer: the planner must change the layout, not cut the same character again for ever."""
    import signal

    tok = make_tokenizer("tiktoken", 78)
    count = tok.count_tokens
    assert count("\U0001d54f") == 3
    splitter = Splitter(count=count, fits=lambda t: count(t) <= 78, budget=78)
    # found by a random search over multi-token characters: the footnote fragment "\U0001d54f" is the one left over
    header = (
        ("\xe9\u6f22\U0001f600\U0001d54f\n", "\U0001d54fa\u6f22\U0001f600\ub9e4 1", "\n\xe9\ub9e4\u20ac\ub9e4\xe9"),
    )
    body = (
        (
            "\xe9\u6f22\u20ac1",
            "\U0001f600\u20ac\ub9e4\ub9e4\U0001f600 \U0001f600\u20ac",
            "\U0001f600\U0001f600 \u6f22 \u6f22\n1\u6f22 ",
        ),
        (
            "1",
            "\u20aca\U0001d54fa\U0001f600 \u6f22 \ub9e41\n",
            " 1\U0001d54f\u6f22\U0001d54f\U0001f600\u6f22\ub9e41\U0001f600\U0001d54f\n",
        ),
    )
    caption = (
        "\xe9\ub9e4\u20ac\U0001d54f\U0001d54fa\xe9a"
        "\n\n\u6f22 \xe9 \u20aca"
        "\xe9\u6f22\U0001d54f\u20ac\n\U0001f600\n1"
        "\U0001d54f\U0001d54f"
    )
    footnote = (
        "  \u6f22\U0001d54f1\xe9\ub9e4\n"
        "\n\U0001d54f\u6f22\u20ac1\ub9e4\u20ac\xe9"
        "\n\u6f22\U0001d54f\u6f22\xe9\ub9e4 \U0001f600"
        "\u6f22aa\xe9\u20ac\u6f22 \U0001f600"
        "\U0001f600\ub9e4\u6f22\ub9e4\n1 \u20ac"
        "\u6f22 \u20ac\ub9e4 \u6f22\na"
        "\U0001d54f\ub9e4\n\U0001f600\n\u20ac\u6f22\ub9e4"
        "\ub9e4a\U0001f600\U0001f60011\U0001d54f\u20ac"
        " \U0001d54fa\u6f22\u6f22\n\U0001f6001"
        "\u6f22\xe9\U0001f600\U0001d54f\u20ac\u6f22  "
        "\u6f22\U0001f600\u20ac"
    )
    p = parts(header, body, label_cols=0, caption=caption, footnotes=(footnote,))

    def hung(*_: object) -> None:
        raise AssertionError("the splitter did not finish within 20 s")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(20)
    try:
        pieces = splitter.split(p)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    check_rows(pieces, body, p.rows.header, 0, p.fmt)
    assert all(count(pc.text) <= 78 for pc in pieces)
    shown = "".join(pc.text for pc in pieces)
    assert all(ch in shown for ch in p.footnotes[0] if not ch.isspace())


def test_triplet_row_under_a_column_label_longer_than_the_budget() -> None:
    """Triplets fold the column label into every value (``a, <label> = v``). With a 70-word label and a 64-word budget
    the line cannot fit even split by columns and inside the cell, as long as every fragment carries the whole label.
    The row goes by columns and its value without the folded label (``column 2 = v``), while the label itself is
    emitted in the header lines: nothing is lost."""
    p = parts((("k", words(70, "h")),), (("a", "v"),), fmt="triplets")
    pieces = ws_splitter(64).split(p)
    assert all(len(pc.text.split()) <= 64 for pc in pieces)
    check_rows(pieces, p.rows.body, p.rows.header, 1, p.fmt)
    text = _pieces_text(pieces)
    assert "column 2 = v" in text and "\na" in text
    assert text.split().count("h") == 70  # the long label appears in full, once


# found by test_splitter_properties[bundled] (ci profile), shrunk by hand: no caption, context or footnotes needed
_WIDE_HEADER = (
    (
        "𤳫\x12\U000eb033\U00052584ỺeN\x8dø\x89O\x92\U000804ac\U000df34fíäçÐ\U00091a90\U0008ffecÿ·½ò±\U00093bb0\U00065c55X|5I\U0004b37d\x8f\x1e\U00108e40ck\x91ÞvÏ\x8a´if?ﺬ\x04𖠵õ1Ý{{ª\x9f\x9d\x7f\U000c5b4eo🈶ia\x98dï\U0003af88\U000f0caeXÒÑÇÍ§\U000af11fæ)\U00055ed0Lß\U00071d97Ê\x13\U0004107f\xadí\U000d98a3ý*Ð/¾\U000f99f5÷É\xa0\U0010838d\x17üË\rÊ\x82Uéçþö=\U000a9e95$K\x17\x86/\x83\n\x81ÄÆZ\U00090ad5杮BP5Àó\U00052299M}ëªT/\U0001b54f\x92𭿣Ã\U00107529\x9e\U00051881ÿ\x0c\x12O¿\U000ca44eÍ\U000a407fÎíuw\U0006d938\U000e44b6båḪáâ\U00109196Â\U0001b720wp\U000ab942\x9d",
        ":\x03)\U000447d5ùþ\U00010ff8\U000980c1\x13ý+\x11Úé\x07C\U00015c0d𗐒\U001081e8²\x05\U0010f0d0C\U000123bcT+Ú\x11\U000831afÚ©/UçL\U0003b799\U00075d03(VU·$ð!0\U000af798Ê\x8b\x15\x8f\U00041a0a8×\U000db522Ïpÿ.\x10¯\U00085eceāB4t\U00037fb1ÑS°I\U0005bf1a\U000c8181*\tÌ\x7fe\x89\U000933d7h\U000d4b22\U0009bf21\xa0ÞÂ\U000e8281g\x9b¡¸\uee31â\U000e299a®\x02\x8f\x8aù\U000cc12fX\x95þā1³n\x89\U000a7b84\x9e\x83Ö±\U000a8c1573#ÀFÌ¶\U0005c0fd(\x89ùF\U000e2eadÀ\U000be7f4\U0006f457Ú",
        "Ä\x03ú0𣼌",
        "<b>bold</b> &amp; <td>cell</td> n/a",
    ),
)
_WIDE_ROW = (
    (
        "",
        "",
        "| --- | -  -  &lt;&gt; 1,234.56 <b>bold</b> &amp; <td>cell</td> 매출 <table> \u200b | --- | 日本語のセル a | b \r\n\t Q4 매출 😀👍🏽 1,234.56 <b>bold</b> &amp; <td>cell</td> -    padded   line one\nline two Ünïcödé <table> | --- | 표 3 매출 \u200b net revenue revenue x\\ <table> income Q4 line one\nline two x\\ a | b -  Q4 || 1,234.56 --- line one\nline two 2023 😀👍🏽",  # noqa: E501
        "",
    ),
)


def test_header_within_half_the_budget_is_repeated_next_to_a_wide_row() -> None:
    """Property 3. Bundled tokenizer, max_tokens=256: the header lines cost 121 tokens (<= 128, half the budget) and the
    only body row 171 (header + row > 256). The header must be repeated and the row split by columns under it, also
    when markdown escaping makes a cell fragment cost more than its raw text and the plan is retried with a smaller
    budget: the header's room is measured on the budget asked for."""
    tok = make_tokenizer("bundled", 256)
    count = tok.count_tokens
    p = parts(_WIDE_HEADER, _WIDE_ROW, label_cols=2)
    block = "\n".join(p.fmt.header_lines(_WIDE_HEADER, (0, 1, 2, 3)))
    assert count(block) <= 128
    pieces = Splitter(count=count, fits=lambda t: count(t) <= 256, budget=256).split(p)
    check_rows(pieces, _WIDE_ROW, _WIDE_HEADER, 2, p.fmt)
    for pc in pieces:
        assert count(pc.text) <= 256
        if pc.cols is None and pc.fragment is None and pc.rows[1] > pc.rows[0]:
            assert block in pc.text


def _small_table_doc(heading: bool) -> DoclingDocument:
    doc = DoclingDocument(name="small")
    if heading:
        doc.add_heading(text="Section heading here", level=1)
    body = [[f"v{r}_{c}" for c in range(3)] for r in range(1, 4)]
    add_table(doc, [["h0", "h1", "h2"]], body, caption="Table 1: a caption")
    return doc


@pytest.mark.parametrize("fmt", ["html", "markdown", "triplets"])
@pytest.mark.parametrize("heading", [False, True])
def test_tiny_limits_chunk_every_format_within_the_limit_and_lose_nothing(fmt: str, heading: bool) -> None:
    # HTML markup costs ~15 tokens a cell: below ~45 tokens a row no longer fits under its header; it then goes
    # without it, after the header shown on its own
    doc = _small_table_doc(heading)
    for max_tokens in range(26, 64):
        chunker = EvidenceChunker(tokenizer=bundled_tokenizer(max_tokens), table_format=fmt)
        chunks = list(chunker.chunk(doc))
        texts = [c.text for c in chunks]
        assert all(chunker.tokenizer.count_tokens(chunker.contextualize(c)) <= max_tokens for c in chunks)
        skels = [skeleton(t) for t in texts]
        for cell in ["h0", "h1", "h2", *(f"v{r}_{c}" for r in range(1, 4) for c in range(3))]:
            assert covered_in_order(skeleton(cell), skels), (max_tokens, cell)


def test_a_limit_too_small_for_one_row_is_a_value_error_that_says_what_to_change() -> None:
    # one HTML cell alone, "<table>\n<tr><td>v</td></tr>\n</table>", is 22 tokens
    chunker = EvidenceChunker(tokenizer=bundled_tokenizer(16), table_format="html")
    with pytest.raises(ValueError, match=r"max_tokens=16.*larger max_tokens.*table_format='markdown'"):
        list(chunker.chunk(_small_table_doc(heading=False)))
    assert list(EvidenceChunker(tokenizer=bundled_tokenizer(16)).chunk(_small_table_doc(heading=False)))


def test_headings_that_leave_no_room_for_a_row_are_dropped_not_an_error() -> None:
    """Three Korean headings (about 50 tokens with the bundled tokenizer) leave a 64-token HTML piece too little room
    for one cell fragment under its two row labels, though the table fits without the headings. As when the headings
    leave under params.pieces.min_piece_budget tokens, the unit's pieces go without them (a warning says so); the text
    chunks keep them."""
    row = ("net", "total assets income", "利益 Ünïcödé n/a (3.1)", "n/a 12.5 Q4", "매출", "income", "Ünïcödé")
    spec = DocSpec(
        grid=Grid(header=(), body=(row,), label_cols=2, spans=()),
        caption="",
        before=(),
        after=(),
        footnotes=(),
        headings=("매출 매출 매출 Notes",) * 3,
        pages=0,
        row_headers=False,
    )
    chunker = EvidenceChunker(tokenizer=bundled_tokenizer(64), table_format="html")
    chunks = list(chunker.chunk(build_doc(spec)))
    pieces = [c for c in chunks if c.meta.kind == "table"]
    assert pieces and all(not p.meta.headings for p in pieces)
    assert all(chunker.tokenizer.count_tokens(chunker.contextualize(c)) <= 64 for c in chunks)
    skels = [skeleton(p.text) for p in pieces]
    for cell in row:
        assert covered_in_order(skeleton(cell), skels), cell


@pytest.mark.parametrize("with_context", [False, True])
def test_a_column_group_whose_only_row_is_cut_shows_its_header_once_per_piece(with_context: bool) -> None:
    """A wide row whose long cell is cut into fragments: each fragment's piece shows the group's header above it,
    so no piece holds that header again on its own (as in the rustc book's target-feature table, whose
    'Description' header must show neither twice nor alone after another group's row)."""
    long_cell = " ".join(f"w{i}" for i in range(150))
    header = (("Feature", "Issue", "Seen on", "Description", "Details"),)
    body = (("soft-float", "segfaults", "x86", long_cell, "#63466"),)
    p = parts(header, body, before=(words(20, "context"),) if with_context else ())
    pieces = ws_splitter(48).split(p)
    check_rows(pieces, body, header, 1, p.fmt)
    for pc in pieces:
        header_lines = [line for line in pc.text.split("\n") if line.startswith("| Feature |")]
        assert len(header_lines) <= 1, pc.text
        if header_lines:  # a header is shown above rows of its piece, never alone
            assert pc.rows[1] > pc.rows[0] and pc.row_slices, pc.text
    assert "".join(pc.cell_text for pc in pieces if pc.fragment is not None) == long_cell
