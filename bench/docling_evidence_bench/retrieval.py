"""Retrieval over one arm's indexed texts: dense exact cosine, BM25 (bm25s) and their reciprocal rank fusion.

Max-pooling a ranking by unit is :func:`docling_evidence.integrations.maxpool.max_pool` (one implementation).

Rankings are full (every candidate is ordered) and deterministic: higher score first, ties broken by the lower
passage index, i.e. reading order within a document, then document order.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

import numpy as np

Method = Literal["dense", "bm25", "hybrid"]
Scope = Literal["doc", "corpus"]
METHODS: tuple[str, ...] = ("dense", "bm25", "hybrid")
SCOPES: tuple[str, ...] = ("doc", "corpus")

RRF_K: int = 60
"""Reciprocal rank fusion constant (Cormack et al. 2009): damps the weight of the very top ranks."""

_NUM_SEP_RE = re.compile(r"(?<=\d),(?=\d{3}\b)")
_TOKEN_RE = re.compile(r"\w+(?:\.\d+)?", re.UNICODE)


def _stopwords() -> frozenset[str]:
    from bm25s.stopwords import STOPWORDS_EN

    return frozenset(STOPWORDS_EN)


def bm25_tokenize(text: str, stopwords: frozenset[str] = frozenset()) -> list[str]:
    """Lower-cased word tokens; "1,234" -> "1234", decimals kept whole ("44.1"), stopwords dropped."""
    text = _NUM_SEP_RE.sub("", text.casefold())
    return [t for t in _TOKEN_RE.findall(text) if t not in stopwords]


def rank_scores(scores: np.ndarray) -> np.ndarray:
    """Positions of ``scores`` from best to worst; equal scores keep ascending position order."""
    scores = np.asarray(scores, dtype=np.float64)
    return np.lexsort((np.arange(scores.shape[0]), -scores))


def dense_scores(query_vec: np.ndarray, passage_vecs: np.ndarray) -> np.ndarray:
    """Cosine similarity of one unit-length query vector with unit-length passage rows (a dot product)."""
    return np.asarray(passage_vecs, dtype=np.float32) @ np.asarray(query_vec, dtype=np.float32)


def rrf_scores(rankings: Sequence[np.ndarray], n: int, k: int = RRF_K) -> np.ndarray:
    """Reciprocal rank fusion: item ``i`` scores ``sum over rankings of 1 / (k + rank_i)`` (ranks from 1).

    Each ranking lists item positions in ``range(n)`` best first; an item absent from a ranking gets nothing from it.
    """
    fused = np.zeros(n, dtype=np.float64)
    for ranking in rankings:
        ranking = np.asarray(ranking, dtype=np.int64)
        fused[ranking] += 1.0 / (k + np.arange(1, ranking.shape[0] + 1))
    return fused


class BM25Index:
    """BM25 (bm25s, Lucene variant, k1=1.5, b=0.75) over a list of texts."""

    def __init__(self, texts: Sequence[str]) -> None:
        """Index ``texts``; an empty text is indexed as an empty document."""
        import bm25s

        self._stopwords = _stopwords()
        self._n = len(texts)
        self._bm25 = bm25s.BM25()
        if self._n:
            corpus = [bm25_tokenize(t, self._stopwords) for t in texts]
            self._bm25.index(corpus, show_progress=False)

    def scores(self, query: str) -> np.ndarray:
        """BM25 score of every indexed text for ``query`` (zeros when no query term is in the index)."""
        if not self._n:
            return np.zeros(0, dtype=np.float32)
        ids = self._bm25.get_tokens_ids(bm25_tokenize(query, self._stopwords))
        if not ids:
            return np.zeros(self._n, dtype=np.float32)
        return np.asarray(self._bm25.get_scores_from_ids(ids), dtype=np.float32)


class Retriever:
    """Ranks one arm's passages for a question, within the question's document or over the whole corpus.

    Args:
        texts: the indexed text of every passage (global order: documents in order, reading order inside).
        doc_ids: the document of every passage.
        vectors: unit-length passage embeddings (required for ``dense`` and ``hybrid``).
        scope: ``"doc"`` ranks only the question's document's passages; ``"corpus"`` ranks all of them.
    """

    def __init__(
        self,
        texts: Sequence[str],
        doc_ids: Sequence[str],
        vectors: np.ndarray | None = None,
        scope: Scope = "doc",
    ) -> None:
        if scope not in SCOPES:
            raise ValueError(f"unknown retrieval scope {scope!r}; expected one of {', '.join(SCOPES)}")
        if len(texts) != len(doc_ids):
            raise ValueError(f"{len(texts)} texts but {len(doc_ids)} doc ids")
        if vectors is not None and len(vectors) != len(texts):
            raise ValueError(f"{len(vectors)} vectors but {len(texts)} texts")
        self.scope: Scope = scope
        self._texts = list(texts)
        self._vectors = vectors
        groups: dict[str, list[int]] = {}
        for i, doc_id in enumerate(doc_ids):
            groups.setdefault(doc_id if scope == "doc" else "", []).append(i)
        self._groups = {key: np.asarray(idx, dtype=np.int64) for key, idx in groups.items()}
        self._bm25: dict[str, BM25Index] = {}

    def candidates(self, doc_id: str) -> np.ndarray:
        """Global positions of the passages a question about ``doc_id`` is ranked over (possibly empty)."""
        return self._groups.get(doc_id if self.scope == "doc" else "", np.zeros(0, dtype=np.int64))

    def build_bm25(self) -> None:
        """Build every BM25 index now (otherwise each is built on its first query), e.g. before timing queries."""
        for key, idx in self._groups.items():
            if key not in self._bm25:
                self._bm25[key] = BM25Index([self._texts[i] for i in idx])

    def _bm25_scores(self, key: str, query: str) -> np.ndarray:
        if key not in self._bm25:
            self._bm25[key] = BM25Index([self._texts[i] for i in self._groups[key]])
        return self._bm25[key].scores(query)

    def search(self, method: Method, doc_id: str, query: str = "", query_vec: np.ndarray | None = None) -> np.ndarray:
        """Global passage positions, best first, over this question's candidates (all of them).

        Raises:
            ValueError: on an unknown method, or a dense/hybrid search without passage or query vectors.
        """
        if method not in METHODS:
            raise ValueError(f"unknown retrieval method {method!r}; expected one of {', '.join(METHODS)}")
        cand = self.candidates(doc_id)
        if cand.shape[0] == 0:
            return cand
        key = doc_id if self.scope == "doc" else ""
        if method != "bm25" and (self._vectors is None or query_vec is None):
            raise ValueError(f"{method} retrieval needs passage vectors and a query vector")
        if method == "dense":
            return cand[rank_scores(dense_scores(query_vec, self._vectors[cand]))]
        lexical = self._bm25_scores(key, query)
        if method == "bm25":
            return cand[rank_scores(lexical)]
        dense_rank = rank_scores(dense_scores(query_vec, self._vectors[cand]))
        lexical_rank = rank_scores(lexical)
        # Only passages sharing a term with the query are BM25 results; ranking the zero-score rest by position
        # would hand early passages free RRF credit.
        lexical_rank = lexical_rank[lexical[lexical_rank] > 0]
        return cand[rank_scores(rrf_scores([dense_rank, lexical_rank], cand.shape[0]))]
