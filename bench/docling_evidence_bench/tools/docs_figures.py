"""Fill the figures the README and docs quote from the results files in docs/results: one command, no guessing.

Every quoted figure sits in a marked region, ``<!-- results:NAME -->...<!-- /results:NAME -->`` (inline or around a
whole table), and is rendered here from the results files only; ``docs/fixtures.md`` is rendered whole from
``docs/results/fixtures.json`` by ``fixture_report.render_markdown``. Run from the repository root::

    python -m docling_evidence_bench.tools.docs_figures            # rewrite every region (and docs/fixtures.md)
    python -m docling_evidence_bench.tools.docs_figures --check    # change nothing; exit 1 naming each region
                                                                    # that differs
    python -m docling_evidence_bench.tools.docs_figures --measure  # first re-measure what has no other command:
                                                                    # the bundled example's chunk counts and the
                                                                    # docling-core suite's outcomes (needs
                                                                    # ../shared), into docs/results/example.json
                                                                    # and docs/results/dropin.json

The TAT-QA figures come from ``docs/results/benchmark/tatqa-dev-targets`` (``docling-evidence-bench targets``); the
fixture figures from :mod:`~docling_evidence_bench.tools.fixture_report`'s and
:mod:`~docling_evidence_bench.tools.perf_bench`'s results.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections.abc import Callable
from functools import cached_property
from pathlib import Path
from typing import Any

from docling_evidence_bench.paths import REPO

RESULTS = REPO / "docs" / "results"
DOCS = ("README.md", "docs/cli.md", "docs/integrations.md", "docs/benchmark.md")
"""The Markdown files whose marked regions are filled (relative to the repository root)."""
FIXTURES_MD = "docs/fixtures.md"
EXAMPLE = REPO / "docling_evidence" / "examples" / "annual_report.html"

REGION = re.compile(r"<!-- results:(?P<name>[\w-]+) -->(?P<body>.*?)<!-- /results:(?P=name) -->", re.S)
LIMITS = (256, 512)
METHODS = ("dense", "bm25")
QTYPES = ("table", "text", "table-text")
MEASURES = ("Success@10", "ok@256", "ok@512", "ok@1024", "ok@2048")
ARMS = ("hybrid", "hybrid-views", "evidence-single", "evidence")
"""The arms benchmark.md's table shows (``hybrid-pooled``, the pooling control, is in the reports only)."""
RANKING = "maxpool"
"""The ranking every quoted TAT-QA figure uses (for ``hybrid``, every chunk is its own unit: the same as flat)."""


def pct(value: float) -> str:
    """A share as points, one decimal (``0.304`` -> ``30.4``)."""
    return f"{100 * value:.1f}"


def signed(value: float) -> str:
    """A difference of shares as signed points (``+35.2``; ``+0.0`` for a zero)."""
    text = f"{100 * value:+.1f}"
    return "+0.0" if text == "-0.0" else text


def ci_text(ci: dict[str, Any]) -> str:
    """``+35.2 [+28.3, +42.5]``: a paired bootstrap difference and its CI."""
    return f"{signed(ci['diff'])} [{signed(ci['low'])}, {signed(ci['high'])}]"


