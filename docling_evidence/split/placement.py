"""Where the context texts of a split unit go: a text naming a row goes into the piece holding that row (the first it
names), the rest, the general context, once into the first piece (most important first)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from docling_evidence.split.items import Item, Overhead
from docling_evidence.split.layout import PieceLayout
from docling_evidence.split.pieces import UnitParts


@dataclass(frozen=True)
class ContextPlacement:
    """The context texts of ``parts``, by where they go: ``with_row`` maps a body row to the texts placed with it,
    ``general`` lists the others (indices into ``parts.context``)."""

    parts: UnitParts
    with_row: dict[int, list[int]]
    general: list[int]

    @classmethod
    def of(cls, parts: UnitParts) -> ContextPlacement:
        """Place the context texts of ``parts`` by the rows they name."""
        with_row: dict[int, list[int]] = {}
        general: list[int] = []
        for i, rs in enumerate(parts.rows_named()):
            if rs and rs[0] < len(parts.rows.body):
                with_row.setdefault(rs[0], []).append(i)
            else:
                general.append(i)
        return cls(parts=parts, with_row=with_row, general=general)

    def items(self, lay: PieceLayout, oh: Overhead, indices: Sequence[int], *, sticky: bool) -> list[Item]:
        """The items of the context texts ``indices``, in that order (``sticky``: kept in the piece of the item that
        follows them, their row)."""
        n_before = len(self.parts.context_before)
        context = self.parts.context
        items: list[Item] = []
        for i in indices:
            kind: Literal["lead", "tail"] = "lead" if i < n_before else "tail"
            items.extend(lay.text_items(kind, context[i], oh, ctx=i, sticky=sticky))
        return items

    def general_items(self, lay: PieceLayout, oh: Overhead) -> list[Item]:
        """The items of the general context, in the order it fills the first piece."""
        return self.items(lay, oh, self.parts.general_order(self.general), sticky=False)

    def row_items(self, lay: PieceLayout, oh: Overhead, r: int) -> list[Item]:
        """The items of the context placed with body row ``r``, kept with it."""
        return self.items(lay, oh, self.with_row.get(r, ()), sticky=True)
