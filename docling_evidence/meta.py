"""Chunk metadata: docling-core's ``DocMeta`` plus what retrieval over evidence units needs."""

from __future__ import annotations

from typing import ClassVar, Literal

from docling_core.transforms.chunker.doc_chunk import DocChunk, DocMeta
from pydantic import Field

ChunkKind = Literal["table", "text"]
"""``table``: a piece of an evidence unit; ``text``: a text chunk as HybridChunker would make it."""

CaptionSource = Literal["docling_ref", "text_nearby", "adjacent_page", "header_row"]
"""How a table's caption was found, in the order the rules are tried (see ``docling_evidence.units.captions``)."""

MemberRole = Literal["caption", "context", "table", "footnote", "text"]
"""The part a doc item plays in a chunk."""

EVIDENCE_FIELDS: tuple[str, ...] = (
    "page_span",
    "table_pages",
    "unit_id",
    "kind",
    "part",
    "parts",
    "caption",
    "caption_source",
    "roles",
    "rows",
    "context_spans",
    "views",
    "line_roles",
)
"""The fields ``EvidenceMeta`` adds to docling-core's ``DocMeta`` (kept out of the embedded and LLM text)."""


class EvidenceMeta(DocMeta):
    """Metadata of an :class:`EvidenceChunk`.

    It validates as a ``DocMeta`` too (same ``schema_name``), so code written for docling-core chunks keeps working.
    The added fields are excluded from the embedding text and from the LLM text.
    """

    page_span: list[int] = Field(
        default_factory=list, description="Sorted page numbers (1-based) of every item of the chunk's unit."
    )
    table_pages: list[int] = Field(
        default_factory=list,
        description=(
            "Sorted page numbers (1-based) of the table's own items, every part of a continued table (table chunks;"
            " empty for text chunks): where the table is printed, for a citation or a page filter, while page_span"
            " also covers its caption, footnotes and context."
        ),
    )
    unit_id: str = Field(description="Stable id shared by all pieces of one evidence unit; unique per text chunk.")
    kind: ChunkKind = Field(description="'table' for evidence-unit pieces, 'text' for the other chunks.")
    part: int = Field(default=0, ge=0, description="Index of this piece within its unit (0-based).")
    parts: int = Field(default=1, ge=1, description="Number of pieces of this unit.")
    caption: str | None = Field(default=None, description="The table's caption text, when one was found.")
    caption_source: CaptionSource | None = Field(default=None, description="Which rule found the caption.")
    roles: dict[str, MemberRole] = Field(
        default_factory=dict, description="Role of each doc item in the chunk, keyed by its self_ref."
    )
    rows: tuple[int, int] | None = Field(
        default=None, description="Half-open range of the table's body rows in this piece (table chunks)."
    )
    context_spans: dict[str, list[tuple[int, int]]] = Field(
        default_factory=dict,
        description=(
            "For each doc item of the chunk used as context (by self_ref): the half-open character spans of its"
            " `text` that the chunk shows as context, in order; [(0, len(text))] when the whole paragraph is used."
            " A paragraph that also holds the table's merged caption keeps the role 'caption'."
        ),
    )

    views: list[str] = Field(
        default_factory=list,
        description=(
            "Short texts embedded as extra vectors that retrieve this chunk (EvidenceChunker.contextualize_views):"
            " for the piece a table starts in, its caption on one line first; for a table piece one per row (or"
            " part of a row) it shows, '<row label>: <column> = <value>; ...'"
            " under the caption line when it fits, then one per sentence of the context and section paragraphs it"
            " shows; for a text chunk of two or more sentences, one per sentence. Empty with views=False."
        ),
    )

    line_roles: list[str] = Field(
        default_factory=list,
        description=(
            "For a table piece, one tag per line of `text` (text.split('\\n')): 'caption' ('caption once' in the one"
            " piece showing whole a caption the others repeat shortened), 'header', 'frame', 'row <i>' (body row i of"
            " the unit), or 'context <ref>' / 'footnote <ref>' / 'text <ref>' (a line of"
            " that doc item's text); lets a reader select rows and sentences without re-parsing the text"
            " (docling_evidence.pack). Empty for text chunks."
        ),
    )

    excluded_embed: ClassVar[list[str]] = [*DocMeta.excluded_embed, *EVIDENCE_FIELDS]
    excluded_llm: ClassVar[list[str]] = [*DocMeta.excluded_llm, *EVIDENCE_FIELDS]


class EvidenceChunk(DocChunk):
    """A chunk produced by ``EvidenceChunker``: a ``DocChunk`` whose ``meta`` is an :class:`EvidenceMeta`."""

    meta: EvidenceMeta
