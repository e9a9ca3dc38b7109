"""Max-pool retrieval hits by evidence unit, framework-free.

A long table is split into several pieces that share one ``unit_id``. Ranked flat, those pieces crowd the top-k with
near-duplicates; max-pooling keeps each unit once, at the score of its best piece. The LangChain and LlamaIndex
wrappers in this package are thin adapters over :func:`max_pool`, :func:`reassemble` and
:func:`merge_piece_metadata`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar

T = TypeVar("T")

VIEW_OF_KEY = "view_of"
"""Metadata key of a view (a Document or node made from ``EvidenceChunker.contextualize_views``): the id of the chunk
it retrieves (LangChain: the chunk's ``piece_id``; LlamaIndex: the chunk's node id)."""

VIEW_KEY = "view"
"""Metadata key of a view: its position among its chunk's views."""


@dataclass
class PooledUnit(Generic[T]):
    """One unit after pooling: its best hit, that hit's score, and every hit of the unit in input order."""

    key: str
    """The unit id, or a synthetic ``"#<index>"`` key for a hit that had none (each such hit is its own unit)."""
    best: T
    score: float | None
    hits: list[T] = field(default_factory=list)
    has_unit_id: bool = True


def validate_k(k: int, fetch_k: int | None = None) -> None:
    """Raise ``ValueError`` unless ``k`` is a positive int and ``fetch_k`` (when given) is an int ``>= k``."""
    if isinstance(k, bool) or not isinstance(k, int) or k <= 0:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    if fetch_k is not None:
        if isinstance(fetch_k, bool) or not isinstance(fetch_k, int):
            raise ValueError(f"fetch_k must be an integer, got {fetch_k!r}")
        if fetch_k < k:
            raise ValueError(
                f"fetch_k must be >= k (fetch more candidates than you return), got fetch_k={fetch_k}, k={k}"
            )


def max_pool(
    hits: Iterable[T],
    unit_of: Callable[[T], str | None],
    score_of: Callable[[T], float | None] | None = None,
    k: int | None = None,
) -> list[PooledUnit[T]]:
    """Group hits by unit, keep each unit's best score, and order units by that score (best first).

    Args:
        hits: retrieval hits, best first when no scores are given.
        unit_of: the hit's unit id; ``None`` or ``""`` makes the hit a unit of its own.
        score_of: the hit's score, higher is better. ``None`` (or a hit whose score is ``None`` or NaN) means the
            input order is the ranking: the earlier hit wins.
        k: keep at most this many units (all when ``None``).

    Returns:
        Units ordered by best score descending; ties keep the order in which the units first appeared (stable).
        A unit's ``best`` is its highest-scoring hit (the earliest one among equals); ``hits`` keeps input order.
    """
    if k is not None:
        validate_k(k)
    units: dict[str, PooledUnit[T]] = {}
    first_seen: dict[str, int] = {}
    for index, hit in enumerate(hits):
        unit_id = unit_of(hit)
        has_id = bool(unit_id)
        key = str(unit_id) if has_id else f"#{index}"
        score = score_of(hit) if score_of is not None else None
        if score is not None and math.isnan(score):
            score = None  # a NaN score would sort first; it ranks like a missing one
        unit = units.get(key)
        if unit is None:
            units[key] = PooledUnit(key=key, best=hit, score=score, hits=[hit], has_unit_id=has_id)
            first_seen[key] = index
            continue
        unit.hits.append(hit)
        if score is not None and (unit.score is None or score > unit.score):
            unit.best, unit.score = hit, score
    ordered = sorted(units.values(), key=lambda u: (_desc(u.score), first_seen[u.key]))
    return ordered if k is None else ordered[:k]


def _desc(score: float | None) -> float:
    # Units without a score sort after scored ones; among themselves, first appearance decides (stable sort key).
    return float("inf") if score is None else -float(score)


