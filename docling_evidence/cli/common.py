"""What every ``docling-evidence`` command shares: one-line messages on stderr, exit codes, running an app in-process.

Exit codes of every command: 0 done, 1 some inputs failed (each reported on its own line, the rest processed),
2 usage error (nothing processed) or stdout that cannot be written, 130 / 143 stopped by SIGINT / SIGTERM, 141 stdout
closed by its reader (``| head``: stopped without a message, as coreutils' commands end). Only typer, rich and two
modules that import only the standard library (:mod:`docling_evidence.batch.environment`,
:mod:`docling_evidence.cli.safe_write`) are imported here.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from types import FrameType
from typing import Any

import typer
from rich.console import Console
from rich.markup import escape
from typer.core import TyperGroup

from docling_evidence.batch.environment import library_verbosity
from docling_evidence.cli.safe_write import OutputError

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2


def stderr() -> Console:
    """A console on stderr; created per call so that a swapped ``sys.stderr`` (tests, redirection) is honoured."""
    return Console(stderr=True, highlight=False, soft_wrap=True)


def with_default(help_text: str, default: str) -> str:
    """Option help ending in ``[default: …]`` for a default typer cannot show itself (a ``None`` that means
    "the chunker's default"). The bracket is escaped: rich markup would otherwise swallow it as a tag.
    Use with ``show_default=False``."""
    return f"{help_text} \\[default: {default}]"


def error(message: str) -> None:
    """Print ``error: message`` on stderr, one line (whitespace collapsed)."""
    stderr().print(f"[bold red]error:[/] {escape(' '.join(message.split()))}")


WARNING_MAX_CHARS = 400
"""A longer warning is cut (docling-core's warnings can hold the repr of a whole chunk: thousands of characters)."""


def warning(message: str) -> None:
    """Print ``warning: message`` on stderr, one line (whitespace collapsed, cut after ``WARNING_MAX_CHARS``)."""
    line = " ".join(message.split())
    if len(line) > WARNING_MAX_CHARS:
        line = f"{line[:WARNING_MAX_CHARS]} … ({len(line) - WARNING_MAX_CHARS} more characters)"
    stderr().print(f"[yellow]warning:[/] {escape(line)}")


def report_warnings(path: str, messages: Sequence[str]) -> None:
    """Print each of the warnings collected while processing ``path`` as a ``warning:`` line naming the file."""
    for message in messages:
        warning(f"{path}: {message}")


def usage_error(message: str) -> typer.Exit:
    """Print ``error: message`` and return the exit (code 2) to raise: ``raise usage_error("...")``."""
    error(message)
    return typer.Exit(EXIT_USAGE)


EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE (13)
"""141: the reader of stdout went away (``| head -c 100``). A coreutils command is killed by SIGPIPE there, which a
shell reports as 141, and prints nothing; Python ignores SIGPIPE, so the write raises instead and we exit alike."""


def broken_pipe() -> typer.Exit:
    """The exit to raise when writing stdout failed because its reader closed the pipe: no message (the reader asked
    for no more), stdout pointed at ``/dev/null`` so that the interpreter's last flush cannot raise again, code 141."""
    _stdout_to_devnull()
    return typer.Exit(EXIT_BROKEN_PIPE)


STDOUT_WRITE_ERRNOS: frozenset[int] = frozenset(
    code for code in (errno.ENOSPC, errno.EIO, errno.EFBIG, getattr(errno, "EDQUOT", None)) if code is not None
)
"""The errors a write to a full or failing stdout raises (``> /dev/full``: ``ENOSPC``)."""


def is_stdout_write_error(exc: OSError) -> bool:
    """Whether ``exc`` is a failed write to stdout as far as it can tell: an error a write raises
    (:data:`STDOUT_WRITE_ERRNOS`) that names no file. A command's writes to files go through :func:`output_errors`,
    which names the file, so what reaches :class:`CommandGroup` this way is stdout's (or stderr's)."""
    return exc.errno in STDOUT_WRITE_ERRNOS and exc.filename is None


def stdout_failed(exc: OSError) -> typer.Exit:
    """The exit to raise when writing stdout failed (``> /dev/full``): ``error: cannot write stdout: <reason>`` on
    stderr, stdout pointed at ``/dev/null`` (the interpreter's last flush would raise again), code 2 as for any
    output that cannot be written."""
    _stdout_to_devnull()
    with contextlib.suppress(OSError):  # stderr may be just as full
        error(f"cannot write stdout: {exc.strerror or exc}")
    return typer.Exit(EXIT_USAGE)


def _stdout_to_devnull() -> None:
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


@contextlib.contextmanager
def output_errors(target: Callable[[OSError], object]) -> Iterator[None]:
    """Writing a command's output: a refused output (:class:`~docling_evidence.cli.safe_write.OutputError`) is its
    one-line usage error, a failed write (``OSError``) the usage error ``cannot write <target(exc)>: <reason>``.

    A :class:`BrokenPipeError` is no failed write but the reader going away: it passes, to :class:`CommandGroup`.
    """
    try:
        yield
    except BrokenPipeError:
        raise
    except OutputError as exc:
        raise usage_error(str(exc)) from None
    except OSError as exc:
        raise usage_error(f"cannot write {target(exc)}: {exc.strerror or exc}") from None


class CommandGroup(TyperGroup):
    """The click group of a ``docling-evidence`` app (``typer.Typer(cls=CommandGroup)``): a command (or the group's
    own ``--help`` / ``--version``) that fails writing stdout ends with one line and its exit code, not a traceback.
    :class:`BrokenPipeError` (the reader of its output went away: ``| head``) ends with :func:`broken_pipe`; any
    other failed write to stdout (:func:`is_stdout_write_error`: ``> /dev/full``) with :func:`stdout_failed`.

    This is the one place a failed write to stdout is handled (:func:`output_errors` lets a broken pipe through);
    it runs below click's own handler, which would turn a broken pipe into exit code 1 and re-raise the rest."""

    def make_context(self, info_name: str | None, args: list[str], parent: Any = None, **extra: Any) -> Any:
        """Parse the group's own arguments (its eager ``--help`` and ``--version`` write stdout here)."""
        with _stdout_errors():
            return super().make_context(info_name, args, parent=parent, **extra)

    def invoke(self, ctx: Any) -> Any:
        """Run the command of ``ctx``; see the class docstring."""
        with _stdout_errors():
            return super().invoke(ctx)


@contextlib.contextmanager
def _stdout_errors() -> Iterator[None]:
    try:
        yield
    except BrokenPipeError:
        raise broken_pipe() from None
    except OSError as exc:
        if not is_stdout_write_error(exc):
            raise
        raise stdout_failed(exc) from None


class Stopped(BaseException):
    """Raised in the main thread by SIGINT or SIGTERM inside :func:`stop_on_signals` (a BaseException, like
    ``KeyboardInterrupt``, so that ``except Exception`` blocks do not swallow it and ``finally`` blocks clean up)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum

    @property
    def name(self) -> str:
        """``SIGINT`` or ``SIGTERM``."""
        return signal.Signals(self.signum).name

    @property
    def exit_code(self) -> int:
        """128 + the signal number, as a shell reports a process ended by it: 130 for SIGINT, 143 for SIGTERM."""
        return 128 + self.signum


STOP_SIGNALS: tuple[signal.Signals, ...] = (signal.SIGINT, signal.SIGTERM)
"""The signals that stop a command cleanly (temp files removed, previous output untouched)."""

STOP_EXIT_CODES: frozenset[int] = frozenset(128 + s for s in STOP_SIGNALS)
"""130 and 143: the exit codes of a command stopped by SIGINT or SIGTERM."""

QUICK_EXIT_CODES: frozenset[int] = STOP_EXIT_CODES | {EXIT_BROKEN_PIPE}
"""The exit codes after which the process may leave at once (``os._exit``): everything is cleaned up already."""


def _raise_stopped(signum: int, _frame: FrameType | None) -> None:
    for sig in STOP_SIGNALS:  # one request is enough: a second one must not interrupt the cleanup
        signal.signal(sig, signal.SIG_IGN)
    raise Stopped(signum)


@contextlib.contextmanager
def stop_on_signals() -> Iterator[None]:
    """Turn SIGINT and SIGTERM into :class:`Stopped` in the main thread for the duration of the block.

    Code inside catches :class:`Stopped` where it can say how far it got; a ``Stopped`` that leaves the block
    (e.g. during start-up) becomes ``stopped by SIGINT`` on stderr and exit code 130 / 143. Outside the main thread
    (where Python cannot install handlers) this does nothing. The previous handlers are restored on exit.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.signal(sig, _raise_stopped) for sig in STOP_SIGNALS}
    try:
        yield
    except Stopped as stop:
        stderr().print(f"[yellow]stopped by {stop.name}[/]")
        raise typer.Exit(stop.exit_code) from None
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def worker_signals() -> None:
    """In a worker process: ignore SIGINT (the parent decides and ends the workers), die on SIGTERM."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


THIRD_PARTY_LOGGERS = ("huggingface_hub", "transformers", "ray")
"""Libraries whose own log lines (the hub's network retries, Ray's start-up notices) are shown only with
``--verbose``: without it every problem is our one ``error:`` line."""


def third_party_logs(verbose: bool) -> None:
    """Show (``verbose``) or hide the warnings of :data:`THIRD_PARTY_LOGGERS`; errors of theirs that stop a command
    reach the user as our own one-line message anyway. Also sets the libraries' environment variables, which they
    read when first imported (the hub sets its logger's level then)."""
    level = logging.WARNING if verbose else logging.ERROR
    library_verbosity(verbose)
    for name in THIRD_PARTY_LOGGERS:
        logging.getLogger(name).setLevel(level)


@contextlib.contextmanager
def native_stderr_silenced(enabled: bool = True) -> Iterator[None]:
    """Send what native code writes to file descriptor 2 (Ray's C++ core worker, the processes Ray starts) to
    ``/dev/null`` for the duration of the block, while ``sys.stderr`` (our messages, rich's progress bar) keeps
    reaching the terminal through a copy of the original descriptor. Does nothing when ``enabled`` is false."""
    if not enabled:
        yield
        return
    with contextlib.suppress(Exception):
        sys.stderr.flush()
    saved = os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    os.close(devnull)
    original = sys.stderr
    swapped = None
    if _writes_to_fd(original, 2):
        swapped = open(  # noqa: SIM115 (closed in the finally below)
            os.dup(saved), "w", buffering=1, encoding=original.encoding, errors=original.errors
        )
        sys.stderr = swapped
    try:
        yield
    finally:
        if swapped is not None:
            with contextlib.suppress(Exception):
                swapped.flush()
            sys.stderr = original
            swapped.close()
        os.dup2(saved, 2)
        os.close(saved)


def _writes_to_fd(stream: object, fd: int) -> bool:
    try:
        return stream.fileno() == fd  # type: ignore[attr-defined]
    except (AttributeError, OSError, ValueError):  # a captured stream (tests) has no descriptor
        return False


_USAGE_ERROR: type[Exception] = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "UsageError")
"""click's ``UsageError``, from whichever click typer runs on (recent typers bundle their own copy)."""
_CLICK_EXCEPTION: type[Exception] = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException")
"""click's ``ClickException``, the same way."""


