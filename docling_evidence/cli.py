"""The ``docling-evidence`` command line: ``chunk``, ``inspect``, ``example`` and (when installed) ``bench``.

Exit codes: 0 every file processed, 1 some files failed (each reported on one line; the others still processed),
2 usage error (bad option value, unwritable output). Output files are written atomically (temp file + rename).
Everything but the chunk output itself (progress, errors, summary) goes to stderr.
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
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, TextIO

import typer
from rich.console import Console
from rich.markup import escape

from docling_evidence.safe_write import DiscardOutput, OutputError, open_output, output_problem, write_text

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


def _stderr() -> Console:
    # Created per call so that a swapped sys.stderr (tests, redirection) is honoured.
    return Console(stderr=True, highlight=False, soft_wrap=True)


def _usage_error(message: str) -> typer.Exit:
    _stderr().print(f"[bold red]error:[/] {escape(message)}")
    return typer.Exit(2)


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
    from docling_evidence.convert import make_chunker

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
    """What processing one input file produced: its chunk records, or the one-line error."""

    path: str
    records: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    seconds: float = 0.0


def process_file(path: str, settings: ChunkSettings) -> FileOutcome:
    """Convert and chunk one file into chunk records; never raises (errors become ``FileOutcome.error``)."""
    from docling_evidence.convert import InputError, chunk_path, chunk_record

    start = time.perf_counter()
    try:
        chunker = _chunker_for(settings)
        records = [chunk_record(c, chunker, path) for c in chunk_path(path, chunker)]
    except InputError as exc:
        return FileOutcome(path, error=str(exc), seconds=time.perf_counter() - start)
    except Exception as exc:  # a bug or an unforeseen Docling failure: report it, keep the batch going
        message = " ".join(str(exc).split())[:200]
        return FileOutcome(
            path,
            error=f"{path}: chunking failed: {type(exc).__name__}: {message} (please report this as a bug)",
            seconds=time.perf_counter() - start,
        )
    return FileOutcome(path, records=records, seconds=time.perf_counter() - start)


def _quiet_environment() -> None:
    """No hub calls, no tokenizer thread warnings, no transformers chatter on stderr."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    # Docling logs each failure itself ("Input document x.docx is not valid."); ours is the one line per file.
    for name in ("docling", "docling_core"):
        logging.getLogger(name).setLevel(logging.ERROR)


def _outcomes(files: list[Path], settings: ChunkSettings, jobs: int) -> Iterator[FileOutcome]:
    """Process ``files``, yielding outcomes in input order; with ``jobs > 1`` in a process pool.

    The pool's workers start here, before any progress-bar thread exists: on Linux they are forked and inherit the
    already loaded chunker (no second tokenizer load); elsewhere they are spawned.
    """
    if jobs <= 1 or len(files) <= 1:
        return (process_file(str(path), settings) for path in files)
    import multiprocessing

    method = "fork" if "fork" in multiprocessing.get_all_start_methods() and sys.platform == "linux" else "spawn"
    pool = ProcessPoolExecutor(
        max_workers=min(jobs, len(files)),
        mp_context=multiprocessing.get_context(method),
        initializer=_quiet_environment,
    )
    futures: list[Future[FileOutcome]] = [pool.submit(process_file, str(p), settings) for p in files]
    return _collect(pool, files, futures)


def _check_ray() -> None:
    import importlib.util

    if importlib.util.find_spec("ray") is None:
        raise _usage_error("--engine ray needs Ray: pip install 'docling-evidence[ray]'")


def _ray_outcomes(files: list[Path], settings: ChunkSettings, address: str | None) -> Iterator[FileOutcome]:
    """Process ``files`` on Ray actors (``docling_evidence.ray``), yielding outcomes in input order."""
    from docling_evidence.ray import chunk_files

    options = {k: v for k, v in vars(settings).items() if v is not None}
    for path, records, error in chunk_files(files, address=address, **options):
        yield FileOutcome(path, records=records, error=error)


