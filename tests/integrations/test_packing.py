"""The retrievers with ``budget=``: one packed result per unit, within the budget, citing rows, refs and pages."""

from __future__ import annotations

import json
from typing import Any

import pytest

from docling_evidence.integrations.packing import chunk_from, validate_budget, view_hints

QUERY = "what tonnage has Vessel 42"
ROW_42 = "| Vessel 42 | Panama flag vessel | 2554 tonnes |"


def _zero(query: str, texts: Any) -> list[float]:
    return [0.0] * len(texts)


def test_validate_budget() -> None:
    validate_budget(None)
    validate_budget(1)
    for bad in (0, -1, 2.5, "100", True):
        with pytest.raises(ValueError, match="budget"):
            validate_budget(bad)


def test_chunk_from_strips_the_headings_and_keeps_line_roles(fleet_doc: Any, chunker: Any) -> None:
    piece = next(c for c in chunker.chunk(fleet_doc) if c.meta.kind == "table" and c.meta.headings)
    rebuilt = chunk_from(chunker.contextualize(piece), piece.meta.export_json_dict(), chunker.delim)
    assert rebuilt.text == piece.text and rebuilt.meta.line_roles == piece.meta.line_roles
    assert chunk_from("x", None).meta is None
    assert chunk_from("x", {"unit_id": "u1", "kind": "table"}).meta.unit_id == "u1"


def test_view_hints_weigh_the_best_ranked_view_most() -> None:
    hints = view_hints([("piece", False), ("row a", True), ("row b", True), ("row a", True)])
    assert set(hints) == {"row a", "row b"} and hints["row a"] > hints["row b"]


# ---------------------------------------------------------------------------------------------------------------------
# LangChain


@pytest.fixture(scope="module")
def lc_store(fleet_doc: Any, chunker: Any, embed: Any) -> Any:
    pytest.importorskip("langchain_core")
    from langchain_core.documents import Document
    from langchain_core.embeddings import Embeddings
    from langchain_core.vectorstores import InMemoryVectorStore

    from docling_evidence.integrations.langchain import evidence_ids, view_documents

    class HashEmbeddings(Embeddings):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return [embed(t) for t in texts]

        def embed_query(self, text: str) -> list[float]:
            return embed(text)

    docs = [
        Document(
            page_content=chunker.contextualize(c),
            metadata={"source": "fleet.json", "dl_meta": c.meta.export_json_dict()},
        )
        for c in chunker.chunk(fleet_doc)
    ]
    docs += view_documents(docs, chunker)
    store = InMemoryVectorStore(HashEmbeddings())
    store.add_documents(docs, ids=evidence_ids(docs))
    return store


def test_langchain_budget_packs_one_document_per_unit(lc_store: Any, chunker: Any) -> None:
    from docling_evidence.integrations.langchain import MaxPoolRetriever

    retriever = MaxPoolRetriever(vectorstore=lc_store, k=3, fetch_k=30, budget=160, chunker=chunker)
    docs = retriever.invoke(QUERY)
    assert docs and len({d.metadata["unit_id"] for d in docs}) == len(docs)
    assert chunker.tokenizer.count_tokens("\n\n".join(d.page_content for d in docs)) <= 160
    table = next(d for d in docs if ROW_42 in d.page_content)
    assert table.page_content.startswith("Table 9: Vessel register with flag and tonnage")
    packed = table.metadata["packed"]
    assert [r["label"] for r in packed["rows"]][:1] == ["Vessel 42"] or "Vessel 42" in [
        r["label"] for r in packed["rows"]
    ]
    assert "#/tables/0" in packed["doc_refs"]
    json.dumps(table.metadata)  # JSON-safe for any vector store or tracer
    assert "score" in table.metadata and table.metadata["packed_tokens"] <= 160


