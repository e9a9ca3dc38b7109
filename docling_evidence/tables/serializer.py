"""Rendering on docling-core's serializer framework.

``EvidenceSerializerProvider`` is a ``ChunkingSerializerProvider``: it hands out docling-core's chunking document
serializer (Markdown text, so captions, paragraphs and footnotes render exactly as HybridChunker renders them) with an
:class:`EvidenceTableSerializer` for tables: our row-exact ``markdown`` (default), ``html`` or ``triplets`` format,
also selectable with ``EvidenceChunker(table_format=...)``.

A provider with another table serializer is honoured as HybridChunker honours it: :func:`table_layout` takes the
table's text from that serializer (docling-core's ``MarkdownTableSerializer``, ``HTMLTableSerializer``, or a custom
one) and its header and body lines (``get_header_and_body_lines``), so every piece shows lines of the provider's own
output. Only docling-core's ``TripletTableSerializer`` (HybridChunker's default) maps to our ``triplets`` format: the
same statements, one table row per line instead of the whole table on one line, so that tables split by rows.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from docling_core.transforms.chunker.hierarchical_chunker import (
    ChunkingDocSerializer,
    ChunkingSerializerProvider,
    TripletTableSerializer,
)
from docling_core.transforms.serializer.base import BaseDocSerializer, BaseTableSerializer, SerializationResult
from docling_core.transforms.serializer.common import create_ser_result
from docling_core.transforms.serializer.markdown import MarkdownParams
from docling_core.types.doc import DocItemLabel, DoclingDocument, TableItem
from docling_core.types.doc.base import ImageRefMode
from pydantic import PrivateAttr

from docling_evidence.tables.formats import (
    TABLE_FORMATS,
    CellTextFormat,
    SerializerLinesFormat,
    SerializerPipeRowsFormat,
    TableFormat,
    TableFormatName,
)
from docling_evidence.tables.params import DEFAULT_TABLE_PARAMS, TableParams
from docling_evidence.tables.pipes import pipe_cells
from docling_evidence.tables.rows import TableRows, table_rows

_log = logging.getLogger(__name__)


def _foreign_layout(
    table: TableItem,
    doc: DoclingDocument,
    doc_serializer: BaseDocSerializer,
    table_serializer: BaseTableSerializer,
    table_params: TableParams,
) -> tuple[TableRows, TableFormat]:
    """The table as ``table_serializer`` writes it, footnotes left out (the unit places them), and captions too
    unless the serializer writes them inside its header lines."""
    # through the document serializer, so that its parameters (compact_tables, ...) apply as in HybridChunker
    params = getattr(doc_serializer, "params", None)
    labels = getattr(params, "labels", None)
    if labels is not None:
        head, body = _lines(table, doc_serializer, table_serializer, set(labels) - {DocItemLabel.CAPTION})
    else:
        text = table_serializer.serialize(item=table, doc_serializer=doc_serializer, doc=doc).text
        head, body = _nonblank(*table_serializer.get_header_and_body_lines(table_text=text))
    caption_in_header = False
    if labels is not None and table.captions:
        # a serializer writing the caption inside its header lines (HTML: "<table>Table 1: ...<tbody>") is shown
        # with them, as HybridChunker shows it; one writing it as a paragraph of its own (Markdown) leaves it to the
        # unit, which repeats it in every piece
        captioned, same_body = _lines(table, doc_serializer, table_serializer, set(labels))
        if same_body == body and captioned != head and captioned[len(captioned) - len(head) :] != head:
            head, caption_in_header = captioned, True
    own = table_rows(table, doc, params=table_params)
    cells = [pipe_cells(line) for line in (*head, *body)]
    widths = {len(c) for c in cells if c is not None}
    if cells and None not in cells and len(widths) == 1:
        ncols = widths.pop()
        label_cols = own.label_cols if own.num_cols == ncols else min(1, ncols - 1)
        rows = TableRows(
            header=tuple(tuple(c) for c in cells[: len(head)]),  # type: ignore[arg-type]
            body=tuple(tuple(c) for c in cells[len(head) :]),  # type: ignore[arg-type]
            label_cols=label_cols,
        )
        return rows, SerializerPipeRowsFormat()
    # other line formats (HTML): opening lines stay in the header, closing tags ("</tbody></table>") follow the rows
    n_rows = len(body)
    while n_rows and body[n_rows - 1].lstrip().startswith("</"):
        n_rows -= 1
    rows = TableRows(header=tuple((h,) for h in head), body=tuple((b,) for b in body[:n_rows]), label_cols=0)
    return rows, SerializerLinesFormat(closing=tuple(body[n_rows:]), caption_in_header=caption_in_header)


def _nonblank(head: Sequence[str], body: Sequence[str]) -> tuple[list[str], list[str]]:
    return [x.rstrip("\n") for x in head if x.strip()], [x.rstrip("\n") for x in body if x.strip()]


def _lines(
    table: TableItem, doc_serializer: BaseDocSerializer, table_serializer: BaseTableSerializer, labels: set[Any]
) -> tuple[list[str], list[str]]:
    """The header and body lines of ``table`` as the document serializer writes it, footnotes left out."""
    text = doc_serializer.serialize(item=table, labels=labels - {DocItemLabel.FOOTNOTE}).text
    return _nonblank(*table_serializer.get_header_and_body_lines(table_text=text))


@dataclass(frozen=True)
class TableLayout:
    """How a unit shows its table: the rows, where each table part's rows start, and the format rendering them."""

    rows: TableRows
    row_starts: tuple[int, ...]
    fmt: TableFormat


