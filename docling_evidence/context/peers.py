"""Section peers: the paragraphs of a table's own section that its unit takes in while it has room.

HybridChunker's ``merge_peers`` merges successive undersized chunks that share their headings, so a short section
becomes one chunk holding its paragraphs and its table. A unit whose table, caption, context and footnotes fit one
piece does the same: the paragraphs next to it in reading order, in the same section, join the piece while the
contextualized text stays within the limit. They are shown whole and leave the text chunks (each paragraph is then
in exactly one chunk), with the role ``"text"`` in ``meta.roles``: they are the section's text, not context chosen
as being about the table.

Why: measured on TAT-QA, a question about a table is often closest to a paragraph of the table's section; when that
paragraph is a text chunk of its own it outranks the unit and the chunk retrieved holds no cell. HybridChunker's
section-sized chunks do not have that failure (see docs/benchmark.md).

A walk away from the unit stops at a heading (another section), at anything that is not a body paragraph (another
table, a picture, page boilerplate such as "Retrieved from <url>": ``DocIndex.boilerplate``), at an item of another
unit, and at the first paragraph that does not fit, so the peers of a unit are contiguous with it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass

from docling_evidence.document.index import DocIndex


@dataclass(frozen=True)
class Peers:
    """The section peers a unit piece takes in: reading positions before and after it, each in reading order."""

    before: tuple[int, ...] = ()
    after: tuple[int, ...] = ()

    @property
    def positions(self) -> tuple[int, ...]:
        """Every peer's reading position, in reading order."""
        return (*self.before, *self.after)


def _next_peer(
    index: DocIndex, start: int, step: int, section: int, inside: Collection[str], is_blocked: Callable[[str], bool]
) -> int | None:
    """The nearest position from ``start`` (exclusive) in direction ``step`` that can be a peer, else None.

    Items of the unit itself (``inside``) are stepped over; the walk ends at a heading, a non-paragraph, page
    boilerplate, an item ``is_blocked`` refuses (another unit's) or the document's end.
    """
    p = start + step
    while 0 <= p < len(index.items):
        ref = index.items[p].self_ref
        if ref in inside:
            p += step
            continue
        if index.section_of(p) != section or index.is_heading(p) or is_blocked(ref) or not index.is_paragraph(p):
            return None
        if p in index.boilerplate:
            return None
        return p
    return None


def section_peers(
    index: DocIndex,
    span: tuple[int, int],
    section: int,
    *,
    inside: Collection[str],
    is_blocked: Callable[[str], bool],
    fits: Callable[[Peers], bool],
) -> Peers:
    """The paragraphs around reading positions ``span`` (first and last of the unit) that join its piece.

    Candidates are taken nearest first, alternating sides (before wins a tie); a side stops at its first paragraph
    for which ``fits`` (the piece with these peers is within the limit) is false.

    Args:
        index: the document's reading order.
        span: the lowest and highest reading positions of the unit's own items (table, caption, footnotes, context).
        section: the table's section (:meth:`DocIndex.section_of`); peers come from it only.
        inside: refs of the unit's own items (stepped over).
        is_blocked: whether a ref may not be a peer (an item of another unit, or one another unit took in).
        fits: whether the unit's piece with the given peers is within the limit.
    """
    before: list[int] = []
    after: list[int] = []
    nxt_before = _next_peer(index, span[0], -1, section, inside, is_blocked)
    nxt_after = _next_peer(index, span[1], +1, section, inside, is_blocked)
    while nxt_before is not None or nxt_after is not None:
        take_before = nxt_after is None or (nxt_before is not None and span[0] - nxt_before <= nxt_after - span[1])
        if take_before:
            assert nxt_before is not None
            trial = Peers(tuple(sorted([*before, nxt_before])), tuple(after))
            if fits(trial):
                before.append(nxt_before)
                nxt_before = _next_peer(index, nxt_before, -1, section, inside, is_blocked)
            else:
                nxt_before = None
        else:
            assert nxt_after is not None
            trial = Peers(tuple(sorted(before)), tuple([*after, nxt_after]))
            if fits(trial):
                after.append(nxt_after)
                nxt_after = _next_peer(index, nxt_after, +1, section, inside, is_blocked)
            else:
                nxt_after = None
    return Peers(tuple(sorted(before)), tuple(after))
