"""The other pieces of the retrieved units: what a packer can choose from beyond the pieces that ranked.

A retrieval result holds the pieces that ranked, often a unit's caption-and-context piece without the piece that
shows the row a question asks for. ``EvidenceChunker.pack(..., pieces=chunks)`` lets the packer choose rows and
sentences from the whole unit: :func:`other_pieces` finds, in ``chunks``, every other piece of the units (or, for
chunks of another chunker, of the tables) among the ranked chunks. Grouping is the packer's own
(:func:`docling_evidence.pack.segments.group_key`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from docling_evidence.pack.segments import group_key


def other_pieces(ranked: Sequence[Any], chunks: Iterable[Any]) -> list[Any]:
    """The chunks of ``chunks`` that belong to a unit among ``ranked`` and are not in ``ranked``, in ``chunks`` order.

    A chunk counts as already ranked when it is the same object, or has the same text in the same unit (a chunk read
    back from a vector store). Text chunks are units of their own: nothing is found for them.
    """
    ranked_keys = [group_key(c) for c in ranked]
    keys = {k for k in ranked_keys if k is not None}
    if not keys:
        return []
    ranked_ids = {id(c) for c in ranked}
    shown = {(k, c.text) for k, c in zip(ranked_keys, ranked, strict=True) if k is not None}
    out: list[Any] = []
    for chunk in chunks:
        key = group_key(chunk)
        if key in keys and id(chunk) not in ranked_ids and (key, chunk.text) not in shown:
            shown.add((key, chunk.text))
            out.append(chunk)
    return out