def run_app(app: typer.Typer, argv: Sequence[str] | None = None, prog_name: str | None = None) -> int:
    """Run a typer app in-process and return its exit code instead of exiting (for a ``main(argv) -> int``).

    A usage error (a bad option value, a missing argument, an unknown option) is one ``error:`` line naming the
    command's ``--help``, exit 2, instead of click's boxed usage message. Running with no arguments still prints the
    help (``no_args_is_help``).
    """
    args = list(argv) if argv is not None else None
    try:
        code = app(args=args, prog_name=prog_name, standalone_mode=False)
    except _USAGE_ERROR as exc:
        if type(exc).__name__ == "NoArgsIsHelpError":  # no arguments: the help, as a standalone run prints it
            return _standalone(app, args, prog_name)
        ctx = getattr(exc, "ctx", None)
        where = ctx.command_path if ctx is not None else (prog_name or "the command")
        error(f"{exc.format_message()} (see '{where} --help')")
        return EXIT_USAGE
    except _CLICK_EXCEPTION as exc:
        error(exc.format_message())
        return _exit_code(getattr(exc, "exit_code", EXIT_FAILED))
    except typer.Abort:
        error("aborted")
        return EXIT_FAILED
    except SystemExit as exc:
        return _exit_code(exc.code)
    return _exit_code(code)


def _standalone(app: typer.Typer, args: list[str] | None, prog_name: str | None) -> int:
    try:
        app(args=args, prog_name=prog_name)
    except SystemExit as exc:  # typer (click) always ends a standalone run with sys.exit
        return _exit_code(exc.code)
    return EXIT_OK


def _exit_code(code: object) -> int:
    """An exit code from what a command returned or exited with (None: 0; a non-integer: 1)."""
    if code is None:
        return EXIT_OK
    return code if isinstance(code, int) and not isinstance(code, bool) else EXIT_FAILED
