"""One reading of a Markdown pipe row for every reader: its cells and back, and the separator row."""

from __future__ import annotations

import re
from types import SimpleNamespace

from hypothesis import given
from hypothesis import strategies as st

from docling_evidence.pack.segments import read_chunk
from docling_evidence.tables.formats import TABLE_FORMATS, one_line
from docling_evidence.tables.pipes import (
    is_separator_cell,
    is_separator_line,
    is_separator_row,
    join_pipe_row,
    pipe_cells,
)

MARKDOWN = TABLE_FORMATS["markdown"]
CELL_TEXT = st.text(alphabet=st.sampled_from("ab1 |\\-:\n\t"), max_size=8)


def _unescape(cell: str) -> str:
    return re.sub(r"\\(.)", r"\1", cell)


def test_cells_are_raw_and_an_escaped_pipe_stays_in_its_cell() -> None:
    assert pipe_cells("| a | b |") == [" a ", " b "]
    assert pipe_cells(r"| a \| b | c |") == [r" a \| b ", " c "]
    assert pipe_cells(r"| a \\| b |") == [r" a \\", " b "]  # an escaped backslash ends the cell
    assert pipe_cells("||") == [""]


def test_a_line_that_is_not_a_pipe_row_has_no_cells() -> None:
    for line in ("", "|", "a | b", "| a | b", r"| a \|"):
        assert pipe_cells(line) is None, line


def test_an_optional_frame_reads_a_row_cut_at_either_edge() -> None:
    assert pipe_cells(" b | c |", frame_optional=True) == [" b ", " c "]
    assert pipe_cells("| a | b", frame_optional=True) == [" a ", " b"]
    assert pipe_cells("plain", frame_optional=True) == ["plain"]
    assert pipe_cells(r"| a \|", frame_optional=True) == [r" a \|"]


@given(st.text(alphabet=st.sampled_from("ab |\\-"), max_size=20))
def test_a_pipe_row_joins_back_to_its_line(body: str) -> None:
    line = "|" + body
    cells = pipe_cells(line)
    if cells is not None:
        assert join_pipe_row(cells) == line


@given(st.lists(CELL_TEXT, min_size=1, max_size=5))
def test_a_markdown_row_splits_into_exactly_its_cells(texts: list[str]) -> None:
    line = MARKDOWN.row_line(texts, range(len(texts)), (), 1)
    cells = pipe_cells(line)
    assert cells is not None and len(cells) == len(texts)
    assert [_unescape(c.strip()) for c in cells] == [one_line(t).strip() for t in texts]
    assert pipe_cells(join_pipe_row(cells)) == cells


def test_separator_cells_rows_and_lines() -> None:
    assert is_separator_cell("---") and is_separator_cell(" :---: ") and is_separator_cell("----:")
    assert not is_separator_cell("--") and is_separator_cell("--", min_dashes=2)
    assert not is_separator_cell("- -") and not is_separator_cell("") and not is_separator_cell("a---")
    assert is_separator_row(["---", " :---: "]) and not is_separator_row([]) and not is_separator_row(["---", "x"])
    assert is_separator_line("|---|:---:|") and is_separator_line("| --- | --- |")
    assert not is_separator_line("|---|---") and not is_separator_line(r"|---\|")
    assert is_separator_line("| - |", min_dashes=1) and not is_separator_line("| - |", min_dashes=2)


def test_our_markdown_header_ends_with_a_separator_line() -> None:
    label_line, separator = MARKDOWN.header_lines([["Year", "---"]], (0, 1))
    assert is_separator_line(separator) and not is_separator_line(label_line)


def test_the_packer_reads_two_dashes_as_a_header_end_and_single_dashes_as_a_row() -> None:
    text = "| Item | 2020 |\n|--|--|\n| Revenue | 5 |\n| - | - |"
    reading = read_chunk(SimpleNamespace(text=text, meta=None), 0)
    assert [r.text for r in reading.rows] == ["| Revenue | 5 |", "| - | - |"]
    assert reading.rows[0].header == ("| Item | 2020 |", "|--|--|")
    assert reading.rows[0].score_text() == "Revenue: 2020 = 5"
