"""Property tests for token-exact splitting, with three tokenizers.

At the ``Splitter`` level (random ``TableRows`` and unit parts) and end to end through ``EvidenceChunker.chunk()``
on a ``DoclingDocument`` built with docling-core's API. Example counts come from the hypothesis profile
(``tests/conftest.py``): ``ci`` by default (reproducible), ``HYPOTHESIS_PROFILE=thorough`` for a long run.
"""

from __future__ import annotations

import html
from dataclasses import replace

import pytest
from hypothesis import given, seed, settings
from hypothesis import strategies as st
from row_naming import rows_named_by_definition
from split_helpers import (
    SEED,
    TOKENIZER_KINDS,
    DocSpec,
    Grid,
    build_doc,
    check_context,
    check_header,
    check_markdown_tables,
    check_nothing_lost,
    check_rows,
    covered_in_order,
    grids,
    header_block,
    make_tokenizer,
    paragraph_texts,
    skeleton,
    stripped,
)

from docling_evidence import EvidenceChunker
from docling_evidence.split.splitter import Splitter, UnitParts, piece_budget
from docling_evidence.tables.formats import TABLE_FORMATS, one_line
from docling_evidence.tables.params import TableParams
from docling_evidence.tables.rows import TableRows, table_rows

FORMATS = tuple(TABLE_FORMATS)
MAX_TOKENS = st.one_of(st.integers(64, 256), st.integers(64, 2048))
"""``max_tokens`` in [64, 2048], most examples in the small range where splitting happens."""

headings_lists = st.lists(
    st.lists(st.sampled_from(["Results", "2023", "Segment", "매출", "Notes"]), min_size=1, max_size=4).map(" ".join),
    max_size=3,
)


def _splitter(tokenizer, headings: list[str], options: dict[str, bool]) -> tuple[Splitter, str]:
    """A Splitter set up the way ``EvidenceChunker._unit_chunks`` sets it up."""
    limit = tokenizer.get_max_tokens()
    count = tokenizer.count_tokens
    prefix = "\n".join(headings) + "\n" if headings else ""
    budget = piece_budget(count, limit, prefix)
    return Splitter(count=count, fits=lambda text: count(prefix + text) <= limit, budget=budget, **options), prefix


header_options = st.sampled_from(
    [
        {},
        {},
        {"repeat_table_header": False},
        {"omit_header_on_overflow": True},
    ]
)
"""HybridChunker's table-header settings: the defaults (half the examples), header once, header omitted on overflow."""


@st.composite
def unit_parts(draw: st.DrawFn) -> tuple[UnitParts, Grid]:
    grid = stripped(draw(grids()))
    rows = TableRows(header=grid.header, body=grid.body, label_cols=grid.label_cols)
    parts = UnitParts(
        caption=draw(st.one_of(st.just(""), paragraph_texts)).strip(),
        context_before=tuple(draw(st.lists(st.one_of(paragraph_texts, row_texts(grid)), max_size=3))),
        context_after=tuple(draw(st.lists(st.one_of(paragraph_texts, row_texts(grid)), max_size=3))),
        footnotes=tuple(f.strip() for f in draw(st.lists(paragraph_texts, max_size=3)) if f.strip()),
        rows=rows,
        fmt=TABLE_FORMATS[draw(st.sampled_from(FORMATS))],
    )
    return parts, grid


def row_texts(grid: Grid) -> st.SearchStrategy[str]:
    """A sentence that names rows of ``grid``: their label and a value (so row-affine context is exercised)."""
    if not grid.body:
        return st.just("No rows.")
    row = st.integers(0, len(grid.body) - 1).map(lambda r: grid.body[r])
    sentence = row.map(lambda cells: f"In {' '.join(cells[: max(1, grid.label_cols)])} the value was {cells[-1]}.")
    return st.lists(sentence, min_size=1, max_size=3).map(" ".join)


