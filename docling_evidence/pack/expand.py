"""The other pieces of the retrieved units: what a packer can choose from beyond the pieces that ranked.

A retrieval result holds the pieces that ranked, often a unit's caption-and-context piece without the piece that
shows the row a question asks for. :func:`with_unit_pieces` appends, after the ranked chunks, every other piece of the
units (or, for chunks of another chunker, of the tables) among them, so the packer picks the matching rows and
sentences from the whole unit. Grouping is the packer's own (:func:`docling_evidence.pack.segments.group_key`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from docling_evidence.pack.segments import group_key


def with_unit_pieces(ranked: Sequence[Any], chunks: Iterable[Any]) -> list[Any]:
    """``ranked`` (best first), then the other pieces of its units from ``chunks``, in the order ``chunks`` gives them.

    Args:
        ranked: the retrieval result, chunks as ``chunk()`` made them (or any docling-core chunks).
        chunks: where the other pieces are found: typically every chunk ``chunk()`` returned for the documents.
            A chunk already in ``ranked`` (the same object, or the same text in the same unit) is not added again.

    Returns:
        A new list for :meth:`~docling_evidence.EvidenceChunker.pack`: the units stay in ranking order (a unit's
        block is placed where its first piece ranked), and a unit's pieces that did not rank become candidates.
        Text chunks, which are units of their own, gain nothing.
    """
    ranked = list(ranked)
    ranked_keys = [group_key(c) for c in ranked]
    keys = {k for k in ranked_keys if k is not None}
    ranked_ids = {id(c) for c in ranked}
    shown = {(k, c.text) for k, c in zip(ranked_keys, ranked, strict=True) if k is not None}
    out = list(ranked)
    if not keys:
        return out
    for chunk in chunks:
        key = group_key(chunk)
        if key in keys and id(chunk) not in ranked_ids and (key, chunk.text) not in shown:
            shown.add((key, chunk.text))
            out.append(chunk)
    return out
