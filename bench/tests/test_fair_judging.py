"""Fair judging: every arm on the chunk that ranks, unit level apart, equal-budget delivery, the pooled control."""

from __future__ import annotations

import numpy as np
import pytest
from docling_core.types.doc import DocItemLabel, DoclingDocument
from docling_evidence_bench.arms import ChunkRecord, chunk_document, make_chunker
from docling_evidence_bench.dataset import QAItem
from docling_evidence_bench.measures import BUDGETS, delivered_within, judge, question_values
from docling_evidence_bench.run import TokenEnds, _ArmIndex, _judge_arm
from docs_builder import add_table
from hypothesis import given, settings
from hypothesis import strategies as st

from docling_evidence.integrations.maxpool import merge_piece_texts


def _q(answers: tuple[str, ...], required: tuple[str, ...] = ()) -> QAItem:
    return QAItem("q", "d", "?", answers, "table", required_texts=required)


def _rec(i: int, text: str, unit: str) -> ChunkRecord:
    return ChunkRecord("evidence", "d", i, text, f"d:{unit}", (), i, "table")


def test_delivered_within_cuts_the_last_item_at_a_token_boundary() -> None:
    texts = ["alpha beta", "gamma delta epsilon", "zeta"]
    ends = [[5, 10], [5, 11, 19], [4]]
    assert delivered_within(texts, ends, 1) == "alpha"
    assert delivered_within(texts, ends, 2) == "alpha beta"
    assert delivered_within(texts, ends, 4) == "alpha beta\ngamma delta"
    assert delivered_within(texts, ends, 100) == "alpha beta\ngamma delta epsilon\nzeta"
    with pytest.raises(ValueError, match="positive"):
        delivered_within(texts, ends, 0)


_ENDS = TokenEnds()


@settings(deadline=None)  # the first example loads the tokenizer
@given(st.lists(st.text(alphabet="abc 12,.\n", max_size=60), max_size=6), st.integers(1, 80))
def test_delivery_spends_at_most_the_budget_and_grows_with_it(texts: list[str], budget: int) -> None:
    ends_of = _ENDS
    ends = [ends_of(t) for t in texts]
    small = delivered_within(texts, ends, budget)
    large = delivered_within(texts, ends, budget + 7)
    assert sum(len(e) for e in [ends_of(p) for p in small.split("\n")]) <= budget
    assert large.startswith(small)


def test_judge_keeps_unit_level_apart_and_checks_its_inputs() -> None:
    o = judge([False, True], [(), ()], True, ranked_unit_hits=[True, True], unit_ceiling=True, ok=[False] * 4)
    v = question_values(o)
    assert v["hit@1"] == 0.0 and v["unit_hit@1"] == 1.0 and v["unit_ceiling"] == 1.0
    assert all(v[f"ok@{b}"] == 0.0 for b in BUDGETS)
    flat = question_values(judge([True], [()], True))
    assert flat["unit_hit@1"] is None and flat["ok@512"] is None
    with pytest.raises(ValueError, match="both"):
        judge([True], [()], True, unit_ceiling=True)
    with pytest.raises(ValueError, match="per budget"):
        judge([True], [()], True, ok=[True])


def _index() -> _ArmIndex:
    # unit "t" has two pieces: the first holds the year 2019, the second the value; unit "p" is a paragraph
    records = [
        _rec(0, "Revenue table\n| year | 2019 |", "t"),
        _rec(1, "Revenue table\n| Revenue | 1,496.5 |", "t"),
        _rec(2, "Revenue was 1,496.5 in 2019 said the board.", "p"),
    ]
    return _ArmIndex("evidence", records, 0.0)


def test_maxpool_is_judged_on_the_piece_that_ranks_and_the_unit_apart() -> None:
    q = _q(("1,496.5", "2019"))
    rankings = {("bm25", "doc"): [np.array([0, 1, 2])]}
    out = _judge_arm(_index(), [q], rankings, 10, TokenEnds())
    pooled = out[("bm25", "doc", "maxpool")][0]
    flat = out[("bm25", "doc", "flat")][0]
    # piece 0 ranks first and lacks the value: not a hit, although its unit holds everything
    assert pooled.first_hit == 2  # the unit's lower piece is removed; the paragraph is next
    assert pooled.first_unit_hit == 1 and pooled.unit_ceiling is True
    assert flat.first_hit == 3 and flat.unit_ceiling is None
    assert pooled.ok is not None and all(pooled.ok)  # the re-assembled unit fits any budget
    assert flat.ok is not None and all(flat.ok)


def test_budget_delivers_the_reassembled_unit_and_cuts_it() -> None:
    index = _index()
    text = index.unit_text("d:t")
    assert text == merge_piece_texts([r.embed_text for r in index.records[:2]])
    assert text.count("Revenue table") == 1  # the frame once, as MaxPoolRetriever re-assembles it
    q = _q(("1,496.5", "2019"))
    ends = TokenEnds()
    n_first = len(ends(text))
    records = [*index.records, _rec(3, "filler " * (max(BUDGETS) + 10), "f")]
    index = _ArmIndex("evidence", records, 0.0)
    ranked = {("bm25", "doc"): [np.array([3, 0, 1, 2])]}
    pooled = _judge_arm(index, [q], ranked, 10, ends)[("bm25", "doc", "maxpool")][0]
    assert n_first < max(BUDGETS)
    assert pooled.ok == (False,) * len(BUDGETS)  # the filler unit spends every budget first


