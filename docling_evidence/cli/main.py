"""The ``docling-evidence`` command line: ``chunk``, ``inspect``, ``example`` and ``cite``.

Exit codes: 0 every file processed; 1 some files failed (each reported on one line, the others still processed);
2 usage error, nothing processed (bad option value, output that may not be written, e.g. onto an input), or
stdout that cannot be written (``> /dev/full``: one ``error:`` line);
130 / 143 stopped by SIGINT / SIGTERM (workers ended, temp files removed, previous output untouched); 141 stdout's
reader went away (``| head``: stopped without a message, as coreutils' commands end).
Output files are written by :mod:`docling_evidence.cli.safe_write` (atomic, never over an input, symlinks written
through, ``-`` is stdout). Everything but the chunk output itself (progress, warnings, errors, summary) goes to
stderr, and every warning names its file. Inputs are checked before the tokenizer loads.

This module holds the app, its own options and the entry point; each command is a module of its own
(``chunk_command``, ``inspect_command``, ``example_command``, ``cite_command``) registered here in help order.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Annotated

import typer

from docling_evidence.batch import quiet_environment
from docling_evidence.cli.chunk_command import chunk
from docling_evidence.cli.cite_command import cite
from docling_evidence.cli.common import QUICK_EXIT_CODES, CommandGroup, run_app
from docling_evidence.cli.example_command import example
from docling_evidence.cli.inspect_command import inspect

app = typer.Typer(
    name="docling-evidence",
    help="Chunk documents so that every table stays with its caption, footnotes and explaining paragraphs.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    cls=CommandGroup,
)


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


for _command in (chunk, inspect, example, cite):
    app.command()(_command)


def main() -> None:
    """Entry point of the ``docling-evidence`` console script."""
    quiet_environment()
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