@pytest.mark.parametrize("kind", TOKENIZER_KINDS)
@given(data=unit_parts(), max_tokens=MAX_TOKENS, headings=headings_lists, options=header_options)
@seed(SEED)
@settings(max_examples=settings.default.max_examples)
def test_splitter_properties(
    kind: str, data: tuple[UnitParts, Grid], max_tokens: int, headings: list[str], options: dict[str, bool]
) -> None:
    parts, grid = data
    tokenizer = make_tokenizer(kind, max_tokens)
    splitter, prefix = _splitter(tokenizer, headings, options)
    pieces = splitter.split(parts)
    assert pieces or not (grid.body or grid.header), "no pieces"
    count = tokenizer.count_tokens
    # 1. within the limit, contextualized (headings prefix) and counted by the tokenizer itself
    for i, p in enumerate(pieces):
        n = count(prefix + p.text)
        assert n <= max_tokens, f"piece {i}/{len(pieces)} has {n} tokens > {max_tokens}"
    if not (grid.body or grid.header):
        return  # a table with no cells never becomes a unit (EvidenceChunker leaves it to the text chunks)
    # header rows with no body rows are the content: they are split as body rows (as table_rows reads such a table)
    body, header = (grid.body, grid.header) if grid.body else (grid.header, ())
    # 2. body rows exactly once, in order; column groups and cell fragments reassemble
    check_rows(pieces, body, header, grid.label_cols, parts.fmt)
    # 3. header of its columns in every whole-row piece when it fits in half the budget (default settings)
    if not options:
        check_header(pieces, parts.fmt, header, grid.num_cols, count, splitter.budget)
    check_markdown_tables(pieces, parts.fmt)
    # nothing lost: caption, footnotes, header cells; context not repeated, placed with its row or in the first piece
    check_nothing_lost([p.text for p in pieces], parts.fmt.name, parts.caption, parts.footnotes, grid.header)
    # (rows named as the splitter sees them: header rows with no body under them are the body)
    as_split = replace(parts, rows=TableRows(header=header, body=body, label_cols=grid.label_cols))
    named = tuple(rows_named_by_definition(text, as_split.rows) for text in parts.context)  # not the splitter's own
    assert as_split.rows_named() == named
    check_context(pieces, parts.context, named)
    # every context text (or fragment) a piece shows is located by its offsets in the text it comes from
    for p in pieces:
        assert [(i, parts.context[i][a:b]) for i, a, b in p.context_spans] == list(p.context_shown)
    # 4. a table that fits one piece without its context is not split by it: one piece holds all its rows, after
    # the pieces of context that did not fit beside them
    if parts.context and len(bare := splitter.split(replace(parts, context_before=(), context_after=()))) == 1:
        with_rows = [p for p in pieces if p.rows[1] > p.rows[0]]
        assert len(with_rows) == (1 if body else 0), [p.rows for p in pieces]
        assert pieces[-1].rows == bare[0].rows
    # 5. deterministic, and stateless: the same splitter again, and a fresh one
    assert splitter.split(parts) == pieces
    again, _ = _splitter(make_tokenizer(kind, max_tokens), headings, options)
    assert again.split(parts) == pieces


# -- end to end ------------------------------------------------------------------------------------------------------
@st.composite
def doc_specs(draw: st.DrawFn) -> DocSpec:
    return DocSpec(
        grid=draw(grids()),
        caption=draw(st.one_of(st.just(""), paragraph_texts)).strip(),
        before=tuple(draw(st.lists(paragraph_texts, max_size=3))),
        after=tuple(draw(st.lists(paragraph_texts, max_size=3))),
        footnotes=tuple(f.strip() for f in draw(st.lists(paragraph_texts, max_size=3)) if f.strip()),
        headings=tuple(draw(headings_lists)),
        pages=draw(st.sampled_from([0, 1, 1, 2, 3])),
        row_headers=draw(st.booleans()),
    )


def _chunks(kind: str, max_tokens: int, fmt: str | None, doc) -> tuple[EvidenceChunker, list]:
    chunker = EvidenceChunker(tokenizer=make_tokenizer(kind, max_tokens), table_format=fmt)
    return chunker, list(chunker.chunk(doc))