def _collect(pool: ProcessPoolExecutor, files: list[Path], futures: list[Future[FileOutcome]]) -> Iterator[FileOutcome]:
    with pool:
        for path, future in zip(files, futures, strict=True):
            try:
                yield future.result()
            except Exception as exc:  # a worker died (out of memory, killed): report the file, go on
                yield FileOutcome(str(path), error=f"{path}: worker process failed: {type(exc).__name__}: {exc}")


class _Writer:
    """Streams chunk records to a text stream as JSONL, a JSON array or Markdown."""

    def __init__(self, stream: TextIO, fmt: OutputFormat, max_tokens: int | None) -> None:
        self.stream = stream
        self.fmt = fmt
        self.max_tokens = max_tokens
        self.count = 0

    def begin(self) -> None:
        if self.fmt is OutputFormat.json:
            self.stream.write("[")

    def write_file(self, outcome: FileOutcome) -> None:
        if self.fmt is OutputFormat.md:
            self.stream.write(markdown_listing(outcome.path, outcome.records, self.max_tokens))
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


def _members_summary(record: dict[str, Any]) -> str:
    counts: dict[str, int] = {}
    for role in record["meta"]["roles"].values():
        counts[role] = counts.get(role, 0) + 1
    order = ["caption", "context", "table", "footnote", "text"]
    return ", ".join(f"{r} ×{counts[r]}" if counts[r] > 1 else r for r in order if r in counts)


def _rows_text(rows: list[int] | None) -> str:
    if not rows:
        return ""
    first, end = rows[0] + 1, rows[1]
    return f" · row {first}" if end <= first else f" · rows {first}–{end}"


def _pages(span: list[int]) -> str:
    if not span:
        return ""  # HTML, DOCX, Markdown: no pages to show
    return f" · page {span[0]}" if len(span) == 1 else f" · pages {span[0]}–{span[-1]}"


def markdown_listing(source: str, records: list[dict[str, Any]], max_tokens: int | None) -> str:
    """A human-readable Markdown listing of one file's chunks (used by ``--format md``)."""
    units = {r["meta"]["unit_id"] for r in records if r["meta"]["kind"] == "table"}
    limit = f" · limit {max_tokens} tokens" if max_tokens else ""
    lines = [f"# {Path(source).name}", "", f"{len(records)} chunks · {len(units)} table units{limit}", ""]
    for i, record in enumerate(records, 1):
        meta = record["meta"]
        tokens = f" · {meta['num_tokens']} tokens" if meta.get("num_tokens") is not None else ""
        if meta["kind"] == "table":
            part = f" · part {meta['part'] + 1} of {meta['parts']}" if meta["parts"] > 1 else ""
            rows = _rows_text(meta.get("rows"))
            title = f"## Chunk {i} · table unit `{meta['unit_id']}`{part}{rows}{_pages(meta['page_span'])}{tokens}"
        else:
            title = f"## Chunk {i} · text{_pages(meta['page_span'])}{tokens}"
        lines += ["---", "", title, ""]
        if meta["kind"] == "table":
            caption = meta.get("caption")
            how = f" _(found by: {meta['caption_source']})_" if meta.get("caption_source") else ""
            lines.append(f"**Caption:** {caption}{how}" if caption else "**Caption:** _none found_")
            lines.append(f"**Members:** {_members_summary(record)}")
            lines.append("")
        lines += [record["text"].rstrip(), ""]
    return "\n".join(lines) + "\n"


def _validate_common(max_tokens: int | None, jobs: int, bbox_threshold: float | None) -> None:
    if max_tokens is not None and max_tokens <= 0:
        raise _usage_error(f"--max-tokens must be a positive integer, got {max_tokens} (the default is 256)")
    if jobs < 1:
        raise _usage_error(f"--jobs must be at least 1, got {jobs}")
    if bbox_threshold is not None and bbox_threshold < 0:
        raise _usage_error(f"--bbox-threshold must be zero or more points, got {bbox_threshold}")


