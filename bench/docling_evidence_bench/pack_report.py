"""``pack.md``: the drop-in and ``pack@B`` numbers of pack results files, recomputed from their per-question flags.

Per chunk limit: the drop-in measures of each arm (no packer), ``pack@B`` of each arm with each scorer overall and
per question type, the tokens the packed texts take, and the paired differences ours − control with cluster
bootstrap CIs over documents (:func:`docling_evidence_bench.stats.paired_bootstrap_ci`), then every cell where ours
is below the control.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from docling_evidence_bench.pack_run import PACK_SCHEMA
from docling_evidence_bench.report import read_results_json
from docling_evidence_bench.stats import N_RESAMPLES, paired_bootstrap_ci


def load_pack_results(path: str | Path) -> dict[str, Any]:
    """Read a pack results JSON.

    Raises:
        ValueError: if the file is missing, not JSON, or not of :data:`PACK_SCHEMA`.
    """
    data = read_results_json(path)
    if not isinstance(data, dict) or data.get("schema") != PACK_SCHEMA:
        raise ValueError(f"{path}: not a pack results file (schema {PACK_SCHEMA!r})")
    return data


def _pct(v: float | None) -> str:
    return "–" if v is None else f"{100 * v:.1f}"


def _values(flags: str) -> np.ndarray:
    return np.frombuffer(flags.encode("ascii"), dtype=np.uint8).astype(np.float64) - ord("0")


RANKING_NAMES: dict[str, str] = {"maxpool": "max-pool", "flat": "flat"}
"""How a drop-in row's ranking is named in the report."""


def _ranking(run: dict[str, Any]) -> str | None:
    """The ranking a drop-in run was judged on (results written before both were kept hold the max-pool one)."""
    return run.get("ranking", "maxpool") if run["kind"] == "drop-in" else None


def _input(run: dict[str, Any]) -> str | None:
    """What a pack run handed the packer (results written before inputs were kept: the ranked chunks)."""
    return run.get("input", "ranked") if run["kind"] == "pack" else None


def _label(run: dict[str, Any]) -> str:
    if run["kind"] == "drop-in":
        return f"drop-in, {RANKING_NAMES.get(_ranking(run), _ranking(run))} ranking"  # type: ignore[arg-type]
    given = {"ranked+units": " + unit pieces", "retriever": " as MaxPoolRetriever"}.get(_input(run) or "", "")
    return f"packed{given}, {run['scorer']} scorer"


def _subsets(results: dict[str, Any]) -> dict[str, np.ndarray]:
    qtypes = [q["qtype"] for q in results["questions"]]
    out = {"all": np.ones(len(qtypes), dtype=bool)}
    for t in dict.fromkeys(qtypes):
        out[t] = np.array([x == t for x in qtypes])
    return out


def _table(header: Sequence[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header), *("| " + " | ".join(r) + " |" for r in rows)]


def _means_table(results: dict[str, Any], kind: str) -> list[str]:
    runs = [r for r in results["runs"] if r["kind"] == kind]
    if not runs:
        return []
    measures = list(runs[0]["measures"])
    subsets = _subsets(results)
    rows = []
    for r in runs:
        vals = {m: _values(f) for m, f in r["measures"].items()}
        for subset, mask in subsets.items():
            cells = [_pct(float(vals[m][mask].mean())) if mask.any() else "–" for m in measures]
            rows.append([r["method"], _label(r), f"`{r['arm']}`", f"{subset} (n={int(mask.sum())})", *cells])
    return _table(["method", "how", "arm", "questions", *measures], rows)


def _tokens_table(results: dict[str, Any]) -> list[str]:
    runs = [r for r in results["runs"] if r["kind"] == "pack"]
    if not runs:
        return []
    measures = list(runs[0]["tokens"])
    rows = []
    for r in runs:
        cells = []
        for m in measures:
            t = r["tokens"][m]
            over = r["over_budget"][m]
            cells.append(f"{np.mean(t):.0f}" + (f" (**{over} over**)" if over else ""))
        rows.append([r["method"], _label(r), f"`{r['arm']}`", *cells, f"{r['seconds']:.0f}"])
    return _table(["method", "how", "arm", *(f"tokens {m}" for m in measures), "seconds"], rows)


