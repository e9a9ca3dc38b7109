"""What every ``docling-evidence`` command shares: one-line messages on stderr, exit codes, running an app in-process.

Exit codes of every command: 0 done, 1 some inputs failed (each reported on its own line, the rest processed),
2 usage error (nothing processed), 130 / 143 stopped by SIGINT / SIGTERM. Only typer and rich are imported here.
"""

from __future__ import annotations

from collections.abc import Sequence

import typer
from rich.console import Console
from rich.markup import escape

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2


def stderr() -> Console:
    """A console on stderr; created per call so that a swapped ``sys.stderr`` (tests, redirection) is honoured."""
    return Console(stderr=True, highlight=False, soft_wrap=True)


def error(message: str) -> None:
    """Print ``error: message`` on stderr, one line (whitespace collapsed)."""
    stderr().print(f"[bold red]error:[/] {escape(' '.join(message.split()))}")


def warning(message: str) -> None:
    """Print ``warning: message`` on stderr, one line (whitespace collapsed)."""
    stderr().print(f"[yellow]warning:[/] {escape(' '.join(message.split()))}")


def usage_error(message: str) -> typer.Exit:
    """Print ``error: message`` and return the exit (code 2) to raise: ``raise usage_error("...")``."""
    error(message)
    return typer.Exit(EXIT_USAGE)


def run_app(app: typer.Typer, argv: Sequence[str] | None = None, prog_name: str | None = None) -> int:
    """Run a typer app in-process and return its exit code instead of exiting (for a ``main(argv) -> int``)."""
    try:
        app(args=list(argv) if argv is not None else None, prog_name=prog_name)
    except SystemExit as exc:  # typer (click) always ends a standalone run with sys.exit
        code = exc.code
        return code if isinstance(code, int) else (EXIT_OK if code is None else EXIT_FAILED)
    return EXIT_OK