class Bench:
    """One benchmark's results (``bench targets`` / ``bench run``) at every limit, and figures computed from them."""

    def __init__(self, by_limit: dict[int, dict[str, Any]]) -> None:
        self.by_limit = by_limit

    def summary_run(self, limit: int, arm: str, method: str) -> dict[str, Any]:
        """The stored aggregates of one arm's run."""
        for run in self.by_limit[limit]["summary"]["runs"]:
            if (run["arm"], run["method"], run["ranking"]) == (arm, method, RANKING):
                return run
        raise KeyError(f"no {arm}/{method}/{RANKING} run at limit {limit}")

    def value(self, limit: int, arm: str, method: str, measure: str, subset: str = "all") -> float:
        """One arm's measure over all questions, one question type, or ``macro_doc`` (the mean over documents)."""
        run = self.summary_run(limit, arm, method)
        if subset in ("all", "macro_doc"):
            return run["overall" if subset == "all" else subset][measure]
        return run["by_qtype"][subset][measure]

    def versus(self, limit: int, arm: str, baseline: str, method: str, measure: str, subset: str = "all") -> Any:
        """``arm - baseline``: the stored comparison against the run's baseline, else the same bootstrap."""
        results = self.by_limit[limit]
        if baseline == results["config"]["baseline"]:
            wanted = (arm, method, RANKING, subset, measure)
            for c in results["summary"]["comparisons"]:
                if (c["arm"], c["method"], c["ranking"], c["subset"], c["measure"]) == wanted:
                    return c["ci"]
            raise KeyError(f"no comparison {arm}/{method}/{subset}/{measure} at limit {limit}")
        return self._bootstrap(limit, arm, baseline, method, measure, subset)

    def _bootstrap(self, limit: int, arm: str, baseline: str, method: str, measure: str, subset: str) -> Any:
        """What ``bench report`` computes against its baseline (``summary.summarize``), against another arm."""
        from docling_evidence_bench.stats import paired_bootstrap_ci

        results = self.by_limit[limit]
        questions = results["questions"]
        keep = [subset == "all" or q["qtype"] == subset for q in questions]
        a, b = (
            [v for v, k in zip(self._per_question(limit, name, method, measure), keep, strict=True) if k]
            for name in (arm, baseline)
        )
        groups = [q["doc_id"] for q, k in zip(questions, keep, strict=True) if k]
        return paired_bootstrap_ci(a, b, groups, seed=int(results["seed"])).to_dict()

    def _per_question(self, limit: int, arm: str, method: str, measure: str) -> list[float]:
        from docling_evidence_bench.measures import questions_values
        from docling_evidence_bench.summary import run_outcomes

        results = self.by_limit[limit]
        for run in results["runs"]:
            if (run["arm"], run["method"], run["ranking"]) == (arm, method, RANKING):
                return [float(v[measure]) for v in questions_values(run_outcomes(run, results["questions"]))]
        raise KeyError(f"no {arm}/{method}/{RANKING} run at limit {limit}")

    def cost(self, limit: int, arm: str, key: str) -> float:
        """One arm's cost figure (``vectors``, ``tokens_indexed``, ...)."""
        return self.by_limit[limit]["arms"][arm]["cost"][key]

    def qtype_count(self, qtype: str) -> int:
        """How many questions of one type (the same at every limit)."""
        return self.by_limit[LIMITS[0]]["dataset"]["qtype_counts"][qtype]


class Figures:
    """The results files, each loaded once when first needed."""

    def __init__(self, results: Path = RESULTS) -> None:
        self.results = results

    def _json(self, relative: str) -> Any:
        path = self.results / relative
        if not path.is_file():
            raise FileNotFoundError(f"{path} is missing: run the command that writes it (see {__name__}'s docstring)")
        return json.loads(path.read_text(encoding="utf-8"))

    def _bench(self, folder: str) -> Bench:
        """One benchmark's results at every limit, stored measure names as today's (``Success@k``, not ``R@k``)."""
        from docling_evidence_bench.measures import with_current_names

        return Bench(
            {
                limit: with_current_names(self._json(f"benchmark/{folder}/limit-{limit}/results.json"))
                for limit in LIMITS
            }
        )

    @cached_property
    def tatqa(self) -> Bench:
        """TAT-QA dev, ``docling-evidence-bench targets``."""
        return self._bench("tatqa-dev-targets")

    @cached_property
    def fixture_qa(self) -> Bench:
        """The generated questions over the real fixtures, ``docling-evidence-bench run`` (docs/benchmark.md)."""
        return self._bench("fixtures-qa")

    @cached_property
    def fixtures(self) -> dict[str, Any]:
        """``docling_evidence_bench.tools.fixture_report``'s results."""
        return self._json("fixtures.json")

    @cached_property
    def performance(self) -> dict[str, Any]:
        """``docling_evidence_bench.tools.perf_bench``'s results."""
        return self._json("performance/results.json")

    @cached_property
    def dropin(self) -> dict[str, Any]:
        """docling-core's chunker suite run against both chunkers (``--measure``)."""
        return self._json("dropin.json")

    @cached_property
    def example(self) -> dict[str, Any]:
        """The bundled example's chunk counts (``--measure``)."""
        return self._json("example.json")


