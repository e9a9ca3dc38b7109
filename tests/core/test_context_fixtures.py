"""EvidenceChunker's context on the real fixtures: spans that point into the chunk text, an explicit context budget
that bounds paginated documents too, and a table that fits beside its caption but not beside its explaining
paragraphs. (The scores against the hand labels are the bench's: ``bench/tests/test_context_labels.py``.)"""

from __future__ import annotations

import pytest
from docling_core.types.doc import DoclingDocument
from shared_paths import FIXTURES as ALL_FIXTURES

FIXTURES = ALL_FIXTURES / "docling"


@pytest.mark.skipif(not FIXTURES.is_dir(), reason="needs ../shared/fixtures")
@pytest.mark.parametrize("limit", [128, 512])
def test_fixture_context_spans_are_shown_and_never_another_tables_caption(limit: int) -> None:
    from docling_evidence import EvidenceChunker, bundled_tokenizer

    for path in sorted(FIXTURES.glob("*.json")):
        chunks = [
            c for c in EvidenceChunker(tokenizer=bundled_tokenizer(limit)).chunk(DoclingDocument.load_from_json(path))
        ]
        units = [c for c in chunks if c.meta.kind == "table"]
        caption_of = {
            ref: next(r for r, role in c.meta.roles.items() if role == "table")
            for c in units
            for ref, role in c.meta.roles.items()
            if role == "caption"
        }
        for chunk in units:
            table = next(r for r, role in chunk.meta.roles.items() if role == "table")
            items = {it.self_ref: it for it in chunk.meta.doc_items}
            assert len(items) == len(chunk.meta.doc_items), path.name  # every doc item listed once
            for ref, spans in chunk.meta.context_spans.items():
                assert caption_of.get(ref, table) == table, (path.name, ref)
                assert spans, (path.name, ref)  # a piece that shows context says which characters
                text = items[ref].text
                for a, b in spans:
                    assert 0 <= a < b <= len(text) and text[a:b] in chunk.text, (path.name, ref, a, b)


@pytest.mark.skipif(not FIXTURES.is_dir(), reason="needs ../shared/fixtures")
def test_an_explicit_context_budget_bounds_paginated_documents_too() -> None:
    from docling_evidence import EvidenceChunker, bundled_tokenizer

    doc = DoclingDocument.load_from_json(FIXTURES / "normal_4pages.json")  # about 680 tokens explain its table
    context_tokens = {}
    for budget in (None, 160):
        chunker = EvidenceChunker(tokenizer=bundled_tokenizer(256), context_max_tokens=budget)
        shown = {
            (ref, a, b): chunker.tokenizer.count_tokens(item.text[a:b])
            for c in chunker.chunk(doc)
            if c.meta.kind == "table"
            for item in c.meta.doc_items
            for ref, spans in c.meta.context_spans.items()
            if item.self_ref == ref
            for a, b in spans
        }
        context_tokens[budget] = sum(shown.values())
    assert context_tokens[160] <= 160 < context_tokens[None]


@pytest.mark.skipif(not FIXTURES.is_dir(), reason="needs ../shared/fixtures")
def test_a_table_that_fits_keeps_its_rows_together_and_its_other_context_in_a_piece_of_its_own() -> None:
    """redp5110's Table 3-2 fits one 256-token piece; the two paragraphs on the previous page that explain it do not
    fit beside it, so they go into a piece of their own, before the table's piece, under its caption."""
    from docling_evidence import EvidenceChunker, bundled_tokenizer

    doc = DoclingDocument.load_from_json(FIXTURES / "redp5110_sampled.json")
    pieces = [c for c in EvidenceChunker(tokenizer=bundled_tokenizer(256)).chunk(doc) if c.meta.roles.get("#/tables/5")]
    assert [p.meta.rows for p in pieces] == [(0, 0), (0, 9)]
    context_piece, table_piece = pieces
    assert {"#/texts/170", "#/texts/171"} <= {r for r, role in context_piece.meta.roles.items() if role == "context"}
    assert context_piece.meta.roles["#/texts/174"] == "caption" and context_piece.text.startswith("Table 3-2")
    assert table_piece.meta.roles.get("#/texts/173") == "context"  # "Table 3-2 lists ...", beside the rows
    assert len({p.meta.unit_id for p in pieces}) == 1
