"""Geometry over Docling provenance: where an item sits on which page.

Two frames, one per need:

- :class:`Box` (:func:`item_boxes`), to compare items: a top-down frame (y grows downwards) without needing the
  page height: a bottom-left box is mirrored by negating y, which keeps every vertical distance and order on the
  page intact.
- :func:`top_left_box` (:func:`item_top_left_boxes`), to show a box to a reader: page points with a top-left origin,
  as a PDF viewer draws them, via docling-core's ``BoundingBox.to_top_left_origin``, so a bottom-left box needs its
  page's height (:func:`page_heights`) and is not placed without it.

Boxes with NaN or infinite coordinates are dropped in both, so an item with only broken provenance counts as an item
without layout.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from docling_core.types.doc import CoordOrigin, DocItem

if TYPE_CHECKING:
    from docling_core.types.doc import BoundingBox, DoclingDocument

TopLeftBox = tuple[float, float, float, float]
"""``(left, top, right, bottom)`` in page points, top-left origin, rounded to 0.01 point unless asked otherwise."""


@dataclass(frozen=True)
class Box:
    """An item's box on one page, top-down (``top < bottom``), in points."""

    page: int
    left: float
    top: float
    right: float
    bottom: float


def page_span(items: Iterable[Any]) -> list[int]:
    """Sorted distinct page numbers over the provenance of ``items`` (empty when none has any): a chunk's
    ``page_span``."""
    return sorted({p.page_no for item in items for p in (getattr(item, "prov", None) or [])})


def item_boxes(item: DocItem) -> list[Box]:
    """Return the item's finite boxes, one per provenance entry, in a top-down frame."""
    boxes: list[Box] = []
    isfinite = math.isfinite
    for prov in item.prov:
        bb = prov.bbox
        left, t, right, b = bb.l, bb.t, bb.r, bb.b
        # tested one by one, not through a generator: this runs for every item of every document
        if not (isfinite(left) and isfinite(t) and isfinite(right) and isfinite(b)):
            continue
        if bb.coord_origin == CoordOrigin.BOTTOMLEFT:
            top, bottom = -t, -b
        else:
            top, bottom = t, b
        top, bottom = min(top, bottom), max(top, bottom)
        boxes.append(Box(prov.page_no, min(left, right), top, max(left, right), bottom))
    return boxes


def vertical_gap(a: Box, b: Box) -> float:
    """Vertical distance between two boxes on the same page; 0 when they overlap vertically."""
    return max(0.0, max(a.top, b.top) - min(a.bottom, b.bottom))


def horizontal_overlap(a: Box, b: Box) -> float:
    """Width shared by the two boxes' x-ranges (0 when they sit in different columns)."""
    return max(0.0, min(a.right, b.right) - max(a.left, b.left))


def inside(inner: Box, outer: Box, share: float = 0.9) -> bool:
    """Whether at least ``share`` of ``inner``'s area lies within ``outer`` (on the same page)."""
    if inner.page != outer.page:
        return False
    area = max(1e-9, (inner.right - inner.left) * (inner.bottom - inner.top))
    common = horizontal_overlap(inner, outer) * max(0.0, min(inner.bottom, outer.bottom) - max(inner.top, outer.top))
    return common >= share * area


def nearest_gap(boxes_a: list[Box], boxes_b: list[Box]) -> tuple[float, Box, Box] | None:
    """The smallest vertical gap between a box of ``boxes_a`` and a box of ``boxes_b`` on the same page."""
    best: tuple[float, Box, Box] | None = None
    for a in boxes_a:
        for b in boxes_b:
            if a.page != b.page:
                continue
            gap = vertical_gap(a, b)
            if best is None or gap < best[0]:
                best = (gap, a, b)
    return best


def page_height(doc: DoclingDocument, page: int, *, positive_only: bool = False) -> float | None:
    """The height of page ``page`` when the document records its size, else None.

    ``positive_only``: None too for a height that is not above 0 (or NaN), which no share of the page can be measured
    against (a reader asking how near an edge a box is needs one).
    """
    info = doc.pages.get(page)
    size = info.size if info is not None else None
    if size is None or (positive_only and not size.height > 0):
        return None
    return size.height


def page_heights(doc: DoclingDocument, *, positive_only: bool = False) -> dict[int, float]:
    """The height of every page whose size the document records, by page number (``positive_only``: see
    :func:`page_height`)."""
    heights = {no: page_height(doc, no, positive_only=positive_only) for no in doc.pages}
    return {no: height for no, height in heights.items() if height is not None}


def top_left_box(
    bbox: BoundingBox | None, page: int | None, heights: dict[int, float], *, rounded: bool = True
) -> TopLeftBox | None:
    """The box in top-left page coordinates, or None when it cannot be placed (no page height for a bottom-left box,
    non-finite coordinates).

    ``rounded``: to 0.01 point, as a reader is shown it; a caller measuring distances or drawing to its own precision
    takes the exact coordinates.
    """
    if bbox is None:
        return None
    if bbox.coord_origin != CoordOrigin.TOPLEFT:
        if page is None or page not in heights:
            return None
        bbox = bbox.to_top_left_origin(page_height=heights[page])
    coords = (bbox.l, bbox.t, bbox.r, bbox.b)
    if not all(math.isfinite(c) for c in coords):
        return None
    left, right = min(bbox.l, bbox.r), max(bbox.l, bbox.r)
    top, bottom = min(bbox.t, bbox.b), max(bbox.t, bbox.b)
    if not rounded:
        return (left, top, right, bottom)
    return (round(left, 2), round(top, 2), round(right, 2), round(bottom, 2))


def item_top_left_boxes(item: DocItem, heights: dict[int, float]) -> list[tuple[int, TopLeftBox | None]]:
    """``(page, top-left box or None)`` for every provenance entry of ``item``, in order (see :func:`top_left_box`)."""
    return [(p.page_no, top_left_box(p.bbox, p.page_no, heights)) for p in (getattr(item, "prov", None) or [])]
