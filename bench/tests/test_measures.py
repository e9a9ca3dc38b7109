"""Measures on hand-computed cases: hit definition, ranks, page-level success, aggregation by type and document, the
rank measures computed by ir_measures, and the names of older results files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from docling_evidence_bench.dataset import QAItem
from docling_evidence_bench.measures import MEASURES, Outcome, aggregate, is_hit, judge, question_values

REPO = Path(__file__).resolve().parents[2]


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
    assert v["hit@1"] == 0.0 and v["Success@1"] == 0.0
    assert v["Success@5"] == 1.0 and v["Success@10"] == 1.0
    assert v["RR@10"] == pytest.approx(0.5)
    assert v["ceiling"] == 1.0
    assert (v["page_Success@1"], v["page_Success@5"], v["page_Success@10"]) == (0.0, 1.0, 1.0)


def test_hit_beyond_depth_counts_nothing() -> None:
    hits = [False] * 10 + [True]
    o = judge(hits, [()] * 11, ceiling=True)
    assert o.first_hit is None
    v = question_values(o)
    assert v["Success@10"] == 0.0 and v["RR@10"] == 0.0 and v["ceiling"] == 1.0
    assert v["page_Success@10"] is None  # no gold pages: page measures do not apply


def test_rank_six_counts_for_r10_not_r5() -> None:
    v = question_values(judge([False] * 5 + [True], [()] * 6, ceiling=True))
    assert (v["Success@5"], v["Success@10"]) == (0.0, 1.0)
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
    assert agg["overall"]["page_Success@1"] == 0.0 and agg["overall"]["page_Success@5"] == 1.0  # one eligible question
    assert agg["by_qtype"]["a"]["hit@1"] == pytest.approx(0.5) and agg["by_qtype"]["a"]["n"] == 2
    assert agg["by_qtype"]["b"]["Success@10"] == pytest.approx(0.5)
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
    run = {"q1": ["a", "b", "c"], "q2": ["y"], "q3": [f"a{i}" for i in range(12)] + ["z"]}  # q3's hit: rank 13
    assert first_relevant(run["q1"], qrels["q1"]) == 2
    assert first_relevant(run["q3"], qrels["q3"]) is None
    assert first_relevant(run["q3"], qrels["q3"], depth=13) == 13
    agg = calc_aggregate(["Success@1", "Success@3", "RR@10"], qrels, run)
    assert agg == {"Success@1": pytest.approx(1 / 3), "Success@3": pytest.approx(2 / 3), "RR@10": pytest.approx(0.5)}
    assert calc_aggregate(["RR@10"], {"q": {"a"}}, {}) == {"RR@10": 0.0}  # a query the run misses retrieved nothing
    assert math.isnan(calc_aggregate(["Success@1"], {}, run)["Success@1"])
    with pytest.raises(ValueError, match="unknown measure"):
        calc_aggregate(["nDCG@10"], qrels, run)


def test_ir_measures_agrees_with_first_relevant_rank_arithmetic() -> None:
    """``rank_values`` (ir_measures on a run rebuilt from the first relevant rank) against Success@k and RR@k counted
    by hand from the rank, for every rank within the cutoff, beyond it, and none."""
    from docling_evidence_bench.measures import rank_values

    firsts = [None, *range(1, 13)]
    values = rank_values(firsts, ["Success@1", "Success@3", "Success@10", "RR@10", "RR@5"])
    for first, v in zip(firsts, values, strict=True):
        for k in (1, 3, 10):
            assert v[f"Success@{k}"] == float(first is not None and first <= k), (first, k)
        for k in (5, 10):
            assert v[f"RR@{k}"] == (1 / first if first is not None and first <= k else 0.0), (first, k)


def test_a_repeated_item_counts_at_its_first_rank_and_no_relevant_item_scores_zero() -> None:
    from docling_evidence_bench.measures import per_query

    values = per_query(["Success@1", "RR@10"], {"q": {"b"}, "none": set()}, {"q": ["a", "a", "b"], "none": ["b"]})
    assert values == {"q": {"Success@1": 0.0, "RR@10": 0.5}, "none": {"Success@1": 0.0, "RR@10": 0.0}}


def test_results_written_with_the_old_names_read_with_ir_measures_names(tmp_path: Path) -> None:
    """A summary stored as ``R@k`` reads as ``Success@k`` (keys and the measure a comparison names), values kept."""
    from docling_evidence_bench.measures import RENAMED, with_current_names
    from docling_evidence_bench.report import load_results

    old = {
        "runs": [{"overall": {"hit@1": 0.5, "R@10": 0.75, "page_R@1": 0.25, "unit_R@10": 1.0}, "by_qtype": {}}],
        "comparisons": [{"measure": "R@10", "ci": {"diff": 0.1}}, {"measure": "hit@1", "ci": {"diff": 0.2}}],
    }
    new = with_current_names(old)
    assert new["runs"][0]["overall"] == {"hit@1": 0.5, "Success@10": 0.75, "page_Success@1": 0.25,
                                         "unit_Success@10": 1.0}  # fmt: skip
    assert [c["measure"] for c in new["comparisons"]] == ["Success@10", "hit@1"]
    assert set(RENAMED.values()) <= set(MEASURES)
    stored = REPO / "docs" / "results" / "benchmark" / "fixtures-qa" / "limit-256" / "results.json"
    if stored.is_file():
        raw = json.loads(stored.read_text(encoding="utf-8"))["summary"]["runs"][0]["overall"]
        read = load_results(stored)["summary"]["runs"][0]["overall"]
        assert read["Success@10"] == raw.get("R@10", raw.get("Success@10"))
