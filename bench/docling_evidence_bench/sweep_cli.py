"""``sweep run|report``: the command line of the chunk size and overlap sweep (:mod:`docling_evidence_bench.sweep`).

Mounted as ``docling-evidence-bench sweep``; ``python -m docling_evidence_bench.sweep`` runs it too. Bad input prints
one ``error: ...`` line and exits with code 2 before anything is written.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from docling_evidence.cli.common import with_default
from docling_evidence_bench.sweep import (
    DEFAULT_MAX_TOKENS,
    DEFAULT_PROFILES,
    DEFAULT_REFERENCE,
    MAX_BATCH,
    SCHEMA,
    TOP_K,
    boundary_task,
    run_sweep,
    sweep_environment,
    tatqa_task,
)

sweep_app = typer.Typer(
    help="Chunk size and overlap sweep: quality against storage and embedding cost, with a Pareto front.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


_PROFILES_SPEC = ",".join(f"{s}/{o}" for s, o in DEFAULT_PROFILES)
_MAX_TOKENS_SPEC = ",".join(map(str, DEFAULT_MAX_TOKENS))


def _parse_profiles(spec: str) -> list[tuple[int, int]]:
    from docling_evidence_bench.fixed_size import parse_profile

    out = [parse_profile(p) for p in spec.split(",") if p.strip()]
    if not out:
        raise ValueError("no fixed-size profile given")
    return out


def _parse_ints(spec: str, what: str) -> list[int]:
    try:
        out = [int(p) for p in spec.split(",") if p.strip()]
    except ValueError:
        raise ValueError(f"{what} must be comma-separated integers, got {spec!r}") from None
    if any(n <= 0 for n in out):
        raise ValueError(f"{what} must be positive, got {spec!r}")
    return out


def _command_line() -> str:
    """How this process was started, as a user would type it again."""
    import shlex

    prog = Path(sys.argv[0]).name
    head = ["python", "-m", "docling_evidence_bench.sweep"] if prog == "sweep.py" else [prog]
    return shlex.join([*head, *sys.argv[1:]])


def _fail(msg: str) -> None:
    from docling_evidence.cli.common import usage_error

    raise usage_error(msg)


@sweep_app.command("run")
def run_command(
    out: Annotated[Path, typer.Option(help="Folder for sweep_results.json, sweep.md and PNGs.")] = Path(
        "docs/results/sweep"
    ),
    tatqa: Annotated[
        Path | None,
        typer.Option(help=with_default("TAT-QA JSON (e.g. ../shared/data/tatqa/tatqa_dataset_dev.json).", "none")),
    ] = None,
    limit_contexts: Annotated[int, typer.Option(help="TAT-QA: first N contexts (0: all).")] = 50,
    contexts_per_doc: Annotated[int, typer.Option(help="TAT-QA: contexts grouped into one document.")] = 10,
    skip_boundary: Annotated[bool, typer.Option(help="Do not run the boundary corpus.")] = False,
    embedder: Annotated[
        str, typer.Option(help="'default' (all-MiniLM-L6-v2), 'hashing', or a model path.")
    ] = "default",
    seed: Annotated[int, typer.Option(help="Seed of the boundary corpus.")] = 20241129,
    rounds: Annotated[int, typer.Option(help="Measured rounds (arm order rotated each round).")] = 3,
    tatqa_rounds: Annotated[int | None, typer.Option(help=with_default("Rounds for TAT-QA.", "--rounds"))] = None,
    warmup: Annotated[int, typer.Option(help="Warm-up passes before the measured rounds.")] = 1,
    batch_size: Annotated[int, typer.Option(help="Texts per embedding request (at most 64).")] = MAX_BATCH,
    profiles: Annotated[str, typer.Option(help="Fixed-size profiles, SIZE/OVERLAP,...")] = _PROFILES_SPEC,
    max_tokens: Annotated[str, typer.Option(help="Docling chunker max_tokens, comma-separated.")] = _MAX_TOKENS_SPEC,
    families: Annotated[str, typer.Option(help="Docling chunkers on TAT-QA: hybrid, evidence.")] = "hybrid,evidence",
    scope: Annotated[str, typer.Option(help="TAT-QA retrieval scope: doc or corpus.")] = "doc",
    quiet: Annotated[bool, typer.Option(help="No progress lines.")] = False,
) -> None:
    """Run the sweep and write the results JSON, the Markdown report and the plots."""
    from docling_evidence_bench.dataset import BenchDataError
    from docling_evidence_bench.embed import load_embedder
    from docling_evidence_bench.sweep_report import write_outputs

    try:
        prof = _parse_profiles(profiles)
        mt = _parse_ints(max_tokens, "--max-tokens")
        fams = [f.strip() for f in families.split(",") if f.strip()]
        bad = [f for f in fams if f not in ("hybrid", "evidence")]
        if bad:
            raise ValueError(f"unknown chunker family {bad[0]!r}; expected hybrid, evidence")
        if scope not in ("doc", "corpus"):
            raise ValueError(f"unknown scope {scope!r}; expected doc or corpus")
        if not 1 <= batch_size <= MAX_BATCH:
            raise ValueError(f"--batch-size must be in [1, {MAX_BATCH}], got {batch_size}")
        if rounds < 1 or (tatqa_rounds is not None and tatqa_rounds < 1) or warmup < 0:
            raise ValueError("--rounds must be >= 1 and --warmup >= 0")
        if skip_boundary and tatqa is None:
            raise ValueError("nothing to run: give --tatqa or drop --skip-boundary")
        if tatqa is not None and not tatqa.is_file():
            raise ValueError(f"{tatqa}: file not found")
        emb = load_embedder(embedder)
    except (ValueError, BenchDataError) as exc:
        _fail(str(exc))
        return
    say = (lambda m: None) if quiet else (lambda m: typer.echo(m, err=True))
    command = _command_line()
    results: dict[str, Any] = {
        "schema": SCHEMA,
        "command": command,
        "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "environment": sweep_environment(emb),
        "settings": {
            "seed": seed,
            "rounds": rounds,
            "tatqa_rounds": tatqa_rounds or rounds,
            "warmup": warmup,
            "batch_size": batch_size,
            "profiles": [list(p) for p in prof],
            "max_tokens": mt,
            "families": fams,
            "reference": DEFAULT_REFERENCE,
            "quality_axis": "hit@1",
            "top_k": TOP_K,
        },
        "tasks": {},
    }
    t_start = time.perf_counter()
    try:
        if not skip_boundary:
            results["tasks"]["boundary"] = run_sweep(
                boundary_task(seed, prof), emb, rounds=rounds, warmup=warmup, batch_size=batch_size, progress=say
            )
        if tatqa is not None:
            task = tatqa_task(tatqa, limit_contexts or None, contexts_per_doc, prof, mt, fams, scope)
            results["tasks"]["tatqa"] = run_sweep(
                task, emb, rounds=tatqa_rounds or rounds, warmup=warmup, batch_size=batch_size, progress=say
            )
    except (ValueError, BenchDataError) as exc:
        _fail(str(exc))
        return
    results["wall_seconds"] = time.perf_counter() - t_start
    results["environment"]["load_average_end"] = list(os.getloadavg()) if hasattr(os, "getloadavg") else None
    results["errors"] = sum(t["errors"] for t in results["tasks"].values())
    written = write_outputs(results, out)
    for p in written:
        typer.echo(str(p))


@sweep_app.command("report")
def report_command(
    results_json: Annotated[Path, typer.Argument(help="A sweep_results.json.")],
    out: Annotated[Path | None, typer.Option(help=with_default("Output folder.", "the JSON's folder"))] = None,
) -> None:
    """Regenerate the Markdown report and the plots from a results JSON."""
    import json

    from docling_evidence_bench.sweep_report import write_outputs

    try:
        results = json.loads(results_json.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        _fail(f"{results_json}: cannot read results: {exc}")
        return
    if not isinstance(results, dict) or results.get("schema") != SCHEMA:
        _fail(f"{results_json}: not a sweep results file (schema {SCHEMA})")
        return
    for p in write_outputs(results, out or results_json.parent, write_json=False):
        typer.echo(str(p))
