"""Benchmark: time and peak memory to chunk one big table, EvidenceChunker next to docling-core's HybridChunker.

Each measurement runs in a fresh subprocess (so peak memory is that run's own): build a ``DoclingDocument`` holding
one table of N rows (caption, footnote and a paragraph on each side, linked as Docling links them), warm the tokenizer
up on a small document, then time ``list(chunker.chunk(doc))``: CPU seconds of the process (robust when other jobs
share the machine) and wall seconds. Peak memory is the growth of the process's peak resident set
(``resource.getrusage().ru_maxrss``) during chunking. Every size is measured ``--repeats`` times (``--big-repeats``
from 100k rows) and the median is reported; a run that needs more than ``--timeout`` CPU seconds is stopped
(``RLIMIT_CPU``) and reported as a timeout, and that chunker's larger sizes are skipped.

Usage::

    python -m docling_evidence_bench.tools.split_bench -o docs/results/split_bench.json --docs docs/splitting.md

Writes the JSON results, prints a Markdown table and, with ``--docs``, replaces the table between the
``<!-- split-bench:start -->`` and ``<!-- split-bench:end -->`` markers of that file.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

CHUNKERS = ("evidence", "hybrid")
DEFAULT_SIZES = (100, 300, 1_000, 10_000, 100_000)
BIG = 100_000
"""Sizes from here on are measured ``--big-repeats`` times (one 100k-row run takes minutes on a 2-core machine)."""
N_COLS = int(os.environ.get("SPLIT_BENCH_COLS", "5"))
"""Columns of the table (``--cols``; a wide table, 6+, is split by column groups). Read from the environment so the
worker subprocesses see the same value."""
START, END = "<!-- split-bench:start -->", "<!-- split-bench:end -->"


def build_doc(n_rows: int) -> Any:
    """One table of ``n_rows`` body rows and ``N_COLS`` columns, with caption, footnote and context paragraphs."""
    from docling_core.types.doc import DocItemLabel, DoclingDocument, TableCell, TableData

    doc = DoclingDocument(name=f"bench-{n_rows}")
    doc.add_heading(text="Results", level=1)
    doc.add_text(label=DocItemLabel.TEXT, text="The ledger below lists every synthetic item with its four amounts.")
    caption = doc.add_text(label=DocItemLabel.CAPTION, text="Table 1: Synthetic ledger (amounts in thousands)")
    header = ["Item", "Opening balance", "Additions", "Disposals", "Closing balance"][:N_COLS]
    header += [f"Adjustment {c - 4} (restated)" for c in range(5, N_COLS)]
    cells = [
        TableCell(
            text=h,
            start_row_offset_idx=0,
            end_row_offset_idx=1,
            start_col_offset_idx=c,
            end_col_offset_idx=c + 1,
            column_header=True,
        )
        for c, h in enumerate(header)
    ]
    for r in range(1, n_rows + 1):
        values = [f"Item {r:06d}", f"{r * 7 % 9973:,}.5", f"({r * 13 % 997})", f"{r * 3 % 211}", f"{r * 11 % 99991:,}"]
        values = values[:N_COLS] + [f"{r * (c + 3) % 9973:,}.{c % 10}" for c in range(5, N_COLS)]
        cells.extend(
            TableCell(
                text=v,
                start_row_offset_idx=r,
                end_row_offset_idx=r + 1,
                start_col_offset_idx=c,
                end_col_offset_idx=c + 1,
                row_header=c == 0,
            )
            for c, v in enumerate(values)
        )
    table = doc.add_table(data=TableData(num_rows=n_rows + 1, num_cols=N_COLS, table_cells=cells))
    table.captions.append(caption.get_ref())
    note = doc.add_text(label=DocItemLabel.FOOTNOTE, text="* Closing balance = opening + additions - disposals.")
    table.footnotes.append(note.get_ref())
    doc.add_text(label=DocItemLabel.TEXT, text="Closing balances were reconciled with the general ledger.")
    return doc


def make_chunker(name: str, max_tokens: int) -> Any:
    """EvidenceChunker or HybridChunker over the same bundled all-MiniLM-L6-v2 tokenizer and limit."""
    from docling_evidence.tokenizer import bundled_tokenizer

    tokenizer = bundled_tokenizer(max_tokens)
    if name == "evidence":
        from docling_evidence import EvidenceChunker

        return EvidenceChunker(tokenizer=tokenizer)
    if name == "hybrid":
        from docling_core.transforms.chunker.hybrid_chunker import HybridChunker

        return HybridChunker(tokenizer=tokenizer)
    raise ValueError(f"unknown chunker {name!r}; expected one of {CHUNKERS}")


def _maxrss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # KiB on Linux


def worker(name: str, n_rows: int, max_tokens: int, timeout: float) -> dict[str, Any]:
    """One measurement (run in a subprocess): build, warm up, chunk once."""
    t0 = time.perf_counter()
    doc = build_doc(n_rows)
    build_s = time.perf_counter() - t0
    chunker = make_chunker(name, max_tokens)
    list(chunker.chunk(build_doc(20)))  # loads the tokenizer and imports
    base = _maxrss_mib()
    if timeout > 0:  # stop the run once chunking has used `timeout` CPU seconds (SIGXCPU)
        used = time.process_time()
        resource.setrlimit(resource.RLIMIT_CPU, (int(used + timeout) + 1, resource.RLIM_INFINITY))
    t0, c0 = time.perf_counter(), time.process_time()
    chunks = list(chunker.chunk(doc))
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    resource.setrlimit(resource.RLIMIT_CPU, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    count = chunker.tokenizer.count_tokens
    over = sum(count(chunker.contextualize(c)) > max_tokens for c in chunks) if n_rows <= 10_000 else None
    return {
        "chunker": name,
        "rows": n_rows,
        "cpu_seconds": cpu,
        "wall_seconds": seconds,
        "build_seconds": build_s,
        "peak_mib": _maxrss_mib() - base,
        "chunks": len(chunks),
        "over_limit": over,
    }


def measure(name: str, n_rows: int, max_tokens: int, timeout: float) -> dict[str, Any] | None:
    """Run :func:`worker` in a subprocess; None on timeout."""
    cmd = [sys.executable, __file__, "--worker", name, str(n_rows), "--max-tokens", str(max_tokens)]
    cmd += ["--timeout", str(timeout)]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    try:
        # the wall-clock guard is generous: the CPU limit decides; building a 100k-row document takes a while too
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=10 * timeout + 600, env=env, check=True)
    except subprocess.TimeoutExpired:
        return None
    except subprocess.CalledProcessError as exc:
        if exc.returncode in (-signal.SIGXCPU, -signal.SIGKILL):
            return None
        raise RuntimeError(f"{name} at {n_rows} rows failed:\n{exc.stderr[-2000:]}") from exc
    return json.loads(out.stdout.strip().splitlines()[-1])


def run(
    sizes: list[int], repeats: int, big_repeats: int, max_tokens: int, timeout: float, chunkers: list[str]
) -> dict[str, Any]:
    """All measurements; per chunker and size the median of ``repeats`` runs."""
    results: dict[str, Any] = {
        "max_tokens": max_tokens,
        "repeats": repeats,
        "big_repeats": big_repeats,
        "big_from_rows": BIG,
        "timeout_s": timeout,
        "columns": N_COLS,
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()},
        "runs": [],
        "median": [],
    }
    for name in chunkers:
        timed_out = False
        for n in sizes:
            if timed_out:
                results["median"].append({"chunker": name, "rows": n, "timeout": True, "skipped": True})
                continue
            runs = []
            for rep in range(big_repeats if n >= BIG else repeats):
                res = measure(name, n, max_tokens, timeout)
                msg = f"{res['cpu_seconds']:.2f} s CPU, {res['wall_seconds']:.2f} s wall" if res else "timeout"
                print(f"{name:8s} {n:>7d} rows  run {rep + 1}: {msg}", flush=True)
                if res is None:
                    timed_out = True
                    break
                runs.append(res)
                results["runs"].append(res)
            if timed_out:
                results["median"].append({"chunker": name, "rows": n, "timeout": True})
                continue
            results["median"].append(
                {
                    "chunker": name,
                    "rows": n,
                    "timeout": False,
                    "cpu_seconds": statistics.median(r["cpu_seconds"] for r in runs),
                    "wall_seconds": statistics.median(r["wall_seconds"] for r in runs),
                    "peak_mib": statistics.median(r["peak_mib"] for r in runs),
                    "chunks": runs[0]["chunks"],
                    "over_limit": runs[0]["over_limit"],
                    "n_runs": len(runs),
                }
            )
    return results


def markdown_table(results: dict[str, Any]) -> str:
    """The results as a Markdown table (medians), with per-row CPU times and EvidenceChunker/HybridChunker ratios."""
    med = {(m["chunker"], m["rows"]): m for m in results["median"]}
    sizes = sorted({m["rows"] for m in results["median"]})
    lines = [
        f"max_tokens = {results['max_tokens']} (bundled all-MiniLM-L6-v2 tokenizer), {results['columns']} columns; "
        f"median of {results['repeats']} runs ({results['big_repeats']} from {results['big_from_rows']:,} rows), "
        f"each in a fresh process; CPU seconds of chunking (wall seconds in the JSON); a run over "
        f"{results['timeout_s']:.0f} CPU seconds is a timeout. Machine: {results['machine']['cpus']} cores.",
        "",
        "| rows | Evidence CPU s | µs/row | peak MiB | chunks | Hybrid CPU s | µs/row | peak MiB | chunks "
        "| CPU ratio E/H | memory ratio E/H |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]

    def cols(m: dict[str, Any] | None, n: int) -> list[str]:
        if m is None:
            return ["—"] * 4
        if m.get("timeout"):
            return ["skipped" if m.get("skipped") else "timeout", "—", "—", "—"]
        per_row = m["cpu_seconds"] / n * 1e6
        return [f"{m['cpu_seconds']:.2f}", f"{per_row:.0f}", f"{m['peak_mib']:.0f}", str(m["chunks"])]

    for n in sizes:
        e, h = med.get(("evidence", n)), med.get(("hybrid", n))
        ok = bool(e and h and not e.get("timeout") and not h.get("timeout"))
        t_ratio = f"{e['cpu_seconds'] / h['cpu_seconds']:.2f}" if ok else "—"
        m_ratio = f"{e['peak_mib'] / h['peak_mib']:.2f}" if ok and h["peak_mib"] >= 1 else "—"
        lines.append("| " + " | ".join([f"{n:,}", *cols(e, n), *cols(h, n), t_ratio, m_ratio]) + " |")
    return "\n".join(lines)


def write_docs(path: Path, table: str) -> None:
    """Replace the text between the bench markers of ``path`` with ``table``."""
    text = path.read_text(encoding="utf-8")
    if START not in text or END not in text:
        raise ValueError(f"{path} has no {START} ... {END} markers")
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    path.write_text(f"{head}{START}\n{table}\n{END}{tail}", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-o", "--output", type=Path, help="write the JSON results here")
    parser.add_argument("--docs", type=Path, help="Markdown file whose bench-marker section receives the table")
    parser.add_argument("--sizes", type=int, nargs="+", default=list(DEFAULT_SIZES))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--big-repeats", type=int, default=1, help=f"repeats for tables of {BIG:,} rows or more")
    parser.add_argument("--max-tokens", type=int, default=256)
    parser.add_argument("--timeout", type=float, default=300.0, help="CPU seconds per run before it is a timeout")
    parser.add_argument("--chunkers", nargs="+", default=list(CHUNKERS), choices=CHUNKERS)
    parser.add_argument("--cols", type=int, default=N_COLS, help="columns of the table (default 5)")
    parser.add_argument("--worker", nargs=2, metavar=("CHUNKER", "ROWS"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.worker[0], int(args.worker[1]), args.max_tokens, args.timeout)))
        return 0
    if min(args.repeats, args.big_repeats, args.max_tokens, args.cols, *args.sizes) < 1:
        parser.error("--repeats, --big-repeats, --max-tokens, --cols and --sizes must be positive")
    if args.cols != N_COLS:  # re-run with the environment the workers read
        env = {**os.environ, "SPLIT_BENCH_COLS": str(args.cols)}
        return subprocess.run(
            [sys.executable, __file__, *(argv if argv is not None else sys.argv[1:])], env=env
        ).returncode
    results = run(sorted(args.sizes), args.repeats, args.big_repeats, args.max_tokens, args.timeout, args.chunkers)
    table = markdown_table(results)
    print(table)
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    if args.docs:
        write_docs(args.docs, table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
