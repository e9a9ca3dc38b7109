"""Reading order of the chunks: the text chunks as HybridChunker emits them, with the unit and orphan chunks
inserted at their reading positions."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from docling_core.transforms.chunker import DocChunk

from docling_evidence.document.index import DocIndex
from docling_evidence.meta import EvidenceChunk


def anchor(chunk: DocChunk, index: DocIndex) -> int:
    """Where a text chunk sits in reading order: its first non-heading item (a heading-only chunk: its last)."""
    body = [index.order[it.self_ref] for it in chunk.meta.doc_items if it.self_ref in index.order]
    texts = [p for p in body if not index.is_heading(p)]
    if texts:
        return min(texts)
    return max(body) if body else -1


def interleave(
    backbone: Sequence[tuple[int, EvidenceChunk]], inserts: Sequence[tuple[int, list[EvidenceChunk]]]
) -> Iterator[EvidenceChunk]:
    """The chunks of ``backbone`` (text chunks with their :func:`anchor`, in order) with each group of ``inserts``
    (reading position, chunks) placed before the first text chunk anchored after it; a text chunk with no anchor
    (-1) takes nothing before it. What is left goes at the end."""
    ordered = sorted(inserts, key=lambda entry: entry[0])
    k = 0
    for at, chunk in backbone:
        while k < len(ordered) and at >= 0 and ordered[k][0] < at:
            yield from ordered[k][1]
            k += 1
        yield chunk
    for _pos, chunks in ordered[k:]:
        yield from chunks