def test_budget_delivers_the_piece_that_ranked_first() -> None:
    # a long unit: the value sits in its second piece, after a first piece too long for the smallest budget
    filler = " ".join(f"row{i} 1{i}" for i in range(200))
    records = [
        _rec(0, f"Revenue table\n| year | 2019 |\n{filler}", "t"),
        _rec(1, "Revenue table\n| Revenue | 1,496.5 |", "t"),
    ]
    index = _ArmIndex("evidence", records, 0.0)
    assert index.unit_text("d:t", lead=1).startswith("Revenue table\n| Revenue | 1,496.5 |")
    assert index.unit_text("d:t") == merge_piece_texts([r.embed_text for r in records])  # reading order
    q = _q(("1,496.5",))
    ranked = {("bm25", "doc"): [np.array([1, 0])]}
    pooled = _judge_arm(index, [q], ranked, 10, TokenEnds())[("bm25", "doc", "maxpool")][0]
    assert pooled.ok == (True,) * len(BUDGETS)  # the ranked piece comes first, so even 256 tokens hold the value
    text = index.unit_text("d:t")
    assert len(TokenEnds()(text[: text.index("1,496.5")])) > min(BUDGETS)  # in reading order it comes too late


def test_budget_delivers_the_view_that_ranked_before_its_unit() -> None:
    # one piece: context, then many rows; the asked row is last. Its row view ranks first.
    filler = "\n".join(f"| row{i} | 1{i} |" for i in range(150))
    records = [
        _rec(0, f"Revenue table\nRevenue grew in every year.\n{filler}\n| Revenue | 1,496.5 |", "t"),
        ChunkRecord("evidence", "d", 1, "Revenue table\nRevenue: 2019 = 1,496.5", "d:t", (), 0, "view"),
    ]
    index = _ArmIndex("evidence", records, 0.0)
    led = index.unit_text("d:t", lead=1)
    assert led == merge_piece_texts([records[0].embed_text], matched=records[1].embed_text)
    assert led.startswith("Revenue table\nRevenue: 2019 = 1,496.5\nRevenue grew")  # the caption once, then the row
    assert index.unit_text("d:t", lead=0) == records[0].embed_text  # a piece that ranks leads with itself
    q = _q(("1,496.5",))
    by_view = _judge_arm(index, [q], {("bm25", "doc"): [np.array([1, 0])]}, 10, TokenEnds())
    by_piece = _judge_arm(index, [q], {("bm25", "doc"): [np.array([0, 1])]}, 10, TokenEnds())
    assert by_view[("bm25", "doc", "maxpool")][0].ok == (True,) * len(BUDGETS)
    assert by_piece[("bm25", "doc", "maxpool")][0].ok[0] is False  # 256 tokens end before the last row
    assert by_view[("bm25", "doc", "flat")][0].ok == by_piece[("bm25", "doc", "flat")][0].ok  # flat: chunks only


def _long_table_doc() -> DoclingDocument:
    doc = DoclingDocument(name="t")
    doc.add_heading("Results")
    doc.add_text(DocItemLabel.TEXT, "Segment revenue grew in every region.")
    body = [[f"Region {i}", f"{1000 + i}.5", f"{2000 + i}.25"] for i in range(60)]
    add_table(doc, [["Region", "2019", "2018"]], body)
    doc.add_text(DocItemLabel.TEXT, "Costs fell slightly.")
    return doc


def test_hybrid_pooled_shares_one_unit_per_table_and_keeps_hybrids_texts() -> None:
    doc = _long_table_doc()
    chunker = make_chunker("hybrid")
    hybrid = chunk_document("hybrid", chunker, "d", doc)
    pooled = chunk_document("hybrid-pooled", chunker, "d", doc)
    assert [r.embed_text for r in pooled] == [r.embed_text for r in hybrid]
    table_recs = [r for r in pooled if r.kind == "table"]
    assert len(table_recs) >= 2  # the table was split by HybridChunker
    assert {r.unit_id for r in table_recs} == {"d:#/tables/0"}
    others = [r for r in pooled if r.kind != "table"]
    assert len({r.unit_id for r in others}) == len(others)


@pytest.mark.parametrize("limit", [256, 512])
def test_limit_applies_to_hybrid_and_evidence(limit: int) -> None:
    from docling_evidence.tokenizer import bundled_tokenizer

    count = bundled_tokenizer(limit).count_tokens
    doc = _long_table_doc()
    for arm in ("hybrid", "evidence"):
        chunker = make_chunker(arm, limit)
        assert chunker.tokenizer.get_max_tokens() == limit
        sizes = [count(r.embed_text) for r in chunk_document(arm, chunker, "d", doc)]
        assert max(sizes) <= limit
        assert max(sizes) > limit // 2  # the limit is really used, not the default


def test_arms_sharing_a_chunker_reuse_its_chunks_without_changing_records() -> None:
    from docling_evidence_bench.arms import build_arm

    docs = {"d": _long_table_doc()}
    cache: dict[str, list] = {}
    hybrid = build_arm("hybrid", docs, make_chunker("hybrid"), cache)
    assert list(cache) == ["d"]
    pooled = build_arm("hybrid-pooled", docs, make_chunker("hybrid-pooled"), cache)
    assert pooled == build_arm("hybrid-pooled", docs)
    assert [r.embed_text for r in pooled] == [r.embed_text for r in hybrid]
