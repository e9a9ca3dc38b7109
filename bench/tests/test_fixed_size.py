"""The fixed-SIZE-OVERLAP chunker: exact sizes and overlaps, no code point lost, exact duplicate accounting."""

from __future__ import annotations

import itertools

import pytest
from docling_evidence_bench.fixed_size import (
    duplicate_stats,
    fixed_size_chunks,
    fixed_size_spans,
    line_duplicate_stats,
    parse_profile,
    profile_name,
)
from hypothesis import given
from hypothesis import strategies as st


@st.composite
def size_overlap(draw: st.DrawFn) -> tuple[int, int]:
    size = draw(st.integers(min_value=1, max_value=60))
    overlap = draw(st.integers(min_value=0, max_value=size - 1))
    return size, overlap


@given(st.text(max_size=400), size_overlap())
def test_windows_are_exact_and_lose_nothing(text: str, so: tuple[int, int]) -> None:
    size, overlap = so
    chunks = fixed_size_chunks(text, size, overlap)
    if not text:
        assert chunks == []
        return
    assert chunks[0].start == 0
    assert chunks[-1].end == len(text)
    for i, c in enumerate(chunks):
        assert c.index == i
        assert c.text == text[c.start : c.end]
        if i < len(chunks) - 1:
            assert len(c.text) == size
    for prev, nxt in itertools.pairwise(chunks):
        assert nxt.start - prev.start == size - overlap
        assert prev.end - nxt.start == overlap  # exact overlap, the last window included
        assert nxt.end > prev.end  # no window lies inside its predecessor
    # Reassembling the windows minus their overlaps gives the text back: no code point lost or reordered.
    rebuilt = chunks[0].text + "".join(c.text[overlap:] for c in chunks[1:])
    assert rebuilt == text


@given(st.text(max_size=300), size_overlap())
def test_duplicate_accounting_matches_a_position_count(text: str, so: tuple[int, int]) -> None:
    size, overlap = so
    spans = [(c.start, c.end) for c in fixed_size_chunks(text, size, overlap)]
    counts = [0] * len(text)
    for s, e in spans:
        for p in range(s, e):
            counts[p] += 1
    stats = duplicate_stats(spans)
    assert stats.total_code_points == sum(counts)
    assert stats.unique_code_points == len(text)
    assert stats.duplicated_code_points == sum(c - 1 for c in counts)


def test_code_points_not_bytes_or_utf16() -> None:
    text = "가😀" * 5 + "é"  # 11 code points; the emoji is 2 UTF-16 units and 4 UTF-8 bytes
    chunks = fixed_size_chunks(text, 4, 1)
    assert [c.text for c in chunks] == ["가😀가😀", "😀가😀가", "가😀가😀", "😀é"]
    assert [(c.start, c.end) for c in chunks] == [(0, 4), (3, 7), (6, 10), (9, 11)]


def test_hand_computed_spans_and_duplicates() -> None:
    # 10 code points, size 4, overlap 2: windows [0,4) [2,6) [4,8) [6,10) -> 16 stored, 10 unique, 6 copies.
    assert fixed_size_spans(10, 4, 2) == [(0, 4), (2, 6), (4, 8), (6, 10)]
    stats = duplicate_stats(fixed_size_spans(10, 4, 2))
    assert (stats.total_code_points, stats.unique_code_points, stats.duplicated_code_points) == (16, 10, 6)
    assert stats.duplicate_ratio == pytest.approx(6 / 16)
    # A last window that would start inside the tail is not emitted: 11 code points, 4/2 -> ends at 11 once.
    assert fixed_size_spans(11, 4, 2) == [(0, 4), (2, 6), (4, 8), (6, 10), (8, 11)]
    # The common default on 2,600 code points: windows at 0, 800, 1600 -> 1000+1000+1000 stored, 400 copies.
    stats = duplicate_stats(fixed_size_spans(2600, 1000, 200))
    assert (stats.total_code_points, stats.duplicated_code_points) == (3000, 400)
    # Without overlap nothing is duplicated; an empty index has ratio 0.
    assert duplicate_stats(fixed_size_spans(2600, 1000, 0)).duplicated_code_points == 0
    assert duplicate_stats([]).duplicate_ratio == 0.0
    # Unsorted, nested and disjoint spans.
    stats = duplicate_stats([(5, 9), (0, 3), (1, 2), (7, 12)])
    assert (stats.total_code_points, stats.unique_code_points, stats.duplicated_code_points) == (13, 10, 3)


def test_line_duplicates_count_repeated_lines() -> None:
    stats = line_duplicate_stats(["# Revenue\n| a | b |\nrow 1", "# Revenue\n| a | b |\nrow 2", "other"])
    # "# Revenue" (9) and "| a | b |" (9) repeat once each.
    assert stats.total_code_points == 25 + 25 + 5
    assert stats.duplicated_code_points == 18
    assert stats.duplicate_ratio == pytest.approx(18 / 55)


def test_profiles_parse_and_name() -> None:
    assert parse_profile("fixed-1000-200") == (1000, 200)
    assert parse_profile("400/80") == (400, 80)
    assert profile_name(1600, 320) == "fixed-1600-320"


@pytest.mark.parametrize("spec", ["fixed-100-100", "fixed-0-0", "1000-200", "fixed-10-20", "abc"])
def test_bad_profiles_are_rejected(spec: str) -> None:
    with pytest.raises(ValueError):
        parse_profile(spec)


def test_bad_arguments() -> None:
    with pytest.raises(TypeError):
        fixed_size_chunks(b"bytes", 10, 2)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        fixed_size_chunks("abc", 10, 10)
    with pytest.raises(ValueError):
        fixed_size_chunks("abc", 10, -1)
    with pytest.raises(TypeError):
        fixed_size_chunks("abc", 10.0, 2)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        duplicate_stats([(3, 1)])