def _check_settings(settings: ChunkSettings) -> None:
    """Build the chunker once up front so a bad --tokenizer is a usage error, not one failure per file."""
    try:
        _chunker_for(settings)
    except (ValueError, TypeError) as exc:
        raise _usage_error(" ".join(str(exc).split())) from None


InputsArg = Annotated[
    list[Path],
    typer.Argument(
        help="DoclingDocument .json files, documents Docling converts (.html .docx .md .xlsx .pptx; .pdf with the "
        "'pdf' extra and its models), or folders (searched recursively).",
        show_default=False,
    ),
]
MaxTokensOpt = Annotated[
    int | None, typer.Option("--max-tokens", help="Token limit per chunk [default: 256, the tokenizer's limit].")
]
TokenizerOpt = Annotated[
    str | None,
    typer.Option(
        "--tokenizer", help="Hugging Face tokenizer folder (or cached model name); default: bundled all-MiniLM-L6-v2."
    ),
]
BboxOpt = Annotated[
    float | None,
    typer.Option("--bbox-threshold", help="Max distance in points from a table for layout-based context paragraphs."),
]
TableFormatOpt = Annotated[
    TableFormat | None, typer.Option("--table-format", help="Table rendering in chunk text [default: markdown].")
]


@app.command()
def chunk(
    inputs: InputsArg,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Output file [default: stdout].")] = None,
    fmt: Annotated[OutputFormat, typer.Option("--format", "-f", help="Output format.")] = OutputFormat.jsonl,
    max_tokens: MaxTokensOpt = None,
    tokenizer: TokenizerOpt = None,
    bbox_threshold: BboxOpt = None,
    table_format: TableFormatOpt = None,
    jobs: Annotated[int, typer.Option("--jobs", "-j", help="Parallel worker processes (convert + chunk).")] = 1,
    engine: Annotated[
        Engine, typer.Option("--engine", help="local: this machine (--jobs); ray: Ray actors (the 'ray' extra).")
    ] = Engine.local,
    address: Annotated[
        str | None, typer.Option("--address", help="Ray cluster to join ('auto', 'ray://host:10001'); default: local.")
    ] = None,
) -> None:
    """Convert (if needed) and chunk documents; write one record per chunk (text, meta, full chunk)."""
    from docling_evidence.convert import expand_inputs, max_tokens_of

    err = _stderr()
    _validate_common(max_tokens, jobs, bbox_threshold)
    if engine is Engine.ray:
        _check_ray()
    elif address is not None:
        raise _usage_error("--address needs --engine ray")
    expanded = expand_inputs(inputs)
    if output is not None and (problem := output_problem(output, inputs=expanded.files)):
        raise _usage_error(problem)
    settings = ChunkSettings(max_tokens, tokenizer, bbox_threshold, table_format.value if table_format else None)
    _check_settings(settings)
    limit = max_tokens_of(_chunker_for(settings))

    for problem in expanded.errors:
        err.print(f"[bold red]error:[/] {escape(str(problem))}")
    failed = len(expanded.errors)
    files = expanded.files
    start = time.perf_counter()
    n_ok = n_chunks = n_table = 0

    def run(stream: TextIO) -> None:
        nonlocal failed, n_ok, n_chunks, n_table
        writer = _Writer(stream, fmt, limit)
        writer.begin()
        outcomes = (
            _outcomes(files, settings, jobs) if engine is Engine.local else _ray_outcomes(files, settings, address)
        )
        with _progress(err, len(files)) as advance:
            for outcome in outcomes:
                if outcome.error:
                    failed += 1
                    err.print(f"[bold red]error:[/] {escape(outcome.error)}")
                else:
                    n_ok += 1
                    n_chunks += len(outcome.records)
                    n_table += sum(r["meta"]["kind"] == "table" for r in outcome.records)
                    writer.write_file(outcome)
                advance(Path(outcome.path).name)
        writer.end()

    if output is None:
        run(sys.stdout)
        sys.stdout.flush()
    elif files:
        try:
            with open_output(output, inputs=files) as stream:
                run(stream)
                if not n_ok:
                    raise DiscardOutput  # every file failed: leave any previous output untouched
        except OutputError as exc:
            raise _usage_error(str(exc)) from None
        except OSError as exc:
            raise _usage_error(f"cannot write {output}: {exc.strerror or exc} (choose a writable location)") from None
    elapsed = time.perf_counter() - start
    rate = f", {n_ok / elapsed:.2f} docs/s" if n_ok and elapsed > 0 else ""
    target = f" → {output}" if output is not None and n_ok else ""
    summary = f"{n_ok} file(s) chunked into {n_chunks} chunks ({n_table} table pieces) in {elapsed:.1f} s{rate}{target}"
    if failed:
        err.print(f"[yellow]{escape(summary)}; {failed} input(s) failed[/]")
        raise typer.Exit(1)
    err.print(f"[green]{escape(summary)}[/]")


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


