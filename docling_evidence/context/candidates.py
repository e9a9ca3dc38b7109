"""Which paragraphs may be a table's context, before any sentence is weighed.

On paginated documents (items carry boxes): paragraphs on the table's pages within ``bbox_threshold`` points of its
top or bottom edge (at most ``ContextParams.layout_neighbours`` nearest on each side per page), with no section header
between them and the table in reading order; and the paragraphs across the page break when the table opens (closes)
its page. Without layout (HTML, DOCX, Markdown): the nearest ``ContextParams.reading_order_neighbours`` paragraphs
before and after the table in the same section, not beyond page boilerplate or the next table. On both: the
paragraphs naming the table (by label, title or place), those framed by them, and those quoting its values.

Each table looks at a bounded number of neighbours found by bisection in the :class:`ContextIndex`'s position lists.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, replace
from itertools import pairwise

from docling_core.types.doc import PictureItem, TableItem, TextItem

from docling_evidence.context.index import ContextIndex
from docling_evidence.context.params import ContextParams
from docling_evidence.document.index import DocIndex
from docling_evidence.document.layout import horizontal_overlap, inside, nearest_gap
from docling_evidence.units.captions import normalize_label
from docling_evidence.units.deixis import position_label
from docling_evidence.units.titles import is_title_label


@dataclass(frozen=True)
class Candidate:
    """A paragraph that may be context, and how it was found."""

    idx: int
    """Its reading position."""
    names_table: bool
    """It names the table (by label, title or place)."""
    same_column: bool
    """With layout: it overlaps the table horizontally (always True without layout)."""
    distance: float
    """Points from the table with layout, reading-order steps otherwise."""
    far: bool = False
    """Outside the table's neighbourhood: found by naming, framing or quoting only."""
    framed: bool = False
    """Between two paragraphs that name the table, or right after one (:func:`framed`)."""
    quotes: bool = False
    """Quotes the table's distinctive values (``ContextIndex.quoted_by``)."""

    def rank(self) -> tuple[bool, bool, bool, float, int]:
        """Sort key: naming the table first, then near before far, same column, distance, reading order."""
        return (not self.names_table, self.far, not self.same_column, self.distance, self.idx)


def find_candidates(
    ctx: ContextIndex, t_idx: int, label: str | None, bbox_threshold: float, layout: bool, params: ContextParams
) -> dict[int, Candidate]:
    """Every candidate paragraph of the table at ``t_idx``: its neighbours (by layout or by reading order), then the
    paragraphs naming it, framed by those, or quoting its values, each marked as such."""
    if layout:
        candidates = _layout_candidates(ctx, t_idx, bbox_threshold, params)
    else:
        candidates = _order_candidates(ctx, t_idx, params)
    naming = _naming(ctx, t_idx, label)
    for idx in naming:
        near = candidates.get(idx)
        candidates[idx] = Candidate(idx, True, near.same_column if near else False, near.distance if near else 0.0)
        if near is None:
            candidates[idx] = Candidate(idx, True, False, float(abs(idx - t_idx)), far=True)
    for idx in framed(ctx, sorted(naming), params):
        if idx != t_idx and idx not in naming:
            near = candidates.get(idx)
            candidates[idx] = (
                replace(near, framed=True)
                if near
                else Candidate(idx, False, False, float(abs(idx - t_idx)), far=True, framed=True)
            )
    for idx in ctx.quoted_by.get(t_idx, ()):
        near = candidates.get(idx)
        candidates[idx] = (
            replace(near, quotes=True)
            if near
            else Candidate(idx, False, False, float(abs(idx - t_idx)), far=True, quotes=True)
        )
    return candidates


def _window(entries: list[tuple[float, int]], lo: float, hi: float, nearest_to: float, k: int) -> Iterable[int]:
    """Positions whose key lies in ``[lo, hi]``, at most ``k`` of them, those nearest ``nearest_to`` first."""
    a = bisect_left(entries, (lo, -1))
    b = bisect_right(entries, (hi, math.inf))
    if b - a <= k:
        return [idx for _key, idx in entries[a:b]]
    if nearest_to <= lo:
        return [idx for _key, idx in entries[a : a + k]]
    return [idx for _key, idx in entries[b - k : b]]


