"""Markdown report and PNG plots generated from a results JSON alone (every number recomputed from the outcomes)."""

from __future__ import annotations

import io
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docling_evidence.cli.safe_write import write_bytes, write_text
from docling_evidence_bench.measures import describe_delivery, with_current_names
from docling_evidence_bench.pareto import ParetoPoint, pareto_front
from docling_evidence_bench.run import RESULTS_SCHEMA
from docling_evidence_bench.summary import summarize

REPORT_NAME, HIT_PLOT, COST_PLOT = "report.md", "hit_by_type.png", "quality_vs_cost.png"
"""File names written into the report folder."""


def read_results_json(path: str | Path) -> Any:
    """The parsed JSON of a results file; ValueError (naming the file) when it is missing or not JSON."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{path}: no such results file")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: not valid JSON ({exc})") from exc


def load_results(path: str | Path) -> dict[str, Any]:
    """Read a results JSON written by ``run``; a stored summary's measures under today's names
    (:func:`~docling_evidence_bench.measures.with_current_names`).

    Raises:
        ValueError: if the file is missing, not JSON, not a benchmark results document, or of another schema.
    """
    data = read_results_json(path)
    missing = [k for k in ("schema", "seed", "config", "questions", "runs", "arms") if k not in data]
    if not isinstance(data, dict) or missing:
        raise ValueError(f"{path}: not a benchmark results file (missing {', '.join(missing) or 'object'})")
    if data["schema"] != RESULTS_SCHEMA:
        raise ValueError(
            f"{path}: results schema {data['schema']!r}, expected {RESULTS_SCHEMA!r}; results of schema 1 judged "
            "max-pool hits on the whole re-assembled unit, not on the chunk that ranks: "
            "re-run 'docling-evidence-bench run'"
        )
    if "summary" in data:
        data["summary"] = with_current_names(data["summary"])
    return data


def primary(results: dict[str, Any]) -> tuple[str, str]:
    """The (method, scope) the plots and cost table show: dense if run, per-document scope if run."""
    cfg = results["config"]
    method = "dense" if "dense" in cfg["methods"] else cfg["methods"][0]
    scope = "doc" if "doc" in cfg["scopes"] else cfg["scopes"][0]
    return method, scope


def _pct(v: float | None) -> str:
    return "–" if v is None else f"{100 * v:.1f}"


def _signed(v: float) -> str:
    return f"{100 * v:+.1f}"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return [*out, ""]


def _fmt_time(t: dict[str, Any] | None, scale: float = 1.0, digits: int = 2) -> str:
    if not t or t.get("median") is None:
        return "–"
    return f"{t['median'] * scale:.{digits}f} / {t['p95'] * scale:.{digits}f}"


@dataclass(frozen=True)
class _View:
    """What every section of the report reads: the run's settings and the summary's runs and comparisons by key."""

    cfg: dict[str, Any]
    ds: dict[str, Any]
    qtypes: list[str]
    runs: dict[tuple[str, str, str, str], dict[str, Any]]
    comps: dict[tuple[str, str, str, str, str, str], dict[str, Any]]
    ok_cols: list[str]
    any_pages: bool
    emb: dict[str, Any]
    p_method: str
    p_scope: str


def _view(results: dict[str, Any], summary: dict[str, Any]) -> _View:
    cfg = results["config"]
    p_method, p_scope = primary(results)
    return _View(
        cfg=cfg,
        ds=results["dataset"],
        qtypes=list(results["dataset"]["qtype_counts"]),
        runs={(r["arm"], r["method"], r["scope"], r["ranking"]): r for r in summary["runs"]},
        comps={
            (c["arm"], c["method"], c["scope"], c["ranking"], c["subset"], c["measure"]): c
            for c in summary["comparisons"]
        },
        ok_cols=[f"ok@{b}" for b in cfg.get("budgets", []) if b],
        any_pages=any(q["page_eligible"] for q in results["questions"]),
        emb=cfg.get("embedder") or {},
        p_method=p_method,
        p_scope=p_scope,
    )


def render_markdown(results: dict[str, Any], summary: dict[str, Any], plots: dict[str, str]) -> str:
    """The report text (tables use percentages; CIs are paired bootstrap over documents)."""
    view = _view(results, summary)
    lines = _intro(results, view)
    for method in view.cfg["methods"]:
        for scope in view.cfg["scopes"]:
            lines += [f"## {method} retrieval, {scope} scope", "", "### Overall", ""]
            lines += _overall(view, method, scope)
            lines += _by_type(view, method, scope)
            lines += _differences(view, method, scope)
    lines += _controls(view)
    lines += _cost(results, view)
    lines += ["## Plots", ""]
    for title, name in plots.items():
        lines += [f"![{title}]({name})", ""]
    return "\n".join(lines)


def _intro(results: dict[str, Any], view: _View) -> list[str]:
    """Dataset, retrieval, baseline, command and environment, and what the measures judge."""
    cfg, ds, emb = view.cfg, view.ds, view.emb
    lines = [
        f"# Retrieval benchmark: {ds['name']}",
        "",
        f"- Questions: {ds['n_questions']} ({', '.join(f'{t}: {n}' for t, n in ds['qtype_counts'].items())}) over "
        f"{ds['n_documents']} documents; {ds.get('skipped_questions', 0)} skipped (nothing to match).",
        f"- Retrieval: {', '.join(cfg['methods'])}; scope: {', '.join(cfg['scopes'])}; rankings: flat, maxpool; "
        f"RRF k={cfg['rrf_k']}; embedder: {emb.get('name', 'none (BM25 only)')}.",
        f"- Baseline: `{cfg['baseline']}`. Seed {results['seed']}; timing rounds: {cfg['rounds']}.",
        f"- Command: `{' '.join(results.get('command', []))}`",
        f"- Environment: Python {results['environment'].get('python')}, {results['environment'].get('platform')}, "
        f"{results['environment'].get('cpu_count')} CPUs, commit {str(results['environment'].get('git_commit'))[:10]}.",
        "",
        "All numbers are percentages recomputed from the per-question outcomes in the results JSON. `Success@k`: some "
        "item among the first k is a hit (so `hit@1` = `Success@1`); `RR@10`: reciprocal rank of the first hit, 0 "
        "beyond rank 10 (both computed by ir_measures); `ceiling`: some item of the document is a hit.",
        "",
    ]
    lines += [
        "Every arm is judged on the chunk that ranks (chunk level: `hit@1`, `Success@k`, `RR@10`, `ceiling`); max-pool "
        "only removes a unit's lower pieces from the list. `ok@B`: the ranking delivered in order until B tokens "
        f"are spent (flat: chunk by chunk; maxpool: unit by unit as re-assembled text, {describe_delivery(cfg)}; "
        "the last item cut) holds everything needed. `unit_*` (maxpool only): the whole re-assembled unit of each "
        "ranked piece is judged (more text than one chunk: not comparable with chunk-level numbers).",
        "",
    ]
    return lines


def _overall(view: _View, method: str, scope: str) -> list[str]:
    """Every arm and ranking over all questions: chunk level, ``ok@B``, unit level, page level."""
    cfg, runs, ok_cols, any_pages = view.cfg, view.runs, view.ok_cols, view.any_pages
    header = ["arm", "ranking", "hit@1", "Success@5", "Success@10", "RR@10", "ceiling", *ok_cols]
    header += ["unit_hit@1", "unit_ceiling", "hit@1 (doc macro)"]
    if any_pages:
        header += ["page Success@1", "page Success@10"]
    rows = []
    for arm in cfg["arms"]:
        for ranking in cfg["rankings"]:
            s = runs[(arm, method, scope, ranking)]
            o = s["overall"]
            row = [f"`{arm}`", ranking, _pct(o["hit@1"]), _pct(o["Success@5"]), _pct(o["Success@10"])]
            row += [_pct(o["RR@10"]), _pct(o["ceiling"])] + [_pct(o.get(m)) for m in ok_cols]
            row += [_pct(o.get("unit_hit@1")), _pct(o.get("unit_ceiling")), _pct(s["macro_doc"]["hit@1"])]
            if any_pages:
                row += [_pct(o["page_Success@1"]), _pct(o["page_Success@10"])]
            rows.append(row)
    return _table(header, rows)


def _by_type(view: _View, method: str, scope: str) -> list[str]:
    """Chunk-level hit@1, Success@10 and ``ok@B`` per question type."""
    cfg, ds, qtypes, ok_cols = view.cfg, view.ds, view.qtypes, view.ok_cols
    runs = view.runs
    lines = ["### By question type: chunk-level hit@1, Success@10, ok@B", ""]
    header = ["arm", "ranking"] + [f"hit@1 {t} (n={ds['qtype_counts'][t]})" for t in qtypes]
    header += [f"Success@10 {t}" for t in qtypes]
    header += [f"{m} {t}" for m in ok_cols for t in qtypes]
    rows = []
    for arm in cfg["arms"]:
        for ranking in cfg["rankings"]:
            bt = runs[(arm, method, scope, ranking)]["by_qtype"]
            rows.append(
                [f"`{arm}`", ranking]
                + [_pct(bt.get(t, {}).get("hit@1")) for t in qtypes]
                + [_pct(bt.get(t, {}).get("Success@10")) for t in qtypes]
                + [_pct(bt.get(t, {}).get(m)) for m in ok_cols for t in qtypes]
            )
    return lines + _table(header, rows)


def _differences(view: _View, method: str, scope: str) -> list[str]:
    """Each arm against the baseline: paired bootstrap CIs and McNemar on hit@1."""
    cfg, qtypes, ok_cols, comps = view.cfg, view.qtypes, view.ok_cols, view.comps
    lines = [
        f"### Difference to `{cfg['baseline']}` (paired bootstrap 95% CI by document; exact McNemar on hit@1)",
        "",
    ]
    header = ["arm", "ranking", "Δ hit@1 [95% CI]", "wins/losses", "McNemar p", "Δ Success@10 [95% CI]"]
    header += [f"Δ {m} [95% CI]" for m in ok_cols]
    header += [f"Δ hit@1 {t} [95% CI]" for t in qtypes]
    rows = []
    for arm in cfg["arms"]:
        if arm == cfg["baseline"]:
            continue
        for ranking in cfg["rankings"]:
            c = comps.get((arm, method, scope, ranking, "all", "hit@1"))
            r10 = comps.get((arm, method, scope, ranking, "all", "Success@10"))
            if c is None or r10 is None:
                continue
            row = [f"`{arm}`", ranking, _ci(c["ci"])]
            row += [f"{c['mcnemar']['wins']}/{c['mcnemar']['losses']}", f"{c['mcnemar']['p_value']:.3g}"]
            row += [_ci(r10["ci"])]
            for m in ok_cols:
                cm = comps.get((arm, method, scope, ranking, "all", m))
                row.append(_ci(cm["ci"]) if cm else "–")
            for t in qtypes:
                ct = comps.get((arm, method, scope, ranking, t, "hit@1"))
                row.append(_ci(ct["ci"]) if ct else "–")
            rows.append(row)
    return lines + _table(header, rows)


def _controls(view: _View) -> list[str]:
    """The controls and ablations in the primary view."""
    cfg, qtypes, runs, comps, emb = view.cfg, view.qtypes, view.runs, view.comps, view.emb
    p_method, p_scope = view.p_method, view.p_scope
    lines = [
        "## Controls and ablations",
        "",
        "Controls rule out easy explanations of a gain: `hybrid-pooled` (is it just pooling the pieces of a table?), "
        "`hybrid-markdown` (is it just the Markdown table format?), "
        "`hybrid-1024`/`hybrid-2048` (just bigger chunks? note the embedder reads at most "
        f"{emb.get('max_seq_length') or '–'} tokens), `page` (whole pages), `rowsplit` (row-level vectors). "
        "Ablations switch one part of the evidence unit off (`evidence-no-context`, `evidence-no-caption`). "
        f"Their numbers are in the tables above; primary view ({p_method}, {p_scope} scope, maxpool):",
        "",
    ]
    header = ["arm", "hit@1", "Δ hit@1 [95% CI]", "Success@10", "ceiling"] + [f"hit@1 {t}" for t in qtypes]
    rows = []
    for arm in cfg["arms"]:
        s = runs[(arm, p_method, p_scope, "maxpool")]
        c = comps.get((arm, p_method, p_scope, "maxpool", "all", "hit@1"))
        rows.append(
            [
                f"`{arm}`",
                _pct(s["overall"]["hit@1"]),
                _ci(c["ci"]) if c else "(baseline)",
                _pct(s["overall"]["Success@10"]),
            ]
            + [_pct(s["overall"]["ceiling"])]
            + [_pct(s["by_qtype"].get(t, {}).get("hit@1")) for t in qtypes]
        )
    lines += _table(header, rows)
    return lines


def _cost(results: dict[str, Any], view: _View) -> list[str]:
    """Chunks, vectors, tokens and times per arm."""
    cfg, emb, p_method, p_scope = view.cfg, view.emb, view.p_method, view.p_scope
    lines = [
        "## Cost",
        "",
        "Tokens counted with the bundled all-MiniLM-L6-v2 tokenizer over the embedded texts. Duplicated tokens: "
        "tokens of lines already indexed earlier in the same document. Times: median / p95 over rounds "
        "(embedding, whole arm) or over questions x rounds (query: search only, the query embedding is shared).",
        "",
    ]
    header = ["arm", "chunks", "vectors", "units", "tokens indexed", "mean tokens", "dup. tokens", "> model limit"]
    header += ["chunking s", "embedding s", f"query ms ({p_method}/{p_scope})"]
    rows = []
    for arm in cfg["arms"]:
        cost = results["arms"][arm]["cost"]
        trunc = cost.get("truncated_share")
        rows.append(
            [
                f"`{arm}`",
                str(cost["chunks"]),
                str(cost["vectors"]),
                str(cost["units"]),
                str(cost["tokens_indexed"]),
                f"{cost['mean_tokens']:.0f}",
                _pct(cost["duplicated_token_ratio"]),
                _pct(trunc) if trunc is not None else "–",
                f"{cost['chunk_seconds']:.1f}",
                _fmt_time(cost.get("embed_seconds")),
                _fmt_time(cost["query_ms"].get(f"{p_method}/{p_scope}"), digits=3),
            ]
        )
    lines += _table(header, rows)
    if emb.get("query_encode_ms_per_question"):
        lines += [f"Query embedding: {_fmt_time(emb['query_encode_ms_per_question'])} ms per question.", ""]
    return lines


def _ci(ci: dict[str, Any]) -> str:
    return f"{_signed(ci['diff'])} [{_signed(ci['low'])}, {_signed(ci['high'])}]"


def _savefig(fig: Any, path: Path) -> None:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110, bbox_inches="tight", metadata={"Software": None})
    write_bytes(path, buffer.getvalue())


def plot_hits_by_type(results: dict[str, Any], summary: dict[str, Any], path: Path) -> None:
    """Grouped bars: hit@1 per question type for each arm (primary method/scope, maxpool)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    method, scope = primary(results)
    arms = results["config"]["arms"]
    qtypes = ["all", *results["dataset"]["qtype_counts"]]
    runs = {(r["arm"], r["method"], r["scope"], r["ranking"]): r for r in summary["runs"]}
    width = 0.8 / len(qtypes)
    fig, ax = plt.subplots(figsize=(max(6.0, 1.1 * len(arms)), 4.0))
    for j, t in enumerate(qtypes):
        vals = []
        for arm in arms:
            s = runs[(arm, method, scope, "maxpool")]
            v = s["overall"]["hit@1"] if t == "all" else s["by_qtype"].get(t, {}).get("hit@1")
            vals.append(100 * v if v is not None else math.nan)
        ax.bar([i + (j - (len(qtypes) - 1) / 2) * width for i in range(len(arms))], vals, width, label=t)
    ax.set_xticks(range(len(arms)))
    ax.set_xticklabels(arms, rotation=30, ha="right")
    ax.set_ylabel("hit@1 (%)")
    ax.set_ylim(0, 100)
    ax.set_title(f"hit@1 by question type ({method}, {scope} scope, maxpool)")
    ax.legend(fontsize="small", ncols=min(4, len(qtypes)))
    _savefig(fig, path)
    plt.close(fig)