def test_langchain_a_row_view_that_ranked_leads_its_unit(lc_store: Any, chunker: Any) -> None:
    from docling_evidence.integrations.langchain import MaxPoolRetriever

    # a scorer that says nothing: only the row view that the store ranked can choose the row
    retriever = MaxPoolRetriever(vectorstore=lc_store, k=2, fetch_k=30, budget=80, chunker=chunker, scorer=_zero)
    docs = retriever.invoke("Vessel 42: Flag = Panama flag vessel; Tonnage = 2554 tonnes")
    rows = [r["label"] for d in docs for r in d.metadata["packed"]["rows"]]
    assert "Vessel 42" in rows  # the fill alone takes the rows in ranking order: Vessel 36's piece ranked first
    assert docs[0].metadata["packed"]["score"] > 0


def _vessel_scorer(number: int) -> Any:
    """A scorer that knows one row: texts naming Vessel ``number`` score 1."""
    import re

    pattern = re.compile(rf"\bVessel {number}\b")

    def scorer(query: str, texts: Any) -> list[float]:
        return [1.0 if pattern.search(t) else 0.0 for t in texts]

    return scorer


@pytest.mark.parametrize("unit_pieces", [True, False])
def test_langchain_packs_a_row_from_a_piece_of_the_unit_that_did_not_rank(
    lc_store: Any, chunker: Any, unit_pieces: bool
) -> None:
    from docling_evidence.integrations.langchain import MaxPoolRetriever

    # one candidate, the row view of Vessel 25: its piece (rows 21-28) goes whole, as it ranked; the row the scorer
    # asks for is in the register's first piece, and the budget leaves room for it
    retriever = MaxPoolRetriever(
        vectorstore=lc_store, k=1, fetch_k=1, budget=300, chunker=chunker, scorer=_vessel_scorer(3),
        unit_pieces=unit_pieces,
    )  # fmt: skip
    (doc,) = retriever.invoke(QUERY)
    rows = [r["label"] for r in doc.metadata["packed"]["rows"]]
    assert ("Vessel 3" in rows) is unit_pieces, rows
    assert {f"Vessel {i}" for i in range(21, 29)} <= set(rows)
    assert chunker.tokenizer.count_tokens(doc.page_content) <= 300


def test_langchain_without_budget_is_unchanged(lc_store: Any, chunker: Any) -> None:
    from docling_evidence.integrations.langchain import MaxPoolRetriever

    plain = MaxPoolRetriever(vectorstore=lc_store, k=3, fetch_k=30).invoke(QUERY)
    assert plain and all("packed" not in d.metadata for d in plain)
    with pytest.raises(ValueError, match="budget"):
        MaxPoolRetriever(vectorstore=lc_store, budget=0)


# ---------------------------------------------------------------------------------------------------------------------
# LlamaIndex


@pytest.fixture(scope="module")
def li_index(fleet_doc: Any, chunker: Any, embed: Any) -> Any:
    pytest.importorskip("llama_index.core")
    pytest.importorskip("llama_index.node_parser.docling")
    from llama_index.core import Document as LIDocument
    from llama_index.core import VectorStoreIndex
    from llama_index.core.embeddings import BaseEmbedding
    from llama_index.node_parser.docling import DoclingNodeParser

    from docling_evidence.integrations.llamaindex import EvidenceNodeTransform

    class HashEmbedding(BaseEmbedding):
        def _get_text_embedding(self, text: str) -> list[float]:
            return embed(text)

        def _get_query_embedding(self, query: str) -> list[float]:
            return embed(query)

        async def _aget_query_embedding(self, query: str) -> list[float]:
            return embed(query)

    return VectorStoreIndex.from_documents(
        [LIDocument(text=json.dumps(fleet_doc.export_to_dict()))],
        transformations=[DoclingNodeParser(chunker=chunker), EvidenceNodeTransform(chunker=chunker, views=True)],
        embed_model=HashEmbedding(model_name="hash"),
    )


