"""Texts that point at a table by its place instead of its label: "the following table", "the table below", "the
table above".

Financial reports rarely number their tables; they introduce one with "The following table sets forth ..." and
discuss it afterwards with "The amounts in the table above exclude ...". Such a reference names one table as "Table 3"
would (:mod:`docling_evidence.context.choose` then treats the paragraph as naming it): a forward reference the next
table in reading order, a backward one the previous table, each only within ``PointingRules.reach`` paragraphs (a
discussion goes on for a few paragraphs; code spans, links and captions between do not count). A forward reference
crosses a heading only when no paragraph stands between it and the table (the heading is then the table's title,
as Docling often reads a table's title line); a backward one never does. A plural ("the following tables") names the
first table in its direction only; a reference with no table in reach names nothing (the paragraph is then an
ordinary one: the table it means may be one Docling did not detect, or a TAT-QA excerpt's own table that the
benchmark placed before its second lead-in).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass

from docling_evidence.document.index import DocIndex


@dataclass(frozen=True)
class PointingRules:
    """How far a reference by place reaches (the chunker's is ``UnitParams.pointing_reach``).

    Attributes:
        reach: the farthest distance, in paragraphs, from a pointing reference to the table it names: fewer than
            this many paragraphs lie between them (0: a reference by place names no table).
    """

    reach: int = 8


DEFAULT_POINTING_RULES = PointingRules()
"""The measured defaults."""

_FORWARD = re.compile(r"\b(?:following|next|below)\s+tables?\b|\btables?\s+(?:below|that\s+follows?)\b", re.IGNORECASE)
_BACKWARD = re.compile(r"\b(?:above|preceding|previous|foregoing)\s+tables?\b|\btables?\s+above\b", re.IGNORECASE)
_PREFIX = "AT:"


def pointing_mentions(text: str) -> list[tuple[int, int, int]]:
    """Every reference of ``text`` to a table by its place: (direction, start, end), direction +1 for a table after
    the text ("the following table") and -1 for one before it ("the table above")."""
    # every match holds "table" (no character but those letters matches them under IGNORECASE): most paragraphs do
    # not, and a substring test is much cheaper than the two patterns, which try a phrase at every word start
    if "table" not in text.lower():
        return []
    found = [(1, m.start(), m.end()) for m in _FORWARD.finditer(text)]
    found += [(-1, m.start(), m.end()) for m in _BACKWARD.finditer(text)]
    return sorted(found, key=lambda m: (m[1], m[0]))


def position_label(t_idx: int) -> str:
    """The label under which pointing references name the table at reading position ``t_idx`` (kept apart from
    "Table 3" labels and titles)."""
    return f"{_PREFIX}{t_idx}"


def pointed_table(
    index: DocIndex,
    paragraphs: list[int],
    tables: list[int],
    idx: int,
    direction: int,
    rules: PointingRules = DEFAULT_POINTING_RULES,
) -> int | None:
    """The table a reference in the paragraph at ``idx`` points at (``direction`` as in :func:`pointing_mentions`),
    among the unit tables at reading positions ``tables``, or None when none is in reach (``rules.reach``).
    ``paragraphs`` are the reading positions of the document's paragraphs; both lists ascend."""
    members = index.members(idx)
    if direction > 0:
        last = max(members)
        j = bisect_right(tables, last)
        if j == len(tables):
            return None
        t_idx = tables[j]
        between = bisect_left(paragraphs, t_idx) - bisect_right(paragraphs, last)
        if between >= rules.reach or (between and index.heading_between(last, t_idx)):
            return None
        return t_idx
    first = min(members)
    j = bisect_left(tables, first)
    if j == 0:
        return None
    t_idx = tables[j - 1]
    between = bisect_left(paragraphs, first) - bisect_right(paragraphs, t_idx)
    if between >= rules.reach or index.heading_between(t_idx, first):
        return None
    return t_idx
