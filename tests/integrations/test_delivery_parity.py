"""The benchmark's ``ok@B`` delivers a pooled unit exactly as ``MaxPoolRetriever(reassemble=True)`` returns it."""

from __future__ import annotations

import random
from typing import Any

import pytest

pytest.importorskip("langchain_core")

from docling_evidence_bench.arms import chunk_document
from docling_evidence_bench.run import _ArmIndex
from langchain_core.documents import Document
from langchain_core.vectorstores import InMemoryVectorStore

from docling_evidence.integrations.langchain import (
    MaxPoolRetriever,
    evidence_ids,
    flatten_evidence_metadata,
    view_documents,
)
from docling_evidence.integrations.maxpool import max_pool

from .test_langchain import HashEmbeddings, chunk_documents


class _PresetStore(InMemoryVectorStore):
    """A vector store whose search returns a ranking set by the test (scores falling with rank)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.ranked: list[Document] = []

    def similarity_search_with_score(self, query: str, k: int = 4, **kwargs: Any) -> list[tuple[Document, float]]:
        return [(doc, 1.0 - 0.001 * n) for n, doc in enumerate(self.ranked[:k])]


@pytest.fixture(scope="module")
def parity(fleet_doc: Any, chunker: Any, embed: Any) -> tuple[_ArmIndex, list[Document], _PresetStore]:
    chunks = list(chunker.chunk(fleet_doc))
    records = chunk_document("evidence", chunker, "d", fleet_doc, chunks)
    docs = flatten_evidence_metadata(chunk_documents(chunker, fleet_doc))
    indexed = [*docs, *view_documents(docs, chunker)]
    # the same texts in the same order: record g is Document g
    assert [r.embed_text for r in records] == [d.page_content for d in indexed]
    store = _PresetStore(HashEmbeddings(embed))
    store.add_documents(indexed, ids=evidence_ids(indexed))
    return _ArmIndex("evidence", records, 0.0), indexed, store


def _bench_units(arm: _ArmIndex, ranking: list[int]) -> list[str]:
    return [arm.unit_text(u.key, lead=u.best) for u in max_pool(ranking, unit_of=arm.unit_of.__getitem__)]


def _retrieved(store: _PresetStore, indexed: list[Document], ranking: list[int], k: int, fetch_k: int) -> list[str]:
    store.ranked = [indexed[g] for g in ranking]
    retriever = MaxPoolRetriever(vectorstore=store, k=k, fetch_k=fetch_k, reassemble=True)
    return [d.page_content for d in retriever.invoke("any question")]


def test_every_record_leading_gives_the_same_unit_text(parity: Any) -> None:
    arm, indexed, store = parity
    views = 0
    for g in range(len(indexed)):
        rest = [h for h in range(len(indexed)) if h != g]
        expected = _bench_units(arm, [g, *rest])[0]
        assert _retrieved(store, indexed, [g, *rest], 1, len(indexed)) == [expected]
        assert _retrieved(store, indexed, [g], 1, 1) == [expected]  # the other pieces fetched by id
        views += indexed[g].metadata.get("view_of") is not None
    assert views >= 60  # the register's row views among the leads


def test_random_rankings_deliver_the_same_units_in_the_same_order(parity: Any) -> None:
    arm, indexed, store = parity
    rng = random.Random(7)
    for _ in range(40):
        ranking = list(range(len(indexed)))
        rng.shuffle(ranking)
        # every candidate fetched, so both pool over the same hits
        assert _retrieved(store, indexed, ranking, 4, len(indexed)) == _bench_units(arm, ranking)[:4]
