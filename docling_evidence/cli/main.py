"""The ``docling-evidence`` command line: ``chunk``, ``inspect``, ``example`` and (when installed) ``bench``.

Exit codes: 0 every file processed; 1 some files failed (each reported on one line, the others still processed);
2 usage error, nothing processed (bad option value, output that may not be written, e.g. onto an input);
130 / 143 stopped by SIGINT / SIGTERM (workers ended, temp files removed, previous output untouched); 141 stdout's
reader went away (``| head``: stopped without a message, as coreutils' commands end).
Output files are written by :mod:`docling_evidence.cli.safe_write` (atomic, never over an input, symlinks written
through, ``-`` is stdout). Everything but the chunk output itself (progress, warnings, errors, summary) goes to
stderr, and every warning names its file. Inputs are checked before the tokenizer loads.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, TextIO

import typer
from rich.console import Console
from rich.markup import escape

from docling_evidence.cli.common import (
    QUICK_EXIT_CODES,
    Stopped,
    broken_pipe,
    collect_warnings,
    error,
    native_stderr_silenced,
    quiet_broken_pipe,
    run_app,
    stderr,
    stop_on_signals,
    third_party_logs,
    usage_error,
    warning,
    with_default,
    worker_signals,
)
from docling_evidence.cli.safe_write import STDOUT, DiscardOutput, OutputError, open_output, output_problem, write_text
from docling_evidence.document.convert import REPORT_SUFFIX

app = typer.Typer(
    name="docling-evidence",
    help="Chunk documents so that every table stays with its caption, footnotes and explaining paragraphs.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

try:
    from docling_evidence.bench.cli import app as _bench_app
    from docling_evidence.bench.sweep import sweep_app as _sweep_app
except ImportError:  # the benchmark sub-commands are optional
    _bench_app = None
if _bench_app is not None:
    # `docling-evidence bench sweep run|report`: the chunk size and overlap study
    _bench_app.add_typer(_sweep_app, name="sweep")
    app.add_typer(_bench_app, name="bench")


def _print_version(value: bool) -> None:
    if value:
        from docling_evidence import __version__

        typer.echo(f"docling-evidence {__version__}")
        raise typer.Exit(0)


@app.callback(help=app.info.help)
def _options(
    version: Annotated[
        bool,
        typer.Option(
            "--version", help="Print the version and exit.", callback=_print_version, is_eager=True, show_default=False
        ),
    ] = False,
) -> None:
    # the options of the command itself (typer shows them in `docling-evidence --help`)
    del version


BUG_REPORT_HINT = "this is a bug in docling-evidence: please report it with the file"


class OutputFormat(str, Enum):
    """``jsonl``: one JSON object per chunk; ``json``: one JSON array; ``md``: a human-readable listing."""

    jsonl = "jsonl"
    json = "json"
    md = "md"


class Engine(str, Enum):
    """Where files are processed: this machine's processes, or Ray actors."""

    local = "local"
    ray = "ray"


class TableFormat(str, Enum):
    """How tables are rendered inside the chunk text."""

    markdown = "markdown"
    html = "html"
    triplets = "triplets"


@dataclass(frozen=True)
class ChunkSettings:
    """The chunker options of a run; picklable, so worker processes build the same chunker."""

    max_tokens: int | None = None
    tokenizer: str | None = None
    bbox_threshold: float | None = None
    table_format: str | None = None


_CHUNKERS: dict[ChunkSettings, Any] = {}


def _chunker_for(settings: ChunkSettings) -> Any:
    """One chunker per settings per process (loading the tokenizer is the slow part)."""
    from docling_evidence.pipeline import make_chunker

    if settings not in _CHUNKERS:
        _CHUNKERS[settings] = make_chunker(
            max_tokens=settings.max_tokens,
            tokenizer=settings.tokenizer,
            bbox_threshold=settings.bbox_threshold,
            table_format=settings.table_format,
        )
    return _CHUNKERS[settings]


@dataclass
class FileOutcome:
    """What processing one input file produced: its chunk records or the one-line error, and its warnings."""

    path: str
    records: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0


