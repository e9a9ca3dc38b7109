"""``docling-evidence cite``: check each claim of an answer against the document (:mod:`docling_evidence.cite`)."""

from __future__ import annotations

import json
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from docling_evidence.cli.common import error, usage_error, with_default

EXIT_UNSUPPORTED = 3
"""The exit code of ``cite --strict`` when some claim is unsupported."""


class CiteFormat(str, Enum):
    """``text``: a readable report; ``json``: ``{"claims": [{"text", "supported", "evidence": [...]}]}``."""

    text = "text"
    json = "json"


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
    if fmt is CiteFormat.json:
        typer.echo(json.dumps(report.to_dict(), ensure_ascii=False, indent=2))
    else:
        typer.echo(format_text(report), nl=False)
    if strict and not report.supported:
        raise typer.Exit(EXIT_UNSUPPORTED)
