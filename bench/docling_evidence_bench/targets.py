"""The benchmark's targets, checked from its results: EvidenceChunker against HybridChunker defaults.

For each chunk limit and retrieval method, ``evidence`` (max-pooled, judged on the chunk that ranks) is compared with
``hybrid`` (HybridChunker defaults, same tokenizer and limit) on:

- chunk-level hit@1 per answer type (``table``, ``text``, ``table-text``): at least the baseline's, and at least
  +20 points on ``table-text``;
- ``ok@B`` at every budget, overall and per type: at least the baseline's; at least +5 points overall at B = 512;
- Success@10 overall: not below the baseline's.

Shown beside them: the controls ``hybrid-pooled`` (HybridChunker's pieces of one table pooled as a unit: a gain that
pooling alone gives is not a gain of the evidence unit) and ``hybrid-views`` (HybridChunker's chunks plus the views
ours get: one vector per table row, the same row texts, and one per sentence of each chunk's paragraphs: a gain
that views alone give is not a gain of the unit), and the ablation ``evidence-single`` (our chunks, one vector each:
what the views add).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from docling_evidence_bench.measures import BUDGETS, describe_delivery

TARGET_ARMS: tuple[str, ...] = ("hybrid", "hybrid-pooled", "hybrid-views", "evidence-single", "evidence")
"""Baseline, the two controls (pooling alone; our views given to HybridChunker's chunks), our ablation without
views, and ours."""
TARGET_METHODS: tuple[str, ...] = ("dense", "bm25")
TARGET_LIMITS: tuple[int, ...] = (256, 512)
ANSWER_TYPES: tuple[str, ...] = ("table", "text", "table-text")
RANKING: str = "maxpool"
"""The ranking the targets read (for ``hybrid`` every chunk is its own unit, so it equals flat)."""


@dataclass(frozen=True)
class Check:
    """One target: a measure on a subset, the values of the arms, and whether ours meets the margin."""

    measure: str
    subset: str
    values: dict[str, float | None]
    margin: float
    """Required ``ours - baseline`` (0: not below)."""

    @property
    def diff(self) -> float | None:
        ours, base = self.values.get("evidence"), self.values.get("hybrid")
        return None if ours is None or base is None else ours - base

    @property
    def met(self) -> bool | None:
        d = self.diff
        return None if d is None else d >= self.margin - 1e-12


def _value(summary_runs: dict[tuple[str, str, str, str], Any], arm: str, method: str, subset: str, m: str) -> Any:
    run = summary_runs.get((arm, method, "doc", RANKING))
    if run is None:
        return None
    block = run["overall"] if subset == "all" else run["by_qtype"].get(subset)
    return None if block is None else block.get(m)


def check_targets(results: dict[str, Any], method: str) -> list[Check]:
    """Every target of one results document (one chunk limit) for one retrieval method, doc scope."""
    runs = {(r["arm"], r["method"], r["scope"], r["ranking"]): r for r in results["summary"]["runs"]}
    arms = [a for a in TARGET_ARMS if a in results["config"]["arms"]]

    def check(measure: str, subset: str, margin: float = 0.0) -> Check:
        return Check(measure, subset, {a: _value(runs, a, method, subset, measure) for a in arms}, margin)

    checks = [check("hit@1", t, 0.20 if t == "table-text" else 0.0) for t in ANSWER_TYPES]
    for b in BUDGETS:
        checks.append(check(f"ok@{b}", "all", 0.05 if b == 512 else 0.0))
        checks += [check(f"ok@{b}", t) for t in ANSWER_TYPES]
    checks.append(check("Success@10", "all"))
    return checks


def _pct(v: float | None) -> str:
    return "–" if v is None else f"{100 * v:.1f}"


def render_targets(results_by_limit: dict[int, dict[str, Any]], command: Sequence[str]) -> str:
    """``targets.md``: per limit and method, every check with the arms' values and met / NOT met."""
    # each limit folder may come from its own run (the limits in parallel): name the command of each
    commands = list(dict.fromkeys(" ".join(r.get("command") or command) for r in results_by_limit.values()))
    lines = [
        "# Targets: EvidenceChunker vs HybridChunker defaults (TAT-QA)",
        "",
        *([f"Command: `{commands[0]}`"] if len(commands) == 1 else ["Commands:", "", *(f"- `{c}`" for c in commands)]),
        "",
        f"Ranking `{RANKING}`, per-document scope. `hit@1` is judged on the chunk that ranks; `ok@B` on what the "
        "ranking delivers within B tokens (units re-assembled as `MaxPoolRetriever` returns them: "
        f"{'; '.join(sorted({describe_delivery(r['config']) for r in results_by_limit.values()}))}); "
        "Δ = evidence − hybrid in points; controls: "
        "`hybrid-pooled` (HybridChunker's pieces pooled by table), `hybrid-views` (HybridChunker's chunks plus our "
        "views: one vector per table row and one per sentence of each chunk's paragraphs); ablation: "
        "`evidence-single` (our chunks, one vector each).",
        "",
    ]
    intro, lines = lines, []
    summary_rows: list[str] = []
    for limit, results in results_by_limit.items():
        env = results.get("environment", {})
        for method in results["config"]["methods"]:
            if method not in TARGET_METHODS:
                continue
            checks = check_targets(results, method)
            arms = list(checks[0].values)
            n_met = sum(1 for c in checks if c.met)
            summary_rows.append(f"| {limit} | {method} | {n_met} / {len(checks)} |")
            lines += [
                f"## limit {limit}, {method} (commit {str(env.get('git_commit'))[:10]})",
                "",
                "| measure | subset | " + " | ".join(f"`{a}`" for a in arms) + " | Δ | target | met |",
                "|---|---|" + "---|" * len(arms) + "---|---|---|",
            ]
            for c in checks:
                target = "not below" if c.margin == 0 else f">= +{100 * c.margin:.0f}"
                met = "–" if c.met is None else ("met" if c.met else "**NOT met**")
                diff = "–" if c.diff is None else f"{100 * c.diff:+.1f}"
                vals = " | ".join(_pct(c.values[a]) for a in arms)
                lines.append(f"| {c.measure} | {c.subset} | {vals} | {diff} | {target} | {met} |")
            lines.append("")
    head = ["## Summary", "", "| limit | method | targets met |", "|---|---|---|", *summary_rows, ""]
    return "\n".join(intro + head + lines)
