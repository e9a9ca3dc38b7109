"""The document's text outside the evidence units, chunked by docling-core's own ``HybridChunker``.

The items a unit owns (its table, caption and footnotes) are moved to the invisible content layer in a copy of the
document, so HybridChunker — with the same tokenizer, serializer provider and settings — chunks everything else
exactly as it would have. Chunks keep references to the caller's document items, not the copy's.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterable
from typing import Any

from docling_core.transforms.chunker import DocChunk
from docling_core.transforms.chunker.hybrid_chunker import HybridChunker
from docling_core.transforms.chunker.tokenizer.base import BaseTokenizer
from docling_core.transforms.serializer.base import BaseSerializerProvider
from docling_core.types.doc import ContentLayer, DocItem, DoclingDocument, FloatingItem, RefItem

_log = logging.getLogger(__name__)


def _dangling(doc: DoclingDocument, ref: RefItem) -> bool:
    try:
        ref.resolve(doc)
    except Exception:
        return True
    return False


def _needs_repair(doc: DoclingDocument) -> bool:
    for item, _ in doc.iterate_items(
        with_groups=True, traverse_pictures=True, included_content_layers=set(ContentLayer)
    ):
        if isinstance(item, FloatingItem) and any(_dangling(doc, r) for r in (*item.captions, *item.footnotes)):
            return True
        if isinstance(item, DocItem) and any(
            not all(math.isfinite(v) for v in (p.bbox.l, p.bbox.t, p.bbox.r, p.bbox.b)) for p in item.prov
        ):
            return True
    return False


def _prepared(doc: DoclingDocument, hidden: set[str]) -> DoclingDocument:
    """A copy of ``doc`` with ``hidden`` items invisible, and what HybridChunker crashes on repaired.

    HybridChunker fails on caption/footnote refs that point nowhere and on NaN boxes (its JSON round trip turns
    them into nulls); in the copy, such refs are dropped and such coordinates set to 0. Chunks are mapped back
    to the caller's items afterwards.
    """
    if not hidden and not _needs_repair(doc):
        return doc
    copy = doc.model_copy(deep=True)
    for item, _ in copy.iterate_items(
        with_groups=True, traverse_pictures=True, included_content_layers=set(ContentLayer)
    ):
        if item.self_ref in hidden:
            item.content_layer = ContentLayer.INVISIBLE
        if isinstance(item, FloatingItem):
            item.captions = [r for r in item.captions if not _dangling(copy, r)]
            item.footnotes = [r for r in item.footnotes if not _dangling(copy, r)]
        if isinstance(item, DocItem):
            for p in item.prov:
                bb = p.bbox
                if not all(math.isfinite(v) for v in (bb.l, bb.t, bb.r, bb.b)):
                    p.bbox = bb.model_copy(
                        update={k: 0.0 for k in ("l", "t", "r", "b") if not math.isfinite(getattr(bb, k))}
                    )
    return copy


def text_chunks(
    doc: DoclingDocument,
    hidden: set[str],
    *,
    tokenizer: BaseTokenizer,
    serializer_provider: BaseSerializerProvider,
    merge_peers: bool,
    always_emit_headings: bool,
    **kwargs: Any,
) -> Iterable[DocChunk]:
    """HybridChunker's chunks of ``doc`` with the items in ``hidden`` left out, doc items resolved in ``doc``.

    ``kwargs`` go to ``HybridChunker.chunk`` (which hands them to the serializer's ``get_excluded_refs``).
    """
    chunker = HybridChunker(
        tokenizer=tokenizer,
        serializer_provider=serializer_provider,
        merge_peers=merge_peers,
        always_emit_headings=always_emit_headings,
    )
    source = _prepared(doc, hidden)
    for chunk in chunker.chunk(source, **kwargs):
        if source is not doc:
            items: list[DocItem] = []
            for it in chunk.meta.doc_items:
                original = it.get_ref().resolve(doc)
                items.append(original if isinstance(original, DocItem) else it)
            chunk.meta.doc_items = items
        yield chunk  # type: ignore[misc]