# --- renderers: one per region name --------------------------------------------------------------------------------


HEADLINE_ARMS = ("hybrid", "hybrid-views", "evidence")
"""The README's columns: HybridChunker, the control, ours (the differences are ours against the first two)."""


def tatqa_headline(f: Figures) -> str:
    """The README's table: HybridChunker, the control and ours, with both differences."""
    rows = [
        (256, "hit@1", "table-text", "limit 256, table **and** paragraph questions"),
        (256, "hit@1", "table", "limit 256, table-only questions"),
        (256, "hit@1", "text", "limit 256, text-only questions"),
        (256, "hit@1", "all", "limit 256, all questions"),
        (256, "ok@512", "all", "limit 256, ok@512, all questions"),
        (512, "hit@1", "all", "limit 512, all questions"),
    ]
    lines = [
        "| dense all-MiniLM-L6-v2, hit@1 | HybridChunker | HybridChunker + the same views (control) | EvidenceChunker "
        "| − HybridChunker [95% CI] | − control [95% CI] |",
        "|---|---:|---:|---:|---|---|",
    ]
    for limit, measure, subset, label in rows:
        values = [f"{pct(f.tatqa.value(limit, arm, 'dense', measure, subset))}%" for arm in HEADLINE_ARMS]
        diffs = [ci_text(f.tatqa.versus(limit, "evidence", b, "dense", measure, subset)) for b in HEADLINE_ARMS[:2]]
        lines.append(f"| {label} | " + " | ".join(values + diffs) + " |")
    return "\n" + "\n".join(lines) + "\n"


def tatqa_bm25(f: Figures) -> str:
    """The BM25 hit@1 gains over HybridChunker at both limits."""
    parts = [f"{ci_text(f.tatqa.versus(limit, 'evidence', 'hybrid', 'bm25', 'hit@1'))} ({limit})" for limit in LIMITS]
    return " and ".join(parts)


def single_vector_loss(f: Figures) -> str:
    """Table-only hit@1 of our chunks with one vector each, against HybridChunker (dense, 256)."""
    ci = f.tatqa.versus(256, "evidence-single", "hybrid", "dense", "hit@1", "table")
    return f"{signed(ci['diff'])} at 256, CI [{signed(ci['low'])}, {signed(ci['high'])}]"


def tatqa_cost(f: Figures) -> str:
    """Vectors and embedded tokens against HybridChunker's."""
    ratios = []
    for limit in LIMITS:
        ours, theirs = f.tatqa.cost(limit, "evidence", "vectors"), f.tatqa.cost(limit, "hybrid", "vectors")
        ratios.append((ours / theirs, f"{ours:,} against {theirs:,}"))
    tokens = f.tatqa.cost(256, "evidence", "tokens_indexed") / f.tatqa.cost(256, "hybrid", "tokens_indexed")
    return (
        f"{ratios[0][0]:.1f}x the vectors of HybridChunker at 256 and {ratios[1][0]:.1f}x at 512 ({ratios[0][1]}; "
        f"{ratios[1][1]}), and {tokens:.1f}x the tokens embedded at 256"
    )


def views_cost(f: Figures) -> str:
    """Vectors with views against one per chunk and against HybridChunker's, at both limits."""

    def ratios(baseline: str, key: str) -> str:
        low, high = (
            f.tatqa.cost(limit, "evidence", "vectors") / f.tatqa.cost(limit, baseline, key) for limit in LIMITS
        )
        return f"{low:.1f}x to {high:.1f}x"

    return f"{ratios('evidence', 'chunks')} the vectors of one per chunk, {ratios('hybrid', 'vectors')} HybridChunker's"