def table_layout(
    tables: Sequence[TableItem],
    doc: DoclingDocument,
    doc_serializer: BaseDocSerializer,
    table_format: TableFormatName | None = None,
    rows: TableRows | None = None,
    row_starts: tuple[int, ...] = (0,),
    *,
    params: TableParams = DEFAULT_TABLE_PARAMS,
) -> TableLayout:
    """How a unit shows ``tables`` (a table and its continuations on later pages): rows and format, one line per row.

    ``table_format`` (the chunker's setting) wins; else the provider's table serializer decides: ours and
    docling-core's triplets map to our formats over ``rows`` (default: ``table_rows`` of the one table); any other
    serializer is honoured with its own output, each part's body rows after the first part's header. Tables are
    read by ``params``. A table of a single cell is shown as its text, as HybridChunker shows it.
    """
    table_ser = getattr(doc_serializer, "table_serializer", None)
    name = table_format or table_format_of(doc_serializer)
    if name is None and isinstance(table_ser, BaseTableSerializer):
        parts = [_foreign_layout(t, doc, doc_serializer, table_ser, params) for t in tables]
        first_rows, fmt = parts[0]
        if all(type(f) is type(fmt) and r.num_cols == first_rows.num_cols for r, f in parts):
            starts = [0]
            for part_rows, _ in parts[:-1]:
                starts.append(starts[-1] + len(part_rows.body))
            body = tuple(row for part_rows, _ in parts for row in part_rows.body)
            joined = TableRows(header=first_rows.header, body=body, label_cols=first_rows.label_cols)
            # the splitter and the row views must read the same rows: a serializer's one-row table is its content
            return TableLayout(rows=joined.content(), row_starts=tuple(starts), fmt=fmt)
        _log.warning("the parts of %s do not serialize alike: shown as Markdown", tables[0].self_ref)
    rows = rows if rows is not None else table_rows(tables[0], doc, params=params)
    grid = [*rows.header, *rows.body]
    if len(grid) == 1 and rows.num_cols == 1:
        return TableLayout(TableRows(header=(), body=(grid[0],), label_cols=0), (0,), CellTextFormat())
    return TableLayout(rows, row_starts, TABLE_FORMATS[name or "markdown"])


