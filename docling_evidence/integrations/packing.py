"""Packed evidence for the retrievers, framework-free: what the LangChain and LlamaIndex wrappers share.

A retriever with a ``budget`` gives the pooled units' pieces, in ranking order, to ``EvidenceChunker.pack`` and
returns one result per packed block. The pieces come back as chunks from their stored text and metadata
(:func:`chunk_from`: docling's metadata of the chunk, ``dl_meta`` in LangChain, the node metadata in LlamaIndex); a
view that ranked (a row or a sentence) tells the packer which of its piece's rows or sentences matched
(:func:`view_hints`, fed to :func:`docling_evidence.pack.scoring.hinted_scorer`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from types import SimpleNamespace
from typing import Any

from docling_evidence.pack.budget import validate_budget as check_budget
from docling_evidence.pack.evidence import PackedBlock, PackedEvidence
from docling_evidence.pack.scoring import Scorer, hinted_scorer, rank_weight

PACKED_KEY = "packed"
"""Metadata key of a packed result: its block (``PackedBlock.metadata()``: refs, rows, sentences, pages, boxes)."""


def validate_budget(budget: Any) -> None:
    """``None`` (no packing) or an int of at least 1 token (the packer's check, ``None`` allowed).

    Raises:
        ValueError: otherwise.
    """
    check_budget(budget, optional=True)


def chunk_from(text: str, meta: Mapping[str, Any] | None, delim: str = "\n") -> Any:
    """A chunk to pack from a stored text and its docling metadata (``chunk.meta.export_json_dict()``).

    The stored text may be ``contextualize(chunk)``: the headings in front are taken off, so the chunk's line roles
    line up with its text. Metadata that does not validate as an ``EvidenceMeta`` (another chunker's) gives a
    docling-core ``DocChunk``; flat metadata with a ``unit_id`` a chunk of that unit; no metadata a plain chunk.
    """
    from docling_core.transforms.chunker.doc_chunk import DocChunk, DocMeta

    from docling_evidence.meta import EvidenceChunk, EvidenceMeta

    if not isinstance(meta, Mapping):
        return SimpleNamespace(text=text, meta=None)
    headings = meta.get("headings")
    if isinstance(headings, list) and headings and all(isinstance(h, str) for h in headings):
        prefix = delim.join(headings) + delim
        text = text[len(prefix) :] if text.startswith(prefix) else text
    for chunk_cls, meta_cls in ((EvidenceChunk, EvidenceMeta), (DocChunk, DocMeta)):
        fields = {k: v for k, v in meta.items() if k in meta_cls.model_fields}
        if chunk_cls is EvidenceChunk:
            fields = _roles_of_ranked_text(text, fields)
        try:
            return chunk_cls.model_validate({"text": text, "meta": fields})
        except ValueError:
            continue
    # flat metadata only (a vector store that kept the filter fields): the unit still groups its pieces
    unit_id, kind = meta.get("unit_id"), meta.get("kind")
    return SimpleNamespace(text=text, meta=SimpleNamespace(unit_id=unit_id, kind=kind) if unit_id else None)


def _roles_of_ranked_text(text: str, fields: dict[str, Any]) -> dict[str, Any]:
    """The line roles of a piece of context stored as it is ranked (``EvidenceChunker.contextualize`` leaves out the
    caption and header it repeats, :func:`docling_evidence.assemble.views.ranking_text`): the piece's roles without
    those lines, when they then line up with the stored text; ``fields`` unchanged otherwise."""
    from docling_evidence.assemble.views import repeated_line

    roles = fields.get("line_roles")
    if not isinstance(roles, list) or len(roles) == text.count("\n") + 1:
        return fields
    kept: list[str] = []
    for role in roles:
        if not isinstance(role, str) or repeated_line(role):
            continue
        if role == "" and (not kept or kept[-1] == ""):
            continue
        kept.append(role)
    while kept and kept[-1] == "":
        kept.pop()
    if len(kept) != text.count("\n") + 1:
        return fields
    return {**fields, "line_roles": kept}


def view_hints(hits: Iterable[tuple[str, bool]]) -> dict[str, float]:
    """Hint weights of the views among the store's hits (``(text, is_view)`` in the store's order, best first): the
    best-ranked view weighs most."""
    hints: dict[str, float] = {}
    for rank, (text, is_view) in enumerate(hits):
        if is_view and text not in hints:
            hints[text] = rank_weight(rank)
    return hints


def pack_pieces(
    chunker: Any,
    query: str,
    pieces: Sequence[tuple[str, Mapping[str, Any] | None]],
    budget: int,
    hints: Mapping[str, float],
    scorer: Scorer | None = None,
    others: Sequence[tuple[str, Mapping[str, Any] | None]] = (),
) -> PackedEvidence:
    """Pack ``pieces`` (stored text and docling metadata, in ranking order) for ``query`` within ``budget``;
    ``others``: the units' pieces that did not rank (``EvidenceChunker.pack(..., pieces=)``)."""
    delim = getattr(chunker, "delim", "\n")
    ranked = [chunk_from(text, meta, delim) for text, meta in pieces]
    extra = [chunk_from(text, meta, delim) for text, meta in others]
    hinted = hinted_scorer(hints, scorer) if hints else scorer
    return chunker.pack(query, ranked, budget, scorer=hinted, pieces=extra or None)


def block_metadata(block: PackedBlock, packed: PackedEvidence, extra: Mapping[str, Any]) -> dict[str, Any]:
    """JSON-safe metadata of one packed result: ``extra`` (the first piece's flat fields), ``unit_id``, ``kind``,
    ``page_span`` (the block's pages), the block under :data:`PACKED_KEY`, and the whole packing's token count."""
    return {
        **extra,
        "unit_id": block.unit_id or block.key,
        "kind": block.kind,
        "page_span": list(block.pages),
        PACKED_KEY: block.metadata(),
        "packed_tokens": packed.tokens,
        "packed_budget": packed.budget,
    }


def default_chunker(chunker: Any) -> Any:
    """``chunker``, or the default ``EvidenceChunker()`` (its tokenizer counts the budget): one instance per process,
    so its pack memo of token counts serves every query."""
    if chunker is not None:
        if not callable(getattr(chunker, "pack", None)):
            raise TypeError(f"chunker must be an EvidenceChunker (with pack), got {type(chunker).__name__}")
        return chunker
    from docling_evidence import pipeline

    return pipeline.default_chunker()
