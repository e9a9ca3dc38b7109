"""The sweep's Markdown report and plots, generated only from the results JSON (``sweep_results.json``).

``write_outputs(results, folder)`` writes ``sweep_results.json`` (optional), ``sweep.md`` and one
``<task>_pareto.png`` per task. Files are written to a temporary name and renamed, so a failed run leaves no
half-written report behind.
"""

from __future__ import annotations

import io
import json
import math
from pathlib import Path
from typing import Any

from docling_evidence.cli.safe_write import write_bytes, write_text
from docling_evidence_bench.pareto import ParetoPoint, pareto_front

COST_AXES: tuple[tuple[str, str], ...] = (
    ("indexed_tokens", "indexed tokens (all-MiniLM-L6-v2 tokenizer)"),
    ("embed_seconds_median", "chunk embedding time, median over rounds (s)"),
)
"""The two cost axes of the Pareto front: storage/index size and embedding compute."""

_FAMILY_STYLE = {"fixed": ("tab:blue", "o"), "hybrid": ("tab:orange", "s"), "evidence": ("tab:green", "^")}

TASK_TITLES = {
    "boundary": "Boundary corpus (Korean evidence sentences straddling 400/800/1000/1600 code points)",
    "tatqa": "TAT-QA",
}


def _fmt(x: Any, digits: int = 3) -> str:
    if x is None:
        return "–"
    if isinstance(x, bool):
        return "yes" if x else "NO"
    if isinstance(x, int):
        return f"{x:,}"
    if isinstance(x, float):
        return "–" if math.isnan(x) else f"{x:.{digits}f}"
    return str(x)


def _ok_arms(task: dict[str, Any]) -> list[dict[str, Any]]:
    return [a for a in task["arms"] if a.get("status") == "ok"]


def pareto_names(
    task: dict[str, Any], cost_key: str, quality_key: str = "hit@1", quality_of: str = "quality"
) -> list[str]:
    """Names of the arms on the (quality up, ``cost_key`` down) Pareto front, cheapest first.

    ``quality_of`` picks the measure set: ``quality`` (dense) or ``quality_bm25``.
    """
    points = [
        ParetoPoint(
            a["name"], float(a.get(quality_of, {}).get(quality_key, math.nan)), float(a.get(cost_key, math.nan))
        )
        for a in _ok_arms(task)
    ]
    return [p.name for p in pareto_front(points)]


def _reference(task: dict[str, Any], name: str) -> dict[str, Any] | None:
    return next((a for a in _ok_arms(task) if a["name"] == name), None)


