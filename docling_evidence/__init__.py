"""docling-evidence: a Docling chunker that keeps each table with its caption, footnotes and explaining paragraphs.

``EvidenceChunker`` is a drop-in replacement for docling-core's ``HybridChunker``::

    from docling_evidence import EvidenceChunker

    chunker = EvidenceChunker()
    for chunk in chunker.chunk(dl_doc):
        text = chunker.contextualize(chunk)   # the text to embed
        chunk.meta.unit_id, chunk.meta.page_span, chunk.meta.kind
"""

from docling_evidence.chunker import EvidenceChunker
from docling_evidence.meta import EvidenceChunk, EvidenceMeta
from docling_evidence.serializer import EvidenceSerializerProvider, EvidenceTableSerializer
from docling_evidence.tokenizer import bundled_tokenizer, load_tokenizer

__all__ = [
    "EvidenceChunk",
    "EvidenceChunker",
    "EvidenceMeta",
    "EvidenceSerializerProvider",
    "EvidenceTableSerializer",
    "bundled_tokenizer",
    "load_tokenizer",
]
__version__ = "0.1.0"
