"""The ``fixed-SIZE-OVERLAP`` chunker: windows of SIZE Unicode code points, consecutive windows sharing OVERLAP.

This is the "1000 characters, 200 overlap" habit of many RAG pipelines, made exact so the sweep can measure it:

- Sizes and overlaps count Unicode code points (Python ``str`` indexing), not bytes, not grapheme clusters.
- Window ``i`` is ``text[i * step : i * step + size]`` with ``step = size - overlap``; every window but the last holds
  exactly ``size`` code points and every pair of neighbours shares exactly ``overlap`` code points.
- Windows stop as soon as one reaches the end of the text, so no window lies wholly inside its predecessor and no code
  point is lost: the union of the windows is the whole text, in order.
- Deterministic, no tokenizer, no sentence logic: it cuts wherever the count falls, which is what the sweep studies.

It works on any serialised text; for a ``DoclingDocument`` the sweep uses ``export_to_markdown()``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PROFILE_PREFIX = "fixed"
"""Arm names read ``fixed-SIZE-OVERLAP``, e.g. ``fixed-1000-200``."""

_PROFILE_RE = re.compile(r"fixed-(\d+)-(\d+)")


@dataclass(frozen=True)
class FixedChunk:
    """One window of a text: ``text == source[start:end]`` (offsets in code points, ``end`` exclusive)."""

    index: int
    start: int
    end: int
    text: str


@dataclass(frozen=True)
class DuplicateStats:
    """How much of an index is stored more than once.

    ``total_code_points`` is what the chunks hold together; ``unique_code_points`` the distinct source positions they
    cover; ``duplicated_code_points = total - unique`` (the extra copies); ``duplicate_ratio = duplicated / total``
    (the share of stored code points that are copies; 0 when nothing is stored).
    """

    total_code_points: int
    unique_code_points: int
    duplicated_code_points: int
    duplicate_ratio: float


def _check_size_overlap(size: int, overlap: int) -> None:
    for name, value in (("size", size), ("overlap", overlap)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    if size <= 0:
        raise ValueError(f"size must be positive, got {size}")
    if not 0 <= overlap < size:
        raise ValueError(f"overlap must satisfy 0 <= overlap < size ({size}), got {overlap}")


def profile_name(size: int, overlap: int) -> str:
    """The arm name of a profile, ``fixed-SIZE-OVERLAP``."""
    _check_size_overlap(size, overlap)
    return f"{PROFILE_PREFIX}-{size}-{overlap}"


def parse_profile(spec: str) -> tuple[int, int]:
    """Parse ``"fixed-1000-200"`` or ``"1000/200"`` into ``(size, overlap)``.

    Raises:
        ValueError: if ``spec`` is neither form or the numbers are not a valid size/overlap pair.
    """
    if not isinstance(spec, str):
        raise TypeError(f"profile must be a str, got {type(spec).__name__}")
    s = spec.strip()
    m = _PROFILE_RE.fullmatch(s) or re.fullmatch(r"(\d+)/(\d+)", s)
    if m is None:
        raise ValueError(f"bad fixed-size profile {spec!r}: expected 'fixed-SIZE-OVERLAP' or 'SIZE/OVERLAP'")
    size, overlap = int(m.group(1)), int(m.group(2))
    _check_size_overlap(size, overlap)
    return size, overlap


def fixed_size_spans(length: int, size: int, overlap: int) -> list[tuple[int, int]]:
    """Half-open ``(start, end)`` windows over a text of ``length`` code points (see the module docstring)."""
    _check_size_overlap(size, overlap)
    if isinstance(length, bool) or not isinstance(length, int):
        raise TypeError(f"length must be an int, got {type(length).__name__}")
    if length < 0:
        raise ValueError(f"length must be >= 0, got {length}")
    step = size - overlap
    spans: list[tuple[int, int]] = []
    start = 0
    while start < length:
        end = min(start + size, length)
        spans.append((start, end))
        if end == length:
            break
        start += step
    return spans


def fixed_size_chunks(text: str, size: int, overlap: int) -> list[FixedChunk]:
    """Cut ``text`` into ``fixed-SIZE-OVERLAP`` windows; an empty text gives no chunk.

    Raises:
        TypeError: if ``text`` is not a str.
        ValueError: if not ``0 <= overlap < size``.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    return [
        FixedChunk(index=i, start=s, end=e, text=text[s:e])
        for i, (s, e) in enumerate(fixed_size_spans(len(text), size, overlap))
    ]


def duplicate_stats(spans: list[tuple[int, int]]) -> DuplicateStats:
    """Exact duplicate accounting of half-open code point windows over one text (any order, any overlap).

    Raises:
        ValueError: if a span has ``start > end`` or a negative start.
    """
    total = 0
    clean: list[tuple[int, int]] = []
    for start, end in spans:
        if start < 0 or end < start:
            raise ValueError(f"bad span ({start}, {end})")
        total += end - start
        clean.append((start, end))
    unique = 0
    cur_start = cur_end = -1
    for start, end in sorted(clean):
        if start > cur_end:
            unique += max(0, cur_end - cur_start)
            cur_start, cur_end = start, end
        else:
            cur_end = max(cur_end, end)
    unique += max(0, cur_end - cur_start)
    dup = total - unique
    return DuplicateStats(total, unique, dup, dup / total if total else 0.0)


def line_duplicate_stats(texts: list[str]) -> DuplicateStats:
    """Approximate duplicate accounting for chunks without source offsets (HybridChunker, EvidenceChunker).

    A line (stripped, non-empty) that already occurred in an earlier chunk of the same document counts as duplicated
    (repeated headings, repeated table headers, a context paragraph copied into several table pieces). Code points are
    counted on the chunk texts as embedded; newlines are not counted as duplicates.
    """
    seen: set[str] = set()
    total = dup = 0
    for text in texts:
        total += len(text)
        for line in text.splitlines():
            key = line.strip()
            if not key:
                continue
            if key in seen:
                dup += len(line)
            else:
                seen.add(key)
    return DuplicateStats(total, total - dup, dup, dup / total if total else 0.0)
