"""``pack(..., pieces=)``: the ranked units' other pieces become candidates of their units, each once, after what
ranked."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from packdocs import SEGMENTS

from docling_evidence import EvidenceChunker
from docling_evidence.pack.expand import other_pieces
from docling_evidence.pack.segments import group_key

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
ARMS = ("evidence_chunks", "hybrid_chunks", "hybrid_markdown_chunks")


def _content(packed: Any) -> list[tuple[Any, ...]]:
    return [(b.key, b.text, b.rows, b.sentences, b.footnotes) for b in packed.blocks]


@SETTINGS
@given(data=st.data())
@pytest.mark.parametrize("arm", ARMS)
def test_other_pieces_are_the_ranked_units_chunks_that_did_not_rank(
    request: pytest.FixtureRequest, arm: str, data: st.DataObject
) -> None:
    chunks: list[Any] = request.getfixturevalue(arm)
    order = data.draw(st.lists(st.integers(0, len(chunks) - 1), max_size=8))
    ranked = [chunks[k] for k in order]
    keys = {group_key(c) for c in ranked} - {None}
    expected = [c for c in chunks if group_key(c) in keys and all(c is not r for r in ranked)]
    assert other_pieces(ranked, chunks) == expected
    assert all(group_key(c) is not None for c in expected), "a text chunk is a unit of its own: nothing is added"


@SETTINGS
@given(data=st.data(), budget=st.integers(1, 700), terms=st.lists(st.sampled_from(SEGMENTS), max_size=3))
@pytest.mark.parametrize("arm", ARMS)
def test_a_leading_unit_that_fits_whole_as_ranked_is_delivered_as_without_the_other_pieces(
    request: pytest.FixtureRequest, chunker: EvidenceChunker, arm: str, data: st.DataObject, budget: int,
    terms: list[str],
) -> None:  # fmt: skip
    chunks: list[Any] = request.getfixturevalue(arm)
    order = data.draw(st.lists(st.integers(0, len(chunks) - 1), min_size=1, max_size=8))
    ranked = [chunks[k] for k in order]
    query = " ".join(terms)
    alone = chunker.pack(query, ranked, budget)
    more = chunker.pack(query, ranked, budget, pieces=chunks)
    assert more.tokens <= budget
    # the blocks stay in ranking order (a unit where its first piece ranked), their ranks index the ranked chunks
    first_rank = {}
    for k, c in enumerate(ranked):
        first_rank.setdefault(group_key(c) or f"#{k}", k)
    assert [b.ranks[0] for b in more.blocks] == sorted(b.ranks[0] for b in more.blocks)
    assert all(0 <= r < len(ranked) for b in more.blocks for r in b.ranks)
    assert all(first_rank.get(b.key, b.ranks[0]) == b.ranks[0] for b in more.blocks)
    whole = chunker.pack(query, ranked, 10**6)
    # a triplet row cut at a ranked piece's edge is completed from the piece holding its other triplets, which can
    # make what ranked too big to go whole: the guarantee is for units with no row cut across a ranked piece
    ranked_labels = {r.label for b in whole.blocks for r in b.rows}
    others = other_pieces(ranked, chunks)
    cut_rows = any(label and f"{label}, " in c.text for c in others for label in ranked_labels)  # triplets
    if whole.blocks and alone.blocks and _content(alone)[:1] == _content(whole)[:1] and not cut_rows:
        # the first unit went whole as it ranked: its delivery is kept, its other pieces only add to it (a triplet
        # row cut at a ranked piece's edge is completed by the piece that holds its other triplets)
        first = more.blocks[0]
        assert first.key == alone.blocks[0].key
        assert {(r.index, r.label) for r in alone.blocks[0].rows} <= {(r.index, r.label) for r in first.rows}


def test_a_row_no_ranked_piece_shows_is_delivered_from_the_unit_s_other_pieces(
    chunker: EvidenceChunker, evidence_chunks: list[Any]
) -> None:
    # the table's first piece ranked, and a text chunk: the row asked for is in another piece of the unit
    first = next(c for c in evidence_chunks if c.meta.kind == "table")
    outlook = next(c for c in evidence_chunks if "capital spending" in c.text)
    assert not any("Dairy farming" in c.text for c in (first, outlook))
    query = "What was the operating margin of Dairy farming?"
    alone = chunker.pack(query, [first, outlook], 256)
    packed = chunker.pack(query, [first, outlook], 256, pieces=evidence_chunks)
    assert "Dairy farming" not in alone.text
    assert "Dairy farming" in packed.text and packed.tokens <= 256
    # the unit keeps its rank: its block still comes before the text chunk's, and cites only ranked chunks
    assert packed.blocks[0].unit_id == first.meta.unit_id and packed.blocks[0].ranks == [0]
    # the piece that ranked went whole (it fits), and the unit was completed before the text chunk was decided
    assert {r.index for r in alone.blocks[0].rows} == set(range(*first.meta.rows))
    assert set(range(*first.meta.rows)) < {r.index for r in packed.blocks[0].rows}


def test_rows_that_score_nothing_come_from_the_better_ranked_piece_first(
    chunker: EvidenceChunker, evidence_chunks: list[Any]
) -> None:
    pieces = [c for c in evidence_chunks if c.meta.kind == "table" and c.meta.rows]
    assert len(pieces) >= 2
    last, first = pieces[-1], pieces[0]

    def nothing(query: str, texts: Any) -> list[float]:
        return [0.0] * len(texts)

    # the table's last piece ranked above its first: with no score to go by, the rows it shows are taken first
    packed = chunker.pack("", [last, first], 90, scorer=nothing)
    taken = {r.index for b in packed.blocks for r in b.rows}
    assert taken and taken <= set(range(*last.meta.rows)), (taken, last.meta.rows)


def test_the_top_unit_is_completed_from_its_other_pieces_before_a_lower_unit_goes_whole(
    chunker: EvidenceChunker, evidence_chunks: list[Any]
) -> None:
    first = next(c for c in evidence_chunks if c.meta.kind == "table")
    outlook = next(c for c in evidence_chunks if "capital spending" in c.text)
    query = "What was the operating margin of Dairy farming? What about capital spending?"
    # a budget both ranked chunks fill whole: without the other pieces there is no room for the row asked for
    budget = chunker.pack(query, [first, outlook], 10**6).tokens
    alone = chunker.pack(query, [first, outlook], budget)
    packed = chunker.pack(query, [first, outlook], budget, pieces=evidence_chunks)
    assert "Dairy farming" not in alone.text and "capital spending" in alone.text
    assert "Dairy farming" in packed.text and packed.tokens <= budget
    assert set(range(*first.meta.rows)) <= {r.index for r in packed.blocks[0].rows}