def view_targets(units: Iterable[PooledUnit[T]], view_of: Callable[[T], str | None]) -> list[str]:
    """The distinct ids of the chunks that the view hits of ``units`` retrieve, in order: fetch them once for all."""
    return list(dict.fromkeys(target for unit in units for hit in unit.hits if (target := view_of(hit))))


def chunk_hits(
    unit: PooledUnit[T],
    view_of: Callable[[T], str | None],
    chunk_key: Callable[[T], str | None],
    as_chunk: Callable[[T, str], T],
) -> list[T]:
    """The unit's hits, its best first, each view hit replaced by ``as_chunk(hit, target)`` (the hit of the chunk it
    retrieves), each chunk once: at its first hit, so the best one (a view's hit outranking its chunk's keeps the
    view's rank and score)."""
    out: list[T] = []
    seen: set[str] = set()
    for hit in [unit.best, *(h for h in unit.hits if h is not unit.best)]:
        target = view_of(hit)
        key = target or chunk_key(hit)
        if key is not None:
            if key in seen:
                continue
            seen.add(key)
        out.append(as_chunk(hit, target) if target else hit)
    return out


PieceOrder = Literal["match_first", "best_first", "reading"]
"""How a re-assembled unit is laid out: what matched first, then the piece that ranked first, then the others in part
order (``match_first``, the default: when the unit's best hit is a view, a row or a sentence, that view's text leads);
the piece that ranked first, then the others (``best_first``); or every piece in part order (``reading``)."""

MATCHED_VIEW_KEY = "matched_view"
"""Metadata key of a unit whose best hit is a view: the view's text (the row or sentence that matched). With
``piece_order="match_first"`` a re-assembled unit also starts with it."""


def matched_view(unit: PooledUnit[T], view_of: Callable[[T], str | None], text_of: Callable[[T], str]) -> str | None:
    """The text of ``unit``'s best hit when that hit is a view (a row or a sentence pointing to its chunk), else
    None."""
    return text_of(unit.best) if view_of(unit.best) else None


def leading_text(matched: str | None, piece_order: PieceOrder) -> str | None:
    """What a re-assembled unit puts before its pieces: the matched view with ``match_first``, else nothing."""
    return matched if piece_order == "match_first" else None


def order_pieces(pieces: Sequence[T], part_of: Callable[[T], int | None], lead: T | None = None) -> list[T]:
    """Return the pieces of one unit in part order, one per part (a duplicate part keeps its first occurrence).

    ``lead``: a piece to put first (the unit's best-ranked piece), the others following in part order. A reader with
    a token budget then gets the rows that matched before the rest of the table; every piece repeats the caption and
    header, so the joined text still starts with them.
    """
    seen: set[int] = set()
    unique: list[tuple[int, int, T]] = []
    for index, piece in enumerate(pieces):
        part = part_of(piece)
        part = index if part is None else int(part)
        if part in seen:
            continue
        seen.add(part)
        unique.append((part, index, piece))
    ordered = [piece for _, _, piece in sorted(unique, key=lambda t: (t[0], t[1]))]
    if lead is None:
        return ordered
    lead_part = part_of(lead)
    head = [p for p in ordered if p is lead or (lead_part is not None and part_of(p) == lead_part)][:1]
    return head + [p for p in ordered if not head or p is not head[0]]


def merge_piece_texts(texts: Sequence[str], matched: str | None = None) -> str:
    """Join the texts of a unit's pieces (in the order given, see :func:`order_pieces`) into one text.

    Pieces of a split table each repeat what frames the table (headings, caption, header row). The first text is
    kept whole; from each later one the leading lines that already occur in the first are dropped, so in part order
    the frame appears once and the body rows follow each other. A later piece that holds text between the caption and
    its rows (the table's first piece, holding its context, after the best-ranked piece) keeps its header after that
    text, so every table fragment stays readable.

    ``matched``: the text of the view that ranked (:func:`matched_view`), put before the pieces; the first piece then
    drops its leading lines that the view shows (its headings and caption), so the unit reads: frame, the matched row
    or sentence, the rest of the unit. With no pieces, the result is ``matched`` (or ``""``).
    """
    if not texts:
        return matched or ""
    first = texts[0]
    frame = set(first.splitlines())
    merged = [first]
    if matched:
        shown = set(matched.splitlines())
        rest = _after_lines_in(first, shown)
        merged = [matched, rest] if rest else [matched]
        frame |= shown
    for text in texts[1:]:
        rest = _after_lines_in(text, frame)
        if rest:
            merged.append(rest)
    return "\n".join(merged)


