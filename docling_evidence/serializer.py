"""Rendering on docling-core's serializer framework.

``EvidenceSerializerProvider`` is a ``ChunkingSerializerProvider``: it hands out docling-core's chunking document
serializer (Markdown text, so captions, paragraphs and footnotes render exactly as HybridChunker renders them) with an
:class:`EvidenceTableSerializer` for tables. Users swap the table format the way they already do for HybridChunker —
by passing a serializer provider whose table serializer is docling-core's ``MarkdownTableSerializer``,
``HTMLTableSerializer`` or ``TripletTableSerializer`` (mapped to our row-exact ``markdown``, ``html`` and ``triplets``
formats), or by setting ``EvidenceChunker(table_format=...)``.
"""

from __future__ import annotations

import logging
from typing import Any

from docling_core.transforms.chunker.hierarchical_chunker import (
    ChunkingDocSerializer,
    ChunkingSerializerProvider,
    TripletTableSerializer,
)
from docling_core.transforms.serializer.base import BaseDocSerializer, BaseTableSerializer, SerializationResult
from docling_core.transforms.serializer.common import create_ser_result
from docling_core.transforms.serializer.html import HTMLTableSerializer
from docling_core.transforms.serializer.markdown import MarkdownParams, MarkdownTableSerializer
from docling_core.types.doc import DoclingDocument, TableItem
from docling_core.types.doc.base import ImageRefMode

from docling_evidence.table_format import TABLE_FORMATS, TableFormatName
from docling_evidence.table_rows import TableRows, table_rows

_log = logging.getLogger(__name__)


def render_table(rows: TableRows, table_format: TableFormatName) -> str:
    """The whole table in ``table_format``, one line per row."""
    fmt = TABLE_FORMATS[table_format]
    cols = tuple(range(rows.num_cols))
    lines = [
        *fmt.open_lines(),
        *fmt.header_lines(rows.header, cols),
        *(fmt.row_line(row, cols, rows.header, rows.label_cols) for row in rows.body),
        *fmt.close_lines(),
    ]
    return "\n".join(lines)


class EvidenceTableSerializer(BaseTableSerializer):
    """A docling-core table serializer writing one line per row in a chosen format (captions not included).

    Usable in any docling-core document serializer; ``EvidenceChunker`` relies on its one-line-per-row layout to split
    tables exactly.
    """

    def __init__(self, table_format: TableFormatName = "markdown") -> None:
        if table_format not in TABLE_FORMATS:
            raise ValueError(f"table_format must be one of {sorted(TABLE_FORMATS)}, got {table_format!r}")
        self.table_format: TableFormatName = table_format

    def serialize(
        self, *, item: TableItem, doc_serializer: BaseDocSerializer, doc: DoclingDocument, **kwargs: Any
    ) -> SerializationResult:
        """Serialize the table's cells (not its captions) in this serializer's format."""
        return create_ser_result(text=render_table(table_rows(item, doc), self.table_format), span_source=item)

    def get_header_and_body_lines(self, *, table_text: str, **kwargs: Any) -> tuple[list[str], list[str]]:
        """Split text made by :meth:`serialize` into header lines and body lines."""
        lines = table_text.split("\n")
        if self.table_format == "markdown":
            sep = next((i for i, line in enumerate(lines) if line.startswith("|---")), None)
            if sep is None:
                return [], lines
            return lines[: sep + 1], lines[sep + 1 :]
        if self.table_format == "html":
            head = [x for x in lines if x == "<table>" or x.startswith("<tr><th>")]
            return head, [x for x in lines if x not in head]
        return [], lines


class EvidenceSerializerProvider(ChunkingSerializerProvider):
    """docling-core's chunking serializer (Markdown text) with an :class:`EvidenceTableSerializer` for tables.

    Args:
        table_format: ``"markdown"`` (default), ``"html"`` or ``"triplets"``.
        params: docling-core ``MarkdownParams`` for text rendering; the chunking defaults when omitted.
    """

    def __init__(self, table_format: TableFormatName = "markdown", params: MarkdownParams | None = None) -> None:
        self.table_serializer = EvidenceTableSerializer(table_format)
        self.params = params or MarkdownParams(
            image_mode=ImageRefMode.PLACEHOLDER, image_placeholder="", escape_underscores=False, escape_html=False
        )

    def get_serializer(self, doc: DoclingDocument) -> BaseDocSerializer:
        """The document serializer for ``doc``."""
        return ChunkingDocSerializer(doc=doc, table_serializer=self.table_serializer, params=self.params)


def table_format_of(doc_serializer: BaseDocSerializer) -> TableFormatName | None:
    """The row format matching a document serializer's table serializer, or None when it is not one we know."""
    table_ser = getattr(doc_serializer, "table_serializer", None)
    if isinstance(table_ser, EvidenceTableSerializer):
        return table_ser.table_format
    if isinstance(table_ser, MarkdownTableSerializer):
        return "markdown"
    if isinstance(table_ser, HTMLTableSerializer):
        return "html"
    if isinstance(table_ser, TripletTableSerializer):
        return "triplets"
    return None
