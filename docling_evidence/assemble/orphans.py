"""Texts that no chunk holds: HybridChunker drops some (footnotes and captions of items that are not units); the
chunker gives each a text chunk of its own, so no text is lost."""

from __future__ import annotations

from typing import Any

from docling_core.types.doc import DoclingDocument, TextItem

from docling_evidence.document.index import DocIndex
from docling_evidence.meta import EvidenceChunk

MAX_PARENT_DEPTH = 64
"""A parent chain longer than this is malformed: the search for an ancestor stops there."""


def orphan_texts(
    index: DocIndex, chunks: list[EvidenceChunk], doc: DoclingDocument, *, with_headings: bool
) -> list[tuple[int, TextItem]]:
    """Body text items with text that no chunk holds (as a doc item, or as a heading in scope).

    An item written inside another one is held by the chunks that list that one: HybridChunker lists a list item
    but not the runs of the inline group inside it (a Markdown or HTML list item with a link or a code span), so an
    item whose text a chunk listing one of its ancestors shows is held. Headings count only ``with_headings``
    (``always_emit_headings``): without it, HybridChunker's choice to drop a heading with no text under it is kept.
    """
    texts_listing: dict[str, list[str]] = {}
    for c in chunks:
        for it in c.meta.doc_items:
            texts_listing.setdefault(it.self_ref, []).append(c.text)
    headings = {h for c in chunks for h in (c.meta.headings or [])}
    found = []
    for pos, item in enumerate(index.items):
        if not isinstance(item, TextItem) or not item.text.strip() or item.self_ref in texts_listing:
            continue
        if index.is_heading(pos) and (not with_headings or item.text in headings):
            continue
        if _shown_by_an_ancestor(item, doc, texts_listing):
            continue
        found.append((pos, item))
    return found


def _plain(text: str) -> str:
    """``text`` with Markdown backslash escapes dropped and white space collapsed, for containment tests."""
    return " ".join(text.replace("\\", "").split())


def _shown_by_an_ancestor(item: TextItem, doc: DoclingDocument, texts_listing: dict[str, list[str]]) -> bool:
    """Whether a chunk that lists an ancestor of ``item`` shows ``item``'s text."""
    wanted = _plain(item.text)
    node: Any = item
    for _ in range(MAX_PARENT_DEPTH):
        if node.parent is None:
            return False
        try:
            node = node.parent.resolve(doc)
        except Exception:
            return False
        if any(wanted in _plain(text) for text in texts_listing.get(node.self_ref, ())):
            return True
    return False
