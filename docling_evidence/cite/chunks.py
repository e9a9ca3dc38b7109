"""The chunks an answer cites: what the check needs of a chunk (:class:`CitedChunk`), reading them from
``docling-evidence chunk`` JSONL, and refusing chunks of another document (:func:`check_chunks_belong`).

This module holds only data and its reading (the standard library): ``docling_evidence.pack.evidence`` builds
``CitedChunk`` objects without importing the citation check.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from docling_core.types.doc import DoclingDocument

    from docling_evidence.cite.sources import DocumentSources


@dataclass(frozen=True)
class CitedChunk:
    """What a citation check needs of a chunk: its text, the refs of its doc items and, for a table piece, its rows.

    ``rows`` is the half-open range of table body rows (``EvidenceMeta.rows``); header rows always count as shown.
    """

    text: str
    refs: frozenset[str]
    rows: tuple[int, int] | None = None
    binary_hash: int | None = None
    """``meta.origin.binary_hash`` of the document the chunk was made from, when the chunk carries it."""
    filename: str | None = None
    """``meta.origin.filename`` of that document, when the chunk carries it."""

    @classmethod
    def from_chunk(cls, chunk: Any) -> CitedChunk:
        """From a docling-core ``DocChunk`` (an ``EvidenceChunk`` included) or a ``CitedChunk``.

        Raises:
            TypeError: for an object without ``text`` and ``meta.doc_items``.
        """
        if isinstance(chunk, CitedChunk):
            return chunk
        meta = getattr(chunk, "meta", None)
        items = getattr(meta, "doc_items", None)
        text = getattr(chunk, "text", None)
        if not isinstance(text, str) or items is None:
            raise TypeError(
                f"chunks must be docling-core DocChunks (text and meta.doc_items) or CitedChunk, got "
                f"{type(chunk).__name__}"
            )
        rows = getattr(meta, "rows", None)
        origin = getattr(meta, "origin", None)
        return cls(
            text=text,
            refs=frozenset(it.self_ref for it in items),
            rows=tuple(rows) if rows else None,
            binary_hash=getattr(origin, "binary_hash", None),
            filename=getattr(origin, "filename", None),
        )

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> CitedChunk:
        """From one line of ``docling-evidence chunk`` JSONL output, or a ``DocChunk.model_dump()`` object.

        Raises:
            ValueError: when the object has neither shape.
        """
        if not isinstance(record, dict):
            raise ValueError(f"expected a JSON object, got {type(record).__name__}")
        dump = record.get("chunk") if isinstance(record.get("chunk"), dict) else record
        meta = dump.get("meta")
        text = dump.get("text")
        if not isinstance(text, str) or not isinstance(meta, dict) or not isinstance(meta.get("doc_items"), list):
            raise ValueError("expected a chunk record with 'text' and 'meta.doc_items' (docling-evidence chunk output)")
        refs = frozenset(
            str(it.get("self_ref") or it.get("$ref") or "") if isinstance(it, dict) else str(it)
            for it in meta["doc_items"]
        ) - {""}
        rows = meta.get("rows")
        piece_rows = None
        if rows is not None:
            if not (
                isinstance(rows, (list, tuple))
                and len(rows) == 2
                and all(isinstance(r, int) and not isinstance(r, bool) and r >= 0 for r in rows)
            ):
                raise ValueError(f"'meta.rows' must be two non-negative integers [start, end], got {rows!r}"[:200])
            piece_rows = (rows[0], rows[1])
        binary_hash, filename = _record_origin(meta.get("origin"))
        return cls(text=text, refs=refs, rows=piece_rows, binary_hash=binary_hash, filename=filename)


def _record_origin(origin: Any) -> tuple[int | None, str | None]:
    """``(binary_hash, filename)`` of a chunk record's ``meta.origin`` (a ``DocumentOrigin`` dump, or null)."""
    if origin is None:
        return None, None
    if not isinstance(origin, dict):
        raise ValueError(f"'meta.origin' must be an object or null, got {type(origin).__name__}")
    binary_hash, filename = origin.get("binary_hash"), origin.get("filename")
    if binary_hash is not None and (isinstance(binary_hash, bool) or not isinstance(binary_hash, int)):
        raise ValueError(f"'meta.origin.binary_hash' must be an integer, got {binary_hash!r}"[:200])
    if filename is not None and not isinstance(filename, str):
        raise ValueError(f"'meta.origin.filename' must be a string, got {filename!r}"[:200])
    return binary_hash, filename or None


