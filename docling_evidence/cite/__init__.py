"""Deterministic citation checks: which part of a document, or of the retrieved chunks, supports each claim
of an answer.

```python
from docling_evidence.cite import check_answer, format_text

report = check_answer("Revenue rose to $1,496.5 million in 2019.", doc, chunks=retrieved)   # chunks optional
print(format_text(report))
```

One job per module, each importing only those above it in this list:

- ``claims``: the answer read into number, quote and sentence claims, and the number and word readers they need;
- ``chunks``: the chunks an answer cites (``CitedChunk``), their JSONL, and refusing chunks of another document;
- ``sources``: what a document can support (cells, rows, captions, footnotes, paragraphs) with page and box;
- ``report``: what a check reports (``CitationReport``, ``Claim``, ``Evidence``) and its terminal form;
- ``check``: matching claims against sources, ``check_answer`` and ``check_file``.

The public names below are imported on first use, so ``docling_evidence.cite.chunks`` (which
``docling_evidence.pack`` needs for ``CitedChunk``) does not pull the whole check in.

May import: ``document``, ``text``, ``tables``, ``docling_evidence.meta``.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from docling_evidence.cite.check import check_answer, check_file
    from docling_evidence.cite.chunks import CitedChunk, ForeignChunkError, check_chunks_belong, read_chunks_jsonl
    from docling_evidence.cite.claims import ClaimSpan, Number, extract_claims
    from docling_evidence.cite.report import CitationReport, Claim, Evidence, format_text
    from docling_evidence.cite.sources import DocumentSources, Source

_EXPORTS = {
    "CitationReport": "docling_evidence.cite.report",
    "CitedChunk": "docling_evidence.cite.chunks",
    "Claim": "docling_evidence.cite.report",
    "ClaimSpan": "docling_evidence.cite.claims",
    "DocumentSources": "docling_evidence.cite.sources",
    "Evidence": "docling_evidence.cite.report",
    "ForeignChunkError": "docling_evidence.cite.chunks",
    "Number": "docling_evidence.cite.claims",
    "Source": "docling_evidence.cite.sources",
    "check_answer": "docling_evidence.cite.check",
    "check_chunks_belong": "docling_evidence.cite.chunks",
    "check_file": "docling_evidence.cite.check",
    "extract_claims": "docling_evidence.cite.claims",
    "format_text": "docling_evidence.cite.report",
    "read_chunks_jsonl": "docling_evidence.cite.chunks",
}

__all__ = [
    "CitationReport",
    "CitedChunk",
    "Claim",
    "ClaimSpan",
    "DocumentSources",
    "Evidence",
    "ForeignChunkError",
    "Number",
    "Source",
    "check_answer",
    "check_chunks_belong",
    "check_file",
    "extract_claims",
    "format_text",
    "read_chunks_jsonl",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'docling_evidence.cite' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value