def render_table(rows: TableRows, table_format: TableFormatName | TableFormat) -> str:
    """The whole table in ``table_format`` (a name or a format), one line per row."""
    fmt = TABLE_FORMATS[table_format] if isinstance(table_format, str) else table_format
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

    Args:
        table_format: ``"markdown"`` (default), ``"html"`` or ``"triplets"``.
        params: how header rows are found in tables Docling marked none in (default: the measured rules).
    """

    def __init__(self, table_format: TableFormatName = "markdown", params: TableParams = DEFAULT_TABLE_PARAMS) -> None:
        if table_format not in TABLE_FORMATS:
            raise ValueError(f"table_format must be one of {sorted(TABLE_FORMATS)}, got {table_format!r}")
        if not isinstance(params, TableParams):
            raise TypeError(f"params must be a TableParams, got {type(params).__name__}")
        self.table_format: TableFormatName = table_format
        self.params = params

    def serialize(
        self, *, item: TableItem, doc_serializer: BaseDocSerializer, doc: DoclingDocument, **kwargs: Any
    ) -> SerializationResult:
        """Serialize the table as docling-core's table serializers do: its captions, then its rows in this
        serializer's format (exactly the lines ``EvidenceChunker`` puts in its pieces)."""
        parts = []
        captions = doc_serializer.serialize_captions(item=item, **kwargs)
        if captions.text:
            parts.append(captions)
        if item.self_ref not in doc_serializer.get_excluded_refs(**kwargs):
            layout = table_layout([item], doc, doc_serializer, self.table_format, params=self.params)
            text = render_table(layout.rows, layout.fmt)
            if text:
                parts.append(create_ser_result(text=text, span_source=item))
        return create_ser_result(text="\n\n".join(p.text for p in parts), span_source=parts)

    def get_header_and_body_lines(self, *, table_text: str, **kwargs: Any) -> tuple[list[str], list[str]]:
        """Split text made by :meth:`serialize` into header lines and body lines."""
        lines = table_text.split("\n")
        if self.table_format == "markdown":
            # our separator is the one line starting "|---" (every other line starts "| "): a body row of "---" cells
            # is not mistaken for it, as a separator-row test would
            sep = next((i for i, line in enumerate(lines) if line.startswith("|---")), None)
            if sep is None:
                return [], lines
            return lines[: sep + 1], lines[sep + 1 :]
        if self.table_format == "html":
            head = [x for x in lines if x == "<table>" or x.startswith("<tr><th>")]
            return head, [x for x in lines if x not in head]
        # triplets: the "Columns: ..." line is the header every piece repeats
        columns = next((i for i, line in enumerate(lines) if line.startswith("Columns: ")), None)
        return (lines[: columns + 1], lines[columns + 1 :]) if columns is not None else ([], lines)


class EvidenceDocSerializer(ChunkingDocSerializer):
    """docling-core's chunking document serializer, answering ``get_excluded_refs`` for its own parameters from its
    own record.

    docling-core caches the excluded refs by a JSON dump of the merged parameters, which it makes again (with a
    parameter copy and a private-attribute read) on every text item it serializes, about 18 µs each time; items
    inside a list or an inline group pass the whole parameter dump as the patch. A patch whose fields all restate
    the parameters (other keys, as ``delim``, are no parameters and do not change the answer) has the answer of no
    patch, which depends only on the parameters (the document is the serializer's own, as docling-core's cache
    assumes too): it is kept with a shallow copy of the parameters' values, and asked of docling-core again when a
    parameter is reassigned or the parameters are replaced. Any other patch goes to docling-core.
    """

    _own_excluded: tuple[dict[str, Any], set[str]] | None = PrivateAttr(default=None)

    def get_excluded_refs(self, **kwargs: Any) -> set[str]:
        """References to excluded items (docling-core's answer; for the serializer's own parameters, computed once)."""
        values = self.params.__dict__
        if kwargs:
            fields = type(self.params).model_fields
            for key, value in kwargs.items():
                if key in fields and values[key] is not value and values[key] != value:
                    return super().get_excluded_refs(**kwargs)
        private: dict[str, Any] = self.__pydantic_private__  # type: ignore[assignment]  # a slot: no __getattr__
        known = private["_own_excluded"]
        if known is None or known[0] != values:
            known = private["_own_excluded"] = (dict(values), super().get_excluded_refs())
        return known[1]


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
        return EvidenceDocSerializer(doc=doc, table_serializer=self.table_serializer, params=self.params)


def table_format_of(doc_serializer: BaseDocSerializer) -> TableFormatName | None:
    """Our row format for a document serializer's table serializer: its own for ours, ``triplets`` for docling-core's
    ``TripletTableSerializer``; None for any other serializer (its output is then used as it is)."""
    table_ser = getattr(doc_serializer, "table_serializer", None)
    if isinstance(table_ser, EvidenceTableSerializer):
        return table_ser.table_format
    if isinstance(table_ser, TripletTableSerializer):
        return "triplets"
    return None
