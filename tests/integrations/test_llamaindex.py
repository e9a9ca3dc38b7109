"""LlamaIndex: DoclingNodeParser with EvidenceChunker, embedding text, max-pool postprocessor."""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("llama_index.core")
pytest.importorskip("llama_index.node_parser.docling")

from llama_index.core import Document as LIDocument
from llama_index.core import VectorStoreIndex
from llama_index.core.bridge.pydantic import Field
from llama_index.core.embeddings import BaseEmbedding
from llama_index.core.schema import MetadataMode, NodeWithScore, TextNode
from llama_index.node_parser.docling import DoclingNodeParser

from docling_evidence.integrations.llamaindex import (
    EvidenceNodeTransform,
    MaxPoolPostprocessor,
    MaxPoolRetriever,
    contextualize_nodes,
)

FLAT = ("page_span", "table_pages", "unit_id", "kind", "part", "parts")
QUERY = "which vessel has a Panama flag and what tonnage"


class HashEmbedding(BaseEmbedding):
    """LlamaIndex wrapper of the test hashing embedding; records every text it embeds."""

    fn: Any = None
    seen: list[str] = Field(default_factory=list)

    def _get_text_embedding(self, text: str) -> list[float]:
        self.seen.append(text)
        return self.fn(text)

    def _get_query_embedding(self, query: str) -> list[float]:
        return self.fn(query)

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self.fn(query)


def hash_model(embed: Callable[[str], list[float]]) -> HashEmbedding:
    return HashEmbedding(fn=embed, seen=[], model_name="hash")


def li_document(dl_doc: Any) -> LIDocument:
    """What ``DoclingReader(export_type=JSON)`` makes of a converted document."""
    return LIDocument(text=json.dumps(dl_doc.export_to_dict()))


def parse(chunker: Any, dl_doc: Any) -> list[Any]:
    nodes = DoclingNodeParser(chunker=chunker).get_nodes_from_documents([li_document(dl_doc)])
    return contextualize_nodes(nodes, chunker)


def build_index(chunker: Any, dl_doc: Any, embed: Any) -> VectorStoreIndex:
    return VectorStoreIndex.from_documents(
        [li_document(dl_doc)],
        transformations=[DoclingNodeParser(chunker=chunker), EvidenceNodeTransform(chunker=chunker)],
        embed_model=hash_model(embed),
    )


# ---------------------------------------------------------------------------------------------------------------------
# Converted documents through the node parser, end to end (as DoclingReader(export_type=JSON) hands them over)


def _check_nodes(nodes: list[Any], chunker: Any, dl_doc: Any) -> None:
    chunks = list(chunker.chunk(dl_doc))
    assert len(nodes) == len(chunks) > 0
    for node, chunk in zip(nodes, chunks, strict=True):
        assert node.get_content(MetadataMode.EMBED) == chunker.contextualize(chunk)
        assert {key: node.metadata[key] for key in FLAT} == {key: getattr(chunk.meta, key) for key in FLAT}


def test_parser_on_html_converted_offline(example_html: Path, converter: Any) -> None:
    from docling_evidence import EvidenceChunker

    chunker = EvidenceChunker()
    dl_doc = converter.convert(str(example_html)).document
    nodes = parse(chunker, dl_doc)
    _check_nodes(nodes, chunker, dl_doc)
    assert any(n.metadata["parts"] > 1 for n in nodes)


def test_parser_on_real_fixture_json(fixture_json: Path, converter: Any) -> None:
    from docling_core.types.doc import DoclingDocument

    from docling_evidence import EvidenceChunker

    chunker = EvidenceChunker()
    dl_doc = converter.convert(str(fixture_json)).document
    nodes = parse(chunker, dl_doc)
    _check_nodes(nodes, chunker, DoclingDocument.load_from_json(fixture_json))
    assert all(n.metadata["page_span"] for n in nodes if n.metadata["kind"] == "table")


