"""Aggregates and statistics computed from a results document's per-question outcomes only.

``run`` stores this summary in the results JSON for convenience; ``report`` recomputes it from the outcomes, so every
number in a report can be checked against the raw data.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from docling_evidence_bench.measures import BUDGETS, Outcome, aggregate, questions_values
from docling_evidence_bench.stats import N_RESAMPLES, mcnemar_exact, paired_bootstrap_ci

COMPARED_MEASURES: tuple[str, ...] = ("hit@1", "Success@10", *(f"ok@{b}" for b in BUDGETS))
"""Measures with a paired bootstrap CI against the baseline (hit@1 also gets McNemar)."""


def run_outcomes(run: dict[str, Any], questions: list[dict[str, Any]]) -> list[Outcome]:
    """The :class:`Outcome` list of one stored run (aligned with ``questions``).

    Runs stored before the unit-level and budget measures existed read as None for those.
    """
    n = len(questions)
    unit_hits = run.get("first_unit_hit") or [None] * n
    unit_ceilings = run.get("unit_ceiling") or [None] * n
    oks = run.get("ok") or [""] * n
    return [
        Outcome(
            fh,
            fp,
            bool(c),
            bool(q["page_eligible"]),
            fu,
            None if uc is None else bool(uc),
            tuple(ch == "1" for ch in ok) if ok else None,
        )
        for fh, fp, c, q, fu, uc, ok in zip(
            run["first_hit"],
            run["first_page_hit"],
            run["ceiling"],
            questions,
            unit_hits,
            unit_ceilings,
            oks,
            strict=True,
        )
    ]


def _key(run: dict[str, Any]) -> tuple[str, str, str, str]:
    return run["arm"], run["method"], run["scope"], run["ranking"]


def summarize(results: dict[str, Any], n_resamples: int = N_RESAMPLES) -> dict[str, Any]:
    """Aggregates of every run and paired comparisons of every arm with the baseline.

    Comparisons pair each run with the baseline run of the same method, scope and ranking, over all questions and
    within each question type; the bootstrap resamples documents with ``results["seed"]``.
    """
    questions = results["questions"]
    qtypes = [q["qtype"] for q in questions]
    doc_ids = [q["doc_id"] for q in questions]
    baseline = results["config"]["baseline"]
    seed = int(results["seed"])
    subsets: dict[str, np.ndarray] = {"all": np.ones(len(questions), dtype=bool)}
    for t in dict.fromkeys(qtypes):
        subsets[t] = np.array([qt == t for qt in qtypes])

    by_key = {_key(run): run for run in results["runs"]}
    values: dict[tuple[str, str, str, str], dict[str, np.ndarray]] = {}
    run_summaries = []
    for run in results["runs"]:
        outs = run_outcomes(run, questions)
        agg = aggregate(outs, qtypes, doc_ids)
        per_q = questions_values(outs)
        values[_key(run)] = {
            m: np.array([np.nan if v[m] is None else v[m] for v in per_q], dtype=np.float64) for m in COMPARED_MEASURES
        }
        run_summaries.append(
            {
                "arm": run["arm"],
                "method": run["method"],
                "scope": run["scope"],
                "ranking": run["ranking"],
                "overall": agg["overall"],
                "by_qtype": agg["by_qtype"],
                "macro_doc": agg["macro_doc"],
            }
        )

    comparisons = []
    for run in results["runs"]:
        arm, method, scope, ranking = _key(run)
        base_key = (baseline, method, scope, ranking)
        if arm == baseline or base_key not in by_key:
            continue
        for subset, mask in subsets.items():
            groups = [d for d, keep in zip(doc_ids, mask, strict=True) if keep]
            for measure in COMPARED_MEASURES:
                a = values[_key(run)][measure][mask]
                b = values[base_key][measure][mask]
                if np.isnan(a).any() or np.isnan(b).any():
                    continue  # a run stored without this measure
                entry: dict[str, Any] = {
                    "arm": arm,
                    "baseline": baseline,
                    "method": method,
                    "scope": scope,
                    "ranking": ranking,
                    "subset": subset,
                    "measure": measure,
                    "n": int(mask.sum()),
                    "ci": paired_bootstrap_ci(a, b, groups, n_resamples=n_resamples, seed=seed).to_dict(),
                }
                if measure == "hit@1":
                    entry["mcnemar"] = mcnemar_exact(a > 0, b > 0).to_dict()
                comparisons.append(entry)
    return {"runs": run_summaries, "comparisons": comparisons}
