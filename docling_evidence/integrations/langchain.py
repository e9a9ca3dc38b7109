"""LangChain helpers for EvidenceChunker: flat metadata, stable ids and a max-pool retriever.

``langchain_docling.DoclingLoader(file_path=..., chunker=EvidenceChunker(), export_type=ExportType.DOC_CHUNKS)``
works unchanged: its ``page_content`` is ``chunker.contextualize(chunk)`` (the text to embed) and its metadata holds the
whole chunk metadata under ``dl_meta``. This module adds:

- :class:`EvidenceMetaExtractor` (pass as ``meta_extractor=``) and :func:`flatten_evidence_metadata`, which copy
  ``page_span``, ``table_pages``, ``unit_id``, ``kind``, ``part``, ``parts`` (and ``caption`` when set) to the top level
  of the metadata, where vector-store filters can reach them;
- :func:`evidence_ids`, stable ids for ``vectorstore.add_documents(docs, ids=...)`` that let the retriever fetch the
  missing pieces of a unit when it re-assembles one;
- :func:`view_documents`, one Document per view of each chunk (its rows and sentences, ``EvidenceChunker.views``): add
  them beside the chunk Documents (with :func:`evidence_ids`) and a row view that ranks retrieves its piece;
- :class:`MaxPoolRetriever`, a ``BaseRetriever`` over any vector store that fetches ``fetch_k`` candidates and returns
  ``k`` distinct units (a row view hit is replaced by its piece); with ``budget=`` it returns the units' evidence packed
  into that many tokens (``EvidenceChunker.pack``), one Document per unit.

Requires the ``langchain`` extra (``langchain-core``; ``langchain-docling`` for the loader parts).
"""

from __future__ import annotations

import hashlib
import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from langchain_core.vectorstores import VectorStore
from pydantic import ConfigDict, Field, PrivateAttr, model_validator

from docling_evidence.integrations.maxpool import (
    MATCHED_VIEW_KEY,
    VIEW_KEY,
    VIEW_OF_KEY,
    PieceOrder,
    PooledUnit,
    chunk_hits,
    matched_view,
    max_pool,
    merge_piece_metadata,
    reassemble,
    validate_k,
    view_targets,
)
from docling_evidence.integrations.packing import (
    PACKED_KEY,
    block_metadata,
    default_chunker,
    pack_pieces,
    validate_budget,
    view_hints,
)

FLAT_FIELDS: tuple[str, ...] = ("page_span", "table_pages", "unit_id", "kind", "part", "parts")
"""Evidence fields copied from ``dl_meta`` to the top level of a Document's metadata."""

OPTIONAL_FLAT_FIELDS: tuple[str, ...] = ("caption",)
"""Copied too, but only when set (many vector stores reject ``None`` metadata values)."""

SCORE_KEY = "score"
"""Metadata key where :class:`MaxPoolRetriever` puts the unit's best score (when the vector store gives scores)."""

NO_UNIT_ID_WARNING = (
    "MaxPoolRetriever: some retrieved Documents carry no 'unit_id' (not chunked by EvidenceChunker, or metadata not "
    "flattened); each of them is treated as a unit of its own."
)


def flat_evidence_fields(dl_meta: Mapping[str, Any]) -> dict[str, Any]:
    """Return the flat evidence fields found in a chunk's exported metadata (``chunk.meta.export_json_dict()``)."""
    flat = {key: dl_meta[key] for key in FLAT_FIELDS if key in dl_meta}
    flat.update({key: dl_meta[key] for key in OPTIONAL_FLAT_FIELDS if dl_meta.get(key) is not None})
    for key in ("page_span", "table_pages"):
        if key in flat:
            flat[key] = [int(page) for page in flat[key]]
    return flat


def flatten_evidence_metadata(docs: Iterable[Document]) -> list[Document]:
    """Copy the evidence fields of each Document's ``dl_meta`` to the top level of its metadata.

    Returns new Documents (the input is not modified); ``dl_meta`` and any other key are kept. A Document whose
    ``dl_meta`` has no evidence fields (another chunker) is returned with its metadata unchanged.

    Raises:
        TypeError: if an item is not a LangChain ``Document``.
    """
    out: list[Document] = []
    for doc in docs:
        if not isinstance(doc, Document):
            raise TypeError(f"expected langchain_core Document objects, got {type(doc).__name__}")
        dl_meta = doc.metadata.get("dl_meta")
        flat = flat_evidence_fields(dl_meta) if isinstance(dl_meta, Mapping) else {}
        out.append(Document(page_content=doc.page_content, metadata={**doc.metadata, **flat}, id=doc.id))
    return out