def test_raw_parser_does_not_embed_contextualize_but_the_transform_does(fleet_doc: Any, chunker: Any) -> None:
    raw = DoclingNodeParser(chunker=chunker).get_nodes_from_documents([li_document(fleet_doc)])
    chunks = list(chunker.chunk(fleet_doc))
    wanted = [chunker.contextualize(c) for c in chunks]
    # Why the transform exists: DoclingNodeParser embeds "headings: [...]" + chunk.text.
    assert [n.get_content(MetadataMode.EMBED) for n in raw] != wanted
    fixed = contextualize_nodes(raw, chunker)
    assert [n.get_content(MetadataMode.EMBED) for n in fixed] == wanted
    assert [n.get_content(MetadataMode.LLM) for n in fixed] == wanted
    # Idempotent: a second pass changes nothing.
    assert [n.get_content(MetadataMode.EMBED) for n in contextualize_nodes(fixed, chunker)] == wanted


def test_index_embeds_contextualized_text(fleet_doc: Any, chunker: Any, embed: Any) -> None:
    index = build_index(chunker, fleet_doc, embed)
    assert sorted(index._embed_model.seen) == sorted(chunker.contextualize(c) for c in chunker.chunk(fleet_doc))


def test_contextualize_nodes_rejects_bad_input(chunker: Any) -> None:
    with pytest.raises(TypeError, match="BaseChunker"):
        contextualize_nodes([], chunker="not a chunker")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="Docling chunk metadata"):
        contextualize_nodes([TextNode(text="x", metadata={"doc_items": "nonsense"})], chunker)


# ---------------------------------------------------------------------------------------------------------------------
# Max-pool


def test_max_pool_returns_k_distinct_units_where_flat_ranking_repeats(fleet_doc: Any, chunker: Any, embed: Any) -> None:
    index = build_index(chunker, fleet_doc, embed)
    k, fetch_k = 4, 20
    flat = index.as_retriever(similarity_top_k=fetch_k).retrieve(QUERY)
    flat_units = [n.node.metadata["unit_id"] for n in flat]
    assert len(set(flat_units[:k])) < k, "the register's pieces should crowd the flat top-k"

    pooled = MaxPoolPostprocessor(top_n=k).postprocess_nodes(flat, query_str=QUERY)
    units = [n.node.metadata["unit_id"] for n in pooled]
    assert len(units) == k and len(set(units)) == k
    best: dict[str, float] = {}
    for hit in flat:
        best[hit.node.metadata["unit_id"]] = max(best.get(hit.node.metadata["unit_id"], -1.0), hit.score)
    assert units == sorted(best, key=lambda u: -best[u])[:k]
    assert [n.score for n in pooled] == [best[u] for u in units]

    via_retriever = MaxPoolRetriever.from_index(index, k=k, fetch_k=fetch_k).retrieve(QUERY)
    assert [n.node.metadata["unit_id"] for n in via_retriever] == units


def test_reassemble_walks_the_docstore_for_missing_pieces(fleet_doc: Any, chunker: Any, embed: Any) -> None:
    index = build_index(chunker, fleet_doc, embed)
    register = [c for c in chunker.chunk(fleet_doc) if c.meta.parts > 1]
    candidates = index.as_retriever(similarity_top_k=3).retrieve(QUERY)
    n_found = sum(n.node.metadata["unit_id"] == register[0].meta.unit_id for n in candidates)
    assert 0 < n_found < len(register)

    whole = MaxPoolRetriever.from_index(index, k=1, fetch_k=3, reassemble=True).retrieve(QUERY)[0]
    assert whole.node.metadata["unit_id"] == register[0].meta.unit_id
    assert whole.node.metadata["parts_found"] == list(range(len(register)))
    text = whole.node.get_content(MetadataMode.EMBED)
    assert all(text.count(f"| Vessel {n} |") == 1 for n in range(60))
    assert text.count("Table 9: Vessel register") == 1
    meta = whole.node.metadata  # the whole unit's rows and items, not those of the piece that scored best
    assert meta["rows"] == [min(c.meta.rows[0] for c in register), max(c.meta.rows[1] for c in register)]
    refs = {it["self_ref"] if isinstance(it, dict) else str(it) for it in meta["doc_items"]}
    assert refs == {it.self_ref for c in register for it in c.meta.doc_items}

    no_store = MaxPoolPostprocessor(top_n=1, reassemble=True).postprocess_nodes(candidates)
    assert no_store[0].node.metadata["parts_found"] == sorted(no_store[0].node.metadata["parts_found"])
    assert len(no_store[0].node.metadata["parts_found"]) == n_found