def _after_lines_in(text: str, lines_seen: set[str]) -> str:
    """``text`` without its leading lines that are in ``lines_seen``."""
    lines = text.splitlines()
    start = 0
    while start < len(lines) and lines[start] in lines_seen:
        start += 1
    return "\n".join(lines[start:])


def reassemble(
    pieces: Sequence[T],
    part_of: Callable[[T], int | None],
    text_of: Callable[[T], str],
    best: T | None,
    matched: str | None,
    piece_order: PieceOrder,
) -> tuple[list[T], str]:
    """One unit's pieces in the order ``piece_order`` joins them, and the joined text: ``best`` (the piece that
    ranked) first unless the order is ``reading``, led by ``matched`` (:func:`matched_view`) with ``match_first``
    (:func:`order_pieces`, :func:`leading_text`, :func:`merge_piece_texts`)."""
    ordered = order_pieces(pieces, part_of, lead=None if piece_order == "reading" else best)
    return ordered, merge_piece_texts([text_of(p) for p in ordered], leading_text(matched, piece_order))


def merge_piece_metadata(metas: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The metadata of a re-assembled unit from its pieces' metadata (a chunk's ``meta.export_json_dict()`` shape, or
    a LlamaIndex node's metadata), in the order the pieces are joined.

    The first piece's metadata, with what differs from piece to piece combined so that it describes the joined text:
    ``doc_items`` (every piece's, in order, each item once by ``self_ref``), ``roles`` and ``context_spans`` (union;
    a context item's spans once each, in order), ``views`` (every piece's, in order), ``rows`` (from the lowest first
    row to the highest end, over the pieces that hold rows) and ``page_span`` (every page, sorted). ``part`` /
    ``parts`` are the caller's to set. ``line_roles`` is left out: it describes one piece's text, not the joined one.
    """
    if not metas:
        return {}
    out = dict(metas[0])
    out.pop("line_roles", None)
    if any("doc_items" in m for m in metas):
        items: list[Any] = []
        seen: set[str] = set()
        for m in metas:
            for item in m.get("doc_items") or ():
                ref = str(item.get("self_ref", item)) if isinstance(item, Mapping) else str(item)
                if ref not in seen:
                    seen.add(ref)
                    items.append(item)
        out["doc_items"] = items
    for key in ("roles", "context_spans"):
        if any(isinstance(m.get(key), Mapping) for m in metas):
            merged: dict[str, Any] = {}
            for m in metas:
                for ref, value in (m.get(key) or {}).items():
                    if key == "roles":
                        merged.setdefault(ref, value)
                    else:
                        spans = merged.setdefault(ref, [])
                        spans.extend(s for s in value if s not in spans)
            out[key] = merged
    if any(isinstance(m.get("views"), Sequence) for m in metas):  # every joined piece's views, in order
        out["views"] = [v for m in metas for v in (m.get("views") or ())]
    rows = [
        m["rows"]
        for m in metas
        if isinstance(m.get("rows"), Sequence) and len(m["rows"]) == 2 and int(m["rows"][1]) > int(m["rows"][0])
    ]
    if rows:
        out["rows"] = [min(int(r[0]) for r in rows), max(int(r[1]) for r in rows)]
    pages = {int(p) for m in metas for p in (m.get("page_span") or ())}
    if pages or "page_span" in out:
        out["page_span"] = sorted(pages)
    return out
