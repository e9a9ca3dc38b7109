"""Convert, then chunk: turn a path (DoclingDocument JSON or any format Docling converts) into evidence chunks.

```python
from docling_evidence import chunk_document, chunk_path, convert_path

chunks = chunk_path("report.docx")                      # converts with Docling, then EvidenceChunker()
chunks = chunk_document(dl_doc, chunker=my_chunker)     # an already converted DoclingDocument
doc = convert_path("report.pdf")                        # only the DoclingDocument
```

Converting is :mod:`docling_evidence.document.convert`'s job; this module adds the chunker on top, so it sits above
both. The chunker is imported only when one is built, so importing this module stays light.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docling_evidence.document.convert import convert_path

if TYPE_CHECKING:
    from docling_core.transforms.chunker.base import BaseChunker
    from docling_core.types.doc import DoclingDocument

    from docling_evidence.meta import EvidenceChunk

__all__ = [
    "chunk_document",
    "chunk_path",
    "chunk_record",
    "convert_path",
    "count_tokens",
    "default_chunker",
    "make_chunker",
    "max_tokens_of",
]


def make_chunker(
    max_tokens: int | None = None,
    tokenizer: str | None = None,
    bbox_threshold: float | None = None,
    table_format: str | None = None,
) -> BaseChunker:
    """Build an ``EvidenceChunker`` from CLI-style settings; ``None`` keeps the chunker's default.

    Raises:
        ValueError: for a non-positive ``max_tokens`` or a tokenizer that cannot be loaded offline.
    """
    from docling_evidence.tokenizer import DEFAULT_MAX_TOKENS, load_tokenizer

    kwargs: dict[str, Any] = {}
    if tokenizer is not None or max_tokens is not None:
        # load_tokenizer owns the max_tokens check (tokenizer.check_max_tokens)
        kwargs["tokenizer"] = load_tokenizer(tokenizer, DEFAULT_MAX_TOKENS if max_tokens is None else max_tokens)
    if bbox_threshold is not None:
        kwargs["bbox_threshold"] = bbox_threshold
    if table_format is not None:
        kwargs["table_format"] = table_format
    return _evidence_chunker_class()(**kwargs)


def _evidence_chunker_class() -> type:
    from docling_evidence.chunker import EvidenceChunker

    return EvidenceChunker


@lru_cache(maxsize=1)
def default_chunker() -> BaseChunker:
    """The one ``EvidenceChunker()`` with default settings per process, shared so its memos survive between calls."""
    return make_chunker()


def chunk_document(doc: DoclingDocument, chunker: BaseChunker | None = None) -> list[EvidenceChunk]:
    """Chunk an already converted ``DoclingDocument`` (default: ``EvidenceChunker()``, bundled tokenizer, 256)."""
    from docling_core.types.doc import DoclingDocument

    if not isinstance(doc, DoclingDocument):
        raise TypeError(f"chunk_document expects a DoclingDocument, got {type(doc).__name__}")
    return list((chunker or default_chunker()).chunk(doc))


def chunk_path(path: str | Path, chunker: BaseChunker | None = None) -> list[EvidenceChunk]:
    """Convert ``path`` if needed (see :func:`convert_path`) and chunk it.

    Raises:
        InputError: when the file cannot be read or converted (one-line message naming the file and the fix).
    """
    return chunk_document(convert_path(path), chunker)


def count_tokens(chunker: BaseChunker, text: str) -> int | None:
    """Tokens in ``text`` as the chunker counts them, or None when the chunker has no docling-core tokenizer."""
    tokenizer = getattr(chunker, "tokenizer", None)
    return tokenizer.count_tokens(text) if tokenizer is not None else None


def max_tokens_of(chunker: BaseChunker) -> int | None:
    """The chunker's token limit, or None when it has no docling-core tokenizer."""
    tokenizer = getattr(chunker, "tokenizer", None)
    return tokenizer.get_max_tokens() if tokenizer is not None else None


def chunk_record(chunk: EvidenceChunk, chunker: BaseChunker, source: str | Path) -> dict[str, Any]:
    """The JSON object the CLI writes for one chunk.

    ``text`` is ``chunker.contextualize(chunk)`` (what to embed); ``meta`` is a flat summary (source file, pages,
    unit, part, headings, caption, doc item refs and their roles, token count, and ``views``: the chunk's view texts
    as ``contextualize_views`` gives them, each to embed as an extra vector retrieving this chunk); ``chunk`` is the
    full chunk as ``chunk.model_dump(mode="json", by_alias=True)``, so ``EvidenceChunk.model_validate(record["chunk"])``
    restores it.
    """
    text = chunker.contextualize(chunk)
    meta = chunk.meta
    return {
        "text": text,
        "meta": {
            "source": str(source),
            "kind": getattr(meta, "kind", None),
            "unit_id": getattr(meta, "unit_id", None),
            "part": getattr(meta, "part", 0),
            "parts": getattr(meta, "parts", 1),
            "page_span": list(getattr(meta, "page_span", [])),
            "headings": meta.headings,
            "caption": getattr(meta, "caption", None),
            "caption_source": getattr(meta, "caption_source", None),
            "rows": list(meta.rows) if getattr(meta, "rows", None) else None,
            "doc_items": [item.self_ref for item in meta.doc_items],
            "roles": dict(getattr(meta, "roles", {})),
            "num_tokens": count_tokens(chunker, text),
            "views": list(chunker.contextualize_views(chunk)) if hasattr(chunker, "contextualize_views") else [],
        },
        "chunk": chunk.model_dump(mode="json", by_alias=True),
    }