def _layout_candidates(
    ctx: ContextIndex, t_idx: int, bbox_threshold: float, params: ContextParams
) -> dict[int, Candidate]:
    """The table's page neighbours within ``bbox_threshold`` points, then those across the page break."""
    index = ctx.index
    t_boxes = index.boxes[index.items[t_idx].self_ref]
    k = params.layout_neighbours
    near: set[int] = set()
    for tb in t_boxes:
        by_top = ctx.by_top.get(tb.page, [])
        by_bottom = ctx.by_bottom.get(tb.page, [])
        near.update(_window(by_bottom, tb.top - bbox_threshold, tb.top, tb.top, k))  # above
        near.update(_window(by_top, tb.bottom, tb.bottom + bbox_threshold, tb.bottom, k))  # below
        near.update(_window(by_top, tb.top, tb.bottom, tb.top, k))  # level with it
        # a text straddling the table's top edge (its box starts above the table and ends inside it, as a lead-in
        # line whose box Docling's table region overlaps does) is in none of the windows above
        near.update(_window(by_bottom, tb.top, tb.bottom, tb.top, k))
    found: dict[int, Candidate] = {}
    for idx in near:
        if idx == t_idx or index.heading_between(idx, t_idx):
            continue
        hit = nearest_gap(index.boxes[index.items[idx].self_ref], t_boxes)
        if hit is not None and hit[0] <= bbox_threshold:
            found[idx] = Candidate(idx, False, horizontal_overlap(hit[1], hit[2]) > 0, hit[0])
    _add_across_page_breaks(ctx, t_idx, found, bbox_threshold, params)
    return found


def _add_across_page_breaks(
    ctx: ContextIndex, t_idx: int, found: dict[int, Candidate], bbox_threshold: float, params: ContextParams
) -> None:
    """When the table opens (closes) its page, or only its caption, footnotes, other non-text items or its lead-in
    (the paragraph right above it) stand between it and the page edge: up to ``params.reading_order_neighbours``
    paragraphs across the page break, in the same section, are candidates too (added to ``found``)."""
    index = ctx.index
    t_pages = {b.page for b in index.boxes[index.items[t_idx].self_ref]}
    for direction, edge_page in ((-1, min(t_pages) - 1), (1, max(t_pages) + 1)):
        start = t_idx
        for _step in range(params.max_items_between):
            nxt = start + direction
            if not (0 <= nxt < len(index.items)) or index.is_heading(nxt) or index.page_of(nxt) not in t_pages:
                break
            lead_in = nxt == paragraph_next_to(index, t_idx, params) and nxt in found and found[nxt].same_column
            if index.is_paragraph(nxt) and not (lead_in and found[nxt].distance <= params.lead_in_max_gap_pt):
                break
            start = nxt
        on_page = [index.pages_of_index.get(p, []) for p in t_pages]
        if not any(ids and ids[0 if direction < 0 else -1] == start for ids in on_page):
            continue  # not at the page's edge
        idx, steps, taken = start + direction, 0, 0
        while (
            0 <= idx < len(index.items)
            and taken < params.reading_order_neighbours
            and steps < params.page_break_max_items
        ):
            if index.is_heading(idx) or index.page_of(idx) not in (edge_page, *t_pages):
                break
            if isinstance(index.items[idx], PictureItem | TableItem):
                break  # another float across the break: what lies beyond it is about that one
            if index.is_paragraph(idx) and any(b.page == edge_page for b in index.boxes[index.items[idx].self_ref]):
                taken += 1
                if idx not in found:
                    found[idx] = Candidate(idx, False, True, bbox_threshold + taken)
            idx += direction
            steps += 1