def internal_error(path: str | Path, exc: BaseException) -> str:
    """The one-line message for an exception that is our bug, not the input's fault (distinct from InputError's)."""
    message = " ".join(str(exc).split())[:200]
    return f"{path}: internal error: {type(exc).__name__}: {message} ({BUG_REPORT_HINT})"


def process_file(path: str, settings: ChunkSettings) -> FileOutcome:
    """Convert and chunk one file into chunk records; never raises (errors become ``FileOutcome.error``).

    An :class:`~docling_evidence.document.convert.InputError` (the file is unreadable, or docling-core's own validation
    rejects it) and an unexpected exception (our bug) give different messages; a token limit too small for the file
    says which ``--max-tokens`` works (:func:`limit_advice`). Warnings raised meanwhile are returned, not printed,
    so the caller can name the file.
    """
    from docling_evidence.cli.limit_search import limit_advice
    from docling_evidence.document.convert import InputError, convert_path
    from docling_evidence.pipeline import chunk_document, chunk_record
    from docling_evidence.split.splitter import TokenLimitTooSmall

    start = time.perf_counter()
    outcome = FileOutcome(path)
    doc = None
    with collect_warnings() as caught:
        try:
            chunker = _chunker_for(settings)
            doc = convert_path(path)
            outcome.records = [chunk_record(c, chunker, path) for c in chunk_document(doc, chunker)]
        except InputError as exc:
            outcome.error = str(exc)
        except TokenLimitTooSmall as exc:  # the settings' fault, not a bug: say what to change
            outcome.error = f"{path}: {limit_advice(exc, doc, settings)}"
        except Exception as exc:  # a bug or an unforeseen Docling failure: report it, keep the batch going
            outcome.error = internal_error(path, exc)
    outcome.warnings = caught
    outcome.seconds = time.perf_counter() - start
    return outcome


