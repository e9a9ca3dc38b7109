"""The citation package's boundaries: its public names, what importing the chunk type costs, and the page boxes it
takes from ``document/layout``."""

from __future__ import annotations

import math
import subprocess
import sys

import pytest
from docling_core.types.doc import BoundingBox, CoordOrigin
from docs_builder import add_table, paged_doc, prov

import docling_evidence.cite as cite
from docling_evidence.cite import CitedChunk, check_answer
from docling_evidence.document.layout import item_top_left_boxes, page_heights, top_left_box


@pytest.mark.parametrize("name", cite.__all__)
def test_every_public_name_imports_from_the_package(name: str) -> None:
    value = getattr(cite, name)
    assert getattr(value, "__name__", name) == name


def test_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        cite.nope  # noqa: B018


def test_the_chunk_type_loads_without_the_check() -> None:
    code = (
        "import sys\n"
        "from docling_evidence.cite.chunks import CitedChunk\n"
        "from docling_evidence.pack.evidence import PackedEvidence\n"
        "print(sorted(m for m in sys.modules if m.startswith('docling_evidence.cite')))\n"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "['docling_evidence.cite', 'docling_evidence.cite.chunks']"


def test_packed_evidence_gives_the_chunk_type_the_check_reads() -> None:
    from docling_evidence import EvidenceChunker

    doc = paged_doc(1)
    add_table(doc, [["", "2019"]], [["Revenue", "1,496.5"]], provs=[prov(1, 50, 600, 550, 780)])
    chunker = EvidenceChunker()
    packed = chunker.pack("Revenue in 2019", list(chunker.chunk(doc)), 128)
    cited = packed.cited_chunks()
    assert cited and all(type(c) is CitedChunk for c in cited)
    assert check_answer("1,496.5", doc, chunks=packed).supported


def test_top_left_box_flips_a_bottom_left_box_with_its_page_height_and_rounds() -> None:
    bbox = BoundingBox(l=10.004, t=700.0, r=110.0, b=680.126, coord_origin=CoordOrigin.BOTTOMLEFT)
    assert top_left_box(bbox, 1, {1: 800.0}) == (10.0, 100.0, 110.0, 119.87)
    assert top_left_box(bbox, 1, {}) is None  # no page height: not placed, never guessed
    assert top_left_box(bbox, None, {1: 800.0}) is None
    assert top_left_box(None, 1, {1: 800.0}) is None


def test_top_left_box_orders_its_corners_and_drops_non_finite_boxes() -> None:
    flipped = BoundingBox(l=110.0, t=30.0, r=10.0, b=20.0, coord_origin=CoordOrigin.TOPLEFT)
    assert top_left_box(flipped, None, {}) == (10.0, 20.0, 110.0, 30.0)
    broken = BoundingBox(l=math.nan, t=0.0, r=1.0, b=1.0, coord_origin=CoordOrigin.TOPLEFT)
    assert top_left_box(broken, 1, {1: 800.0}) is None


def test_page_heights_and_item_boxes_of_a_paged_document() -> None:
    doc = paged_doc(2, height=792)
    table = add_table(
        doc, [["", "2019"]], [["Revenue", "1"]], provs=[prov(1, 50, 600, 550, 780), prov(2, 50, 40, 550, 120)]
    )
    table.prov[1].bbox = BoundingBox(l=50, t=752, r=550, b=672, coord_origin=CoordOrigin.BOTTOMLEFT)
    assert page_heights(doc) == {1: 792.0, 2: 792.0}
    assert item_top_left_boxes(table, page_heights(doc)) == [
        (1, (50.0, 600.0, 550.0, 780.0)),
        (2, (50.0, 40.0, 550.0, 120.0)),
    ]
    # without page heights the top-left box still stands; the bottom-left one cannot be placed
    assert item_top_left_boxes(table, {}) == [(1, (50.0, 600.0, 550.0, 780.0)), (2, None)]