def _order_candidates(ctx: ContextIndex, t_idx: int, params: ContextParams) -> dict[int, Candidate]:
    """The nearest paragraphs before and after the table in its section, between the tables and the page
    boilerplate around it."""
    index = ctx.index
    section = index.section_of(t_idx)
    j = bisect_left(ctx.paragraphs, t_idx)
    # only the text between the previous and the next table: beyond them it is theirs
    k = bisect_left(ctx.tables, t_idx)
    lo = ctx.tables[k - 1] if k > 0 else -1
    hi = ctx.tables[k + 1] if k + 1 < len(ctx.tables) and ctx.tables[k] == t_idx else len(index.items)
    # page boilerplate ("Retrieved from <url>", a menu, "(Redirected from <link>)") ends the table's neighbourhood:
    # what lies beyond it is another part of the page
    b = bisect_left(ctx.boilerplate, t_idx)
    lo = max(lo, ctx.boilerplate[b - 1] if b > 0 else -1)
    hi = min(hi, ctx.boilerplate[b] if b < len(ctx.boilerplate) else len(index.items))
    steps_max = params.reading_order_neighbours
    found: dict[int, Candidate] = {}
    for steps, idx in enumerate(reversed(ctx.paragraphs[max(0, j - steps_max) : j]), start=1):
        if index.section_of(idx) == section and idx > lo:
            found[idx] = Candidate(idx, False, True, float(steps))
    for steps, idx in enumerate(ctx.paragraphs[j : j + steps_max], start=1):
        if (
            idx != t_idx
            and index.section_of(idx) == section
            and idx < hi
            and not introduces_a_table(index, idx, params)
        ):
            found[idx] = Candidate(idx, False, True, float(steps))
    return found


def framed(ctx: ContextIndex, naming: list[int], params: ContextParams) -> list[int]:
    """Paragraphs that discuss the table without naming it, found by their place in the text: those between two
    paragraphs naming it, at most ``params.max_framed_paragraphs`` of them with no heading in between ("...
    meta-classes (Tab. 3)", "Background music: all models perform worse ...", "Voice over: ...", "... (Tab. 3)"), and
    the one right after a paragraph naming it (the discussion goes on: "All results are shown in Table 1." / "If you
    need ... the pypdfium backend ... is faster"). They still have to share words or numbers with the table to be
    taken."""
    out: list[int] = []
    for a, b in pairwise(naming):
        inner = ctx.paragraphs[bisect_right(ctx.paragraphs, a) : bisect_left(ctx.paragraphs, b)]
        if 0 < len(inner) <= params.max_framed_paragraphs and not ctx.index.heading_between(a, b):
            out.extend(inner)
    for a in naming:
        j = bisect_right(ctx.paragraphs, a)
        if j < len(ctx.paragraphs) and not ctx.index.heading_between(a, ctx.paragraphs[j]):
            out.append(ctx.paragraphs[j])
    return out


def _naming(ctx: ContextIndex, t_idx: int, label: str | None) -> list[int]:
    """Paragraphs naming the table: by its label, when their nearest table with that label is this one (a
    reference to a title, "the Schedule", names the next table so titled when it is within ``TitleRules.reach`` — the
    notice text comes before its schedule — else the one before within reach); and by its place ("the following
    table", :mod:`docling_evidence.units.deixis`). In reading order."""
    out = list(ctx.named_by.get(position_label(t_idx), []))
    if not label:
        return out
    label = normalize_label(label)
    tables = ctx.tables_by_label.get(label, [t_idx])
    by_title = is_title_label(label)
    for idx in ctx.named_by.get(label, []):
        j = bisect_left(tables, idx)
        if by_title:
            reach = ctx.title_rules.reach
            reachable = [t for t in tables[max(0, j - 1) : j + 1] if abs(t - idx) <= reach]
            nearest = max(reachable) if reachable else None
        else:
            nearest = min(tables[max(0, j - 1) : j + 1], key=lambda t: (abs(t - idx), t))
        if nearest == t_idx:
            out.append(idx)
    return sorted(set(out))


