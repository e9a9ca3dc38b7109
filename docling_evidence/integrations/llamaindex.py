"""LlamaIndex helpers for EvidenceChunker: embed ``contextualize(chunk)`` and max-pool retrieval by evidence unit.

``DoclingReader(export_type=DoclingReader.ExportType.JSON)`` + ``DoclingNodeParser(chunker=EvidenceChunker())`` works
unchanged and already puts ``page_span``, ``unit_id``, ``kind``, ``part``, ``parts`` at the top level of each node's
metadata. But ``DoclingNodeParser`` stores ``chunk.text`` as the node text and lets LlamaIndex prepend the non-excluded
metadata (``headings: [...]``) when embedding, which is not ``chunker.contextualize(chunk)``.
:class:`EvidenceNodeTransform` (or :func:`contextualize_nodes`) fixes that: the node text becomes
``contextualize(chunk)`` and every metadata key is excluded from the embedding and LLM text, so
``node.get_content(MetadataMode.EMBED) == chunker.contextualize(chunk)``.

:class:`MaxPoolPostprocessor` groups retrieved nodes by ``unit_id`` and keeps each unit once at its best score;
:class:`MaxPoolRetriever` wraps any retriever with it. ``EvidenceNodeTransform(views=True)`` (or
:func:`view_nodes`) adds one node per view of each chunk (its rows and sentences, ``EvidenceChunker.views``); the
postprocessor replaces a row view that ranks by its piece, looked up in the docstore.

Requires the ``llamaindex`` extra (``llama-index-core``, ``llama-index-node-parser-docling``; the reader also needs
``llama-index-readers-docling``).
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Sequence
from typing import Any

from docling_core.transforms.chunker import BaseChunker
from docling_core.transforms.chunker.doc_chunk import DocChunk
from llama_index.core.bridge.pydantic import ConfigDict, Field, PrivateAttr, model_validator
from llama_index.core.postprocessor.types import BaseNodePostprocessor
from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import (
    BaseNode,
    MetadataMode,
    NodeRelationship,
    NodeWithScore,
    QueryBundle,
    TextNode,
    TransformComponent,
)
from llama_index.core.storage.docstore.types import BaseDocumentStore

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
    block_metadata,
    default_chunker,
    pack_pieces,
    validate_budget,
    view_hints,
)

VIEW_FIELDS: tuple[str, ...] = ("page_span", "table_pages", "unit_id", "kind", "part", "parts", "caption")
"""Metadata a view node copies from its chunk (filters reach it like the chunk's)."""

CONTEXTUALIZED_KEY = "contextualized"
"""Metadata flag set on nodes whose text is already ``contextualize(chunk)`` (makes the transform idempotent)."""

NO_UNIT_ID_WARNING = (
    "MaxPoolPostprocessor: some nodes carry no 'unit_id' metadata (not chunked by EvidenceChunker); "
    "each of them is treated as a unit of its own."
)


def _default_chunker() -> BaseChunker:
    from docling_evidence import EvidenceChunker

    return EvidenceChunker()


def _chunk_from_node(node: TextNode) -> DocChunk:
    from docling_evidence.meta import EvidenceChunk

    meta = {k: v for k, v in node.metadata.items() if k != CONTEXTUALIZED_KEY}
    chunk_cls = EvidenceChunk if "unit_id" in meta else DocChunk
    try:
        return chunk_cls.model_validate({"text": node.text, "meta": meta})
    except ValueError as exc:
        raise ValueError(
            f"node {node.node_id!r} does not carry Docling chunk metadata (was it made by DoclingNodeParser?): {exc}"
        ) from exc


def contextualize_nodes(nodes: Sequence[BaseNode], chunker: BaseChunker | None = None) -> list[BaseNode]:
    """Make each Docling chunk node embed exactly ``chunker.contextualize(chunk)``.

    For every ``TextNode`` made by ``DoclingNodeParser``: the chunk is rebuilt from the node (text + metadata), the
    node text becomes ``chunker.contextualize(chunk)``, and all metadata keys are excluded from the embedding and the
    LLM text (the metadata stays on the node for filtering). Nodes are modified in place and returned; nodes already
    processed (``metadata["contextualized"]``) and non-text nodes are passed through.

    Args:
        nodes: the output of ``DoclingNodeParser``.
        chunker: the chunker that made the nodes (``EvidenceChunker()`` when None).

    Raises:
        TypeError: if ``chunker`` is not a docling-core ``BaseChunker``.
        ValueError: if a text node has no Docling chunk metadata.
    """
    chunker = _default_chunker() if chunker is None else chunker
    if not isinstance(chunker, BaseChunker):
        raise TypeError(f"chunker must be a docling-core BaseChunker, got {type(chunker).__name__}")
    for node in nodes:
        if not isinstance(node, TextNode) or node.metadata.get(CONTEXTUALIZED_KEY) or node.metadata.get(VIEW_OF_KEY):
            continue
        node.text = chunker.contextualize(_chunk_from_node(node))
        node.metadata[CONTEXTUALIZED_KEY] = True
        keys = list(node.metadata)
        node.excluded_embed_metadata_keys = keys
        node.excluded_llm_metadata_keys = list(keys)
    return list(nodes)


def view_nodes(nodes: Sequence[BaseNode], chunker: BaseChunker | None = None) -> list[TextNode]:
    """One node per view of each chunk node among ``nodes`` (the output of ``DoclingNodeParser``): its rows and
    sentences (``EvidenceChunker.contextualize_views``), each within the chunker's token limit.

    A view node's id is ``"<chunk node id>:view<n>"``; its metadata holds the chunk's evidence fields plus ``view_of``
    (the chunk's node id), all excluded from the embedding and LLM text; it shares the chunk's source document, so
    deleting or updating the document removes its views too. Views already among ``nodes`` are not made again.
    Index them with the chunks; :class:`MaxPoolPostprocessor` returns the chunk when a view ranks.

    Raises:
        TypeError: if ``chunker`` is not a docling-core ``BaseChunker``.
        ValueError: if a text node has no Docling chunk metadata.
    """
    chunker = _default_chunker() if chunker is None else chunker
    if not isinstance(chunker, BaseChunker) or not hasattr(chunker, "contextualize_views"):
        raise TypeError(f"chunker must be an EvidenceChunker, got {type(chunker).__name__}")
    present = {node.node_id for node in nodes}
    out: list[TextNode] = []
    for node in nodes:
        if not isinstance(node, TextNode) or node.metadata.get(VIEW_OF_KEY) or not node.metadata.get("views"):
            continue
        if f"{node.node_id}:view0" in present:
            continue  # made before (the transform applied twice)
        chunk = _chunk_from_node(node)
        fields = {key: node.metadata[key] for key in VIEW_FIELDS if node.metadata.get(key) is not None}
        source = {k: v for k, v in node.relationships.items() if k == NodeRelationship.SOURCE}
        for n, text in enumerate(chunker.contextualize_views(chunk)):
            metadata = {**fields, VIEW_OF_KEY: node.node_id, VIEW_KEY: n}
            out.append(
                TextNode(
                    id_=f"{node.node_id}:view{n}",
                    text=text,
                    metadata=metadata,
                    excluded_embed_metadata_keys=list(metadata),
                    excluded_llm_metadata_keys=list(metadata),
                    relationships=dict(source),
                )
            )
    return out


class EvidenceNodeTransform(TransformComponent):
    """A LlamaIndex transformation applying :func:`contextualize_nodes`; put it right after ``DoclingNodeParser``.

    ``VectorStoreIndex.from_documents(docs, transformations=[DoclingNodeParser(chunker=c),
    EvidenceNodeTransform(chunker=c, views=True)])``
    """

    chunker: Any = Field(default=None, description="The chunker given to DoclingNodeParser (None: EvidenceChunker()).")
    views: bool = Field(default=False, description="Also emit the view nodes of each chunk node (see view_nodes).")

    def __call__(self, nodes: Sequence[BaseNode], **kwargs: Any) -> Sequence[BaseNode]:
        """Contextualize the nodes (see :func:`contextualize_nodes`); with ``views``, add their view nodes."""
        views = view_nodes(nodes, self.chunker) if self.views else []
        return [*contextualize_nodes(nodes, self.chunker), *views]


def _unit_of(hit: NodeWithScore) -> str | None:
    unit_id = hit.node.metadata.get("unit_id")
    return str(unit_id) if unit_id else None


def _view_of(hit: NodeWithScore) -> str | None:
    target = hit.node.metadata.get(VIEW_OF_KEY)
    return str(target) if target else None


def _part_of(node: BaseNode) -> int | None:
    part = node.metadata.get("part")
    return None if part is None else int(part)


class MaxPoolPostprocessor(BaseNodePostprocessor):
    """Keep each evidence unit once, at its best score, and return the ``top_n`` best units.

    Nodes are grouped by ``metadata["unit_id"]`` and ordered by their best score (higher is better; nodes without a
    score keep their input order after the scored ones). A view (:func:`view_nodes`) stands for its chunk, at its
    own score; when it is the unit's best hit, its text is in ``metadata["matched_view"]``. With ``reassemble=True``
    each returned node is the whole unit, what matched first: the view that scored best (when a view is the unit's
    best hit), then the piece that scored best, then the others in part order
    (``piece_order="best_first"``: without the view; ``"reading"``: all in part order), with the repeated frame
    (headings, caption, header row) kept once; missing pieces are
    looked up in ``docstore`` through the nodes' previous/next relationships when a docstore is given (for instance
    ``index.docstore``). ``metadata["parts_found"]`` lists the parts joined.

    With ``budget`` (tokens of ``chunker``'s tokenizer), the ``top_n`` units' nodes, in ranking order, with the units'
    other pieces from ``docstore`` (``unit_pieces``), are packed (``EvidenceChunker.pack``, docs/packing.md): each
    returned node is one unit's packed evidence (caption, header and
    the rows that match, the explaining sentences, the footnotes that change what the numbers mean), all of them
    together within ``budget``, at the unit's best score; the row or sentence of a view that ranked is taken
    first. Its metadata (kept out of the embedded and LLM text): the first node's flat fields, ``page_span`` (the pages
    of what is delivered) and ``metadata["packed"]`` (doc refs, rows, sentence spans, pages, boxes). The query is
    needed (``query_bundle``). Without ``budget`` nothing changes.

    Nodes without ``unit_id`` are each their own unit; a single warning (per postprocessor) says so.

    Raises:
        ValueError: if ``top_n <= 0``.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    top_n: int = Field(default=4, description="Number of distinct units to return.")
    reassemble: bool = Field(default=False, description="Return each unit re-assembled from its pieces.")
    piece_order: PieceOrder = Field(
        default="match_first",
        description="Re-assembled: the view that matched, then the best piece ('match_first'); the best piece first "
        "('best_first'); or 'reading' (part order).",
    )
    docstore: BaseDocumentStore | None = Field(default=None, description="Where to look up missing pieces.")
    vector_store: Any = Field(
        default=None,
        description="Where to look up a view's chunk when the docstore lacks it (a vector store that keeps the text).",
    )

    budget: int | None = Field(default=None, description="Pack the units' evidence into this many tokens.")
    chunker: Any = Field(default=None, description="The EvidenceChunker whose tokenizer counts the budget.")
    unit_pieces: bool = Field(
        default=True,
        description="With budget: also pack the units' pieces that were not among the candidates (from the docstore).",
    )
    scorer: Any = Field(default=None, description="scorer(query, texts) -> scores for packing (default: lexical).")

    _warned: bool = PrivateAttr(default=False)

    @model_validator(mode="after")
    def _check_top_n(self) -> MaxPoolPostprocessor:
        validate_k(self.top_n)
        validate_budget(self.budget)
        return self

    @classmethod
    def class_name(cls) -> str:
        """LlamaIndex component name."""
        return "MaxPoolPostprocessor"

    def _postprocess_nodes(
        self, nodes: list[NodeWithScore], query_bundle: QueryBundle | None = None
    ) -> list[NodeWithScore]:
        units = max_pool(nodes, unit_of=_unit_of, score_of=lambda hit: hit.score, k=self.top_n)
        if not self._warned and any(not unit.has_unit_id for unit in units):
            self._warned = True
            warnings.warn(NO_UNIT_ID_WARNING, UserWarning, stacklevel=2)
        wanted = view_targets(units, _view_of)
        chunks = self._fetch(wanted) if wanted else {}
        if self.budget is not None:
            return self._packed_nodes(nodes, units, chunks, query_bundle)
        return [self._unit_node(unit, chunks) for unit in units]

    def _packed_nodes(
        self,
        nodes: list[NodeWithScore],
        units: list[PooledUnit[NodeWithScore]],
        chunks: dict[str, BaseNode],
        query_bundle: QueryBundle | None,
    ) -> list[NodeWithScore]:
        """One node per unit: its nodes among the candidates, packed with the others' within ``budget``."""
        if query_bundle is None:
            raise ValueError("MaxPoolPostprocessor(budget=...) packs for a query: pass query_bundle (or query_str)")
        pieces: list[tuple[NodeWithScore, float | None]] = []
        others: list[BaseNode] = []  # the units' pieces that were not among the candidates
        for unit in units:
            as_chunk = lambda hit, t: NodeWithScore(node=chunks[t], score=hit.score)  # noqa: E731
            unit_hits = chunk_hits(unit, _view_of, lambda hit: hit.node.node_id, as_chunk)
            pieces += [(hit, unit.score) for hit in unit_hits]
            if self.unit_pieces and unit.has_unit_id:
                ranked = [hit.node for hit in unit_hits]
                others += self._complete_pieces(ranked)[len(ranked) :]
        hints = view_hints((hit.node.get_content(MetadataMode.NONE), _view_of(hit) is not None) for hit in nodes)
        entries = [(hit.node.get_content(MetadataMode.NONE), hit.node.metadata) for hit, _ in pieces]
        more = [(node.get_content(MetadataMode.NONE), node.metadata) for node in others]
        chunker = default_chunker(self.chunker)
        packed = pack_pieces(chunker, query_bundle.query_str, entries, self.budget, hints, self.scorer, more)
        out: list[NodeWithScore] = []
        for block in packed.blocks:
            first, score = pieces[block.ranks[0]]
            flat = {k: first.node.metadata[k] for k in VIEW_FIELDS if k in first.node.metadata}
            metadata = block_metadata(block, packed, flat)
            node = TextNode(
                id_=f"{block.key}:packed",
                text=block.text,
                metadata=metadata,
                excluded_embed_metadata_keys=list(metadata),
                excluded_llm_metadata_keys=list(metadata),
                relationships={k: v for k, v in first.node.relationships.items() if k == NodeRelationship.SOURCE},
            )
            out.append(NodeWithScore(node=node, score=score))
        return out

    def _fetch(self, node_ids: list[str]) -> dict[str, BaseNode]:
        """The chunks of the views, from the docstore, else from a vector store that keeps the text."""
        found: dict[str, BaseNode] = {}
        for node_id in node_ids:
            node = self.docstore.get_node(node_id, raise_error=False) if self.docstore is not None else None
            if node is not None:
                found[node_id] = node
        missing = [i for i in node_ids if i not in found]
        if missing and self.vector_store is not None and getattr(self.vector_store, "stores_text", False):
            with contextlib.suppress(NotImplementedError):
                found.update({n.node_id: n for n in self.vector_store.get_nodes(node_ids=missing)})
        lost = [i for i in node_ids if i not in found]
        if lost:
            raise ValueError(
                f"the chunk {lost[0]!r} of a retrieved view is in neither the docstore nor the vector store: use "
                "MaxPoolRetriever.from_index(index), or give MaxPoolPostprocessor docstore=index.docstore (with a "
                "vector store that keeps the text, vector_store=index.vector_store, or build the index with "
                "store_nodes_override=True)"
            )
        return found

    def _unit_node(self, unit: PooledUnit[NodeWithScore], chunks: dict[str, BaseNode]) -> NodeWithScore:
        # a view hit counts for its unit at its own score, and stands for the chunk it retrieves
        hits = chunk_hits(
            unit, _view_of, lambda hit: hit.node.node_id, lambda hit, t: NodeWithScore(node=chunks[t], score=hit.score)
        )
        matched = matched_view(unit, _view_of, lambda hit: hit.node.get_content(MetadataMode.NONE))
        if not self.reassemble or not unit.has_unit_id:
            return _with_matched(hits[0], matched)
        pieces, text = reassemble(
            self._complete_pieces([hit.node for hit in hits]),
            part_of=_part_of,
            text_of=lambda node: node.get_content(MetadataMode.NONE),
            best=hits[0].node,
            matched=matched,
            piece_order=self.piece_order,
        )
        first = pieces[0]
        metadata = {
            "page_span": [],
            **merge_piece_metadata([node.metadata for node in pieces]),  # page_span: every piece's pages
            "part": 0,
            "parts_found": [_part_of(n) or 0 for n in pieces],
            **({MATCHED_VIEW_KEY: matched} if matched else {}),
        }
        merged = TextNode(
            id_=f"{unit.key}:merged",
            text=text,
            metadata=metadata,
            excluded_embed_metadata_keys=list(metadata),
            excluded_llm_metadata_keys=list(metadata),
            relationships={k: v for k, v in first.relationships.items() if k == NodeRelationship.SOURCE},
        )
        return NodeWithScore(node=merged, score=unit.score)

    def _complete_pieces(self, pieces: list[BaseNode]) -> list[BaseNode]:
        parts = int(pieces[0].metadata.get("parts", 1))
        if self.docstore is None or len({_part_of(n) for n in pieces}) >= parts:
            return pieces
        unit_id = pieces[0].metadata.get("unit_id")
        found = {node.node_id: node for node in pieces}
        # Pieces of a unit are consecutive in reading order, so walk the prev/next links while the unit_id matches.
        for start in pieces:
            for rel in (NodeRelationship.PREVIOUS, NodeRelationship.NEXT):
                node = start
                while rel in node.relationships:
                    node_id = node.relationships[rel].node_id
                    neighbour = found.get(node_id) or self.docstore.get_node(node_id, raise_error=False)
                    if neighbour is None or neighbour.metadata.get("unit_id") != unit_id:
                        break
                    found[node_id] = neighbour
                    node = neighbour
        return list(found.values())


def _with_matched(hit: NodeWithScore, matched: str | None) -> NodeWithScore:
    """``hit``, its node copied with ``metadata["matched_view"]`` (kept out of the embedded and LLM text) when a view
    ranked; the stored node is left as it is."""
    if not matched:
        return hit
    node = hit.node
    metadata = {**node.metadata, MATCHED_VIEW_KEY: matched}
    copy = node.model_copy(
        update={
            "metadata": metadata,
            "excluded_embed_metadata_keys": [*node.excluded_embed_metadata_keys, MATCHED_VIEW_KEY],
            "excluded_llm_metadata_keys": [*node.excluded_llm_metadata_keys, MATCHED_VIEW_KEY],
        }
    )
    return NodeWithScore(node=copy, score=hit.score)


class MaxPoolRetriever(BaseRetriever):
    """Wrap a retriever that returns many candidates (``similarity_top_k = fetch_k``) and keep ``k`` distinct units.

    Use :meth:`from_index` for a ``VectorStoreIndex``: it fetches ``fetch_k`` nodes and can re-assemble units from the
    index's docstore.

    Raises:
        ValueError: if ``k <= 0``.
    """

    def __init__(
        self,
        retriever: BaseRetriever,
        k: int = 4,
        reassemble: bool = False,
        docstore: BaseDocumentStore | None = None,
        piece_order: PieceOrder = "match_first",
        vector_store: Any = None,
        budget: int | None = None,
        chunker: Any = None,
        unit_pieces: bool = True,
        scorer: Any = None,
        **kwargs: Any,
    ) -> None:
        """Wrap ``retriever``; see :class:`MaxPoolPostprocessor` for ``reassemble``, ``piece_order``, ``docstore``,
        ``vector_store``, ``budget``, ``chunker``, ``unit_pieces`` and ``scorer``."""
        if not isinstance(retriever, BaseRetriever):
            raise TypeError(f"retriever must be a LlamaIndex BaseRetriever, got {type(retriever).__name__}")
        self._inner = retriever
        self._pool = MaxPoolPostprocessor(
            top_n=k,
            reassemble=reassemble,
            docstore=docstore,
            piece_order=piece_order,
            vector_store=vector_store,
            budget=budget,
            chunker=chunker,
            unit_pieces=unit_pieces,
            scorer=scorer,
        )
        super().__init__(**kwargs)

    @classmethod
    def from_index(
        cls,
        index: Any,
        k: int = 4,
        fetch_k: int = 20,
        reassemble: bool = False,
        piece_order: PieceOrder = "match_first",
        budget: int | None = None,
        chunker: Any = None,
        unit_pieces: bool = True,
        scorer: Any = None,
    ) -> MaxPoolRetriever:
        """Max-pool retriever over a ``VectorStoreIndex``: fetch ``fetch_k`` nodes, return ``k`` units (packed into
        ``budget`` tokens when given, see :class:`MaxPoolPostprocessor`).

        Raises:
            ValueError: if ``k <= 0`` or ``fetch_k < k``.
        """
        validate_k(k, fetch_k)
        return cls(
            index.as_retriever(similarity_top_k=fetch_k),
            k=k,
            reassemble=reassemble,
            docstore=index.docstore,
            piece_order=piece_order,
            vector_store=getattr(index, "vector_store", None),
            budget=budget,
            chunker=chunker,
            unit_pieces=unit_pieces,
            scorer=scorer,
        )

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return self._pool.postprocess_nodes(self._inner.retrieve(query_bundle), query_bundle=query_bundle)
