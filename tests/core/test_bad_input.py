"""Bad input: clear errors for wrong types and settings; damaged documents chunk without crash or loss."""

from __future__ import annotations

import logging
import math

import pytest
from docling_core.types.doc import (
    BoundingBox,
    CoordOrigin,
    DocItemLabel,
    DoclingDocument,
    ProvenanceItem,
    RefItem,
    TableData,
)
from docs_builder import add_table, paged_doc, prov, table_data

from docling_evidence import EvidenceChunker


def _all_text(chunker: EvidenceChunker, doc: DoclingDocument) -> str:
    return "\n".join(chunker.contextualize(c) for c in chunker.chunk(doc))


@pytest.mark.parametrize("bad", ["a.pdf", {"texts": []}, None, 3])
def test_chunk_rejects_non_documents_with_a_type_error(bad: object) -> None:
    with pytest.raises(TypeError, match="DoclingDocument"):
        EvidenceChunker().chunk(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"max_tokens": 0},
        {"max_tokens": -5},
        {"max_tokens": "256"},
        {"bbox_threshold": -1.0},
        {"bbox_threshold": math.nan},
        {"sim_threshold": 1.5},
        {"context_max_tokens": -1},
        {"table_format": "latex"},
    ],
)
def test_bad_settings_raise_value_errors(kwargs: dict) -> None:
    with pytest.raises(ValueError):
        EvidenceChunker(**kwargs)


def test_empty_document_gives_no_chunks() -> None:
    assert list(EvidenceChunker().chunk(DoclingDocument(name="empty"))) == []


def test_table_without_cells_is_left_to_the_text_path_with_its_caption() -> None:
    doc = DoclingDocument(name="d")
    add_table(doc, [], [], caption="Table 9: Nothing inside")
    chunker = EvidenceChunker()
    chunks = list(chunker.chunk(doc))
    assert all(c.meta.kind == "text" for c in chunks)
    assert "Table 9: Nothing inside" in _all_text(chunker, doc)


def test_dangling_caption_ref_is_ignored_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    doc = DoclingDocument(name="d")
    table = doc.add_table(data=table_data([["A", "B"]], [["1", "2"]]))
    table.captions.append(RefItem(cref="#/texts/99"))
    with caplog.at_level(logging.WARNING):
        chunks = list(EvidenceChunker().chunk(doc))
    assert any("does not exist" in r.message for r in caplog.records)
    assert "| 1 | 2 |" in chunks[0].text


def test_shared_caption_is_kept_with_both_tables(caplog: pytest.LogCaptureFixture) -> None:
    doc = DoclingDocument(name="d")
    first = add_table(doc, [["A", "B"]], [["1", "2"]], caption="Table 1: Shared")
    second = doc.add_table(data=table_data([["C", "D"]], [["3", "4"]]))
    second.captions.append(first.captions[0])
    with caplog.at_level(logging.WARNING):
        units = [c for c in EvidenceChunker().chunk(doc) if c.meta.kind == "table"]
    assert [u.meta.caption for u in units] == ["Table 1: Shared", "Table 1: Shared"]
    assert any("shared" in r.message for r in caplog.records)


def test_items_without_prov_and_missing_pages_and_nan_boxes() -> None:
    doc = paged_doc(1)
    doc.add_text(label=DocItemLabel.TEXT, text="No provenance at all.")
    nan_box = ProvenanceItem(
        page_no=1,
        bbox=BoundingBox(l=math.nan, t=10, r=100, b=math.nan, coord_origin=CoordOrigin.TOPLEFT),
        charspan=(0, 0),
    )
    doc.add_text(label=DocItemLabel.TEXT, text="A NaN box paragraph.", prov=nan_box)
    doc.add_text(label=DocItemLabel.TEXT, text="On page seven, not in pages.", prov=prov(7, 50, 50, 300, 70))
    add_table(doc, [["A", "B"]], [["1", "2"]], caption="Table 1: Odd", provs=[prov(1, 50, 100, 300, 200)])
    chunker = EvidenceChunker()
    everything = _all_text(chunker, doc)
    for text in ["No provenance at all.", "A NaN box paragraph.", "On page seven, not in pages.", "| 1 | 2 |"]:
        assert text in everything
    units = [c for c in EvidenceChunker(merge_peers=False).chunk(doc) if c.meta.kind == "table"]
    assert units[0].meta.page_span == [1]
    # with section peers the page-7 paragraph (next to the table in reading order) joins the unit, and its page
    (unit,) = [c for c in chunker.chunk(doc) if c.meta.kind == "table"]
    assert unit.meta.roles[doc.texts[2].self_ref] == "text"
    assert unit.meta.page_span == [1, 7]


def test_zero_by_zero_table_does_not_crash() -> None:
    doc = DoclingDocument(name="d")
    doc.add_text(label=DocItemLabel.TEXT, text="Before.")
    doc.add_table(data=TableData(num_rows=0, num_cols=0, table_cells=[]))
    doc.add_text(label=DocItemLabel.TEXT, text="After.")
    chunker = EvidenceChunker()
    text = _all_text(chunker, doc)
    assert "Before." in text and "After." in text
