"""The options of document/layout's box placement: exact coordinates, and only page heights above 0."""

from __future__ import annotations

import math

from docling_core.types.doc import BoundingBox, CoordOrigin, DoclingDocument, Size
from hypothesis import given
from hypothesis import strategies as st

from docling_evidence.document.layout import page_height, page_heights, top_left_box

COORD = st.floats(min_value=0, max_value=2000, allow_nan=False)


@given(COORD, COORD, COORD, COORD, st.booleans())
def test_a_rounded_box_is_the_exact_box_rounded(
    left: float, top: float, right: float, bottom: float, flip: bool
) -> None:
    origin = CoordOrigin.BOTTOMLEFT if flip else CoordOrigin.TOPLEFT
    bbox = BoundingBox(l=left, t=top, r=right, b=bottom, coord_origin=origin)
    exact = top_left_box(bbox, 1, {1: 2000.0}, rounded=False)
    assert exact is not None and exact[0] <= exact[2] and exact[1] <= exact[3]
    assert top_left_box(bbox, 1, {1: 2000.0}) == tuple(round(v, 2) for v in exact)


def test_an_exact_box_keeps_every_digit() -> None:
    bbox = BoundingBox(l=10.004, t=700.0, r=110.0, b=680.126, coord_origin=CoordOrigin.BOTTOMLEFT)
    assert top_left_box(bbox, 1, {1: 800.0}, rounded=False) == (10.004, 100.0, 110.0, 800.0 - 680.126)
    broken = BoundingBox(l=math.inf, t=0.0, r=1.0, b=1.0, coord_origin=CoordOrigin.TOPLEFT)
    assert top_left_box(broken, 1, {1: 800.0}, rounded=False) is None


def _doc(heights: dict[int, float]) -> DoclingDocument:
    doc = DoclingDocument(name="pages")
    for no, height in heights.items():
        doc.add_page(page_no=no, size=Size(width=600.0, height=height))
    return doc


def test_only_a_height_above_zero_is_a_page_height_when_asked() -> None:
    doc = _doc({1: 792.0, 2: 0.0, 3: math.nan})
    assert page_height(doc, 1) == 792.0 and page_height(doc, 2) == 0.0 and page_height(doc, 4) is None
    assert page_height(doc, 2, positive_only=True) is None and page_height(doc, 3, positive_only=True) is None
    assert page_heights(doc, positive_only=True) == {1: 792.0}
    assert set(page_heights(doc)) == {1, 2, 3}
