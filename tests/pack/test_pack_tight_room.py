"""What goes when a unit's caption and header do not fit what is left of the budget: a row labelled (each value named
by its column) with the footnotes that change what its numbers mean; a caption that answers, alone."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from packdocs import BODY, CAPTION, FOOTNOTE, HEADER

from docling_evidence import EvidenceChunker
from docling_evidence.pack.segments import Row

CEMENT = next(row for row in BODY if row[0] == "Cement works")
CEMENT_LABELLED = "Cement works: " + "; ".join(f"{h} = {c}" for h, c in zip(HEADER[1:], CEMENT[1:], strict=True))
QUERY = "Cement works revenue 2020"


def _piece_with(chunks: list[Any], label: str) -> Any:
    return next(c for c in chunks if f"| {label} |" in c.text)


def test_a_row_goes_labelled_with_its_meaning_footnote_when_its_caption_and_header_do_not_fit(
    chunker: EvidenceChunker, evidence_chunks: list[Any]
) -> None:
    piece = _piece_with(evidence_chunks, "Cement works")
    budget = chunker.tokenizer.count_tokens(f"{CEMENT_LABELLED}\n\n{FOOTNOTE}")
    packed = chunker.pack(QUERY, [piece], budget)
    assert packed.text == f"{CEMENT_LABELLED}\n\n{FOOTNOTE}"
    (block,) = packed.blocks
    assert [(r.label, r.text) for r in block.rows] == [("Cement works", CEMENT_LABELLED)]
    assert block.caption is None and block.header == []
    assert [f.text for f in block.footnotes] == [FOOTNOTE]
    # one token less and the row does not go at all: never without the footnote that says "in millions"
    short = chunker.pack(QUERY, [piece], budget - 1)
    assert all("Cement works" not in r.text for b in short.blocks for r in b.rows)


def test_a_row_goes_framed_under_its_caption_and_header_whenever_they_fit(
    chunker: EvidenceChunker, evidence_chunks: list[Any]
) -> None:
    piece = _piece_with(evidence_chunks, "Cement works")
    for budget in (100, 300, 1000):
        packed = chunker.pack(QUERY, [piece], budget)
        rows = [r.text for b in packed.blocks for r in b.rows]
        assert "| " + " | ".join(CEMENT) + " |" in rows and CEMENT_LABELLED not in rows, budget


def test_a_unit_delivered_whole_keeps_its_table(chunker: EvidenceChunker, evidence_chunks: list[Any]) -> None:
    piece = _piece_with(evidence_chunks, "Cement works")
    whole = chunker.pack(QUERY, [piece], 2000)
    assert all(r.text.startswith("|") for b in whole.blocks for r in b.rows)
    assert len(whole.blocks[0].rows) == sum(role.startswith("row") for role in piece.meta.line_roles)


def _row(text: str, header: tuple[str, ...], fmt: Any = "markdown") -> Row:
    return Row(text, "", 0, header, fmt, ("row", 0))


def test_labelled_names_a_column_by_every_header_line_and_a_spanning_cell_once() -> None:
    header = ("| District | Goats | Goats |", "| | n | Seroprevalence (%) |", "|---|---|---|")
    row = _row("| Mocuba | 59 | 0.0a |", header).labelled()
    assert row is not None and row.fmt == "labelled" and row.header == ()
    assert row.text == "Mocuba: Goats n = 59; Goats Seroprevalence (%) = 0.0a"


def test_labelled_reads_html_rows_and_skips_empty_cells() -> None:
    header = ("<tr><th>Protein</th><th>Ki</th><th>IC50</th></tr>",)
    row = _row("<tr><td>LipI</td><td>13.1</td><td></td></tr>", header, "html").labelled()
    assert row is not None and row.text == "LipI: Ki = 13.1"


@pytest.mark.parametrize(
    ("text", "header", "fmt"),
    [
        ("| a | 1 |", (), "markdown"),  # no header
        ("| a | 1 | 2 |", ("| x | y |", "|---|---|"), "markdown"),  # no header line gives each cell a column
        ("| a |", ("| x |", "|---|"), "markdown"),  # a label and no value
        ("| a | |", ("| x | y |", "|---|---|"), "markdown"),  # nothing to name
        ("a, y = 1", (), "triplets"),  # triplets name their columns already
    ],
)
def test_labelled_is_none_when_the_columns_are_not_known(text: str, header: tuple[str, ...], fmt: Any) -> None:
    assert _row(text, header, fmt).labelled() is None


CELL = st.text(alphabet=st.characters(categories=("L", "N"), max_codepoint=0x24F), min_size=1, max_size=8)


@given(
    st.integers(2, 6).flatmap(
        lambda n: st.tuples(st.lists(CELL, min_size=n, max_size=n), st.lists(CELL, min_size=n, max_size=n))
    )
)
def test_labelled_keeps_every_value_once_under_its_column(cells: tuple[list[str], list[str]]) -> None:
    head, body = cells
    row = _row("| " + " | ".join(body) + " |", ("| " + " | ".join(head) + " |", "|---" * len(head) + "|")).labelled()
    assert row is not None
    assert row.text == f"{body[0]}: " + "; ".join(f"{h} = {c}" for h, c in zip(head[1:], body[1:], strict=True))


def test_a_caption_that_matches_goes_alone_when_nothing_else_of_its_unit_fits(
    chunker: EvidenceChunker, evidence_chunks: list[Any]
) -> None:
    piece = _piece_with(evidence_chunks, "Cement works")
    query = "which business segment breakdown does the caption give"  # words of the caption, none of a row
    budget = chunker.tokenizer.count_tokens(CAPTION)
    packed = chunker.pack(query, [piece], budget)
    assert packed.text == CAPTION
    (block,) = packed.blocks
    assert block.caption == CAPTION and not (block.rows or block.sentences or block.footnotes)
    assert block.doc_refs and all(ref.startswith("#/texts/") for ref in block.doc_refs), "the caption's item is cited"
    assert chunker.pack(query, [piece], budget - 1).text == "", "a caption is never cut"


def test_a_caption_that_matches_nothing_is_not_delivered_alone(
    chunker: EvidenceChunker, evidence_chunks: list[Any]
) -> None:
    piece = _piece_with(evidence_chunks, "Cement works")
    packed = chunker.pack("hiring dividends", [piece], chunker.tokenizer.count_tokens(CAPTION))
    assert all(b.rows or b.sentences or b.footnotes for b in packed.blocks)
