"""docling-evidence: a Docling chunker that keeps each table with its caption, footnotes and explaining paragraphs.

``EvidenceChunker`` is a drop-in replacement for docling-core's ``HybridChunker``::

    from docling_evidence import EvidenceChunker

    chunker = EvidenceChunker()
    for chunk in chunker.chunk(dl_doc):
        text = chunker.contextualize(chunk)   # the text to embed
        chunk.meta.unit_id, chunk.meta.page_span, chunk.meta.kind

The public names are imported on first use, so importing a light submodule or showing the CLI's help does not pay
for docling-core. The first public name pays for docling-core's chunker package, which imports transformers (and
torch, when it is installed) itself; docs/performance.md ("Import cost") has the numbers.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from docling_evidence.chunker import EvidenceChunker
    from docling_evidence.document.convert import convert_path
    from docling_evidence.meta import EvidenceChunk, EvidenceMeta
    from docling_evidence.pack.evidence import PackedEvidence
    from docling_evidence.params import (
        ContextParams,
        DocumentParams,
        EvidenceParams,
        PackParams,
        PieceParams,
        SplitParams,
        TableParams,
        UnitParams,
    )
    from docling_evidence.pipeline import chunk_document, chunk_path
    from docling_evidence.tables.serializer import EvidenceSerializerProvider, EvidenceTableSerializer
    from docling_evidence.tokenizer import TokenizersTokenizer, bundled_tokenizer, load_tokenizer

_EXPORTS = {
    "EvidenceChunk": "docling_evidence.meta",
    "EvidenceChunker": "docling_evidence.chunker",
    "EvidenceMeta": "docling_evidence.meta",
    "EvidenceSerializerProvider": "docling_evidence.tables.serializer",
    "EvidenceTableSerializer": "docling_evidence.tables.serializer",
    "PackedEvidence": "docling_evidence.pack.evidence",
    "bundled_tokenizer": "docling_evidence.tokenizer",
    "load_tokenizer": "docling_evidence.tokenizer",
    "TokenizersTokenizer": "docling_evidence.tokenizer",
    "chunk_document": "docling_evidence.pipeline",
    "chunk_path": "docling_evidence.pipeline",
    "convert_path": "docling_evidence.document.convert",
    "EvidenceParams": "docling_evidence.params",
    "UnitParams": "docling_evidence.params",
    "ContextParams": "docling_evidence.params",
    "SplitParams": "docling_evidence.params",
    "PieceParams": "docling_evidence.params",
    "PackParams": "docling_evidence.params",
    "TableParams": "docling_evidence.params",
    "DocumentParams": "docling_evidence.params",
}

__all__ = [
    "ContextParams",
    "DocumentParams",
    "EvidenceChunk",
    "EvidenceChunker",
    "EvidenceMeta",
    "EvidenceParams",
    "EvidenceSerializerProvider",
    "EvidenceTableSerializer",
    "PackParams",
    "PackedEvidence",
    "PieceParams",
    "SplitParams",
    "TableParams",
    "TokenizersTokenizer",
    "UnitParams",
    "bundled_tokenizer",
    "chunk_document",
    "chunk_path",
    "convert_path",
    "load_tokenizer",
]


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("docling-evidence")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "0+unknown"


__version__ = _version()
"""The installed distribution's version (pyproject.toml is its one source)."""


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'docling_evidence' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value