def read_chunks_jsonl(path: str | Path) -> list[CitedChunk]:
    """Read chunks from a JSONL file (``docling-evidence chunk -o chunks.jsonl`` output, one chunk per line).

    Raises:
        ValueError: naming the file and line of a malformed record; for a missing or unreadable file.
    """
    return [chunk for _, chunk in read_chunk_lines(path)]


def read_chunk_lines(path: str | Path) -> list[tuple[int, CitedChunk]]:
    """(line number, chunk) for every chunk record of a JSONL file (see :func:`read_chunks_jsonl`)."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise ValueError(f"{path}: file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: cannot read: {exc}") from None
    chunks: list[tuple[int, CitedChunk]] = []
    for no, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            chunks.append((no, CitedChunk.from_record(json.loads(line))))
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}:{no}: not JSON: {exc.msg}") from None
        except ValueError as exc:
            raise ValueError(f"{path}:{no}: {exc}") from None
    return chunks


class ForeignChunkError(ValueError):
    """A cited chunk that is not from the document checked; ``index`` is its position in the given chunks."""

    def __init__(self, index: int, message: str) -> None:
        super().__init__(message)
        self.index = index


def _same_origin(chunk: CitedChunk, doc: DoclingDocument) -> bool | None:
    """Whether the chunk's ``meta.origin`` names ``doc``: the binary hash, else the file name, against the document's
    origin; without one, the file name's stem against the document's name (Docling names a converted document after
    its file). None when there is nothing to compare."""
    origin = doc.origin
    if origin is not None and chunk.binary_hash is not None:
        return chunk.binary_hash == origin.binary_hash
    if chunk.filename is None:
        return None
    if origin is not None:
        return chunk.filename == origin.filename
    return Path(chunk.filename).stem == doc.name


def _describe(doc: DoclingDocument) -> str:
    origin = doc.origin
    where = f"{origin.filename}, binary_hash {origin.binary_hash}" if origin is not None else "no origin"
    return f"{doc.name!r} ({where})"


def _foreign_reason(chunk: CitedChunk, sources: DocumentSources) -> str | None:
    """Why ``chunk`` is not a chunk of the document of ``sources``, or None."""
    same = _same_origin(chunk, sources.doc)
    if same is False:
        said = [chunk.filename or "no filename"]
        if chunk.binary_hash is not None:
            said.append(f"binary_hash {chunk.binary_hash}")
        return f"its meta.origin is {', '.join(said)}"
    unknown = sorted(chunk.refs - sources.refs)
    if unknown:
        return f"{len(unknown)} of its doc item ref(s) are not in the document (e.g. {unknown[0]})"
    if same is None and not sources.shows_its_items(chunk):
        return "it carries no origin and its text shows none of the document's items it lists"
    return None


def check_chunks_belong(sources: DocumentSources, chunks: Sequence[CitedChunk]) -> None:
    """Refuse chunks of another document, whose refs would otherwise cite whatever this document holds there.

    A chunk belongs when its ``meta.origin`` names the document (see :func:`_same_origin`) and its doc item refs
    exist in it; a chunk without an origin to compare must also show, in its text, one of the items it lists.

    Raises:
        ForeignChunkError: (a ``ValueError``) naming the first chunk that does not belong, and the document.
    """
    for k, chunk in enumerate(chunks):
        reason = _foreign_reason(chunk, sources)
        if reason is not None:
            raise ForeignChunkError(k, f"chunk {k} is not from document {_describe(sources.doc)}: {reason}")