def plot_quality_vs_cost(results: dict[str, Any], summary: dict[str, Any], path: Path) -> None:
    """hit@1 (primary method/scope, maxpool) against tokens indexed, with the Pareto front marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    method, scope = primary(results)
    runs = {(r["arm"], r["method"], r["scope"], r["ranking"]): r for r in summary["runs"]}
    points = [
        ParetoPoint(
            arm,
            100 * runs[(arm, method, scope, "maxpool")]["overall"]["hit@1"],
            float(results["arms"][arm]["cost"]["tokens_indexed"]),
        )
        for arm in results["config"]["arms"]
    ]
    front = pareto_front(points)
    front_names = {p.name for p in front}
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    for p in points:
        on = p.name in front_names
        ax.scatter(p.cost, p.quality, color="tab:red" if on else "tab:gray", zorder=3)
        ax.annotate(p.name, (p.cost, p.quality), textcoords="offset points", xytext=(4, 4), fontsize=8)
    if front:
        ax.step(
            [p.cost for p in front], [p.quality for p in front], where="post", color="tab:red", label="Pareto front"
        )
        ax.legend(fontsize="small")
    ax.set_xlabel("tokens indexed")
    ax.set_ylabel("hit@1 (%)")
    ax.set_title(f"Quality vs index cost ({method}, {scope} scope, maxpool)")
    _savefig(fig, path)
    plt.close(fig)


def write_report(results: dict[str, Any], outdir: str | Path) -> Path:
    """Recompute the summary from ``results``' outcomes and write ``report.md`` and the two PNG plots into ``outdir``.

    Returns the report's path.
    """
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    summary = summarize(results)
    plot_hits_by_type(results, summary, outdir / HIT_PLOT)
    plot_quality_vs_cost(results, summary, outdir / COST_PLOT)
    text = render_markdown(results, summary, {"hit@1 by question type": HIT_PLOT, "quality vs cost": COST_PLOT})
    stored = results.get("summary")
    if stored is not None:
        same = json.loads(json.dumps(stored)) == json.loads(json.dumps(summary))
        text += f"\nStored summary in the results JSON matches the recomputation: {'yes' if same else 'NO'}.\n"
    return write_text(outdir / REPORT_NAME, text)