def integrations_gains(f: Figures) -> str:
    """integrations.md's summary of which retrieval to use."""
    dense = f.tatqa.versus(256, "evidence", "hybrid", "dense", "hit@1")
    bm25 = f.tatqa.versus(256, "evidence", "hybrid", "bm25", "hit@1")
    single = f.tatqa.versus(256, "evidence-single", "hybrid", "dense", "hit@1", "table")
    return (
        f"{signed(dense['diff'])} hit@1 over HybridChunker at 256 tokens, and BM25 alone {signed(bm25['diff'])}. "
        f"Without views (one vector per chunk), dense retrieval loses table-only questions ({signed(single['diff'])})"
    )


def match_first_ok(f: Figures) -> str:
    """integrations.md's example of delivering what matched first: table questions, ``ok@256`` at limit 512, BM25."""
    ours, theirs = (pct(f.tatqa.value(512, arm, "bm25", "ok@256", "table")) for arm in ("evidence", "hybrid"))
    return f"{ours}% of them (BM25; HybridChunker {theirs}%)"


def benchmark_arms(f: Figures) -> str:
    """benchmark.md's table of every arm's measures, the best of each setting in bold."""
    header = [f"hit@1 {t} (n={f.tatqa.qtype_count(t)})" for t in QTYPES] + ["hit@1 all", *MEASURES]
    lines = ["| limit | method | arm | " + " | ".join(header) + " |", "|" + "---|" * (3 + len(header))]
    arms = ARMS
    for limit in LIMITS:
        for method in METHODS:
            cells = {
                arm: [pct(f.tatqa.value(limit, arm, method, "hit@1", t)) for t in (*QTYPES, "all")]
                + [pct(f.tatqa.value(limit, arm, method, m)) for m in MEASURES]
                for arm in arms
            }
            best = [max(float(cells[arm][i]) for arm in arms) for i in range(len(header))]
            for arm in arms:
                shown = [f"**{v}**" if float(v) == best[i] else v for i, v in enumerate(cells[arm])]
                lines.append(f"| {limit} | {method} | `{arm}` | " + " | ".join(shown) + " |")
    return "\n" + "\n".join(lines) + "\n"


def benchmark_deltas(f: Figures) -> str:
    """benchmark.md's table of ``evidence - hybrid`` with CIs."""
    columns = [("hit@1", s) for s in ("all", *QTYPES)] + [("Success@10", "all"), ("ok@512", "all")]
    header = [f"Δ hit@1 {s}" for s in ("all", *QTYPES)] + ["Δ Success@10", "Δ ok@512"]
    lines = ["| limit | method | " + " | ".join(header) + " |", "|" + "---|" * (2 + len(header))]
    for limit in LIMITS:
        for method in METHODS:
            cis = [ci_text(f.tatqa.versus(limit, "evidence", "hybrid", method, m, s)) for m, s in columns]
            lines.append(f"| {limit} | {method} | " + " | ".join(cis) + " |")
    return "\n" + "\n".join(lines) + "\n"


FIXTURE_QTYPES = ("cell_value", "table_about")
"""The question types the fixture QA table shows (its 4 ``context_dependent`` questions count in "all" only)."""


def fixture_qa_arms(f: Figures) -> str:
    """benchmark.md's table of every arm on the generated questions over the real fixtures."""
    qa = f.fixture_qa
    header = [f"hit@1 {t} (n={qa.qtype_count(t)})" for t in FIXTURE_QTYPES] + ["hit@1 all", *MEASURES]
    header.append("hit@1 / ok@512, document macro")
    lines = ["| limit | method | arm | " + " | ".join(header) + " |", "|" + "---|" * (3 + len(header))]
    for limit in LIMITS:
        for method in METHODS:
            for arm in ARMS:
                cells = [pct(qa.value(limit, arm, method, "hit@1", t)) for t in (*FIXTURE_QTYPES, "all")]
                cells += [pct(qa.value(limit, arm, method, m)) for m in MEASURES]
                cells.append(" / ".join(pct(qa.value(limit, arm, method, m, "macro_doc")) for m in ("hit@1", "ok@512")))
                label = f"`{arm}`" + (" (control)" if arm == "hybrid-views" else "")
                lines.append(f"| {limit} | {method} | {label} | " + " | ".join(cells) + " |")
    return "\n" + "\n".join(lines) + "\n"