def paired_deltas(results: dict[str, Any], n_resamples: int = N_RESAMPLES) -> list[dict[str, Any]]:
    """``ours - control`` for every (method, how, subset, measure), with a paired bootstrap CI over documents.

    ``control`` is ``config["baseline"]``; ``ours`` every other arm.
    """
    base = results["config"]["baseline"]
    doc_ids = [q["doc_id"] for q in results["questions"]]
    seed = int(results.get("seed", 0))
    by_key = {(r["arm"], r["method"], r["kind"], r["scorer"], _ranking(r), _input(r)): r for r in results["runs"]}
    out: list[dict[str, Any]] = []
    for r in results["runs"]:
        control = by_key.get((base, r["method"], r["kind"], r["scorer"], _ranking(r), _input(r)))
        if r["arm"] == base or control is None:
            continue
        for subset, mask in _subsets(results).items():
            groups = [d for d, keep in zip(doc_ids, mask, strict=True) if keep]
            for m, flags in r["measures"].items():
                a, b = _values(flags)[mask], _values(control["measures"][m])[mask]
                ci = paired_bootstrap_ci(a, b, groups, n_resamples=n_resamples, seed=seed)
                out.append({"arm": r["arm"], "method": r["method"], "how": _label(r), "subset": subset,
                            "measure": m, "n": int(mask.sum()), "ours": float(a.mean()), "control": float(b.mean()),
                            "ci": ci.to_dict()})  # fmt: skip
    return out


def _ci(d: dict[str, Any]) -> str:
    ci = d["ci"]
    return f"{100 * ci['diff']:+.1f} [{100 * ci['low']:+.1f}, {100 * ci['high']:+.1f}]"


def _delta_table(deltas: list[dict[str, Any]], kind: str) -> list[str]:
    """One row per (method, how, arm, subset) of one kind (``drop-in`` or packed), one column per measure."""
    groups: dict[tuple[str, str, str, str], dict[str, dict[str, Any]]] = {}
    for d in deltas:
        if d["how"].startswith("drop-in") == (kind == "drop-in"):
            groups.setdefault((d["method"], d["how"], d["arm"], d["subset"]), {})[d["measure"]] = d
    if not groups:
        return []
    measures = list(next(iter(groups.values())))
    rows = [[method, how, f"`{arm}`", subset, *(_ci(by_m[m]) for m in measures)]
            for (method, how, arm, subset), by_m in groups.items()]  # fmt: skip
    return _table(["method", "how", "arm", "questions", *measures], rows)


def packing_gain(results: dict[str, Any], n_resamples: int = N_RESAMPLES) -> list[list[str]]:
    """Rows ``pack@B - ok@B`` of each arm, method and scorer over all questions: what packing changes against
    delivering the ranked units whole within the same budget (paired bootstrap CI over documents)."""
    doc_ids = [q["doc_id"] for q in results["questions"]]
    seed = int(results.get("seed", 0))
    drop = {(r["arm"], r["method"]): r for r in results["runs"] if _ranking(r) == "maxpool"}
    rows = []
    for r in results["runs"]:
        base = drop.get((r["arm"], r["method"]))
        if r["kind"] != "pack" or base is None:
            continue
        cells = []
        for m, flags in r["measures"].items():
            ok = base["measures"].get(m.replace("pack@", "ok@"))
            if ok is None:
                cells.append("–")
                continue
            ci = paired_bootstrap_ci(_values(flags), _values(ok), doc_ids, n_resamples=n_resamples, seed=seed)
            cells.append(_ci({"ci": ci.to_dict()}))
        rows.append([r["method"], _label(r), f"`{r['arm']}`", *cells])
    return rows