def inside_picture(ctx: ContextIndex, t_idx: int) -> bool:
    """A "table" lying inside a picture is a fragment of a figure: no paragraph explains it as a table."""
    boxes = ctx.index.boxes[ctx.index.items[t_idx].self_ref]
    if not boxes:
        return False
    return all(any(inside(tb, pb) for pb in ctx.pictures.get(tb.page, [])) for tb in boxes)


def _in_table(index: DocIndex, idx: int, t_idx: int) -> bool:
    """Whether every box of the item at ``idx`` lies inside a box of the table at ``t_idx``."""
    boxes = index.boxes[index.items[idx].self_ref]
    t_boxes = index.boxes[index.items[t_idx].self_ref]
    return bool(boxes) and all(any(inside(b, tb) for tb in t_boxes) for b in boxes)


def paragraph_next_to(index: DocIndex, t_idx: int, params: ContextParams, direction: int = -1) -> int | None:
    """The paragraph before (``direction`` -1) or after (+1) the table in reading order with only captions,
    footnotes or other non-text items (not pictures or tables) between (at most ``params.max_items_between``
    steps), or None."""
    idx = t_idx + direction
    while 0 <= idx < len(index.items) and abs(t_idx - idx) <= params.max_items_between:
        if index.is_paragraph(idx):
            return idx
        item = index.items[idx]
        if isinstance(item, PictureItem) and _in_table(index, idx, t_idx):
            idx += direction  # an image in one of the table's cells (a logo, a symbol) is part of the table
            continue
        if index.is_heading(idx) or isinstance(item, PictureItem | TableItem):
            return None  # another float, or a heading, stands between
        if isinstance(item, TextItem) and item.self_ref not in index.satellites:
            return None
        idx += direction
    return None


def adjacent(
    ctx: ContextIndex, t_idx: int, candidates: dict[int, Candidate], layout: bool, params: ContextParams
) -> dict[int, int]:
    """The paragraphs right before (-1) and right after (+1) the table in reading order (only non-text items,
    captions or footnotes between), when they are candidates — with layout, in the table's column on its page, or
    (before the table) at the end of the previous page: they introduce or discuss it even in words it does not share
    ("(Please select all that apply)", an option's description)."""
    index = ctx.index
    t_pages = {b.page for b in index.boxes[index.items[t_idx].self_ref]}
    found: dict[int, int] = {}
    for direction in (-1, 1):
        idx = paragraph_next_to(index, t_idx, params, direction)
        if idx is None or idx not in candidates:
            continue
        on_page = any(b.page in t_pages for b in index.boxes[index.items[idx].self_ref])
        # with layout: in the table's column on its page, or the text that ends the previous page (a lead-in)
        if layout and not ((candidates[idx].same_column and on_page) or (direction < 0 and not on_page)):
            continue
        if direction > 0 and introduces_a_table(index, idx, params):
            continue  # the text between two tables that leads into the next one is that one's
        found[idx] = direction
    return found


def introduces_a_table(index: DocIndex, idx: int, params: ContextParams) -> bool:
    """Whether the next item after the paragraph at ``idx`` (captions and footnotes skipped, at most
    ``params.max_items_between`` steps) is a table."""
    last = max(index.members(idx))
    nxt = last + 1
    while nxt < len(index.items) and nxt - last <= params.max_items_between:
        item = index.items[nxt]
        if isinstance(item, TableItem):
            return True
        if not (isinstance(item, TextItem) and item.self_ref in index.satellites):
            return False
        nxt += 1
    return False


def continues(ctx: ContextIndex, idx: int, own_column: set[int]) -> bool:
    """Whether the paragraph at ``idx`` goes on from one in the table's column (text running across a column
    break): the paragraph before it in reading order is one of ``own_column``."""
    j = bisect_left(ctx.paragraphs, idx)
    return j > 0 and ctx.paragraphs[j - 1] in own_column and not ctx.index.heading_between(ctx.paragraphs[j - 1], idx)