def _quiet_environment() -> None:
    """No hub calls, no tokenizer thread warnings, no transformers chatter on stderr."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    # Docling logs each failure itself ("Input document x.docx is not valid."); ours is the one line per file.
    for name in ("docling", "docling_core"):
        logging.getLogger(name).setLevel(logging.ERROR)


def _worker_init() -> None:
    worker_signals()
    _quiet_environment()


@contextlib.contextmanager
def _outcomes(files: list[Path], settings: ChunkSettings, jobs: int) -> Iterator[Iterator[FileOutcome]]:
    """Yield an iterator of the outcomes of ``files`` in input order; with ``jobs > 1`` from a process pool.

    The pool's workers start here, before any progress-bar thread exists: on Linux they are forked and inherit the
    already loaded chunker (no second tokenizer load); elsewhere they are spawned. If the block is left by an
    exception (SIGINT/SIGTERM turned into :class:`Stopped`, a write error), pending files are cancelled and the
    workers are ended at once instead of finishing the batch.
    """
    if jobs <= 1 or len(files) <= 1:
        yield (process_file(str(path), settings) for path in files)
        return
    import multiprocessing

    method = "fork" if "fork" in multiprocessing.get_all_start_methods() and sys.platform == "linux" else "spawn"
    pool = ProcessPoolExecutor(
        max_workers=min(jobs, len(files)),
        mp_context=multiprocessing.get_context(method),
        initializer=_worker_init,
    )
    try:
        futures = [pool.submit(process_file, str(p), settings) for p in files]
        yield _results(files, futures)
    except BaseException:
        _end_pool(pool)
        raise
    pool.shutdown(wait=True)


def _check_ray() -> None:
    import importlib.util

    if importlib.util.find_spec("ray") is None:
        raise usage_error("--engine ray needs Ray: pip install 'docling-evidence[ray]'")


@contextlib.contextmanager
def _ray_outcomes(
    files: list[Path], settings: ChunkSettings, address: str | None, verbose: bool = False
) -> Iterator[Iterator[FileOutcome]]:
    """The outcomes of ``files`` processed on Ray actors (``docling_evidence.integrations.ray``), in input order.

    Ray's native core worker writes its own notices to the process's stderr; without ``verbose`` they go to
    ``/dev/null`` (Ray keeps its logs under ``/tmp/ray/session_*/logs``) and only our lines are shown. Ray is shut
    down before the block ends, so that its exit notices are silenced too."""
    import ray

    from docling_evidence.integrations.ray import chunk_files, connect

    with native_stderr_silenced(not verbose):
        try:
            try:
                connect(address, verbose=verbose)
            except RuntimeError as exc:
                raise usage_error(str(exc)) from None
            options = {k: v for k, v in vars(settings).items() if v is not None}
            yield (
                FileOutcome(path, records=records, error=error, warnings=warnings)
                for path, records, error, warnings in chunk_files(files, address=address, **options)
            )
        finally:
            with contextlib.suppress(Exception):
                ray.shutdown()


def _results(files: list[Path], futures: list[Future[FileOutcome]]) -> Iterator[FileOutcome]:
    for path, future in zip(files, futures, strict=True):
        try:
            yield _wait(future)
        except Exception as exc:  # a worker died (out of memory, killed): report the file, go on
            yield FileOutcome(str(path), error=f"{path}: worker process failed: {type(exc).__name__}: {exc}")


def _wait(future: Future[FileOutcome]) -> FileOutcome:
    """``future.result()`` in short waits: the OS may deliver SIGINT/SIGTERM to one of the pool's helper threads,
    and Python runs the handler only when the main thread next runs, so a wait without timeout would hold a stop
    request until the file finished."""
    while True:
        try:
            return future.result(timeout=0.2)
        except FutureTimeout:
            continue


def _end_pool(pool: ProcessPoolExecutor) -> None:
    """Cancel what has not started and end the workers now (SIGTERM, then SIGKILL after a second)."""
    processes = list((getattr(pool, "_processes", None) or {}).values())  # shutdown() forgets them
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        with contextlib.suppress(Exception):
            process.terminate()
    deadline = time.monotonic() + 1.0
    for process in processes:
        with contextlib.suppress(Exception):
            process.join(max(0.0, deadline - time.monotonic()))
            if process.is_alive():
                process.kill()
                process.join(0.5)


class _Writer:
    """Streams chunk records to a text stream as JSONL, a JSON array or the Markdown listing."""

    def __init__(self, stream: TextIO, fmt: OutputFormat, max_tokens: int | None, full: bool) -> None:
        self.stream = stream
        self.fmt = fmt
        self.max_tokens = max_tokens
        self.full = full
        self.count = 0

    def begin(self) -> None:
        if self.fmt is OutputFormat.json:
            self.stream.write("[")

    def write_file(self, outcome: FileOutcome) -> None:
        if self.fmt is OutputFormat.md:
            from docling_evidence.cli.listing import markdown_listing

            self.stream.write(markdown_listing(outcome.path, outcome.records, self.max_tokens, full=self.full))
            self.count += len(outcome.records)
            return
        for record in outcome.records:
            line = json.dumps(record, ensure_ascii=False)
            if self.fmt is OutputFormat.jsonl:
                self.stream.write(line + "\n")
            else:
                self.stream.write(("," if self.count else "") + "\n" + line)
            self.count += 1

    def end(self) -> None:
        if self.fmt is OutputFormat.json:
            self.stream.write("\n]\n")


def _check_settings(settings: ChunkSettings) -> Any:
    """Build the chunker once up front so a bad setting is one usage error, not one failure per file.

    The settings are validated where they are defined (``make_chunker``, ``EvidenceChunker``); this only turns
    their ``ValueError`` / ``TypeError`` into the CLI's one-line usage error.
    """
    try:
        return _chunker_for(settings)
    except (ValueError, TypeError) as exc:
        raise usage_error(" ".join(str(exc).split()).split(" For further information")[0]) from None


def _report_warnings(path: str, messages: list[str]) -> None:
    for message in messages:
        warning(f"{path}: {message}")


InputsArg = Annotated[
    list[Path],
    typer.Argument(
        readable=False,  # an unreadable file is that file's error (exit 1), not a usage error stopping the batch
        help="DoclingDocument .json files, documents Docling converts (.html .docx .md .xlsx .pptx; .pdf with the "
        "'pdf' extra and its models), or folders (searched recursively).",
        show_default=False,
    ),
]
MaxTokensOpt = Annotated[
    int | None,
    typer.Option(
        "--max-tokens",
        help=with_default("Token limit per chunk.", "256, the bundled tokenizer's limit"),
        min=1,
        show_default=False,
    ),
]
TokenizerOpt = Annotated[
    str | None,
    typer.Option(
        "--tokenizer",
        help=with_default(
            "Hugging Face tokenizer folder (or a model name in the local cache).", "bundled all-MiniLM-L6-v2"
        ),
        show_default=False,
    ),
]
BboxOpt = Annotated[
    float | None,
    typer.Option(
        "--bbox-threshold",
        help=with_default("Max vertical distance in points from a table for layout-based context paragraphs.", "300"),
        min=0.0,
        show_default=False,
    ),
]
VerboseOpt = Annotated[
    bool,
    typer.Option(
        "--verbose",
        "-v",
        help=with_default(
            "Also show the log lines of the Hugging Face hub, transformers and Ray (--engine ray).", "only ours"
        ),
        show_default=False,
    ),
]
TableFormatOpt = Annotated[
    TableFormat | None,
    typer.Option(
        "--table-format", help=with_default("Table rendering in the chunk text.", "markdown"), show_default=False
    ),
]


def _settings(
    max_tokens: int | None, tokenizer: str | None, bbox_threshold: float | None, table_format: TableFormat | None
) -> ChunkSettings:
    return ChunkSettings(max_tokens, tokenizer, bbox_threshold, table_format.value if table_format else None)


@app.command()
def chunk(
    inputs: InputsArg,
    output: Annotated[
        str | None,
        typer.Option(
            "--output",
            "-o",
            help=with_default(
                "Output file ('-' for stdout); written atomically, never over an input, through a symlink.", "stdout"
            ),
            show_default=False,
        ),
    ] = None,
    fmt: Annotated[OutputFormat, typer.Option("--format", "-f", help="Output format.")] = OutputFormat.jsonl,
    show_all: Annotated[
        bool,
        typer.Option(
            "--all",
            help=with_default(
                "With --format md: list every piece of every table unit.", "one piece of each, the first with rows"
            ),
            show_default=False,
        ),
    ] = False,
    max_tokens: MaxTokensOpt = None,
    tokenizer: TokenizerOpt = None,
    bbox_threshold: BboxOpt = None,
    table_format: TableFormatOpt = None,
    jobs: Annotated[int, typer.Option("--jobs", "-j", help="Parallel worker processes (convert + chunk).", min=1)] = 1,
    engine: Annotated[
        Engine, typer.Option("--engine", help="local: this machine (--jobs); ray: Ray actors (the 'ray' extra).")
    ] = Engine.local,
    address: Annotated[
        str | None,
        typer.Option(
            "--address",
            help=with_default("Ray cluster to join (auto, ray://host:10001).", "a local one"),
            show_default=False,
        ),
    ] = None,
    verbose: VerboseOpt = False,
) -> None:
    """Convert (if needed) and chunk documents; write one record per chunk (text, meta, full chunk)."""
    third_party_logs(verbose)
    with stop_on_signals():
        _chunk(
            inputs,
            None if output in (None, STDOUT) else Path(output),
            fmt,
            show_all,
            jobs,
            _settings(max_tokens, tokenizer, bbox_threshold, table_format),
            engine,
            address,
            verbose,
        )


def _chunk(
    inputs: list[Path],
    output: Path | None,
    fmt: OutputFormat,
    show_all: bool,
    jobs: int,
    settings: ChunkSettings,
    engine: Engine = Engine.local,
    address: str | None = None,
    verbose: bool = False,
) -> None:
    from docling_evidence.document.convert import expand_inputs
    from docling_evidence.pipeline import max_tokens_of

    err = stderr()
    if engine is Engine.ray:
        _check_ray()
    elif address is not None:
        raise usage_error("--address needs --engine ray")
    expanded = expand_inputs(inputs)  # inputs first: a missing file is reported before the tokenizer loads
    if output is not None and (problem := output_problem(output, inputs=expanded.files)):
        raise usage_error(problem)
    for problem in expanded.errors:
        error(str(problem))
    failed = len(expanded.errors)
    files = expanded.files
    n_ok = n_chunks = n_table = 0
    start = time.perf_counter()  # reset once the tokenizer is loaded: the summary's rate is about the files

    def summary() -> str:
        elapsed = time.perf_counter() - start
        rate = f", {n_ok / elapsed:.2f} docs/s" if n_ok and elapsed > 0 else ""
        target = f" → {output}" if output is not None and n_ok else ""
        return (
            f"{n_ok} file(s) chunked into {n_chunks} chunks ({n_table} table pieces) in {elapsed:.1f} s{rate}{target}"
        )

    if not files:
        err.print(f"[yellow]{escape(summary())}; {failed} input(s) failed[/]")
        raise typer.Exit(1)
    limit = max_tokens_of(_check_settings(settings))
    start = time.perf_counter()

    def run(stream: TextIO) -> None:
        nonlocal failed, n_ok, n_chunks, n_table
        writer = _Writer(stream, fmt, limit, show_all)
        writer.begin()
        engine_outcomes = (
            _outcomes(files, settings, jobs)
            if engine is Engine.local
            else _ray_outcomes(files, settings, address, verbose)
        )
        with engine_outcomes as outcomes, _progress(err, len(files)) as advance:
            for outcome in outcomes:
                _report_warnings(outcome.path, outcome.warnings)
                if outcome.error:
                    failed += 1
                    error(outcome.error)
                else:
                    n_ok += 1
                    n_chunks += len(outcome.records)
                    n_table += sum(r["meta"]["kind"] == "table" for r in outcome.records)
                    writer.write_file(outcome)
                advance(Path(outcome.path).name)
        writer.end()

    try:
        if output is None:
            run(sys.stdout)
            sys.stdout.flush()
        else:
            with open_output(output, inputs=files) as stream:
                run(stream)
                if not n_ok:
                    raise DiscardOutput  # every file failed: leave any previous output untouched
    except Stopped as stop:
        done = n_ok + failed - len(expanded.errors)
        where = f"nothing written, {output} untouched" if output is not None else "their chunks went to stdout"
        err.print(f"[yellow]stopped by {stop.name}: {done} of {len(files)} file(s) done; {escape(where)}[/]")
        raise typer.Exit(stop.exit_code) from None
    except BrokenPipeError:  # the reader of stdout (or of the FIFO given as -o) went away: `| head`
        raise broken_pipe() from None
    except OutputError as exc:
        raise usage_error(str(exc)) from None
    except OSError as exc:
        raise usage_error(f"cannot write {output or 'stdout'}: {exc.strerror or exc}") from None
    if failed:
        err.print(f"[yellow]{escape(summary())}; {failed} input(s) failed[/]")
        raise typer.Exit(1)
    err.print(f"[green]{escape(summary())}[/]")


@contextlib.contextmanager
def _progress(console: Console, total: int) -> Iterator[Callable[[str], None]]:
    """A progress bar on stderr for multi-file runs; yields ``advance(name)``."""
    if total <= 1 or not console.is_terminal:
        yield lambda _name: None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("chunking"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.description}"),
        console=console,
        transient=True,
    ) as progress:
        task = progress.add_task("", total=total)
        yield lambda name: progress.update(task, advance=1, description=escape(name))


def report_names(files: list[Path]) -> list[str]:
    """A distinct report file name for every input: ``<stem>.inspect.html``, made longer only where names collide.

    Inputs sharing a stem (``a/doc.json``, ``a/doc.html``) keep their extension (``doc.json.inspect.html``); inputs
    sharing a file name (``a/doc.json``, ``b/doc.json``) take their parent folders (``a_doc.json.inspect.html``),
    as many as it takes. Compared case-insensitively, for case-insensitive file systems.
    """

    def name(path: Path, level: int) -> str:
        if level == 0:
            return path.stem
        parents = [p for p in path.resolve().parent.parts if p not in ("/", "\\")]
        return "_".join([*parents[len(parents) - (level - 1) :], path.name] if level > 1 else [path.name])

    levels = [0] * len(files)
    max_level = 2 + max((len(p.resolve().parts) for p in files), default=0)
    for _ in range(max_level):
        names = [name(p, lv).lower() for p, lv in zip(files, levels, strict=True)]
        clashes = {n for n in names if names.count(n) > 1}
        if not clashes:
            break
        levels = [lv + 1 if n in clashes else lv for n, lv in zip(names, levels, strict=True)]
    return [f"{name(p, lv)}{REPORT_SUFFIX}" for p, lv in zip(files, levels, strict=True)]


@app.command()
def inspect(
    inputs: InputsArg,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            readable=False,
            help=with_default(
                "Report file for one input; for several inputs a folder receiving one report per input.",
                "<name>.inspect.html in the current folder",
            ),
            show_default=False,
        ),
    ] = None,
    max_tokens: MaxTokensOpt = None,
    tokenizer: TokenizerOpt = None,
    bbox_threshold: BboxOpt = None,
    table_format: TableFormatOpt = None,
    answer: Annotated[
        str | None,
        typer.Option(
            "--answer",
            "-a",
            help=with_default("Check this answer (see `cite`); outline its evidence.", "none"),
            show_default=False,
        ),
    ] = None,
    verbose: VerboseOpt = False,
) -> None:
    """Write a self-contained HTML report per document: every chunk, its members and their boxes on the pages."""
    third_party_logs(verbose)
    with stop_on_signals():
        _inspect(inputs, output, _settings(max_tokens, tokenizer, bbox_threshold, table_format), answer)


def _inspect(inputs: list[Path], output: Path | None, settings: ChunkSettings, answer: str | None = None) -> None:
    from docling_evidence.cli.limit_search import limit_advice
    from docling_evidence.document.convert import InputError, convert_path, expand_inputs
    from docling_evidence.document.paths import path_kind
    from docling_evidence.pipeline import chunk_document
    from docling_evidence.split.splitter import TokenLimitTooSmall

    err = stderr()
    expanded = expand_inputs(inputs)
    files = expanded.files
    several = len(files) > 1 or len(inputs) > 1 or any(path_kind(p) == "dir" for p in inputs)
    if several:
        if output is not None and str(output) == STDOUT:
            raise usage_error("-o - (stdout) takes one input; several inputs need -o to be a folder")
        folder = output or Path.cwd()
        if path_kind(folder) not in ("dir", "missing"):
            raise usage_error(f"cannot write reports to {folder}: several inputs need -o to be a folder")
        targets = [folder / name for name in report_names(files)]
    else:
        targets = [output or Path.cwd() / report_names(files)[0] for _ in files]
    for target in targets:
        if problem := output_problem(target, inputs=files, parents=several):
            raise usage_error(problem)
    for problem in expanded.errors:
        error(str(problem))
    failed = len(expanded.errors)
    if not files:
        raise typer.Exit(1)
    chunker = _check_settings(settings)
    if several:
        try:
            targets[0].parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise usage_error(f"cannot create {targets[0].parent}: {exc.strerror or exc}") from None

    from docling_evidence.cli.inspect_report import render_report

    done = written = 0
    try:
        for path, target in zip(files, targets, strict=True):
            with collect_warnings() as caught:
                doc = None
                try:
                    doc = convert_path(path)
                    chunks = chunk_document(doc, chunker)
                    citations = None
                    if answer is not None:
                        from docling_evidence.cite import check_answer

                        citations = check_answer(answer, doc)
                    page = render_report(doc, chunks, chunker, source=path.name, citations=citations)
                except InputError as exc:
                    message = str(exc)
                except TokenLimitTooSmall as exc:
                    message = f"{path}: {limit_advice(exc, doc, settings)}"
                except Exception as exc:  # our bug: say so, keep going with the other files
                    message = internal_error(path, exc)
                else:
                    message = None
            _report_warnings(str(path), caught)
            done += 1
            if message is not None:
                failed += 1
                error(message)
                continue
            write_text(target, page, inputs=files)
            written += 1
            err.print(f"[green]{escape(str(path))}: {len(chunks)} chunks → {escape(str(target))}[/]")
    except Stopped as stop:
        err.print(f"[yellow]stopped by {stop.name}: {done} of {len(files)} file(s) done[/]")
        raise typer.Exit(stop.exit_code) from None
    except BrokenPipeError:  # -o - (stdout) and its reader went away
        raise broken_pipe() from None
    except OutputError as exc:
        raise usage_error(str(exc)) from None
    except OSError as exc:
        raise usage_error(f"cannot write {exc.filename or 'report'}: {exc.strerror or exc}") from None
    if failed:
        err.print(f"[yellow]{written} report(s) written; {failed} input(s) failed[/]")
        raise typer.Exit(1)


@app.command()
def example(
    fmt: Annotated[str, typer.Option("--format", "-f", help="html or docx.")] = "html",
) -> None:
    """Print the path of the bundled example report, e.g. `docling-evidence chunk "$(docling-evidence example)"`."""
    path = Path(__file__).parents[1] / "examples" / f"annual_report.{fmt}"
    if not path.is_file():
        raise usage_error(f"no bundled example in format {fmt!r} (use html or docx)")
    with quiet_broken_pipe():
        typer.echo(str(path))


class CiteFormat(str, Enum):
    """``text``: a readable report; ``json``: ``{"claims": [{"text", "supported", "evidence": [...]}]}``."""

    text = "text"
    json = "json"


@app.command()
def cite(
    document: Annotated[
        Path,
        typer.Argument(readable=False, help="The document (DoclingDocument .json or a file Docling converts)."),
    ],
    answer: Annotated[str, typer.Option("--answer", "-a", help="The answer text to check ('-': read stdin).")],
    chunks: Annotated[
        Path | None,
        typer.Option(
            "--chunks",
            readable=False,
            help=with_default("JSONL of the chunks the answer cites (`chunk` output).", "the whole document"),
            show_default=False,
        ),
    ] = None,
    fmt: Annotated[CiteFormat, typer.Option("--format", "-f", help="Output format.")] = CiteFormat.text,
    strict: Annotated[
        bool,
        typer.Option(
            "--strict", help=with_default("Exit 3 when some claim is unsupported.", "off"), show_default=False
        ),
    ] = False,
) -> None:
    """Check each claim of an answer (numbers, quotes, sentences) against the document: what supports it, page, box."""
    from docling_evidence.cite import check_file, format_text

    text = sys.stdin.read() if answer == "-" else answer
    if not text.strip():
        raise usage_error("the answer is empty: give the answer text with --answer TEXT (or --answer - for stdin)")
    try:
        report = check_file(document, text, chunks)
    except ValueError as exc:
        error(" ".join(str(exc).split()))
        raise typer.Exit(1) from None
    with quiet_broken_pipe():
        if fmt is CiteFormat.json:
            typer.echo(json.dumps(report.to_dict(), ensure_ascii=False, indent=2))
        else:
            typer.echo(format_text(report), nl=False)
    if strict and not report.supported:
        raise typer.Exit(3)


def main() -> None:
    """Entry point of the ``docling-evidence`` console script."""
    _quiet_environment()
    try:
        sys.exit(run_app(app))
    except SystemExit as exc:
        if exc.code in QUICK_EXIT_CODES:
            # Stopped by a signal or a closed pipe, with temp files removed and workers ended: leave now. A normal
            # interpreter exit first garbage-collects the loaded tokenizer and Docling modules, which takes seconds on
            # a busy machine.
            for stream in (sys.stdout, sys.stderr):
                with contextlib.suppress(Exception):
                    stream.flush()
            os._exit(exc.code)
        raise


if __name__ == "__main__":
    main()