def test_nodes_without_unit_id_warn_once() -> None:
    nodes = [NodeWithScore(node=TextNode(text=f"n{i}"), score=1.0 - i / 10) for i in range(5)]
    post = MaxPoolPostprocessor(top_n=3)
    with pytest.warns(UserWarning, match="unit_id") as record:
        out = post.postprocess_nodes(nodes)
    assert len(record) == 1
    assert [n.node.text for n in out] == ["n0", "n1", "n2"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert len(post.postprocess_nodes(nodes)) == 3


@pytest.mark.parametrize(("k", "fetch_k"), [(0, 20), (-1, 20), (5, 4)])
def test_bad_k_raises_value_error(k: int, fetch_k: int, fleet_doc: Any, chunker: Any, embed: Any) -> None:
    if fetch_k >= k:
        with pytest.raises(ValueError, match="k"):
            MaxPoolPostprocessor(top_n=k)
    index = VectorStoreIndex([], embed_model=hash_model(embed))
    with pytest.raises(ValueError, match="k"):
        MaxPoolRetriever.from_index(index, k=k, fetch_k=fetch_k)


# ---------------------------------------------------------------------------------------------------------------------
# Row views


def _view_index(chunker: Any, dl_doc: Any, embed: Any) -> VectorStoreIndex:
    return VectorStoreIndex.from_documents(
        [li_document(dl_doc)],
        transformations=[DoclingNodeParser(chunker=chunker), EvidenceNodeTransform(chunker=chunker, views=True)],
        embed_model=hash_model(embed),
    )


def test_view_nodes_embed_the_views_and_point_to_their_piece(fleet_doc: Any, chunker: Any, embed: Any) -> None:
    from docling_evidence.integrations.llamaindex import VIEW_OF_KEY, view_nodes

    index = _view_index(chunker, fleet_doc, embed)
    chunks = list(chunker.chunk(fleet_doc))
    views = [t for c in chunks for t in chunker.contextualize_views(c)]
    assert len(views) == 65  # 60 register rows, 2 crew rows, the register's context sentence, 2 captions
    assert sorted(index._embed_model.seen) == sorted([*(chunker.contextualize(c) for c in chunks), *views])
    nodes = DoclingNodeParser(chunker=chunker).get_nodes_from_documents([li_document(fleet_doc)])
    made = view_nodes(nodes, chunker)
    by_id = {n.node_id: n for n in nodes}
    for v in made:
        piece = by_id[v.metadata[VIEW_OF_KEY]]
        assert v.metadata["unit_id"] == piece.metadata["unit_id"]
        assert v.get_content(MetadataMode.EMBED) == v.text  # metadata kept out of the embedded text
    with pytest.raises(TypeError, match="EvidenceChunker"):
        view_nodes(nodes, chunker="nope")  # type: ignore[arg-type]


def test_a_row_view_that_ranks_returns_its_piece(fleet_doc: Any, chunker: Any, embed: Any) -> None:
    index = _view_index(chunker, fleet_doc, embed)
    query = next(t for c in chunker.chunk(fleet_doc) for t in chunker.contextualize_views(c) if "1444" in t)
    hits = MaxPoolRetriever.from_index(index, k=3, fetch_k=30).retrieve(query)
    assert "| Vessel 12 |" in hits[0].node.get_content(MetadataMode.NONE)  # the piece, not the view
    assert "view_of" not in hits[0].node.metadata
    assert len({h.node.metadata["unit_id"] for h in hits}) == len(hits)
    flat = index.as_retriever(similarity_top_k=30).retrieve(query)
    assert any("view_of" in h.node.metadata for h in flat)
    with pytest.raises(ValueError, match="docstore"):
        MaxPoolPostprocessor(top_n=2).postprocess_nodes(flat)


def test_a_reassembled_unit_starts_with_the_view_that_matched(fleet_doc: Any, chunker: Any, embed: Any) -> None:
    index = _view_index(chunker, fleet_doc, embed)
    query = next(t for c in chunker.chunk(fleet_doc) for t in chunker.contextualize_views(c) if "1444" in t)

    def whole(**order: str) -> str:
        retriever = MaxPoolRetriever.from_index(index, k=1, fetch_k=30, reassemble=True, **order)
        node = retriever.retrieve(query)[0].node
        assert node.metadata["matched_view"] == query  # what matched is said in every order
        assert "matched_view" in node.excluded_llm_metadata_keys and "matched_view" in node.excluded_embed_metadata_keys
        return node.get_content(MetadataMode.NONE)

    matched, piece_first = whole(), whole(piece_order="best_first")  # the default: what matched first
    assert matched.startswith(query) and "Tonnage = 1444" not in piece_first  # the matched row comes first
    frame = len(query.splitlines()) - 1  # headings and caption, above the row
    assert matched == query + "\n" + piece_first.split("\n", frame)[frame]  # and the same unit after it
    assert all(f"| Vessel {i} |" in matched for i in range(60))
    assert not whole(piece_order="reading").startswith(query)
    # the retriever's own constructor and the postprocessor have the same default
    direct = MaxPoolRetriever(index.as_retriever(similarity_top_k=30), k=1, reassemble=True, docstore=index.docstore)
    assert direct.retrieve(query)[0].node.get_content(MetadataMode.NONE) == matched
    # not re-assembled: the piece as stored (left unchanged in the docstore), the view that found it in the metadata
    piece = MaxPoolRetriever.from_index(index, k=1, fetch_k=30).retrieve(query)[0].node
    assert piece.metadata["matched_view"] == query and "Tonnage = 1444" not in piece.get_content(MetadataMode.NONE)
    assert "matched_view" not in piece.get_content(MetadataMode.LLM)
    assert "matched_view" not in index.docstore.get_node(piece.node_id).metadata


def test_the_postprocessor_leads_with_the_view_by_default() -> None:
    from llama_index.core.storage.docstore import SimpleDocumentStore

    from docling_evidence.integrations.llamaindex import VIEW_OF_KEY

    piece = TextNode(id_="P", text="H\n| a | 1 |\n| b | 2 |", metadata={"unit_id": "U1", "part": 0, "parts": 1})
    view = TextNode(id_="P:view1", text="H\nb: 2", metadata={"unit_id": "U1", VIEW_OF_KEY: "P"})
    docstore = SimpleDocumentStore()
    docstore.add_documents([piece])
    hits = [NodeWithScore(node=view, score=0.9), NodeWithScore(node=piece, score=0.4)]
    pooled = MaxPoolPostprocessor(top_n=1, reassemble=True, docstore=docstore).postprocess_nodes(hits)[0]
    assert pooled.node.get_content(MetadataMode.NONE) == "H\nb: 2\n| a | 1 |\n| b | 2 |"
    assert pooled.score == 0.9 and pooled.node.metadata["matched_view"] == "H\nb: 2"


def test_the_transform_applied_twice_adds_no_view_twice(fleet_doc: Any, chunker: Any) -> None:
    nodes = DoclingNodeParser(chunker=chunker).get_nodes_from_documents([li_document(fleet_doc)])
    transform = EvidenceNodeTransform(chunker=chunker, views=True)
    once = transform(nodes)
    twice = transform(list(once))
    assert [n.node_id for n in twice] == [n.node_id for n in once]
    assert len(once) == len(nodes) + 65


def test_views_go_with_their_document(fleet_doc: Any, chunker: Any, embed: Any) -> None:
    document = li_document(fleet_doc)
    document.id_ = "report-v1"
    index = VectorStoreIndex.from_documents(
        [document],
        transformations=[DoclingNodeParser(chunker=chunker), EvidenceNodeTransform(chunker=chunker, views=True)],
        embed_model=hash_model(embed),
    )
    assert len(index.vector_store.data.embedding_dict) == len(list(chunker.chunk(fleet_doc))) + 65
    index.delete_ref_doc("report-v1", delete_from_docstore=True)
    assert not index.vector_store.data.embedding_dict  # the views left with their document
    assert MaxPoolRetriever.from_index(index, k=3, fetch_k=30).retrieve("Vessel 12") == []


def test_a_chunk_hit_twice_ranks_at_its_best_score() -> None:
    from llama_index.core.storage.docstore import SimpleDocumentStore

    from docling_evidence.integrations.llamaindex import VIEW_OF_KEY

    piece = TextNode(id_="P", text="piece", metadata={"unit_id": "U1"})
    other = TextNode(id_="Q", text="other", metadata={"unit_id": "U2"})
    view = TextNode(id_="P:view0", text="row", metadata={"unit_id": "U1", VIEW_OF_KEY: "P"})
    docstore = SimpleDocumentStore()
    docstore.add_documents([piece, other])
    hits = [
        NodeWithScore(node=piece, score=0.5),
        NodeWithScore(node=other, score=0.7),
        NodeWithScore(node=view, score=0.9),
    ]
    pooled = MaxPoolPostprocessor(top_n=2, docstore=docstore).postprocess_nodes(hits)
    assert [(n.node.node_id, n.score) for n in pooled] == [("P", 0.9), ("Q", 0.7)]


def test_views_with_a_vector_store_that_keeps_the_text(fleet_doc: Any, chunker: Any, embed: Any) -> None:
    import numpy as np
    from llama_index.core import StorageContext
    from llama_index.core.vector_stores.types import (
        BasePydanticVectorStore,
        VectorStoreQuery,
        VectorStoreQueryResult,
    )

    class TextStore(BasePydanticVectorStore):
        """Keeps the nodes itself (as Chroma, Qdrant or PGVector do): LlamaIndex leaves the docstore empty."""

        stores_text: bool = True
        nodes: dict = Field(default_factory=dict)
        fetch: bool = True

        @property
        def client(self) -> None:
            return None

        def add(self, nodes: list[Any], **kwargs: Any) -> list[str]:
            self.nodes.update({n.node_id: n for n in nodes})
            return [n.node_id for n in nodes]

        def delete(self, ref_doc_id: str, **kwargs: Any) -> None:
            return None

        def query(self, query: VectorStoreQuery, **kwargs: Any) -> VectorStoreQueryResult:
            ids = list(self.nodes)
            scores = np.array([self.nodes[i].embedding for i in ids]) @ np.array(query.query_embedding)
            order = np.argsort(-scores)[: query.similarity_top_k]
            return VectorStoreQueryResult(
                nodes=[self.nodes[ids[i]] for i in order],
                similarities=[float(scores[i]) for i in order],
                ids=[ids[i] for i in order],
            )

        def get_nodes(self, node_ids: list[str] | None = None, **kwargs: Any) -> list[Any]:
            if not self.fetch:
                raise NotImplementedError
            return [self.nodes[i] for i in node_ids or [] if i in self.nodes]

    store = TextStore()
    index = VectorStoreIndex.from_documents(
        [li_document(fleet_doc)],
        transformations=[DoclingNodeParser(chunker=chunker), EvidenceNodeTransform(chunker=chunker, views=True)],
        embed_model=hash_model(embed),
        storage_context=StorageContext.from_defaults(vector_store=store),
    )
    assert not index.docstore.docs
    query = next(t for c in chunker.chunk(fleet_doc) for t in chunker.contextualize_views(c) if "1444" in t)
    hits = MaxPoolRetriever.from_index(index, k=3, fetch_k=30).retrieve(query)
    assert "| Vessel 12 |" in hits[0].node.get_content(MetadataMode.NONE)
    store.fetch = False
    with pytest.raises(ValueError, match="store_nodes_override"):
        MaxPoolRetriever.from_index(index, k=3, fetch_k=30).retrieve(query)