def test_llamaindex_budget_packs_one_node_per_unit(li_index: Any, chunker: Any) -> None:
    from llama_index.core.schema import MetadataMode

    from docling_evidence.integrations.llamaindex import MaxPoolRetriever

    retriever = MaxPoolRetriever.from_index(li_index, k=3, fetch_k=30, budget=160, chunker=chunker)
    hits = retriever.retrieve(QUERY)
    texts = [h.node.get_content(MetadataMode.LLM) for h in hits]
    assert hits and chunker.tokenizer.count_tokens("\n\n".join(texts)) <= 160
    table = next(h for h in hits if ROW_42 in h.node.get_content(MetadataMode.NONE))
    assert table.node.get_content(MetadataMode.LLM) == table.node.get_content(MetadataMode.NONE), "metadata kept out"
    assert "Vessel 42" in [r["label"] for r in table.node.metadata["packed"]["rows"]]
    assert table.score is not None
    json.dumps(table.node.metadata)


@pytest.mark.parametrize("unit_pieces", [True, False])
def test_llamaindex_packs_a_row_from_a_piece_of_the_unit_that_did_not_rank(
    li_index: Any, chunker: Any, unit_pieces: bool
) -> None:
    from docling_evidence.integrations.llamaindex import MaxPoolRetriever

    retriever = MaxPoolRetriever.from_index(
        li_index, k=1, fetch_k=1, budget=300, chunker=chunker, unit_pieces=unit_pieces, scorer=_vessel_scorer(3)
    )
    (hit,) = retriever.retrieve(QUERY)
    rows = [r["label"] for r in hit.node.metadata["packed"]["rows"]]
    assert ("Vessel 3" in rows) is unit_pieces, rows


def test_llamaindex_postprocessor_needs_the_query(li_index: Any, chunker: Any) -> None:
    from docling_evidence.integrations.llamaindex import MaxPoolPostprocessor

    nodes = li_index.as_retriever(similarity_top_k=10).retrieve(QUERY)
    pool = MaxPoolPostprocessor(top_n=2, budget=100, chunker=chunker, docstore=li_index.docstore)
    with pytest.raises(ValueError, match="query_bundle"):
        pool.postprocess_nodes(nodes)
    packed = pool.postprocess_nodes(nodes, query_str=QUERY)
    assert packed and all("packed" in n.node.metadata for n in packed)


def test_a_piece_of_context_stored_as_ranked_keeps_its_line_roles(chunker: Any) -> None:
    """A vector store keeps ``contextualize(chunk)``; for a piece of context that is its text without the caption
    and header it repeats. Read back for packing, its lines still carry their roles (the context sentences stay
    citable) instead of falling back to plain text."""
    from docling_core.types.doc import DocItemLabel, DoclingDocument
    from docs_builder import add_table

    from docling_evidence.assemble.views import ranking_text
    from docling_evidence.pack.lines import tag_arg

    doc = DoclingDocument(name="ctx")
    doc.add_heading(text="Results")
    sentences = [f"Table 1 shows that region {k} grew revenue by {k + 3}.5 percent as costs fell." for k in range(14)]
    doc.add_text(label=DocItemLabel.TEXT, text=" ".join(sentences))
    add_table(doc, [["Region", "Revenue", "Costs"]], [[f"R{k}", str(100 + k), str(50 + k)] for k in range(12)],
              caption="Table 1: Revenue and costs by region")  # fmt: skip
    pieces = [
        c for c in chunker.chunk(doc) if c.meta.kind == "table" and c.meta.rows and c.meta.rows[0] == c.meta.rows[1]
    ]
    ranked = [c for c in pieces if ranking_text(c.text, c.meta.line_roles, c.meta.rows) != c.text]
    assert ranked, "the document must have a piece of context that is ranked without caption and header"
    for piece in ranked:
        stored = chunker.contextualize(piece)
        rebuilt = chunk_from(stored, piece.meta.export_json_dict(), chunker.delim)
        roles = rebuilt.meta.line_roles
        assert len(roles) == len(rebuilt.text.split("\n"))
        assert {tag_arg(r)[0] for r in roles} - {""} <= {"context", "footnote", "text"}
        assert any(tag_arg(r)[0] == "context" for r in roles)
