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
