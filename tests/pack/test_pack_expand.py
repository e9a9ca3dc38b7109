"""``with_unit_pieces``: the ranked chunks, then the other pieces of their units (or tables), each once."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from docling_evidence import EvidenceChunker, with_unit_pieces
from docling_evidence.pack.segments import group_key

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
ARMS = ("evidence_chunks", "hybrid_chunks", "hybrid_markdown_chunks")


@SETTINGS
@given(data=st.data())
@pytest.mark.parametrize("arm", ARMS)
def test_the_ranked_chunks_lead_and_each_of_their_units_other_pieces_follows_once(
    request: pytest.FixtureRequest, arm: str, data: st.DataObject
) -> None:
    chunks: list[Any] = request.getfixturevalue(arm)
    order = data.draw(st.lists(st.integers(0, len(chunks) - 1), max_size=8))
    ranked = [chunks[k] for k in order]
    out = with_unit_pieces(ranked, chunks)
    assert out[: len(ranked)] == ranked
    keys = {group_key(c) for c in ranked} - {None}
    added = out[len(ranked) :]
    # what is added: exactly the chunks of the ranked units that did not rank, in document order
    expected = [c for c in chunks if group_key(c) in keys and all(c is not r for r in ranked)]
    assert added == expected
    assert all(group_key(c) is not None for c in added), "a text chunk is a unit of its own: nothing is added for it"


def test_a_row_no_ranked_piece_shows_is_delivered_once_the_unit_s_other_pieces_are_offered(
    chunker: EvidenceChunker, evidence_chunks: list[Any]
) -> None:
    # the table's first piece ranked, and a text chunk: the row asked for is in another piece of the unit
    first = next(c for c in evidence_chunks if c.meta.kind == "table")
    outlook = next(c for c in evidence_chunks if "capital spending" in c.text)
    assert not any("Dairy farming" in c.text for c in (first, outlook))
    query = "What was the operating margin of Dairy farming?"
    alone = chunker.pack(query, [first, outlook], 256)
    packed = chunker.pack(query, with_unit_pieces([first, outlook], evidence_chunks), 256)
    assert "Dairy farming" not in alone.text
    assert "Dairy farming" in packed.text and packed.tokens <= 256
    # the unit keeps its rank: its block still comes before the text chunk's
    assert packed.blocks[0].unit_id == first.meta.unit_id


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
