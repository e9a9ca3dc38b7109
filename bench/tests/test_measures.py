"""Measures on hand-computed cases: hit definition, ranks, page-level recall, aggregation by type and document."""

from __future__ import annotations

import pytest
from docling_evidence_bench.dataset import QAItem
from docling_evidence_bench.measures import MEASURES, Outcome, aggregate, is_hit, judge, question_values


def _q(answers: tuple[str, ...], required: tuple[str, ...] = (), pages: tuple[int, ...] = ()) -> QAItem:
    return QAItem("q", "d", "?", answers, "table", required_texts=required, evidence_pages=pages)


def test_is_hit_needs_every_answer_and_required_text() -> None:
    text = "Revenue | 2019 | $1,496.5\nThe table below presents total net sales."
    assert is_hit(text, _q(("$1,496.5",)))
    assert is_hit(text, _q(("1496.5", "2019")))
    assert not is_hit(text, _q(("1496.5", "2018")))
    assert is_hit(text, _q(("1496.5",), ("The table below presents total net sales.",)))
    assert not is_hit(text, _q(("1496.5",), ("A paragraph that is elsewhere.",)))


def test_is_hit_respects_number_boundaries_and_needs_something_to_match() -> None:
    assert not is_hit("other | 144.1 | 44.15", _q(("44.1",)))
    assert is_hit("other | 44.1 |", _q(("44.1",)))
    assert not is_hit("anything", _q(()))


def test_judge_and_values_hand_computed() -> None:
    o = judge([False, True, False, True], [(1,), (2,), (3,), (4,)], ceiling=True, gold_pages=(3,))
    assert o == Outcome(first_hit=2, first_page_hit=3, ceiling=True, page_eligible=True)
    v = question_values(o)
    assert v["hit@1"] == 0.0 and v["R@1"] == 0.0
    assert v["R@5"] == 1.0 and v["R@10"] == 1.0
    assert v["RR@10"] == pytest.approx(0.5)
    assert v["ceiling"] == 1.0
    assert (v["page_R@1"], v["page_R@5"], v["page_R@10"]) == (0.0, 1.0, 1.0)


def test_hit_beyond_depth_counts_nothing() -> None:
    hits = [False] * 10 + [True]
    o = judge(hits, [()] * 11, ceiling=True)
    assert o.first_hit is None
    v = question_values(o)
    assert v["R@10"] == 0.0 and v["RR@10"] == 0.0 and v["ceiling"] == 1.0
    assert v["page_R@10"] is None  # no gold pages: page measures do not apply


def test_rank_six_counts_for_r10_not_r5() -> None:
    v = question_values(judge([False] * 5 + [True], [()] * 6, ceiling=True))
    assert (v["R@5"], v["R@10"]) == (0.0, 1.0)
    assert v["RR@10"] == pytest.approx(1 / 6)


def test_aggregate_overall_by_type_and_macro_by_document() -> None:
    outcomes = [
        Outcome(1, None, True),  # d1, type a: hit@1
        Outcome(3, None, True),  # d2, type a: RR 1/3
        Outcome(1, 2, True, True),  # d2, type b: hit@1, page hit at 2
        Outcome(None, None, False),  # d2, type b: miss
    ]
    agg = aggregate(outcomes, ["a", "a", "b", "b"], ["d1", "d2", "d2", "d2"])
    assert agg["n"] == 4
    assert agg["overall"]["hit@1"] == pytest.approx(2 / 4)
    assert agg["overall"]["RR@10"] == pytest.approx((1 + 1 / 3 + 1 + 0) / 4)
    assert agg["overall"]["ceiling"] == pytest.approx(3 / 4)
    assert agg["overall"]["page_R@1"] == 0.0 and agg["overall"]["page_R@5"] == 1.0  # one eligible question
    assert agg["by_qtype"]["a"]["hit@1"] == pytest.approx(0.5) and agg["by_qtype"]["a"]["n"] == 2
    assert agg["by_qtype"]["b"]["R@10"] == pytest.approx(0.5)
    assert agg["by_doc"]["d1"]["hit@1"] == 1.0
    assert agg["by_doc"]["d2"]["hit@1"] == pytest.approx(1 / 3)
    assert agg["macro_doc"]["hit@1"] == pytest.approx((1 + 1 / 3) / 2)  # documents weigh equally
    assert set(agg["overall"]) == set(MEASURES)


def test_aggregate_rejects_misaligned_inputs() -> None:
    with pytest.raises(ValueError, match="differ"):
        aggregate([Outcome(1, None, True)], ["a", "b"], ["d"])


def test_ir_measures_style_qrels_run_and_measures_kept_apart() -> None:
    import math

    from docling_evidence_bench.measures import calc_aggregate, first_relevant

    qrels = {"q1": {"b"}, "q2": {"x", "y"}, "q3": {"z"}}
    run = {"q1": ["a", "b", "c"], "q2": ["y"], "q3": ["a"] * 12 + ["z"]}  # q3's hit lies beyond rank 10
    assert first_relevant(run["q1"], qrels["q1"]) == 2
    assert first_relevant(run["q3"], qrels["q3"]) is None
    assert first_relevant(run["q3"], qrels["q3"], depth=13) == 13
    agg = calc_aggregate(["Success@1", "Success@3", "RR@10"], qrels, run)
    assert agg == {"Success@1": pytest.approx(1 / 3), "Success@3": pytest.approx(2 / 3), "RR@10": pytest.approx(0.5)}
    assert calc_aggregate(["RR@10"], {"q": {"a"}}, {}) == {"RR@10": 0.0}  # a query the run misses retrieved nothing
    assert math.isnan(calc_aggregate(["Success@1"], {}, run)["Success@1"])
    with pytest.raises(ValueError, match="unknown measure"):
        calc_aggregate(["nDCG@10"], qrels, run)
