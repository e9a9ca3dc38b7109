"""The packer's result: the text for the LLM and, per unit or chunk used, what it holds for citing."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field


class PackedBox(BaseModel):
    """Where a doc item used is printed: one provenance entry (``meta.doc_items[*].prov``)."""

    ref: str
    page: int
    bbox: tuple[float, float, float, float] = Field(description="l, t, r, b in the page's coordinates.")
    coord_origin: str = Field(description="'TOPLEFT' or 'BOTTOMLEFT', as docling-core's BoundingBox says.")


class PackedRow(BaseModel):
    """A table row delivered whole."""

    index: int | None = Field(description="The body row of the unit (as EvidenceMeta.rows counts), when known.")
    label: str = Field(description="The row's label (its first non-empty cell, or the triplets' row label).")
    text: str = Field(description="The row as delivered.")
    ref: str | None = Field(default=None, description="self_ref of the table item, when the chunk names one.")


class PackedSentence(BaseModel):
    """A sentence of a context paragraph or a text chunk, or a whole footnote, delivered."""

    text: str
    role: Literal["context", "text", "footnote"]
    ref: str | None = Field(description="self_ref of the doc item it comes from, when known.")
    start: int | None = Field(default=None, description="Start of the sentence in that item's text, when known.")
    end: int | None = Field(default=None, description="End (exclusive) of the sentence in that item's text.")


class PackedBlock(BaseModel):
    """What one unit (or one chunk without a unit) contributes to the packed text."""

    key: str = Field(description="unit_id, else 'table <self_ref>' for a table chunk, else '#<rank>'.")
    unit_id: str | None
    kind: Literal["table", "text"]
    ranks: list[int] = Field(description="Indices into `ranked` of the chunks merged into this block, in order.")
    text: str = Field(description="This block's part of PackedEvidence.text.")
    score: float = Field(description="Best score of a row or sentence delivered.")
    caption: str | None = None
    header: list[str] = Field(default_factory=list, description="Header lines delivered.")
    rows: list[PackedRow] = Field(default_factory=list)
    sentences: list[PackedSentence] = Field(default_factory=list)
    footnotes: list[PackedSentence] = Field(default_factory=list)
    doc_refs: list[str] = Field(default_factory=list, description="self_refs of the doc items used, in order.")
    pages: list[int] = Field(default_factory=list)
    boxes: list[PackedBox] = Field(default_factory=list)
    origin_filename: str | None = Field(default=None, description="meta.origin.filename of its chunks, if given.")
    origin_binary_hash: int | None = Field(default=None, description="meta.origin.binary_hash of its chunks.")

    def metadata(self) -> dict[str, Any]:
        """JSON-safe metadata for a LangChain Document or a LlamaIndex node (lists and scalars only)."""
        return self.model_dump(mode="json", exclude={"text"})


class PackedEvidence(BaseModel):
    """Evidence packed for one query within a token budget (``EvidenceChunker.pack``).

    ``text`` (also ``str(packed)``) is what to give the LLM; ``blocks`` say, in the same order, what each unit or
    chunk contributed, with doc refs, rows, sentence spans, pages and boxes for citing.
    """

    query: str
    budget: int
    tokens: int = Field(description="Tokens of `text` (the chunker's tokenizer), never above `budget`.")
    text: str
    blocks: list[PackedBlock] = Field(default_factory=list)
    omitted: int = Field(default=0, description="Rows, sentences and footnotes read but not delivered.")

    def __str__(self) -> str:
        return self.text

    def cited_chunks(self) -> list[Any]:
        """One ``docling_evidence.cite.chunks.CitedChunk`` per block (its text and doc refs), for
        ``check_answer(answer, doc, chunks=packed)``."""
        from docling_evidence.cite.chunks import CitedChunk

        out = []
        for block in self.blocks:
            indices = [r.index for r in block.rows if r.index is not None]
            rows = (min(indices), max(indices) + 1) if indices and len(indices) == len(block.rows) else None
            out.append(
                CitedChunk(
                    text=block.text,
                    refs=frozenset(block.doc_refs),
                    rows=rows,
                    binary_hash=block.origin_binary_hash,
                    filename=block.origin_filename,
                )
            )
        return out
