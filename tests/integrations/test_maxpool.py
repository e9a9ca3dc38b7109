"""The framework-free max-pool helper: grouping, ordering, ties, k, and re-assembly of split units."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from docling_evidence.integrations.maxpool import (
    PooledUnit,
    leading_text,
    matched_view,
    max_pool,
    merge_piece_metadata,
    merge_piece_texts,
    order_pieces,
    validate_k,
)

Hit = tuple[str, str | None, float | None]  # (name, unit_id, score)


def pool(hits: list[Hit], k: int | None = None, scored: bool = True) -> list:
    return max_pool(hits, unit_of=lambda h: h[1], score_of=(lambda h: h[2]) if scored else None, k=k)


def test_groups_by_unit_keeping_best_score_and_orders_by_it() -> None:
    hits = [("a0", "A", 0.5), ("b0", "B", 0.9), ("a1", "A", 0.95), ("c0", "C", 0.1), ("b1", "B", 0.2)]
    units = pool(hits)
    assert [u.key for u in units] == ["A", "B", "C"]
    assert [u.best[0] for u in units] == ["a1", "b0", "c0"]
    assert [u.score for u in units] == [0.95, 0.9, 0.1]
    assert [h[0] for h in units[0].hits] == ["a0", "a1"]  # input order kept


def test_ties_keep_first_appearance_and_k_truncates() -> None:
    hits = [("x", "X", 0.5), ("y", "Y", 0.5), ("z", "Z", 0.7), ("x2", "X", 0.5)]
    assert [u.key for u in pool(hits)] == ["Z", "X", "Y"]
    assert [u.key for u in pool(hits, k=2)] == ["Z", "X"]
    assert pool(hits)[1].best[0] == "x"  # among equal scores the earliest hit is the best


def test_without_scores_input_order_is_the_ranking() -> None:
    hits = [("b0", "B", None), ("a0", "A", None), ("b1", "B", None)]
    units = pool(hits, scored=False)
    assert [u.key for u in units] == ["B", "A"]
    assert units[0].best[0] == "b0"


def test_hits_without_unit_id_are_units_of_their_own() -> None:
    hits = [("p", None, 0.9), ("q", "", 0.8), ("r", "R", 0.7), ("s", None, 0.6)]
    units = pool(hits)
    assert [u.best[0] for u in units] == ["p", "q", "r", "s"]
    assert [u.has_unit_id for u in units] == [False, False, True, False]


@pytest.mark.parametrize(("k", "fetch_k"), [(0, 10), (-1, 10), (5, 4), (True, 10), (2.5, 10), (3, "9")])
def test_validate_k_rejects_bad_values(k: object, fetch_k: object) -> None:
    with pytest.raises(ValueError, match="k"):
        validate_k(k, fetch_k)  # type: ignore[arg-type]


def test_max_pool_rejects_non_positive_k() -> None:
    with pytest.raises(ValueError, match="positive"):
        pool([("a", "A", 1.0)], k=0)


hit_lists = st.lists(
    st.tuples(
        st.text(min_size=1, max_size=3),
        st.sampled_from(["A", "B", "C", "D", None]),
        st.one_of(st.none(), st.floats(min_value=-1, max_value=1)),
    ),
    max_size=30,
)


@given(hit_lists, st.integers(min_value=1, max_value=6))
def test_pooling_matches_a_brute_force_reference(hits: list[Hit], k: int) -> None:
    units = pool(hits, k=k)
    # Reference: key each hit, take the max score per key, sort (score desc, first index).
    keyed = [(h[1] or f"#{i}", i, h[2]) for i, h in enumerate(hits)]
    first = {}
    best: dict[str, float | None] = {}
    for key, i, score in keyed:
        first.setdefault(key, i)
        if score is not None and (best.get(key) is None or score > best[key]):  # type: ignore[operator]
            best[key] = score
        best.setdefault(key, None)
    ref = sorted(first, key=lambda key: (float("inf") if best[key] is None else -best[key], first[key]))[:k]
    assert [u.key for u in units] == ref
    assert [u.score for u in units] == [best[key] for key in ref]
    assert len({u.key for u in units}) == len(units)


def test_order_pieces_sorts_by_part_and_drops_duplicate_parts() -> None:
    pieces = [("p2", 2), ("p0", 0), ("p2bis", 2), ("p1", 1)]
    assert [p[0] for p in order_pieces(pieces, part_of=lambda p: p[1])] == ["p0", "p1", "p2"]


def test_order_pieces_puts_the_lead_first_and_the_rest_in_part_order() -> None:
    pieces = [("p2", 2), ("p0", 0), ("p3", 3), ("p1", 1)]
    part = lambda p: p[1]  # noqa: E731
    assert [p[0] for p in order_pieces(pieces, part_of=part, lead=("p2", 2))] == ["p2", "p0", "p1", "p3"]
    assert [p[0] for p in order_pieces(pieces, part_of=part, lead=pieces[1])] == ["p0", "p1", "p2", "p3"]
    assert [p[0] for p in order_pieces(pieces, part_of=part, lead=None)] == ["p0", "p1", "p2", "p3"]
    # a lead that is not among the pieces changes nothing
    assert [p[0] for p in order_pieces(pieces, part_of=part, lead=("x", 9))] == ["p0", "p1", "p2", "p3"]


def test_best_first_merge_keeps_every_row_once_and_the_frame_at_the_top(fleet_doc, chunker) -> None:
    pieces = order_pieces(
        [c for c in chunker.chunk(fleet_doc) if c.meta.kind == "table" and c.meta.parts > 1], lambda c: c.meta.part
    )
    lead = pieces[len(pieces) // 2]
    texts = [chunker.contextualize(c) for c in order_pieces(pieces, part_of=lambda c: c.meta.part, lead=lead)]
    merged = merge_piece_texts(texts)
    rows = [int(r) for r in re.findall(r"\| Vessel (\d+) \|", merged)]
    assert sorted(rows) == list(range(60)) and rows[0] == lead.meta.rows[0]  # the lead's rows come first
    assert merged.startswith(chunker.contextualize(lead))
    assert merged.count("Table 9: Vessel register with flag and tonnage") == 1
    # the header once at the top, and once more under the first piece's context paragraph, which sits before its rows
    assert merged.count("| Vessel | Flag | Tonnage |") == 2
    assert merged.index("Table 9 lists every vessel") < merged.rindex("| Vessel | Flag | Tonnage |")


def test_merge_rebuilds_a_split_table_with_its_frame_once(fleet_doc, chunker) -> None:
    pieces = [c for c in chunker.chunk(fleet_doc) if c.meta.kind == "table" and c.meta.parts > 1]
    assert len(pieces) >= 3, "the register should split into several pieces"
    texts = [chunker.contextualize(c) for c in order_pieces(pieces, part_of=lambda c: c.meta.part)]
    merged = merge_piece_texts(texts)
    rows = re.findall(r"\| Vessel (\d+) \|", merged)
    assert [int(r) for r in rows] == list(range(60))  # every row once, in order
    assert merged.count("Table 9: Vessel register with flag and tonnage") == 1
    assert merged.count("| Vessel | Flag | Tonnage |") == 1
    assert merged.startswith(texts[0])


def test_merge_edge_cases() -> None:
    assert merge_piece_texts([]) == ""
    assert merge_piece_texts(["only"]) == "only"
    assert merge_piece_texts(["H\nrow 1", "H\nrow 2", "H"]) == "H\nrow 1\nrow 2"


def test_a_matched_view_leads_and_the_frame_stays_once(fleet_doc, chunker) -> None:
    pieces = order_pieces(
        [c for c in chunker.chunk(fleet_doc) if c.meta.kind == "table" and c.meta.parts > 1], lambda c: c.meta.part
    )
    lead = pieces[len(pieces) // 2]
    view = chunker.contextualize_views(lead)[1]  # the second row the lead piece holds
    texts = [chunker.contextualize(c) for c in order_pieces(pieces, part_of=lambda c: c.meta.part, lead=lead)]
    merged = merge_piece_texts(texts, matched=view)
    assert merged.startswith(view)  # headings, caption, then the matched row, before any piece
    rows = [int(r) for r in re.findall(r"\| Vessel (\d+) \|", merged)]
    assert sorted(rows) == list(range(60)) and rows[0] == lead.meta.rows[0]  # then every row once, the lead's first
    assert merged.count("Table 9: Vessel register with flag and tonnage") == 1
    # the header under the lead's caption, and once more under the first piece's context paragraph (as without view)
    assert merged.count("| Vessel | Flag | Tonnage |") == 2
    assert merged == "\n".join([view, merge_piece_texts(texts).removeprefix(_frame_of(view))])


def _frame_of(view: str) -> str:
    """The lines of a row view above its row (headings, caption), each with its newline."""
    return "".join(line + "\n" for line in view.splitlines()[:-1])


def test_merge_with_a_matched_text_edge_cases() -> None:
    assert merge_piece_texts([], matched="H\nrow 2") == "H\nrow 2"
    assert merge_piece_texts(["H\nrow 1", "H\nrow 2"], matched=None) == "H\nrow 1\nrow 2"
    assert merge_piece_texts(["H\nrow 1", "H\nrow 2"], matched="H\nrow 2") == "H\nrow 2\nrow 1"
    # a piece that shows nothing beyond the matched view adds nothing
    assert merge_piece_texts(["H\nrow 2"], matched="H\nrow 2") == "H\nrow 2"


_LINE = st.sampled_from(["H", "Caption", "| a | 1 |", "| b | 2 |", "b: 2", "", "Context sentence."])


@given(
    texts=st.lists(st.lists(_LINE, max_size=6).map("\n".join), max_size=4),
    matched=st.one_of(st.none(), st.lists(_LINE, min_size=1, max_size=3).map("\n".join)),
)
def test_merge_loses_no_line_and_starts_with_what_matched(texts: list[str], matched: str | None) -> None:
    merged = merge_piece_texts(texts, matched)
    assert merged.startswith(matched or (texts[0] if texts else ""))
    shown = set(merged.splitlines())
    assert all(line in shown for text in texts for line in text.splitlines() if line)


def test_matched_view_is_the_best_hit_when_it_is_a_view_and_only_match_first_leads_with_it() -> None:
    view_hit = ("view text", "piece-1")  # (text, the chunk it points to)
    chunk_hit = ("chunk text", None)
    unit_led_by_view = PooledUnit(key="U", best=view_hit, score=0.9, hits=[view_hit, chunk_hit])
    unit_led_by_chunk = PooledUnit(key="U", best=chunk_hit, score=0.9, hits=[chunk_hit, view_hit])
    args = (lambda h: h[1], lambda h: h[0])
    assert matched_view(unit_led_by_view, *args) == "view text"
    assert matched_view(unit_led_by_chunk, *args) is None
    assert leading_text("view text", "match_first") == "view text"
    assert leading_text("view text", "best_first") is None
    assert leading_text("view text", "reading") is None
    assert leading_text(None, "match_first") is None


def test_merge_piece_metadata_describes_the_joined_pieces() -> None:
    lead = {
        "unit_id": "u",
        "part": 2,
        "rows": [10, 15],
        "page_span": [3],
        "doc_items": [{"self_ref": "#/tables/0"}, {"self_ref": "#/texts/1"}],
        "roles": {"#/tables/0": "table", "#/texts/1": "caption"},
        "context_spans": {},
    }
    first = {
        "unit_id": "u",
        "part": 0,
        "rows": [0, 5],
        "page_span": [2, 3],
        "doc_items": [{"self_ref": "#/texts/1"}, {"self_ref": "#/texts/0"}, {"self_ref": "#/tables/0"}],
        "roles": {"#/texts/1": "caption", "#/texts/0": "context", "#/tables/0": "table"},
        "context_spans": {"#/texts/0": [[0, 40]]},
    }
    merged = merge_piece_metadata([lead, first])
    assert merged["rows"] == [0, 15] and merged["page_span"] == [2, 3]
    assert [it["self_ref"] for it in merged["doc_items"]] == ["#/tables/0", "#/texts/1", "#/texts/0"]
    assert merged["roles"]["#/texts/0"] == "context" and merged["context_spans"] == {"#/texts/0": [[0, 40]]}
    assert merged["unit_id"] == "u" and merged["part"] == 2  # part is the caller's to set
    assert lead["rows"] == [10, 15], "inputs are not modified"
    assert merge_piece_metadata([]) == {}
    assert merge_piece_metadata([{"unit_id": "u"}]) == {"unit_id": "u"}
    # a piece of context holds no rows: its empty range does not widen the unit's
    context_piece = {**first, "part": 1, "rows": [6, 6]}
    assert merge_piece_metadata([{**lead, "rows": [8, 10]}, context_piece])["rows"] == [8, 10]


def test_a_nan_score_ranks_like_a_missing_one_not_first() -> None:
    hits = [("a", 0.2), ("b", float("nan")), ("c", 0.9)]
    units = max_pool(hits, unit_of=lambda h: h[0], score_of=lambda h: h[1])
    assert [u.key for u in units] == ["c", "a", "b"] and units[2].score is None
