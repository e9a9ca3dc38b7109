"""``docling-evidence chunk``: convert (if needed) and chunk documents into one record per chunk.

Inputs are checked before the tokenizer loads; the records go to stdout or to one output file written by
:mod:`docling_evidence.cli.safe_write`; everything else (progress, warnings, errors, the summary) goes to stderr.
"""

from __future__ import annotations

import contextlib
import json
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Annotated, TextIO

import typer
from rich.console import Console
from rich.markup import escape

from docling_evidence.batch import ChunkSettings, FileOutcome
from docling_evidence.cli.common import (
    Stopped,
    error,
    output_errors,
    report_warnings,
    stderr,
    stop_on_signals,
    third_party_logs,
    usage_error,
    with_default,
)
from docling_evidence.cli.engines import Engine, check_ray, local_outcomes, ray_outcomes
from docling_evidence.cli.options import (
    BboxOpt,
    InputsArg,
    MaxTokensOpt,
    TableFormatOpt,
    TokenizerOpt,
    VerboseOpt,
    check_settings,
    chunk_settings,
)
from docling_evidence.cli.safe_write import STDOUT, DiscardOutput, open_output, output_problem


class OutputFormat(str, Enum):
    """``jsonl``: one JSON object per chunk; ``json``: one JSON array; ``md``: a human-readable listing."""

    jsonl = "jsonl"
    json = "json"
    md = "md"


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
        settings = chunk_settings(max_tokens, tokenizer, bbox_threshold, table_format)
        run_chunk(
            inputs,
            None if output in (None, STDOUT) else Path(output),
            ChunkJob(fmt, show_all, jobs, settings, engine, address, verbose),
        )


@dataclass(frozen=True)
class ChunkJob:
    """How the files of a ``chunk`` run are processed and written (the command's options)."""

    fmt: OutputFormat
    show_all: bool
    jobs: int
    settings: ChunkSettings
    engine: Engine = Engine.local
    address: str | None = None
    verbose: bool = False


@dataclass
class _Tally:
    """What a run has done so far, for its summary line and its stop message."""

    failed: int
    input_errors: int
    ok: int = 0
    chunks: int = 0
    table_pieces: int = 0
    start: float = field(default_factory=time.perf_counter)

    def add(self, outcome: FileOutcome) -> None:
        """Count one processed file (its error is printed by the caller)."""
        if outcome.error:
            self.failed += 1
            return
        self.ok += 1
        self.chunks += len(outcome.records)
        self.table_pieces += sum(r["meta"]["kind"] == "table" for r in outcome.records)

    def summary(self, output: Path | None) -> str:
        """``N file(s) chunked into M chunks (K table pieces) in S s, R docs/s → output``."""
        elapsed = time.perf_counter() - self.start
        rate = f", {self.ok / elapsed:.2f} docs/s" if self.ok and elapsed > 0 else ""
        target = f" → {output}" if output is not None and self.ok else ""
        return (
            f"{self.ok} file(s) chunked into {self.chunks} chunks ({self.table_pieces} table pieces) "
            f"in {elapsed:.1f} s{rate}{target}"
        )


def run_chunk(inputs: list[Path], output: Path | None, job: ChunkJob) -> None:
    """The ``chunk`` command once its options are parsed (``output`` None is stdout); exits 1 when a file failed."""
    from docling_evidence.document.convert import expand_inputs
    from docling_evidence.pipeline import max_tokens_of

    err = stderr()
    if job.engine is Engine.ray:
        check_ray()
    elif job.address is not None:
        raise usage_error("--address needs --engine ray")
    expanded = expand_inputs(inputs)  # inputs first: a missing file is reported before the tokenizer loads
    if output is not None and (problem := output_problem(output, inputs=expanded.files)):
        raise usage_error(problem)
    for problem in expanded.errors:
        error(str(problem))
    files = expanded.files
    # the clock is reset once the tokenizer is loaded: the summary's rate is about the files
    tally = _Tally(failed=len(expanded.errors), input_errors=len(expanded.errors))
    if not files:
        err.print(f"[yellow]{escape(tally.summary(output))}; {tally.failed} input(s) failed[/]")
        raise typer.Exit(1)
    limit = max_tokens_of(check_settings(job.settings))
    tally.start = time.perf_counter()
    _write_output(files, output, lambda stream: _write_records(stream, files, job, limit, tally, err), tally, err)
    if tally.failed:
        err.print(f"[yellow]{escape(tally.summary(output))}; {tally.failed} input(s) failed[/]")
        raise typer.Exit(1)
    err.print(f"[green]{escape(tally.summary(output))}[/]")


def _write_output(
    files: list[Path], output: Path | None, write: Callable[[TextIO], None], tally: _Tally, err: Console
) -> None:
    """Run ``write`` on stdout or on the output file; a stop or a failed write becomes the command's exit."""
    try:
        with output_errors(lambda _exc: output or "stdout"):
            if output is None:
                write(sys.stdout)
                sys.stdout.flush()
            else:
                with open_output(output, inputs=files) as stream:
                    write(stream)
                    if not tally.ok:
                        raise DiscardOutput  # every file failed: leave any previous output untouched
    except Stopped as stop:
        done = tally.ok + tally.failed - tally.input_errors
        where = f"nothing written, {output} untouched" if output is not None else "their chunks went to stdout"
        err.print(f"[yellow]stopped by {stop.name}: {done} of {len(files)} file(s) done; {escape(where)}[/]")
        raise typer.Exit(stop.exit_code) from None


def _write_records(
    stream: TextIO, files: list[Path], job: ChunkJob, limit: int | None, tally: _Tally, err: Console
) -> None:
    """Process ``files`` on the job's engine and write their records to ``stream``, in input order."""
    writer = RecordWriter(stream, job.fmt, limit, job.show_all)
    writer.begin()
    engine_outcomes = (
        local_outcomes(files, job.settings, job.jobs)
        if job.engine is Engine.local
        else ray_outcomes(files, job.settings, job.address, job.verbose)
    )
    with engine_outcomes as outcomes, _progress(err, len(files)) as advance:
        for outcome in outcomes:
            report_warnings(outcome.path, outcome.warnings)
            tally.add(outcome)
            if outcome.error:
                error(outcome.error)
            else:
                writer.write_file(outcome)
            advance(Path(outcome.path).name)
    writer.end()


class RecordWriter:
    """Streams chunk records to a text stream as JSONL, a JSON array or the Markdown listing."""

    def __init__(self, stream: TextIO, fmt: OutputFormat, max_tokens: int | None, full: bool) -> None:
        self.stream = stream
        self.fmt = fmt
        self.max_tokens = max_tokens
        self.full = full
        self.count = 0

    def begin(self) -> None:
        """Write what comes before the first record (the JSON array's ``[``)."""
        if self.fmt is OutputFormat.json:
            self.stream.write("[")

    def write_file(self, outcome: FileOutcome) -> None:
        """Write the records of one file."""
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
        """Write what comes after the last record (the JSON array's ``]``)."""
        if self.fmt is OutputFormat.json:
            self.stream.write("\n]\n")


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
