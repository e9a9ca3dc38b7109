"""HybridChunker's table-header settings keep their meaning: repeat_table_header, omit_header_on_overflow."""

from __future__ import annotations

import pytest
from docling_core.types.doc import DoclingDocument
from docs_builder import add_table

from docling_evidence import EvidenceChunker, bundled_tokenizer

HEADER = "| Region | Sales | Growth |"


def _table_pieces(**settings: bool) -> list[str]:
    doc = DoclingDocument(name="long")
    body = [[f"Region {i}", f"{i * 17}", f"{i * 3}.5%"] for i in range(40)]
    add_table(doc, [["Region", "Sales", "Growth"]], body)
    chunker = EvidenceChunker(tokenizer=bundled_tokenizer(64), **settings)
    return [c.text for c in chunker.chunk(doc) if c.meta.kind == "table"]


@pytest.mark.parametrize("repeat", [True, False])
def test_repeat_table_header(repeat: bool) -> None:
    pieces = _table_pieces(repeat_table_header=repeat)
    assert len(pieces) > 2
    assert HEADER in pieces[0]
    assert all((HEADER in p) == repeat for p in pieces[1:])
    for i in range(40):
        assert sum(f"| Region {i} |" in p for p in pieces) == 1


def test_settings_are_fields_with_hybridchunkers_defaults() -> None:
    from docling_core.transforms.chunker.hybrid_chunker import HybridChunker

    ours, theirs = EvidenceChunker(), HybridChunker(tokenizer=bundled_tokenizer())
    assert (ours.repeat_table_header, ours.omit_header_on_overflow) == (
        theirs.repeat_table_header,
        theirs.omit_header_on_overflow,
    )
