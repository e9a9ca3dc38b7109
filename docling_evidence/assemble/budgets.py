"""How many tokens of context a unit may take: the budgets by kind of document, and the room beside a table that
fits one piece."""

from __future__ import annotations

from docling_evidence.assemble.measure import ChunkMeasure
from docling_evidence.assemble.params import PieceParams
from docling_evidence.assemble.units import EvidenceUnit
from docling_evidence.tables.serializer import TableLayout, render_table

MIN_ROW_LINE_TOKENS = 2
"""Every row line costs at least this many tokens (its cells and their separators): a table with more row lines than
``max_tokens / 2`` cannot fit one piece, and is not counted."""


def flow_context_budget(max_tokens: int, context_max_tokens: int | None, params: PieceParams) -> int:
    """The context budget of a table not placed on a page: ``context_max_tokens``, else the limit's share
    (``params.context_limit_divisor``)."""
    if context_max_tokens is not None:
        return context_max_tokens
    return max_tokens // params.context_limit_divisor


def page_context_budget(max_tokens: int, context_max_tokens: int | None, params: PieceParams) -> int:
    """The context budget of a table placed on a page: ``context_max_tokens``, else ``params.page_context_tokens``
    (at most ``params.page_context_pieces`` times the limit), or the limit's share when that is more."""
    if context_max_tokens is not None:
        return context_max_tokens
    page = min(params.page_context_tokens, params.page_context_pieces * max_tokens)
    return max(page, max_tokens // params.context_limit_divisor)


def context_room(
    unit: EvidenceUnit, layout: TableLayout, prefix: str, measure: ChunkMeasure, params: PieceParams
) -> int | None:
    """Tokens left for context beside ``unit`` when it fits one piece without it (None when it does not fit
    anyway), so that context never makes a table split that would fit whole. ``layout``: the unit's table as the
    chunker writes it; ``prefix``: the headings it is embedded after."""
    blocks = [unit.caption.text if unit.caption else "", render_table(layout.rows, layout.fmt)]
    blocks += [text for _, text in unit.notes()]
    base = measure.count(prefix + "\n\n".join(b for b in blocks if b))
    if base > measure.limit:
        return None
    left = measure.limit - base
    return max(0, left - left // params.context_join_slack - params.context_join_reserve)


def too_tall_to_fit(unit: EvidenceUnit, max_tokens: int) -> bool:
    """Whether ``unit`` has more row lines than one piece can hold, whatever their text."""
    return MIN_ROW_LINE_TOKENS * (len(unit.rows.header) + len(unit.rows.body)) > max_tokens
