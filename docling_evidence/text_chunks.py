"""The document's text outside the evidence units, chunked by docling-core's own ``HybridChunker``.

The items a unit owns (its table, caption and footnotes) are moved to the invisible content layer in a copy of the
document, so HybridChunker — with the same tokenizer, serializer provider and settings — chunks everything else
exactly as it would have. Chunks keep references to the caller's document items, not the copy's.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from docling_core.transforms.chunker import DocChunk
from docling_core.transforms.chunker.hybrid_chunker import HybridChunker
from docling_core.transforms.chunker.tokenizer.base import BaseTokenizer
from docling_core.transforms.serializer.base import BaseSerializerProvider
from docling_core.types.doc import ContentLayer, DocItem, DoclingDocument

_log = logging.getLogger(__name__)


def _hide(doc: DoclingDocument, refs: set[str]) -> DoclingDocument:
    if not refs:
        return doc
    copy = doc.model_copy(deep=True)
    for item, _ in copy.iterate_items(with_groups=True, traverse_pictures=True):
        if item.self_ref in refs:
            item.content_layer = ContentLayer.INVISIBLE
    return copy


def text_chunks(
    doc: DoclingDocument,
    hidden: set[str],
    *,
    tokenizer: BaseTokenizer,
    serializer_provider: BaseSerializerProvider,
    merge_peers: bool,
    always_emit_headings: bool,
) -> Iterable[DocChunk]:
    """HybridChunker's chunks of ``doc`` with the items in ``hidden`` left out, doc items resolved in ``doc``."""
    chunker = HybridChunker(
        tokenizer=tokenizer,
        serializer_provider=serializer_provider,
        merge_peers=merge_peers,
        always_emit_headings=always_emit_headings,
    )
    source = _hide(doc, hidden)
    for chunk in chunker.chunk(source):
        if source is not doc:
            items: list[DocItem] = []
            for it in chunk.meta.doc_items:
                original = it.get_ref().resolve(doc)
                items.append(original if isinstance(original, DocItem) else it)
            chunk.meta.doc_items = items
        yield chunk  # type: ignore[misc]