def fixture_qa_deltas(f: Figures) -> str:
    """benchmark.md's table of ``evidence`` against HybridChunker and the control on the fixture QA."""
    measures = ("hit@1", "ok@512", "ok@1024")
    header = [f"Δ {m} vs `hybrid`" for m in measures] + [f"Δ {m} vs control" for m in measures]
    lines = ["| limit | method | " + " | ".join(header) + " |", "|" + "---|" * (2 + len(header))]
    for limit in LIMITS:
        for method in METHODS:
            cis = [
                ci_text(f.fixture_qa.versus(limit, "evidence", base, method, m))
                for base in ("hybrid", "hybrid-views")
                for m in measures
            ]
            lines.append(f"| {limit} | {method} | " + " | ".join(cis) + " |")
    return "\n" + "\n".join(lines) + "\n"


def fixture_speed(f: Figures) -> str:
    """Our CPU time as a share of HybridChunker's on the fixtures: the performance run and the fixture report."""
    ratios = sorted((f.performance["fixtures"]["ratio"], f.fixtures["totals"]["time_ratio"]))
    low, high = (f"{r:.2f}x" for r in ratios)
    return low if low == high else f"{low} to {high}"


def fixture_batch(f: Figures) -> str:
    """The fixture set cli.md's throughput section chunks."""
    rows, totals = f.fixtures["fixtures"], f.fixtures["totals"]
    pages = [r["pages"] for r in rows]
    return (
        f"{len(rows)} DoclingDocument JSON fixtures under `../shared/fixtures` ({min(pages)} to {max(pages)} pages, "
        f"{totals['tables']} tables; {totals['chunks_evidence']} chunks, {totals['chunks_table']} of them table pieces"
    )


def fixture_largest(f: Figures) -> str:
    """The fixture with the most chunks: its name, pages and chunks."""
    row = max(f.fixtures["fixtures"], key=lambda r: r["chunks_evidence"])
    return f"`{Path(row['fixture']).name}`, {row['pages']} pages, {row['chunks_evidence']} chunks"


def example_chunks(f: Figures) -> str:
    """What the README's first command prints for the bundled example."""
    e = f.example
    return f"{e['chunks']} chunks, {e['table_pieces']} of them pieces of {e['table_units']} table units"


def dropin_counts(f: Figures) -> str:
    """docling-core's own chunker tests against EvidenceChunker: what is deselected, what passes."""
    d = f.dropin
    run = d["cases"] - d["deselected_cases"]
    ev, hy = d["evidence"], d["hybrid"]
    if ev["passed"] + ev["failed"] != run or hy["passed"] + hy["failed"] != run:
        raise ValueError("docs/results/dropin.json: outcomes do not add up to the cases run; re-run --measure")
    return (
        f"{d['deselected_functions']} of the {d['functions']} test functions, {d['deselected_cases']} of their "
        f"{d['cases']} cases). Of the {run} cases that run, {ev['passed']} pass (HybridChunker in the same harness: "
        f"{hy['passed']}), {ev['failed']} fail{'s' if ev['failed'] == 1 else ''} by design"
    )


RENDERERS: dict[str, Callable[[Figures], str]] = {
    "tatqa-headline": tatqa_headline,
    "tatqa-bm25": tatqa_bm25,
    "single-vector-loss": single_vector_loss,
    "tatqa-cost": tatqa_cost,
    "views-cost": views_cost,
    "integrations-gains": integrations_gains,
    "match-first-ok": match_first_ok,
    "benchmark-arms": benchmark_arms,
    "benchmark-deltas": benchmark_deltas,
    "fixture-qa-arms": fixture_qa_arms,
    "fixture-qa-deltas": fixture_qa_deltas,
    "fixture-speed": fixture_speed,
    "fixture-batch": fixture_batch,
    "fixture-largest": fixture_largest,
    "example-chunks": example_chunks,
    "dropin": dropin_counts,
}
"""Region name -> the function rendering its text from the results files."""


