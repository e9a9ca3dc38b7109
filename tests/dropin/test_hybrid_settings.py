"""Every HybridChunker setting keeps its meaning: where there is no table, EvidenceChunker's chunks are exactly
HybridChunker's with the same settings (the text, what is embedded, and the doc items)."""

from __future__ import annotations

from typing import Any

import pytest
from docling_core.transforms.chunker.hybrid_chunker import HybridChunker
from docling_core.types.doc import DocItemLabel, DoclingDocument
from shared_paths import FIXTURES

from docling_evidence import EvidenceChunker
from docling_evidence.tokenizer import bundled_tokenizer

FIXTURE = FIXTURES / "docling" / "2206.01062.json"

NON_DEFAULT: dict[str, list[Any]] = {
    "delim": [" ", "\n\n"],
    "merge_peers": [False],
    "always_emit_headings": [True],
    "repeat_table_header": [False],
    "omit_header_on_overflow": [True],
}
"""Each HybridChunker setting (but the tokenizer, and the serializer provider tested in test_provider_and_kwargs)
with values other than its default."""


def _prose_doc() -> DoclingDocument:
    doc = DoclingDocument(name="prose")
    doc.add_title(text="Annual review")
    for s in range(1, 4):
        doc.add_heading(text=f"Section {s}", level=1)
        for p in range(1, 6):
            doc.add_text(
                label=DocItemLabel.TEXT,
                text=f"Paragraph {p} of section {s} says that revenue grew in region {p} by {s + p} percent.",
            )
        group = doc.add_list_group(name=f"list {s}")
        for i in range(1, 4):
            doc.add_list_item(text=f"point {i} of section {s}", parent=group)
        doc.add_code(text=f"total = sum(region_{s})")
    return doc


def _fixture_without_tables() -> DoclingDocument:
    if not FIXTURE.exists():
        pytest.skip("../shared/fixtures not present")
    doc = DoclingDocument.load_from_json(FIXTURE)
    doc.delete_items(node_items=list(doc.tables))
    assert not doc.tables
    return doc


def _chunks(chunker: Any, doc: DoclingDocument) -> list[tuple[str, str, tuple[str, ...]]]:
    return [
        (c.text, chunker.contextualize(c), tuple(it.self_ref for it in c.meta.doc_items)) for c in chunker.chunk(doc)
    ]


def test_every_hybridchunker_setting_is_compared() -> None:
    assert set(HybridChunker.model_fields) - {"tokenizer", "serializer_provider"} == set(NON_DEFAULT)


@pytest.mark.parametrize("max_tokens", [48, 256])
@pytest.mark.parametrize(("name", "value"), [(n, v) for n, vs in NON_DEFAULT.items() for v in vs])
@pytest.mark.parametrize("make_doc", [_prose_doc, _fixture_without_tables])
def test_without_tables_the_chunks_are_hybridchunkers(make_doc: Any, name: str, value: Any, max_tokens: int) -> None:
    doc = make_doc()
    tokenizer = bundled_tokenizer(max_tokens)
    ours = EvidenceChunker(tokenizer=tokenizer, **{name: value})
    theirs = HybridChunker(tokenizer=tokenizer, **{name: value})
    expected = _chunks(theirs, doc)
    assert len(expected) > 1
    assert _chunks(ours, doc) == expected
