"""``docling-evidence example``: the path of the bundled example report, to try the other commands on."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from docling_evidence.cli.common import usage_error

EXAMPLES = Path(__file__).parents[1] / "examples"
"""The folder of the bundled example documents (``annual_report.html``, ``annual_report.docx``)."""


def example(
    fmt: Annotated[str, typer.Option("--format", "-f", help="html or docx.")] = "html",
) -> None:
    """Print the path of the bundled example report, e.g. `docling-evidence chunk "$(docling-evidence example)"`."""
    path = EXAMPLES / f"annual_report.{fmt}"
    if not path.is_file():
        raise usage_error(f"no bundled example in format {fmt!r} (use html or docx)")
    typer.echo(str(path))