def _losses(deltas: list[dict[str, Any]]) -> list[str]:
    lost = [d for d in deltas if d["ci"]["diff"] < 0]
    if not lost:
        return ["Ours is not below the control in any cell."]
    lines = [f"Ours below the control in {len(lost)} of {len(deltas)} cells ( **bold**: the whole CI below 0):", ""]
    for d in sorted(lost, key=lambda d: d["ci"]["diff"]):
        text = (f"`{d['arm']}`, {d['method']}, {d['how']}, {d['subset']} (n={d['n']}), {d['measure']}: "
                f"{_pct(d['ours'])} vs {_pct(d['control'])}, {_ci(d)}")  # fmt: skip
        lines.append(f"- **{text}**" if d["ci"]["high"] < 0 else f"- {text}")
    return lines


def render_limit(results: dict[str, Any], n_resamples: int = N_RESAMPLES) -> list[str]:
    """The section of one results file (one chunk limit)."""
    cfg, ds, env = results["config"], results["dataset"], results.get("environment", {})
    deltas = paired_deltas(results, n_resamples)
    return [
        f"## limit {cfg['max_tokens']}: {ds['name']} (commit {str(env.get('git_commit'))[:10]})",
        "",
        f"{ds['n_questions']} questions over {ds['n_documents']} documents; embedder {cfg['embedder']}; "
        f"the first {cfg['depth']} distinct chunks of each ranking are packed; control `{cfg['baseline']}`.",
        "",
        "### Drop-in (no packer, judged as `bench run` judges)",
        "",
        "Two rankings of the same vectors: max-pool lists each unit once at its best piece, as `MaxPoolRetriever` "
        "shows it (a unit's other pieces leave the list); flat lists every vector's chunk, as a plain vector store "
        "returns it. Both are judged on the chunk that ranks; `ok@B` delivers re-assembled units (max-pool) or "
        "distinct chunks (flat) until B tokens.",
        "",
        *_means_table(results, "drop-in"),
        "",
        "### Packed (`pack@B`)",
        "",
        *_means_table(results, "pack"),
        "",
        "Tokens the packed texts take (mean; the chunker's tokenizer), and the packing time of each row:",
        "",
        *_tokens_table(results),
        "",
        "### Ours − control, points (paired bootstrap 95% CI over documents)",
        "",
        *_delta_table(deltas, "drop-in"),
        "",
        *_delta_table(deltas, "pack"),
        "",
        "### Packed − drop-in, same arm, same budget (`pack@B` − max-pool `ok@B`, all questions)",
        "",
        *_table(["method", "how", "arm", *(f"B = {b}" for b in cfg["budgets"])], packing_gain(results, n_resamples)),
        "",
        "### Where we lose",
        "",
        *_losses(deltas),
        "",
    ]


def render_pack_report(results_by_limit: dict[int, dict[str, Any]], n_resamples: int = N_RESAMPLES) -> str:
    """``pack.md`` over one or more chunk limits."""
    commands = list(dict.fromkeys(" ".join(r.get("command") or []) for r in results_by_limit.values()))
    lines = [
        "# Packed evidence: what reaches the LLM (`pack@B`) and the drop-in numbers",
        "",
        *(f"Command: `{c}`" for c in commands),
        "",
        "`pack@B`: the ranking's first chunks given to `EvidenceChunker.pack(question, chunks, B)`, the same packer "
        'and scorer for every arm ("+ unit pieces": followed by the other pieces of their units, '
        "`pack(..., pieces=)`, HybridChunker's chunks grouped by the table they hold; "
        '"as MaxPoolRetriever": what `MaxPoolRetriever(k=depth, fetch_k=5 * depth, budget=B)` gives the packer, '
        "the first `depth` (10) units pooled from the ranking's first 50 vectors, their other pieces and the hints "
        "of the views among those 50; for HybridChunker every chunk is a unit); the packed text is a hit when "
        "it holds every answer and every gold paragraph, "
        "whole or by its key sentence (its sentence sharing most words and numbers with question and answers). "
        "Drop-in: `hit@1` and `Success@5` judged on the chunk that ranks, `ok@B` on what is delivered in ranking "
        "order until B tokens: units re-assembled as `MaxPoolRetriever` does (max-pool ranking) or distinct chunks "
        "(flat ranking).",
        "",
    ]
    for _, results in sorted(results_by_limit.items()):
        lines += render_limit(results, n_resamples)
    return "\n".join(lines)
