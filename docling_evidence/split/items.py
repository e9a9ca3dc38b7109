"""The splitter's working material: the payload items a unit is planned as, and the overhead every piece repeats.

Internal to :mod:`docling_evidence.split`: a plan is a stream of :class:`Item` (row lines, parts of rows, once-only
texts) that packing cuts into pieces, each rendered under the :class:`Overhead`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from docling_evidence.tables.formats import TableFormat

Kind = Literal["row", "lead", "tail"]


@dataclass
class Item:
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
    ctx_start: int = 0  # where this item's text starts in that context text (a fragment's offset)
    sticky: bool = False  # keep in the piece of the next item (context placed with its row)
    opens: bool = False  # starts a piece of its own (never joins the items before it)


@dataclass
class Overhead:
    """What every piece repeats, and the once-only texts the reduction moved out of it."""

    caption: str
    footnotes: list[str]
    fmt: TableFormat
    lead: list[str] = field(default_factory=list)
    tail: list[str] = field(default_factory=list)
    header: tuple[str, ...] = ()  # shown by a piece without rows (of context, footnotes), so every piece shows it


class Unsplittable(RuntimeError):
    """A single row (or cell fragment) does not fit a piece at this budget."""

    def __init__(self, item: Item) -> None:
        super().__init__(f"cannot fit row {item.row} within the token limit")
        self.row = item.row


def reading_order(items: list[Item]) -> list[Item]:
    """``items`` with the context texts among them in reading order, in the places context takes: a piece fills with
    context most important first, and shows it as the document reads (the fragments of one text stay in order)."""
    slots = [k for k, it in enumerate(items) if it.ctx is not None]
    ordered = sorted((items[k] for k in slots), key=lambda it: it.ctx)  # type: ignore[arg-type, return-value]
    out = list(items)
    for k, it in zip(slots, ordered, strict=True):
        out[k] = it
    return out


def shows_header(payload: Sequence[Item]) -> bool:
    """Whether a piece of ``payload`` shows header lines: above its rows, or on their own."""
    rows = [it for it in payload if it.kind == "row"]
    return bool(rows and rows[0].header) or any(it.is_header for it in payload)


def unheaded(cols: Sequence[int], items: Sequence[Item]) -> list[int]:
    """The columns of ``cols`` that no row item of ``items`` shows under a header (the column groups of a row split
    by columns carry their own header when it fits): only these need header-only pieces."""
    headed = {c for it in items if it.kind == "row" and it.header and it.cols is not None for c in it.cols}
    return [c for c in cols if c not in headed]
