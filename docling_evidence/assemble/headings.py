"""The headings of a document's chunks: the headings in scope at each reading position, and heading-only chunks."""

from __future__ import annotations

from docling_core.transforms.chunker import DocChunk
from docling_core.types.doc import SectionHeaderItem, TitleItem

from docling_evidence.document.index import DocIndex


def headings_by_position(index: DocIndex) -> dict[int, list[str]]:
    """Headings in scope at each reading position, as HierarchicalChunker tracks them."""
    by_level: dict[int, str] = {}
    found: dict[int, list[str]] = {}
    for pos, item in enumerate(index.items):
        if isinstance(item, TitleItem | SectionHeaderItem):
            level = item.level if isinstance(item, SectionHeaderItem) else 0
            for k in [k for k in by_level if k >= level]:
                del by_level[k]
            by_level[level] = item.text
        else:
            found[pos] = [by_level[k] for k in sorted(by_level)]
    return {k: v for k, v in found.items() if v}


def heading_chunk(chunk: DocChunk) -> DocChunk:
    """A heading-only chunk (``always_emit_headings``) with its innermost heading as text, not an empty text.

    HybridChunker emits such chunks with ``text=""`` and every heading in ``meta.headings``; here the innermost
    heading moves to ``text`` (the outer ones stay as ``headings``), so the embedded text is the same and no chunk
    is empty.
    """
    headings = list(chunk.meta.headings or [])
    if not headings:
        return chunk
    meta = chunk.meta.model_copy(update={"headings": headings[:-1] or None})
    return DocChunk(text=headings[-1], meta=meta)


def section_has_a_unit(headings: list[str] | None, unit_sections: set[tuple[str, ...]]) -> bool:
    """Whether some unit lies in the section ``headings`` leads to (its headings start with them)."""
    path = tuple(headings or ())
    return bool(path) and any(section[: len(path)] == path for section in unit_sections)
