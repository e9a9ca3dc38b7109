"""Markdown pipe rows: a line's cells and the line back, and the separator row under a pipe table's header.

One reading of a pipe row for every reader of one: the serializer taking another serializer's table apart, the row
views dropping a separator row from the header, and the packer reading a retrieved chunk's text. A ``|`` is a cell
boundary unless it is escaped, that is preceded by an odd number of backslashes (``\\|`` is a pipe inside a cell,
``\\\\|`` a backslash ending a cell); cells are returned raw (padding and escapes as written), so
``join_pipe_row(pipe_cells(line)) == line`` for every pipe row.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

PIPE = "|"


def _split_unescaped(text: str) -> list[str]:
    """``text`` cut at every unescaped ``|`` (the pipes themselves left out)."""
    cells: list[str] = []
    current: list[str] = []
    escaped = False
    for char in text:
        if char == PIPE and not escaped:
            cells.append("".join(current))
            current = []
        else:
            current.append(char)
        escaped = char == "\\" and not escaped
    cells.append("".join(current))
    return cells


def pipe_cells(line: str, *, frame_optional: bool = False) -> list[str] | None:
    """The raw cells of a pipe row (``| a | b |`` -> ``[" a ", " b "]``), or None when ``line`` is not one.

    A pipe row starts with ``|`` and ends with an unescaped ``|``. ``frame_optional``: either outer pipe may be
    missing (a row cut at a chunk's edge), so every line gives its cells and None is never returned.
    """
    opened = line.startswith(PIPE)
    cells = _split_unescaped(line[1:] if opened else line)
    closed = len(cells) > 1 and cells[-1] == ""
    if closed:
        cells.pop()
    if not (opened and closed) and not frame_optional:
        return None
    return cells


def join_pipe_row(cells: Sequence[str]) -> str:
    """The pipe row of raw ``cells``, each between pipes as given (the inverse of :func:`pipe_cells`)."""
    return PIPE + PIPE.join(cells) + PIPE


@functools.cache
def _separator_cell(min_dashes: int) -> re.Pattern[str]:
    return re.compile(rf"\s*:?-{{{min_dashes},}}:?\s*")


def is_separator_cell(cell: str, *, min_dashes: int = 3) -> bool:
    """Whether ``cell`` is a cell of a separator row (``---``, ``:---:``, padding allowed): at least ``min_dashes``
    dashes, a colon at either end for the column's alignment.

    The default, three, is what this package writes and what Markdown's tables are written with; a reader of any
    writer's text may accept fewer.
    """
    return _separator_cell(min_dashes).fullmatch(cell) is not None


def is_separator_row(cells: Sequence[str], *, min_dashes: int = 3) -> bool:
    """Whether ``cells`` (at least one) are all separator cells (see :func:`is_separator_cell`)."""
    return bool(cells) and all(is_separator_cell(cell, min_dashes=min_dashes) for cell in cells)


def is_separator_line(line: str, *, min_dashes: int = 3) -> bool:
    """Whether ``line`` is a pipe table's separator row (``|---|:---:|``; see :func:`is_separator_cell`)."""
    cells = pipe_cells(line)
    return cells is not None and is_separator_row(cells, min_dashes=min_dashes)