def fill(text: str, figures: Figures) -> str:
    """``text`` with every marked region's body rendered anew.

    Raises:
        ValueError: for a region name no renderer knows.
    """

    def render(match: re.Match[str]) -> str:
        name = match["name"]
        if name not in RENDERERS:
            raise ValueError(f"unknown results region {name!r} (known: {', '.join(sorted(RENDERERS))})")
        return f"<!-- results:{name} -->{RENDERERS[name](figures)}<!-- /results:{name} -->"

    return REGION.sub(render, text)


def regions(text: str) -> dict[str, str]:
    """Region name -> its current body."""
    return {m["name"]: m["body"] for m in REGION.finditer(text)}


def rendered_files(figures: Figures, repo: Path = REPO) -> dict[str, tuple[str, str]]:
    """Relative path -> (current text, text with every figure rendered from the results)."""
    out: dict[str, tuple[str, str]] = {}
    for name in DOCS:
        text = (repo / name).read_text(encoding="utf-8")
        out[name] = (text, fill(text, figures))
    from docling_evidence_bench.tools import fixture_report

    current = (repo / FIXTURES_MD).read_text(encoding="utf-8")
    out[FIXTURES_MD] = (current, fixture_report.render_markdown(figures.fixtures))
    return out


# --- measuring what no other command writes ------------------------------------------------------------------------


def measure_example() -> dict[str, Any]:
    """The bundled example chunked as the README's first command chunks it (default settings)."""
    from docling_evidence.pipeline import chunk_path

    chunks = chunk_path(EXAMPLE)
    tables = [c for c in chunks if c.meta.kind == "table"]
    return {
        "command": "docling-evidence chunk docling_evidence/examples/annual_report.html --format md",
        "chunks": len(chunks),
        "table_pieces": len(tables),
        "table_units": len({c.meta.unit_id for c in tables}),
    }


def measure_dropin() -> dict[str, Any]:
    """docling-core's chunker suite: every case with EvidenceChunker, then the kept cases with both chunkers."""
    sys.path.insert(0, str(REPO / "tests"))
    from dropin.core_suite import DESELECTED, SUITE, run_suite

    if not SUITE.is_dir():
        raise FileNotFoundError(f"{SUITE} is not present: cannot measure the drop-in counts")
    with tempfile.TemporaryDirectory() as tmp:
        every = run_suite(Path(tmp) / "all", "evidence", deselect=False)
        kept = {c: run_suite(Path(tmp) / c, c) for c in ("evidence", "hybrid")}
    functions = {node.split("[", 1)[0] for node in every}
    dropped = {node for node in every if node.split("[", 1)[0].rsplit("::", 1)[1] in DESELECTED}

    def counts(outcomes: dict[str, str]) -> dict[str, int]:
        return {o: sum(1 for v in outcomes.values() if v.startswith(o)) for o in ("passed", "failed", "skipped")}

    return {
        "command": "python -m docling_evidence_bench.tools.docs_figures --measure",
        "functions": len(functions),
        "deselected_functions": len({n.split("[", 1)[0] for n in dropped}),
        "cases": len(every),
        "deselected_cases": len(dropped),
        "evidence": counts(kept["evidence"]),
        "hybrid": counts(kept["hybrid"]),
    }


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if any figure differs")
    parser.add_argument("--measure", action="store_true", help="re-measure docs/results/{example,dropin}.json first")
    args = parser.parse_args(argv)
    from docling_evidence.cli.safe_write import write_json, write_text

    if args.measure:
        write_json(RESULTS / "example.json", measure_example(), indent=1)
        write_json(RESULTS / "dropin.json", measure_dropin(), indent=1)
    stale = []
    for name, (current, new) in rendered_files(Figures()).items():
        if current == new:
            continue
        stale.append(name)
        if not args.check:
            write_text(REPO / name, new)
    for name in stale:
        print(f"{name}: {'differs from' if args.check else 'filled from'} docs/results", file=sys.stderr)
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
