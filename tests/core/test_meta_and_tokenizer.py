"""Metadata round trips and stays out of the embedding text; the bundled tokenizer loads offline."""

from __future__ import annotations

import json

from docling_core.transforms.chunker import DocMeta
from docling_core.transforms.chunker.hybrid_chunker import HybridChunker
from docling_core.types.doc import DocItemLabel, DoclingDocument
from docs_builder import add_table, paged_doc, prov

from docling_evidence import EvidenceChunk, EvidenceChunker, bundled_tokenizer, load_tokenizer
from docling_evidence.meta import EVIDENCE_FIELDS
from docling_evidence.tokenizer import BUNDLED_TOKENIZER_DIR


def _doc() -> DoclingDocument:
    doc = paged_doc(2)
    doc.add_heading(text="Results", prov=prov(1, 50, 40, 300, 55))
    doc.add_text(label=DocItemLabel.TEXT, text="Revenue rose.", prov=prov(1, 50, 60, 300, 80))
    add_table(
        doc,
        [["Year", "Revenue"]],
        [["2019", "10"]],
        caption="Table 1: Revenue",
        caption_prov=prov(1, 50, 700, 300, 715),
        provs=[prov(1, 50, 720, 300, 790), prov(2, 50, 40, 300, 90)],
    )
    return doc


def test_new_fields_round_trip_through_model_dump() -> None:
    for chunk in EvidenceChunker().chunk(_doc()):
        dump = chunk.model_dump(mode="json", by_alias=True)
        again = EvidenceChunk.model_validate(json.loads(json.dumps(dump)))
        for field in EVIDENCE_FIELDS:
            assert getattr(again.meta, field) == getattr(chunk.meta, field), field
        assert again.text == chunk.text
        assert DocMeta.model_validate(dump["meta"]).headings == chunk.meta.headings


def test_contextualize_is_headings_plus_text_without_the_new_fields() -> None:
    chunker = EvidenceChunker()
    (unit,) = [c for c in chunker.chunk(_doc()) if c.meta.kind == "table"]
    embed = chunker.contextualize(unit)
    assert embed == "Results\n" + unit.text
    assert unit.meta.unit_id not in embed and "docling_ref" not in embed


def test_table_across_pages_has_both_pages_in_page_span() -> None:
    (unit,) = [c for c in EvidenceChunker().chunk(_doc()) if c.meta.kind == "table"]
    assert unit.meta.page_span == [1, 2]
    assert unit.meta.rows == (0, 1) and (unit.meta.part, unit.meta.parts) == (0, 1)


def test_table_pages_are_the_tables_own_pages_and_page_span_the_units() -> None:
    """A lead-in on page 1 explains a table printed on pages 2-3: the unit spans pages 1-3, the table pages 2-3; text
    chunks have no table pages; neither field reaches the embedded text."""
    doc = paged_doc(3)
    doc.add_heading(text="Results", prov=prov(1, 50, 40, 300, 55))
    doc.add_text(label=DocItemLabel.TEXT, text="Table 1 lists revenue by year.", prov=prov(1, 50, 700, 300, 780))
    doc.add_text(label=DocItemLabel.TEXT, text="Other news of the year.", prov=prov(2, 50, 40, 300, 60))
    add_table(
        doc,
        [["Year", "Revenue"]],
        [["2019", "10"], ["2020", "12"]],
        caption="Table 1: Revenue",
        caption_prov=prov(2, 50, 600, 300, 615),
        provs=[prov(2, 50, 620, 300, 790), prov(3, 50, 40, 300, 90)],
    )
    chunker = EvidenceChunker(merge_peers=False)
    chunks = list(chunker.chunk(doc))
    (unit,) = [c for c in chunks if c.meta.kind == "table"]
    assert unit.meta.roles[doc.texts[1].self_ref] == "context"
    assert unit.meta.page_span == [1, 2, 3]
    assert unit.meta.table_pages == [2, 3]
    text_chunks = [c for c in chunks if c.meta.kind == "text"]
    assert text_chunks and all(c.meta.table_pages == [] for c in text_chunks)
    assert "table_pages" in EVIDENCE_FIELDS and "[2, 3]" not in chunker.contextualize(unit)


def test_table_pages_of_a_table_continued_over_pages_cover_every_part() -> None:
    """Two tables joined as one continued table: every piece of the unit gives the pages of both parts."""
    doc = paged_doc(2)
    add_table(
        doc,
        [["Year", "Revenue"]],
        [[str(2000 + r), str(r)] for r in range(12)],
        caption="Table 1: Revenue",
        caption_prov=prov(1, 50, 400, 300, 415),
        provs=[prov(1, 50, 420, 300, 790)],
    )
    add_table(
        doc, [["Year", "Revenue"]], [[str(2012 + r), str(r)] for r in range(12)], provs=[prov(2, 50, 40, 300, 400)]
    )
    pieces = [c for c in EvidenceChunker().chunk(doc) if c.meta.kind == "table"]
    assert len({c.meta.unit_id for c in pieces}) == 1
    assert all(c.meta.table_pages == [1, 2] for c in pieces)


def test_text_chunk_page_span_and_unique_unit_ids() -> None:
    chunks = list(EvidenceChunker(merge_peers=False, context_in_text=True).chunk(_doc()))
    texts = [c for c in chunks if c.meta.kind == "text"]
    assert texts and all(c.meta.page_span == [1] for c in texts)
    ids = [c.meta.unit_id for c in texts]
    assert len(ids) == len(set(ids))


def test_bundled_tokenizer_counts_like_docling_core_default() -> None:
    tok = bundled_tokenizer()
    assert tok.get_max_tokens() == 256
    assert (BUNDLED_TOKENIZER_DIR / "tokenizer.json").is_file()
    text = "Table 3: Revenue (in millions of USD) | 2019 | 2020"
    assert tok.count_tokens(text) == len(tok.get_tokenizer().encode(text, add_special_tokens=False).tokens) == 14
    assert load_tokenizer(None, 512).get_max_tokens() == 512


def test_hybrid_chunker_accepts_the_bundled_tokenizer() -> None:
    chunks = list(HybridChunker(tokenizer=bundled_tokenizer()).chunk(_doc()))
    assert chunks


def test_unknown_tokenizer_path_is_a_value_error(tmp_path) -> None:
    import pytest

    with pytest.raises(ValueError, match="could not load tokenizer"):
        load_tokenizer(str(tmp_path / "nope"), 128)


def test_table_pages_of_a_real_table_quoted_in_the_abstract(shared_dir) -> None:
    """2203.01017v2's Table 2 is printed on page 7; its abstract (page 1) quotes its values and is its context."""
    from docling_evidence.document.convert import load_docling_json

    path = shared_dir / "fixtures" / "docling" / "2203.01017v2.json"
    if not path.exists():
        import pytest

        pytest.skip("2203.01017v2.json is not in ../shared")
    pieces = [
        c
        for c in EvidenceChunker().chunk(load_docling_json(path))
        if c.meta.kind == "table" and (c.meta.caption or "").startswith("Table 2")
    ]
    assert pieces and all(c.meta.page_span == [1, 7] and c.meta.table_pages == [7] for c in pieces)