def _evidence_meta_extractor_class() -> type:
    # Built on first access (module __getattr__), so the retriever needs langchain-core only, not langchain-docling.
    from langchain_docling.loader import MetaExtractor

    class EvidenceMetaExtractor(MetaExtractor):
        """``DoclingLoader`` meta extractor: the default metadata (``source``, ``dl_meta``) plus flat evidence fields.

        Usage: ``DoclingLoader(file_path=..., chunker=EvidenceChunker(), meta_extractor=EvidenceMetaExtractor())``.
        """

        def extract_chunk_meta(self, file_path: str, chunk: Any) -> dict[str, Any]:
            """Return ``{"source", "dl_meta", "page_span", "table_pages", "unit_id", "kind", "part", "parts"[,
            "caption"]}``."""
            meta = super().extract_chunk_meta(file_path, chunk)
            meta.update(flat_evidence_fields(meta["dl_meta"]))
            return meta

    EvidenceMetaExtractor.__module__ = __name__
    return EvidenceMetaExtractor


_LAZY: dict[str, Any] = {}


def __getattr__(name: str) -> Any:
    """Provide ``EvidenceMetaExtractor`` lazily (it subclasses ``langchain_docling``'s ``MetaExtractor``)."""
    if name == "EvidenceMetaExtractor":
        if name not in _LAZY:
            _LAZY[name] = _evidence_meta_extractor_class()
        return _LAZY[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def piece_id(metadata: Mapping[str, Any]) -> str | None:
    """Stable id of one piece of one unit in one source: ``"<source hash>:<unit_id>:<part>"``; None without unit_id.

    Works on flattened metadata or on metadata that only has ``dl_meta``.
    """
    fields = _evidence(metadata)
    unit_id = fields.get("unit_id")
    if not unit_id:
        return None
    source = str(metadata.get("source", ""))
    digest = hashlib.sha1(source.encode("utf-8")).hexdigest()[:12]
    return f"{digest}:{unit_id}:{int(fields.get('part', 0))}"


def evidence_ids(docs: Sequence[Document]) -> list[str]:
    """Ids for ``vectorstore.add_documents(docs, ids=evidence_ids(docs))``.

    With these ids :class:`MaxPoolRetriever` can fetch the piece of a row view that ranked, and (``reassemble=True``)
    the pieces of a unit that were not among the candidates (``vectorstore.get_by_ids``). A row view gets
    ``"<piece id>:view<n>"``; Documents without ``unit_id`` get ``"<source hash>:#<index>"``.

    Raises:
        ValueError: if two Documents would get the same id (the same chunk loaded twice).
    """
    ids: list[str] = []
    for index, doc in enumerate(docs):
        view_of = doc.metadata.get(VIEW_OF_KEY)
        pid = f"{view_of}:view{int(doc.metadata.get(VIEW_KEY, 0))}" if view_of else piece_id(doc.metadata)
        if pid is None:
            source = str(doc.metadata.get("source", ""))
            pid = f"{hashlib.sha1(source.encode('utf-8')).hexdigest()[:12]}:#{index}"
        ids.append(pid)
    if len(set(ids)) != len(ids):
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        raise ValueError(f"duplicate evidence ids (same chunk given twice?): {dupes[:3]}")
    return ids


def view_documents(docs: Iterable[Document], chunker: Any = None) -> list[Document]:
    """One Document per view of each chunk among ``docs`` (the loader's Documents, with ``dl_meta``): rows, sentences.

    A view's ``page_content`` is ``chunker.contextualize_views(chunk)``: the row's text under the piece's headings
    (and caption), within the chunker's token limit. Its metadata is the piece's (without ``dl_meta``, with the flat
    evidence fields) plus ``view_of`` (the piece's :func:`piece_id`) and ``view`` (its position). Add them to the
    same vector store as the pieces, both with :func:`evidence_ids`; :class:`MaxPoolRetriever` pools a view with its
    unit and returns the piece, never the view alone (re-assembled, what matched leads: ``piece_order``).

    Args:
        docs: Documents loaded with ``DoclingLoader(chunker=EvidenceChunker(), export_type=ExportType.DOC_CHUNKS)``.
        chunker: the chunker that made them (``EvidenceChunker()`` when None): its ``delim`` and headings rule build
            the view text.

    Raises:
        TypeError: if an item is not a LangChain ``Document``.
    """
    from docling_evidence import EvidenceChunker
    from docling_evidence.meta import EvidenceChunk

    chunker = EvidenceChunker() if chunker is None else chunker
    out: list[Document] = []
    for doc in docs:
        if not isinstance(doc, Document):
            raise TypeError(f"expected langchain_core Document objects, got {type(doc).__name__}")
        dl_meta = doc.metadata.get("dl_meta")
        if not isinstance(dl_meta, Mapping) or not dl_meta.get("views"):
            continue
        chunk = EvidenceChunk.model_validate({"text": "", "meta": dl_meta})
        base = {key: value for key, value in doc.metadata.items() if key != "dl_meta"}
        base.update(flat_evidence_fields(dl_meta))
        pid = piece_id(doc.metadata)
        for n, text in enumerate(chunker.contextualize_views(chunk)):
            out.append(Document(page_content=text, metadata={**base, VIEW_OF_KEY: pid, VIEW_KEY: n}))
    return out


def _evidence(metadata: Mapping[str, Any]) -> dict[str, Any]:
    # Flat keys win; otherwise read them from dl_meta, so un-flattened Documents pool correctly too.
    dl_meta = metadata.get("dl_meta")
    fields = flat_evidence_fields(dl_meta) if isinstance(dl_meta, Mapping) else {}
    fields.update({key: metadata[key] for key in (*FLAT_FIELDS, *OPTIONAL_FLAT_FIELDS) if key in metadata})
    return fields


def _unit_of(hit: tuple[Document, float | None]) -> str | None:
    unit_id = _evidence(hit[0].metadata).get("unit_id")
    return str(unit_id) if unit_id else None


def _view_of(hit: tuple[Document, float | None]) -> str | None:
    target = hit[0].metadata.get(VIEW_OF_KEY)
    return str(target) if target else None


class MaxPoolRetriever(BaseRetriever):
    """Retrieve ``k`` distinct evidence units from any LangChain vector store.

    It fetches ``fetch_k`` candidates (with scores when the store offers ``similarity_search_with_score``), groups
    them by ``unit_id`` keeping each unit's best-ranked piece, and returns the ``k`` best units. Ranking follows the
    store's own order (best first), so it is correct whether the store's scores are similarities or distances; the
    score of the best piece is put in ``metadata["score"]``.

    A row or sentence view among the candidates (:func:`view_documents`) counts for its unit at its own rank and
    score, and is replaced by its piece (fetched with ``vectorstore.get_by_ids`` unless the piece is among the
    candidates); when it is the unit's best hit, its text is in ``metadata["matched_view"]``.

    With ``reassemble=True`` each returned Document is the whole unit, what matched first: the view that ranked (when
    a view is the unit's best hit), then the piece that ranked first, then the others in part order, the repeated
    frame (headings, caption, header row) kept once, so that a reader with a token budget gets the matching row or
    sentence first. ``piece_order="best_first"`` leaves the view out; ``"reading"`` joins every piece in part order.
    Pieces that were not among the candidates are fetched with ``vectorstore.get_by_ids`` when the Documents were
    added with :func:`evidence_ids`; ``metadata["parts_found"]`` lists the parts actually joined, in the order joined.

    With ``budget`` (tokens of ``chunker``'s tokenizer), the ``k`` units' pieces among the candidates, in ranking
    order, with the units' other pieces (``unit_pieces``), are packed (``EvidenceChunker.pack``, docs/packing.md):
    each returned Document is one unit's packed
    evidence (caption, header and the rows that match, the explaining sentences, the footnotes that change what the
    numbers mean), all of them together within ``budget``; the row or sentence of a view that ranked is taken first
    (its rank is the score the packer adds). Its metadata: the first piece's flat fields, ``page_span`` (the pages of
    what is delivered), ``metadata["packed"]`` (doc refs, rows, sentence spans, pages, boxes: JSON values) and
    ``score``. Without ``budget`` nothing changes.

    Documents without ``unit_id`` are each their own unit; a single warning (per retriever) says so.

    Raises:
        ValueError: if ``k <= 0``, ``fetch_k < k`` or ``budget`` is not None or an int >= 1; at retrieval, if a row
            view's piece cannot be fetched (a store without ``get_by_ids``, or pieces not added with
            :func:`evidence_ids`).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    vectorstore: VectorStore
    k: int = 4
    fetch_k: int = 20
    reassemble: bool = False
    piece_order: PieceOrder = "match_first"
    """With ``reassemble``: the view that ranked, then the best-ranked piece, then the others (default); the
    best-ranked piece first (``"best_first"``); or every piece in part order (``"reading"``)."""
    search_kwargs: dict[str, Any] = Field(default_factory=dict)
    """Extra keyword arguments for the vector store search (for instance a metadata ``filter``)."""
    budget: int | None = None
    """Pack the units' evidence into this many tokens (``EvidenceChunker.pack``); None returns pieces or units."""
    chunker: Any = None
    """The ``EvidenceChunker`` whose tokenizer counts ``budget`` (default ``EvidenceChunker()``)."""
    scorer: Any = None
    """``scorer(query, texts) -> scores`` for packing (default: the packer's lexical scorer)."""
    unit_pieces: bool = True
    """With ``budget``: also give the packer the units' pieces that were not among the candidates (fetched with
    ``vectorstore.get_by_ids`` when the Documents were added with :func:`evidence_ids`), so a unit whose
    caption-and-context piece ranked can deliver the row that matches from another piece."""

    _warned: bool = PrivateAttr(default=False)

    @model_validator(mode="after")
    def _check_k(self) -> MaxPoolRetriever:
        validate_k(self.k, self.fetch_k)
        validate_budget(self.budget)
        return self

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        hits = self._search(query)
        units = max_pool(hits, unit_of=_unit_of, k=self.k)
        if not self._warned and any(not unit.has_unit_id for unit in units):
            self._warned = True
            warnings.warn(NO_UNIT_ID_WARNING, UserWarning, stacklevel=2)
        chunks = self._view_chunks(units)
        if self.budget is not None:
            return self._packed_documents(query, hits, units, chunks)
        return [self._unit_document(unit, chunks) for unit in units]

    def _packed_documents(
        self,
        query: str,
        hits: list[tuple[Document, float | None]],
        units: list[PooledUnit[tuple[Document, float | None]]],
        chunks: Mapping[str, Document],
    ) -> list[Document]:
        """One Document per unit: its pieces among the candidates, packed with the others' within ``budget``."""
        pieces: list[tuple[Document, float | None]] = []
        others: list[Document] = []  # the units' pieces that were not among the candidates
        for unit in units:
            as_chunk = lambda hit, pid: (chunks[pid], hit[1])  # noqa: E731
            ranked_hits = chunk_hits(unit, _view_of, lambda hit: piece_id(hit[0].metadata), as_chunk)
            pieces += ranked_hits
            if self.unit_pieces and unit.has_unit_id:
                ranked = [doc for doc, _ in ranked_hits]
                others += self._complete_pieces(ranked)[len(ranked) :]
        chunker = default_chunker(self.chunker)
        hints = view_hints((doc.page_content, _view_of((doc, None)) is not None) for doc, _ in hits)
        entries = [(doc.page_content, _docling_meta(doc)) for doc, _ in pieces]
        more = [(doc.page_content, _docling_meta(doc)) for doc in others]
        packed = pack_pieces(chunker, query, entries, self.budget, hints, self.scorer, more)
        out: list[Document] = []
        for block in packed.blocks:
            first, score = pieces[block.ranks[0]]
            flat = {k: v for k, v in first.metadata.items() if k not in ("dl_meta", PACKED_KEY)}
            metadata = block_metadata(block, packed, flat)
            if score is not None:
                metadata[SCORE_KEY] = float(score)
            out.append(Document(page_content=block.text, metadata=metadata))
        return out

    def _search(self, query: str) -> list[tuple[Document, float | None]]:
        try:
            return list(self.vectorstore.similarity_search_with_score(query, k=self.fetch_k, **self.search_kwargs))
        except NotImplementedError:
            docs = self.vectorstore.similarity_search(query, k=self.fetch_k, **self.search_kwargs)
            return [(doc, None) for doc in docs]

    def _view_chunks(self, units: list[PooledUnit[tuple[Document, float | None]]]) -> dict[str, Document]:
        """The chunks that the view hits of ``units`` retrieve, by :func:`piece_id`: those among the candidates, the
        others fetched in one ``get_by_ids`` call."""
        wanted = view_targets(units, _view_of)
        if not wanted:
            return {}
        have = {
            pid: doc
            for unit in units
            for doc, _ in unit.hits
            if _view_of((doc, None)) is None and (pid := piece_id(doc.metadata)) in wanted
        }
        missing = [pid for pid in wanted if pid not in have]
        if missing:
            try:
                found = self.vectorstore.get_by_ids(missing)
            except NotImplementedError:
                raise ValueError(
                    f"{type(self.vectorstore).__name__} has no get_by_ids: row views need a vector store that can "
                    "fetch a piece by id (or index the chunks without view_documents)"
                ) from None
            have.update({piece_id(d.metadata): d for d in found})
            lost = [pid for pid in missing if pid not in have]
            if lost:
                raise ValueError(
                    f"the piece {lost[0]!r} of a retrieved row view is not in the vector store: add the chunk "
                    "Documents with ids=evidence_ids(docs)"
                )
        return have

    def _unit_document(
        self, unit: PooledUnit[tuple[Document, float | None]], chunks: Mapping[str, Document]
    ) -> Document:
        hits = chunk_hits(unit, _view_of, lambda hit: piece_id(hit[0].metadata), lambda hit, pid: (chunks[pid], hit[1]))
        best_doc, best_score = hits[0]
        matched = matched_view(unit, _view_of, lambda hit: hit[0].page_content)
        found = {MATCHED_VIEW_KEY: matched} if matched else {}
        if not self.reassemble or not unit.has_unit_id:
            return _with_score(best_doc, best_score, found)
        ordered, text = reassemble(
            self._complete_pieces([doc for doc, _ in hits]),
            part_of=lambda doc: _evidence(doc.metadata).get("part"),
            text_of=lambda doc: doc.page_content,
            best=best_doc,
            matched=matched,
            piece_order=self.piece_order,
        )
        first = ordered[0]
        extra: dict[str, Any] = {
            "page_span": [],
            **merge_piece_metadata([_evidence(doc.metadata) for doc in ordered]),  # page_span: every piece's pages
            "part": 0,
            "parts_found": [int(_evidence(doc.metadata).get("part", 0)) for doc in ordered],
            **found,
        }
        dl_metas = [doc.metadata["dl_meta"] for doc in ordered if isinstance(doc.metadata.get("dl_meta"), Mapping)]
        if dl_metas:  # docling's metadata of the whole unit: every piece's doc items, rows, roles and spans
            extra["dl_meta"] = {**merge_piece_metadata(dl_metas), "part": 0}
        merged = Document(page_content=text, metadata=first.metadata)
        return _with_score(merged, best_score, extra)

    def _complete_pieces(self, pieces: list[Document]) -> list[Document]:
        fields = _evidence(pieces[0].metadata)
        parts = int(fields.get("parts", 1))
        have = {int(_evidence(doc.metadata).get("part", 0)) for doc in pieces}
        missing = [part for part in range(parts) if part not in have]
        if not missing:
            return pieces
        base = dict(pieces[0].metadata)
        wanted = []
        for part in missing:
            meta = {**base, "unit_id": fields["unit_id"], "part": part}
            meta.pop("dl_meta", None)
            pid = piece_id(meta)
            if pid is not None:
                wanted.append(pid)
        try:
            found = self.vectorstore.get_by_ids(wanted)
        except NotImplementedError:
            return pieces
        same_unit = [doc for doc in found if _evidence(doc.metadata).get("unit_id") == fields["unit_id"]]
        return pieces + same_unit


def _docling_meta(doc: Document) -> Mapping[str, Any]:
    """docling's metadata of a chunk Document (``dl_meta``), else its flat evidence fields."""
    dl_meta = doc.metadata.get("dl_meta")
    return dl_meta if isinstance(dl_meta, Mapping) else _evidence(doc.metadata)


def _with_score(doc: Document, score: float | None, extra: Mapping[str, Any]) -> Document:
    metadata = {**doc.metadata, **extra}
    if score is not None:
        metadata[SCORE_KEY] = float(score)
    return Document(page_content=doc.page_content, metadata=metadata, id=doc.id)
