"""The paragraphs of one document as its serializer writes them, each rendered once: a unit's context, the section
peers beside it and the texts no chunk holds all show paragraphs as the text chunks would."""

from __future__ import annotations

from docling_core.transforms.serializer.base import BaseDocSerializer
from docling_core.types.doc import DoclingDocument, TextItem

from docling_evidence.assemble.units import EvidenceUnit
from docling_evidence.assemble.views import CONTEXT_GAP
from docling_evidence.document.index import DocIndex


class RenderedParagraphs:
    """The serializer's text of each paragraph of a document, by reading position, rendered on first use.

    Args:
        doc: the document.
        index: its index (reading positions, inline groups).
        serializer: the document serializer of the chunker (the one the text chunks are written with).
    """

    def __init__(self, doc: DoclingDocument, index: DocIndex, serializer: BaseDocSerializer) -> None:
        self._doc = doc
        self._index = index
        self._serializer = serializer
        self._by_position: dict[int, str] = {}

    def text(self, pos: int) -> str:
        """The paragraph at reading position ``pos`` as the serializer writes it (a run of an inline group: the whole
        group; an item that is not text: empty). A paragraph the serializer writes empty falls back to its plain
        text."""
        if pos not in self._by_position:
            index = self._index
            item = index.items[pos]
            node = item.parent.resolve(self._doc) if pos in index.inline_members and item.parent else item
            text = self._serializer.serialize(item=node).text if isinstance(item, TextItem) else ""
            self._by_position[pos] = text or (index.paragraph_text(pos) if isinstance(item, TextItem) else "")
        return self._by_position[pos]

    def context_text(self, unit: EvidenceUnit, k: int) -> str:
        """The k-th context paragraph of ``unit`` as the unit shows it: rendered whole, or its chosen sentences joined
        by " … " (of an inline group, as plain text: its runs joined)."""
        item = (*unit.context_before, *unit.context_after)[k]
        spans = unit.spans_of(k)
        pos = self._index.order[item.self_ref]
        text = self._index.paragraph_text(pos)
        if spans == ((0, len(text)),):
            return self.text(pos)
        return CONTEXT_GAP.join(text[a:b] for a, b in spans)
