"""Stable ids of a document's text chunks."""

from __future__ import annotations

from collections.abc import Iterable

from docling_evidence.assemble.units import stable_id


class TextChunkIds:
    """The ``unit_id`` of each text chunk of one document: a hash of the document's key and the refs the chunk
    lists; the second and later chunks listing the same refs (a text chunk cut into pieces) get their occurrence
    hashed in too, so every id is unique within the document and stable across runs.

    Args:
        key: the document's identity (:func:`~docling_evidence.assemble.units.document_key`).
    """

    def __init__(self, key: str) -> None:
        self._key = key
        self._occurrences: dict[str, int] = {}

    def next_id(self, refs: Iterable[str]) -> str:
        """The id of the next text chunk listing ``refs``."""
        base = stable_id(self._key, "text", *refs)
        occurrence = self._occurrences.get(base, 0)
        self._occurrences[base] = occurrence + 1
        return base if occurrence == 0 else stable_id(base, str(occurrence))