@pytest.mark.parametrize("kind", TOKENIZER_KINDS)
@given(spec=doc_specs(), max_tokens=MAX_TOKENS, fmt=st.sampled_from([None, "markdown", "html", "triplets"]))
@seed(SEED)
@settings(max_examples=max(5, settings.default.max_examples // 2))
def test_chunker_properties(kind: str, spec: DocSpec, max_tokens: int, fmt: str | None) -> None:
    doc = build_doc(spec)
    chunker, chunks = _chunks(kind, max_tokens, fmt, doc)
    count = chunker.tokenizer.count_tokens
    # 1. every chunk (table pieces and text chunks) within the limit, as embedded
    for i, ch in enumerate(chunks):
        n = count(chunker.contextualize(ch))
        assert n <= max_tokens, f"chunk {i} ({ch.meta.kind}) has {n} tokens > {max_tokens}"
    pieces = [ch for ch in chunks if ch.meta.kind == "table"]
    grid = stripped(spec.grid)
    table = doc.tables[0]
    rows = table_rows(table, doc)
    # every grid row is read once, in order (merged cells repeated): marked header rows as the header (a table of
    # header rows only as body rows); where Docling marked none, the leading rows that read as column headers may be
    # taken for the header (at most max_inferred_header_rows of them)
    read = (*rows.header, *rows.body)
    assert read == (*grid.header, *grid.body), "table_rows does not read every row on the grid once, in order"
    if grid.header:
        assert rows.header == (grid.header if grid.body else ()), "the marked header rows are the header"
    else:
        assert len(rows.header) <= TableParams().max_inferred_header_rows, "too many rows taken for the header"
        assert len(rows.body) >= 2 * len(rows.header), "a header is taken only above twice as many rows"
    if not any(cell for row in (*grid.header, *grid.body) for cell in row):
        assert not pieces, "an empty table became a unit"
        return
    assert pieces, "the table produced no chunk"
    # 4. one unit: shared unit_id, part 0..n-1, parts n, the unit's page span
    n = len(pieces)
    assert {p.meta.unit_id for p in pieces} == {pieces[0].meta.unit_id}
    assert [p.meta.part for p in pieces] == list(range(n))
    assert all(p.meta.parts == n for p in pieces)
    assert all(p.meta.page_span == list(range(1, spec.pages + 1)) for p in pieces)
    header = rows.header
    if pieces[0].meta.caption_source == "header_row":
        header = header[1:]
    tfmt = TABLE_FORMATS[fmt or "markdown"]
    # 2. body rows in order: the ranges cover the rows consecutively, once per column group (a table split by
    # columns is covered once per group); every body cell's text is in a piece holding its row
    ranges = [tuple(p.meta.rows) for p in pieces]
    n_rows, r = len(rows.body), 0
    for k, (a, b) in enumerate(ranges):
        if k > 0 and ranges[k - 1] == (a, b) and b == a + 1:
            continue  # the same row, split by columns
        if r == n_rows and a == 0 and n_rows:
            r = 0  # the next column group
        assert a == r, f"piece {k} starts at row {a}, expected {r}: {ranges}"
        r = b
    assert r == n_rows, f"pieces end at row {r} of {n_rows}: {ranges}"
    skels = [skeleton(p.text) for p in pieces]
    one_cell = len(rows.header) + len(rows.body) == 1 and rows.num_cols == 1  # shown as its text, in any format
    for i, row in enumerate(rows.body):
        holding = [skels[k] for k, (a, b) in enumerate(ranges) if a <= i < b]
        for cell in row:
            needle = skeleton(html.escape(cell, quote=False) if tfmt.name == "html" and not one_cell else cell)
            assert covered_in_order(needle, holding), f"row {i}: cell {cell[:60]!r} not in the pieces holding the row"
    # 3. with the default settings, every piece holding rows shows a header (of its columns) when the table's whole
    # header fits in half the budget
    all_cols = tuple(range(rows.num_cols))
    if header and tfmt.name != "triplets" and tfmt.header_lines(header, all_cols):
        headings = pieces[0].meta.headings
        prefix = chunker.delim.join(headings) + chunker.delim if headings else ""
        budget = piece_budget(count, max_tokens, prefix)
        if count(header_block(tfmt, header, rows.num_cols)) <= budget // 2:
            mark = {"markdown": "|---", "html": "<th>"}[tfmt.name]
            for k, p in enumerate(pieces):
                assert ranges[k][0] == ranges[k][1] or mark in p.text, f"piece {k} lacks a header"
    # nothing lost
    caption = pieces[0].meta.caption or ""
    notes = [f.strip() for f in spec.footnotes]
    check_nothing_lost([p.text for p in pieces], tfmt.name, caption, notes, header)
    # 5. views: each within the limit as embedded; a text chunk's views are its sentences (their words in its text);
    # every body cell's text is in the row views of the pieces holding its row (in order, a value cut into parts
    # across consecutive views)
    for i, ch in enumerate(chunks):
        views = chunker.contextualize_views(ch)
        assert len(views) == len(ch.meta.views)
        for v in views:
            assert count(v) <= max_tokens, f"chunk {i}: a view has {count(v)} tokens > {max_tokens}"
        if ch.meta.kind == "text":
            assert len(ch.meta.views) != 1, "a text chunk of one sentence needs no view"
            assert all(skeleton(v) in skeleton(ch.text) for v in ch.meta.views)
    view_skels: list[list[str]] = [[skeleton(v) for v in p.meta.views] for p in pieces]
    for i, row in enumerate(rows.body):
        holding = [v for k, (a, b) in enumerate(ranges) if a <= i < b for v in view_skels[k]]
        for cell in row:
            needle = skeleton(one_line(cell))
            assert covered_in_order(needle, holding), f"row {i}: cell {cell[:60]!r} not in the row views"
    # the caption's words are in the views of the piece the table starts in (its caption view, cut when long)
    if caption:
        starts = next((k for k, (a, b) in enumerate(ranges) if a < b), 0)
        assert covered_in_order(skeleton(one_line(caption)), view_skels[starts]), "no caption view where it starts"
    # 4. deterministic: a fresh chunker on the same document gives the same chunks
    _, again = _chunks(kind, max_tokens, fmt, doc)
    assert [(c.text, c.meta.model_dump()) for c in again] == [(c.text, c.meta.model_dump()) for c in chunks]