def _task_markdown(key: str, task: dict[str, Any], reference: str) -> list[str]:
    info = task["info"]
    lines = [f"## {TASK_TITLES.get(key, key)}", ""]
    if key == "boundary":
        lines.append(
            f"{info['documents']} documents, {len(task['queries'])} queries, seed {info['seed']}, "
            f"{info['code_points']:,} code points (corpus sha256 `{info['corpus_sha256'][:16]}…`); one index over the "
            "whole corpus; a chunk is relevant only if it is of the right document and holds the whole evidence span."
        )
    else:
        subset = "all contexts" if not info.get("limit_contexts") else f"the first {info['limit_contexts']} contexts"
        lines.append(
            f"`{Path(info['path']).name}`, {subset} ({info['documents']} documents of {info['contexts_per_doc']} "
            f"contexts, {info['questions']} questions: "
            + ", ".join(f"{k} {v}" for k, v in info["qtypes"].items())
            + f"); retrieval scope `{task['scope']}`; fixed-size profiles cut each document's Markdown export "
            f"({info['markdown_code_points']:,} code points). A chunk is relevant when it holds every gold answer "
            "string and, for table-text questions, the gold paragraphs."
        )
    lines += [
        "",
        "| arm | coverage | Hit@1 | Hit@3 | MRR@10 | BM25 Hit@1 | chunks | code points | duplicated | dup. ratio "
        "| indexed tokens | truncated chunks | embed s median / p95 | ms/text per request median / p95 "
        "| search ms median / p95 | failed |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for a in task["arms"]:
        if a.get("status") != "ok":
            lines.append(f"| {a['name']} | {a.get('status')}: {a.get('error', '')} |" + " |" * 14)
            continue
        q = a["quality"]
        bm = a.get("quality_bm25", {}).get("hit@1")
        mark = "*" if a.get("duplicate_method") == "repeated-lines" else ""
        lines.append(
            f"| {a['name']} | {_fmt(q['coverage'])} | {_fmt(q['hit@1'])} | {_fmt(q['hit@3'])} | {_fmt(q['mrr@10'])} "
            f"| {_fmt(bm)} | {_fmt(a['chunks'])} | {_fmt(a['total_code_points'])} "
            f"| {_fmt(a['duplicated_code_points'])}{mark} | {_fmt(a['duplicate_ratio'])}{mark} "
            f"| {_fmt(a['indexed_tokens'])} | {_fmt(a['truncated_chunks'])} "
            f"| {_fmt(a['embed_seconds_median'], 2)} / {_fmt(a['embed_seconds_p95'], 2)} "
            f"| {_fmt(a.get('request_ms_per_text_median'), 1)} / {_fmt(a.get('request_ms_per_text_p95'), 1)} "
            f"| {_fmt(a['search_ms_median'], 3)} / {_fmt(a['search_ms_p95'], 3)} | {_fmt(a['failed_requests'])} |"
        )
    lines += [
        "",
        "Coverage: share of queries for which some chunk is relevant (the chunking ceiling). Hit@1/Hit@3/MRR@10: dense "
        "exact cosine search. Embed s: the whole arm per round (median / p95 over rounds); ms/text per request: "
        "each request of at most the batch size, over all rounds. BM25 Hit@1: the same chunks under BM25 (untimed, "
        "embedder-independent). Truncated "
        "chunks: longer than the model's max_seq_length, so their tail is never embedded. "
        "\\* duplicates counted as repeated lines within a document (no source offsets), others exactly over offsets.",
        "",
    ]
    ref = _reference(task, reference)
    if ref is not None:
        lines += [
            f"### Against the `{reference}` default",
            "",
            "| arm | Δ coverage | Δ Hit@1 | Δ MRR@10 | indexed tokens × | embed time × | dup. ratio |",
            "|---|---:|---:|---:|---:|---:|---:|",
        ]
        rq = ref["quality"]
        for a in _ok_arms(task):
            q = a["quality"]
            tok_x = a["indexed_tokens"] / ref["indexed_tokens"] if ref["indexed_tokens"] else math.nan
            emb_x = a["embed_seconds_median"] / ref["embed_seconds_median"] if ref["embed_seconds_median"] else math.nan
            lines.append(
                f"| {a['name']} | {q['coverage'] - rq['coverage']:+.3f} | {q['hit@1'] - rq['hit@1']:+.3f} "
                f"| {q['mrr@10'] - rq['mrr@10']:+.3f} | {_fmt(tok_x, 2)} | {_fmt(emb_x, 2)} "
                f"| {_fmt(a['duplicate_ratio'])} |"
            )
        lines.append("")
    lines += ["### Pareto candidates (Hit@1 up, cost down)", ""]
    for cost_key, label in COST_AXES:
        names = pareto_names(task, cost_key)
        lines.append(f"- against {label}: " + (", ".join(f"`{n}`" for n in names) or "none"))
    cov = pareto_names(task, "indexed_tokens", "coverage")
    lines.append("- coverage against indexed tokens: " + (", ".join(f"`{n}`" for n in cov) or "none"))
    bm = pareto_names(task, "indexed_tokens", "hit@1", "quality_bm25")
    lines.append("- BM25 Hit@1 against indexed tokens: " + (", ".join(f"`{n}`" for n in bm) or "none"))
    lines.append("")
    if key == "boundary":
        lines += _boundary_breakdown(task)
    else:
        lines += _qtype_breakdown(task)
    lines += _invariants(task)
    return lines


def _boundary_breakdown(task: dict[str, Any]) -> list[str]:
    cases = task["info"]["cases"]
    boundaries = sorted({c["boundary"] for c in cases})
    arms = _ok_arms(task)
    lines = [
        "### Coverage and Hit@1 by boundary (queries out of 3)",
        "",
        "| arm | " + " | ".join(f"{b}: covered / Hit@1" for b in boundaries) + " |",
        "|---|" + "---:|" * len(boundaries),
    ]
    for a in arms:
        cells = []
        for b in boundaries:
            idx = [i for i, c in enumerate(cases) if c["boundary"] == b]
            cov = sum(a["covered"][i] for i in idx)
            hit = sum((a["first_relevant_rank"][i] or 99) <= 1 for i in idx)
            cells.append(f"{cov} / {hit}")
        lines.append(f"| {a['name']} | " + " | ".join(cells) + " |")
    return [*lines, ""]


def _qtype_breakdown(task: dict[str, Any]) -> list[str]:
    qtypes = list(dict.fromkeys(q["qtype"] for q in task["queries"]))
    lines = [
        "### Hit@1 (coverage) by question type",
        "",
        "| arm | " + " | ".join(f"{t} (n={sum(q['qtype'] == t for q in task['queries'])})" for t in qtypes) + " |",
        "|---|" + "---:|" * len(qtypes),
    ]
    for a in _ok_arms(task):
        cells = []
        for t in qtypes:
            idx = [i for i, q in enumerate(task["queries"]) if q["qtype"] == t]
            hit = sum((a["first_relevant_rank"][i] or 99) <= 1 for i in idx) / len(idx)
            cov = sum(a["covered"][i] for i in idx) / len(idx)
            cells.append(f"{hit:.3f} ({cov:.3f})")
        lines.append(f"| {a['name']} | " + " | ".join(cells) + " |")
    return [*lines, ""]


def _invariants(task: dict[str, Any]) -> list[str]:
    qe = task["query_embedding"]
    lines = [
        "### Vector invariants",
        "",
        f"Queries: {qe['vectors']} vectors for {qe['inputs']} inputs in {qe['requests']} requests; declared dimension "
        f"{qe['declared_dim']}; count {_fmt(qe['count_ok'])}, dimension {_fmt(qe['dim_ok'])}, finite "
        f"{_fmt(qe['finite_ok'])}.",
        "",
        "| arm | requests | largest batch | vectors (all rounds) | inputs per round | declared dim | count ok "
        "| dim ok | finite ok | quality same every round |",
        "|---|---:|---:|---:|---:|---:|---|---|---|---|",
    ]
    for a in task["arms"]:
        inv = a.get("invariants")
        if not inv:
            continue
        lines.append(
            f"| {a['name']} | {inv['requests']} | {inv['max_batch']} | {_fmt(inv['vectors'])} "
            f"| {_fmt(inv['inputs_per_round'])} | {inv['declared_dim']} | {_fmt(inv['count_ok'])} "
            f"| {_fmt(inv['dim_ok'])} | {_fmt(inv['finite_ok'])} | {_fmt(a.get('quality_stable'))} |"
        )
    return [*lines, ""]


def build_markdown(results: dict[str, Any], plots: dict[str, str] | None = None) -> str:
    """The whole report as Markdown (``plots`` maps task -> PNG file name to embed)."""
    s = results["settings"]
    env = results["environment"]
    lines = [
        "# Chunk size and overlap sweep",
        "",
        "Generated from `sweep_results.json` by `docling_evidence_bench.sweep_report`; do not edit by hand. "
        "The study recommends, it changes no default. Design: `docs/design/sweep.md`.",
        "",
        f"- Command: `{results['command']}`",
        f"- Code: git commit `{env.get('git_commit')}`",
        f"- Started {results['started']}, wall time {results.get('wall_seconds', math.nan):.0f} s; errors (failed "
        f"embedding requests): {results['errors']}",
        f"- Embedder `{env['embedder']}`, declared dimension {env['embedder_dim']}, max_seq_length "
        f"{env['embedder_max_seq_length']}; dimension check: {env['dimension_check']}",
        f"- Rounds: {s['rounds']} (boundary), {s['tatqa_rounds']} (TAT-QA) after {s['warmup']} warm-up pass(es); arm "
        f"order rotated each round; embedding requests of at most {s['batch_size']} texts; query vectors computed "
        "once and shared by all arms",
        f"- Machine: {env['cpu_count']} CPUs, torch threads {env['torch_threads']}, {env['platform']}, Python "
        f"{env['python']}; load average at start {env.get('load_average')}, at end {env.get('load_average_end')} "
        "(other jobs shared the machine: compare times within one run only)",
        "- Packages: " + ", ".join(f"{k} {v}" for k, v in env["packages"].items() if v),
        f"- Quality axis of the Pareto front: {s['quality_axis']}; reference profile `{s['reference']}`",
        "",
    ]
    for key, task in results["tasks"].items():
        lines += _task_markdown(key, task, s["reference"])
        if plots and key in plots:
            lines += [f"![{key}: quality against cost]({plots[key]})", ""]
    return "\n".join(lines).rstrip() + "\n"


def plot_task(key: str, task: dict[str, Any], path: Path) -> None:
    """Hit@1 against indexed tokens and against embedding time, every arm one point (its coverage as a hollow
    marker above it), the Hit@1 Pareto front as a dashed step line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    arms = _ok_arms(task)
    fig, axes = plt.subplots(1, len(COST_AXES), figsize=(13, 5.2))
    for ax, (cost_key, label) in zip(axes, COST_AXES, strict=True):
        for fam, (color, marker) in _FAMILY_STYLE.items():
            pts = [a for a in arms if a["family"] == fam]
            if not pts:
                continue
            ax.scatter(
                [a[cost_key] for a in pts],
                [a["quality"]["hit@1"] for a in pts],
                c=color,
                marker=marker,
                s=46,
                label=fam,
                zorder=3,
            )
            ax.scatter(
                [a[cost_key] for a in pts],
                [a["quality"]["coverage"] for a in pts],
                facecolors="none",
                edgecolors=color,
                marker=marker,
                s=30,
                linewidths=0.8,
                alpha=0.6,
                zorder=2,
            )
            for a in pts:
                ax.annotate(
                    a["name"], (a[cost_key], a["quality"]["hit@1"]), fontsize=7, xytext=(4, 3),
                    textcoords="offset points",
                )  # fmt: skip
        front = [next(a for a in arms if a["name"] == n) for n in pareto_names(task, cost_key)]
        ax.step(
            [a[cost_key] for a in front],
            [a["quality"]["hit@1"] for a in front],
            where="post",
            color="grey",
            linestyle="--",
            linewidth=1,
            label="Pareto front",
            zorder=2,
        )
        ax.set_xlabel(label)
        ax.set_ylabel("Hit@1, dense (filled); coverage (hollow)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, loc="best")
    fig.suptitle(f"{TASK_TITLES.get(key, key)}: quality against cost", fontsize=10)
    fig.tight_layout()
    try:
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=110)
        write_bytes(path, buffer.getvalue(), parents=True)
    finally:
        plt.close(fig)


def write_outputs(results: dict[str, Any], folder: Path, write_json: bool = True) -> list[Path]:
    """Write the results JSON (unless ``write_json`` is False), the plots and ``sweep.md``; return their paths."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    if write_json:
        path = folder / "sweep_results.json"
        write_text(path, json.dumps(results, indent=1, ensure_ascii=False) + "\n", parents=True)
        written.append(path)
    plots: dict[str, str] = {}
    for key, task in results["tasks"].items():
        if _ok_arms(task):
            png = folder / f"{key}_pareto.png"
            plot_task(key, task, png)
            plots[key] = png.name
            written.append(png)
    md = folder / "sweep.md"
    write_text(md, build_markdown(results, plots), parents=True)
    written.append(md)
    return written
