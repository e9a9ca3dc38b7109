"""``docling-evidence inspect``: a self-contained HTML report per document (:mod:`docling_evidence.cli.inspect_report`)
and the report file names, distinct for every input."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from docling_evidence.batch import ChunkSettings, collect_warnings, internal_error
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
from docling_evidence.cli.safe_write import STDOUT, output_problem, write_text
from docling_evidence.document.convert import REPORT_SUFFIX


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
        run_inspect(inputs, output, chunk_settings(max_tokens, tokenizer, bbox_threshold, table_format), answer)


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


def run_inspect(inputs: list[Path], output: Path | None, settings: ChunkSettings, answer: str | None = None) -> None:
    """The ``inspect`` command once its options are parsed; exits 1 when a file failed."""
    from docling_evidence.document.convert import expand_inputs

    err = stderr()
    expanded = expand_inputs(inputs)
    files = expanded.files
    targets, several = _report_targets(inputs, files, output)
    for problem in expanded.errors:
        error(str(problem))
    failed = len(expanded.errors)
    if not files:
        raise typer.Exit(1)
    chunker = check_settings(settings)
    if several:
        try:
            targets[0].parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise usage_error(f"cannot create {targets[0].parent}: {exc.strerror or exc}") from None

    done = written = 0
    try:
        with output_errors(lambda exc: exc.filename or "report"):
            for path, target in zip(files, targets, strict=True):
                with collect_warnings() as caught:
                    page, n_chunks, message = _report(path, chunker, settings, answer)
                report_warnings(str(path), caught)
                done += 1
                if message is not None:
                    failed += 1
                    error(message)
                    continue
                write_text(target, page, inputs=files)
                written += 1
                err.print(f"[green]{escape(str(path))}: {n_chunks} chunks → {escape(str(target))}[/]")
    except Stopped as stop:
        err.print(f"[yellow]stopped by {stop.name}: {done} of {len(files)} file(s) done[/]")
        raise typer.Exit(stop.exit_code) from None
    if failed:
        err.print(f"[yellow]{written} report(s) written; {failed} input(s) failed[/]")
        raise typer.Exit(1)


def _report_targets(inputs: list[Path], files: list[Path], output: Path | None) -> tuple[list[Path], bool]:
    """The report file of every input, and whether there are several (then ``output`` is a folder).

    Raises a usage error when the reports may not be written there."""
    from docling_evidence.document.paths import path_kind

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
    return targets, several


def _report(path: Path, chunker: Any, settings: ChunkSettings, answer: str | None) -> tuple[str, int, str | None]:
    """The report page of one file and its chunk count, or the file's one-line error (the third value)."""
    from docling_evidence.batch.limit_search import limit_advice
    from docling_evidence.cli.inspect_report import render_report
    from docling_evidence.document.convert import InputError, convert_path
    from docling_evidence.pipeline import chunk_document
    from docling_evidence.split.splitter import TokenLimitTooSmall

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
        return "", 0, str(exc)
    except TokenLimitTooSmall as exc:
        return "", 0, f"{path}: {limit_advice(exc, doc, settings)}"
    except Exception as exc:  # our bug: say so, keep going with the other files
        return "", 0, internal_error(path, exc)
    return page, len(chunks), None
