"""The helpers every command shares: stop requests, collected warnings, help defaults, in-process runs, output
errors and broken pipes, the third-party libraries' verbosity."""

from __future__ import annotations

import logging
import os
import signal
import warnings
from pathlib import Path

import pytest
import typer

from docling_evidence.batch import collect_warnings, library_verbosity
from docling_evidence.cli.common import (
    EXIT_BROKEN_PIPE,
    CommandGroup,
    Stopped,
    output_errors,
    run_app,
    stop_on_signals,
    usage_error,
    with_default,
)
from docling_evidence.cli.safe_write import OutputError


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_becomes_stopped_and_the_exit_code(
    sig: signal.Signals, code: int, capsys: pytest.CaptureFixture[str]
) -> None:
    before = signal.getsignal(sig)
    reached = False
    with pytest.raises(typer.Exit) as info, stop_on_signals():
        try:
            os.kill(os.getpid(), sig)
            for _ in range(1000):  # the handler runs at the next bytecode boundary
                pass
            reached = True
        except Stopped as stop:
            assert stop.name == sig.name and stop.exit_code == code
            raise
    assert not reached
    assert info.value.exit_code == code
    assert f"stopped by {sig.name}" in capsys.readouterr().err
    assert signal.getsignal(sig) is before  # handlers restored


def test_collect_warnings_gathers_logs_and_warnings_once_each() -> None:
    log = logging.getLogger("docling_evidence.test")
    with collect_warnings() as caught:
        warnings.warn("docling-core says  something\nodd", UserWarning, stacklevel=1)
        warnings.warn("docling-core says  something\nodd", UserWarning, stacklevel=1)
        warnings.warn("old API", DeprecationWarning, stacklevel=1)
        log.warning("captions of %s points to %s", "#/tables/0", "#/texts/9")
        log.info("not a warning")
    assert caught == ["captions of #/tables/0 points to #/texts/9", "docling-core says something odd"]
    assert logging.getLogger("docling_evidence").propagate is True


def test_with_default_survives_rich_markup() -> None:
    app = typer.Typer(add_completion=False)

    @app.command()
    def cmd(limit: int | None = typer.Option(None, help=with_default("Token limit.", "256"), show_default=False)):
        raise usage_error(f"limit {limit}")

    assert run_app(app, ["--limit", "3"]) == 2
    from typer.testing import CliRunner

    result = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "200"})
    assert "Token limit. [default: 256]" in result.stdout


def _two_commands(failing: BaseException, group: type | None = CommandGroup) -> typer.Typer:
    """An app of two commands (with one, typer runs the command without the group), the first raising ``failing``."""
    app = typer.Typer(add_completion=False, cls=group)

    @app.command()
    def write() -> None:
        raise failing

    @app.command()
    def other() -> None:
        typer.echo("other")

    return app


def test_a_broken_pipe_in_any_command_ends_it_quietly_with_141(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_app(_two_commands(BrokenPipeError(32, "Broken pipe")), ["write"]) == EXIT_BROKEN_PIPE == 141
    assert capsys.readouterr().err == ""
    # without the command group click itself would end the run with 1
    assert run_app(_two_commands(BrokenPipeError(32, "Broken pipe"), group=None), ["write"]) == 1


def test_a_failed_write_to_stdout_in_any_command_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_app(_two_commands(OSError(28, "No space left on device")), ["write"]) == 2
    assert capsys.readouterr().err == "error: cannot write stdout: No space left on device\n"


def test_an_error_naming_a_file_is_not_taken_for_a_failed_write_to_stdout() -> None:
    with pytest.raises(OSError, match="No space left"):
        run_app(_two_commands(OSError(28, "No space left on device", "/tmp/cache.bin")), ["write"])
    with pytest.raises(OSError, match="Permission denied"):
        run_app(_two_commands(OSError(13, "Permission denied")), ["write"])


def test_output_errors_are_usage_errors_and_let_a_broken_pipe_pass(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(typer.Exit) as info, output_errors(lambda _exc: "out.jsonl"):
        raise OSError(28, "No space left on device")
    assert info.value.exit_code == 2
    assert capsys.readouterr().err == "error: cannot write out.jsonl: No space left on device\n"
    with pytest.raises(typer.Exit) as info, output_errors(lambda _exc: "unused"):
        raise OutputError(tmp_path / "in.json", "is an input of this run", "write the output elsewhere")
    assert info.value.exit_code == 2
    expected = f"error: cannot write {tmp_path / 'in.json'}: is an input of this run (write the output elsewhere)\n"
    assert capsys.readouterr().err == expected
    with pytest.raises(BrokenPipeError), output_errors(lambda _exc: "stdout"):
        raise BrokenPipeError(32, "Broken pipe")
    assert capsys.readouterr().err == ""


def test_library_verbosity_keeps_a_chosen_level_unless_verbose_is_given(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRANSFORMERS_VERBOSITY", "info")
    monkeypatch.delenv("HF_HUB_VERBOSITY", raising=False)
    library_verbosity()  # a worker or a Ray actor: the environment's choice stands
    assert os.environ["TRANSFORMERS_VERBOSITY"] == "info" and "HF_HUB_VERBOSITY" not in os.environ
    monkeypatch.delenv("TRANSFORMERS_VERBOSITY")
    library_verbosity()
    assert os.environ["TRANSFORMERS_VERBOSITY"] == "error" and "HF_HUB_VERBOSITY" not in os.environ
    library_verbosity(True)  # --verbose
    assert os.environ["TRANSFORMERS_VERBOSITY"] == os.environ["HF_HUB_VERBOSITY"] == "warning"
    library_verbosity(False)
    assert os.environ["TRANSFORMERS_VERBOSITY"] == os.environ["HF_HUB_VERBOSITY"] == "error"
