"""The performance benchmark's building blocks measure what they say."""

from __future__ import annotations

import pytest
from docling_evidence_bench.tools import perf_bench as pb


@pytest.mark.parametrize("family", pb.FAMILIES)
def test_synthetic_documents_have_the_tables_and_layout_asked_for(family: str) -> None:
    doc = pb.synthetic_doc(9, family)
    assert len(doc.tables) == 9 and all(t.captions for t in doc.tables)
    has_layout = bool(doc.tables[0].prov)
    assert has_layout == (not family.startswith("flow-"))
    rich = [c for t in doc.tables for c in t.data.table_cells if type(c).__name__ == "RichTableCell"]
    assert len(rich) == (9 * 5 if family == "flow-rich-cells" else 0)
    pages = {p.page_no for t in doc.tables for p in t.prov}
    assert pages == ({1} if family == "layout-page" else {1, 2, 3} if has_layout else set())


def test_counting_tokenizer_tallies_its_counts_and_semchunks_encodes() -> None:
    import semchunk

    from docling_evidence.tokenizer import bundled_tokenizer

    tok = pb.counting_tokenizer()
    n = tok.count_tokens("Table 3 shows revenue")
    assert n == bundled_tokenizer().count_tokens("Table 3 shows revenue") and tok.counted == n and tok.calls == 1
    semchunk.chunkerify(tok.get_tokenizer(), 8)("one two three four five six seven eight nine ten eleven twelve")
    assert tok.counted > n and tok.calls > 1


def test_document_tokens_counts_the_rendered_document_once() -> None:
    from docling_evidence.tables.serializer import EvidenceSerializerProvider
    from docling_evidence.tokenizer import bundled_tokenizer

    doc = pb.synthetic_doc(2, "flow-section")
    text = EvidenceSerializerProvider().get_serializer(doc=doc).serialize().text
    assert pb.document_tokens(doc, bundled_tokenizer()) == bundled_tokenizer().count_tokens(text) > 0


def test_tokenizer_work_report_shows_the_serializer_share_when_measured() -> None:
    from docling_evidence_bench.tools.perf_report import tokens_markdown

    tokens = {"evidence": {"per_input_token": 0.5, "per_fixture": {"a": 0.4, "b": 0.6}}}
    ratio = {"tokenize_s": 0.4, "chunk_s": 1.6, "ratio": 4.0}
    old = tokens_markdown({"tokens": tokens, "tokenizing": ratio})
    assert "4.0x (1.60 s vs 0.40 s) | yes |" in old and "serializer" not in old
    new = tokens_markdown({"tokens": tokens, "tokenizing": {**ratio, "serializer_s": 0.2, "serializer_ratio": 0.5}})
    assert new.startswith(old) and new.splitlines()[-1].endswith("| 0.50x (0.20 s) | - |")