@app.command()
def inspect(
    inputs: InputsArg,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            help="Report file for one input; for several inputs a folder receiving <name>.inspect.html each "
            "[default: <name>.inspect.html in the current folder].",
        ),
    ] = None,
    max_tokens: MaxTokensOpt = None,
    tokenizer: TokenizerOpt = None,
    bbox_threshold: BboxOpt = None,
    table_format: TableFormatOpt = None,
) -> None:
    """Write a self-contained HTML report per document: every chunk, its members and their boxes on the pages."""
    from docling_evidence.convert import InputError, chunk_document, convert_path, expand_inputs
    from docling_evidence.inspect_report import render_report

    err = _stderr()
    _validate_common(max_tokens, 1, bbox_threshold)
    expanded = expand_inputs(inputs)
    files = expanded.files
    several = len(files) > 1 or len(inputs) > 1 or any(p.is_dir() for p in inputs)
    if several:
        folder = output or Path.cwd()
        if folder.exists() and not folder.is_dir():
            raise _usage_error(f"cannot write reports to {folder}: several inputs need -o to be a folder")
        folder.mkdir(parents=True, exist_ok=True)
        targets = [folder / f"{p.stem}.inspect.html" for p in files]
        probe = folder / "report.inspect.html"
    else:
        targets = [output or Path.cwd() / f"{p.stem}.inspect.html" for p in files]
        probe = targets[0] if targets else None
    if probe is not None and (problem := output_problem(probe, inputs=files)):
        raise _usage_error(problem)
    settings = ChunkSettings(max_tokens, tokenizer, bbox_threshold, table_format.value if table_format else None)
    _check_settings(settings)
    chunker = _chunker_for(settings)

    failed = len(expanded.errors)
    for problem in expanded.errors:
        err.print(f"[bold red]error:[/] {escape(str(problem))}")
    for path, target in zip(files, targets, strict=True):
        try:
            doc = convert_path(path)
            chunks = chunk_document(doc, chunker)
            page = render_report(doc, chunks, chunker, source=path.name)
        except InputError as exc:
            failed += 1
            err.print(f"[bold red]error:[/] {escape(str(exc))}")
            continue
        write_text(target, page, inputs=files)
        err.print(f"[green]{escape(str(path))}: {len(chunks)} chunks → {escape(str(target))}[/]")
    if failed:
        raise typer.Exit(1)


@app.command()
def example(
    fmt: Annotated[str, typer.Option("--format", "-f", help="html or docx.")] = "html",
) -> None:
    """Print the path of the bundled example report, e.g. `docling-evidence chunk "$(docling-evidence example)"`."""
    path = Path(__file__).parent / "examples" / f"annual_report.{fmt}"
    if not path.is_file():
        raise _usage_error(f"no bundled example in format {fmt!r} (use html or docx)")
    typer.echo(str(path))


def main() -> None:
    """Entry point of the ``docling-evidence`` console script."""
    _quiet_environment()
    app()


if __name__ == "__main__":
    main()
