"""Retrieval: deterministic ranking, dense cosine, BM25, reciprocal rank fusion, scopes and max-pooling."""

from __future__ import annotations

import numpy as np
import pytest
from docling_evidence_bench.embed import HashingEmbedder
from docling_evidence_bench.retrieval import (
    BM25Index,
    Retriever,
    bm25_tokenize,
    rank_scores,
    rrf_scores,
)

from docling_evidence.integrations.maxpool import max_pool


def test_rank_scores_breaks_ties_by_position() -> None:
    assert rank_scores(np.array([0.5, 0.9, 0.5, 0.9, 0.1])).tolist() == [1, 3, 0, 2, 4]


def test_rrf_scores_hand_computed() -> None:
    # ranking A: 2, 0, 1 ; ranking B: 0, 2 (item 1 absent)
    fused = rrf_scores([np.array([2, 0, 1]), np.array([0, 2])], n=3, k=60)
    assert fused[0] == pytest.approx(1 / 62 + 1 / 61)
    assert fused[1] == pytest.approx(1 / 63)
    assert fused[2] == pytest.approx(1 / 61 + 1 / 62)
    # items 0 and 2 tie: the lower position wins
    assert rank_scores(fused).tolist() == [0, 2, 1]


def test_bm25_tokenize_numbers_and_stopwords() -> None:
    assert bm25_tokenize("Revenue was $1,234.5 in 2019", frozenset({"was", "in"})) == ["revenue", "1234.5", "2019"]


def test_bm25_index_prefers_the_matching_text() -> None:
    index = BM25Index(["net revenue grew", "operating costs fell", "revenue and costs"])
    scores = index.scores("What were the costs?")
    assert scores[0] == 0.0
    assert scores[1] > 0 and scores[2] > 0
    assert index.scores("unknownterm").tolist() == [0.0, 0.0, 0.0]


TEXTS = ["alpha revenue table", "beta paragraph about costs", "gamma revenue costs", "delta other stuff"]
DOCS = ["d1", "d1", "d2", "d2"]


def _vectors() -> np.ndarray:
    return HashingEmbedder(dim=128).encode_passages(TEXTS)


@pytest.mark.parametrize("method", ["dense", "bm25", "hybrid"])
def test_doc_scope_ranks_only_the_question_document(method: str) -> None:
    emb = HashingEmbedder(dim=128)
    r = Retriever(TEXTS, DOCS, _vectors(), scope="doc")
    qv = emb.encode_queries(["revenue costs"])[0]
    ranked = r.search(method, "d2", "revenue costs", qv)
    assert sorted(ranked.tolist()) == [2, 3]
    assert ranked[0] == 2


@pytest.mark.parametrize("method", ["dense", "bm25", "hybrid"])
def test_corpus_scope_ranks_everything_deterministically(method: str) -> None:
    emb = HashingEmbedder(dim=128)
    qv = emb.encode_queries(["costs"])[0]
    first = Retriever(TEXTS, DOCS, _vectors(), scope="corpus").search(method, "d1", "costs", qv)
    second = Retriever(TEXTS, DOCS, _vectors(), scope="corpus").search(method, "d1", "costs", qv)
    assert sorted(first.tolist()) == [0, 1, 2, 3]
    assert first.tolist() == second.tolist()
    assert set(first[:2].tolist()) == {1, 2}


def test_hybrid_ignores_zero_bm25_scores_in_fusion() -> None:
    # Dense prefers 1 over 0 by construction; BM25 matches nothing: the hybrid ranking must equal the dense one.
    vecs = np.array([[1.0, 0.0], [0.0, 1.0]], dtype=np.float32)
    r = Retriever(["x", "y"], ["d", "d"], vecs, scope="doc")
    q = np.array([0.0, 1.0], dtype=np.float32)
    assert r.search("hybrid", "d", "nothingmatches", q).tolist() == [1, 0]
    assert r.search("dense", "d", "nothingmatches", q).tolist() == [1, 0]


def test_retriever_errors() -> None:
    with pytest.raises(ValueError, match="scope"):
        Retriever(TEXTS, DOCS, scope="page")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="doc ids"):
        Retriever(TEXTS, DOCS[:2])
    r = Retriever(TEXTS, DOCS)
    with pytest.raises(ValueError, match="query vector"):
        r.search("dense", "d1", "q")
    with pytest.raises(ValueError, match="method"):
        r.search("sparse", "d1", "q")  # type: ignore[arg-type]
    assert r.search("bm25", "unknown-doc", "q").tolist() == []


def test_the_benchmark_pools_a_ranking_with_the_integrations_max_pool() -> None:
    # run.py pools a ranking of passage positions without scores: each unit once, at its first (best) position
    units = ["u1", "u2", "u1", "u3"]
    pooled = max_pool([2, 1, 0, 3], unit_of=units.__getitem__)
    assert [(u.key, u.best) for u in pooled] == [("u1", 2), ("u2", 1), ("u3", 3)]
    assert [u.key for u in max_pool([int(g) for g in np.array([3, 0, 2, 1])], unit_of=units.__getitem__)] == [
        "u3",
        "u1",
        "u2",
    ]
    assert [u.key for u in max_pool([0, 1, 2, 3], unit_of=["a", "a", "b", "c"].__getitem__, k=2)] == ["a", "b"]


def test_build_bm25_matches_lazy_build() -> None:
    eager = Retriever(TEXTS, DOCS, scope="doc")
    eager.build_bm25()
    lazy = Retriever(TEXTS, DOCS, scope="doc")
    for doc in ("d1", "d2"):
        assert eager.search("bm25", doc, "revenue costs").tolist() == lazy.search("bm25", doc, "revenue costs").tolist()
