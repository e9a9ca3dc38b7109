"""The helpers every command shares: stop requests, collected warnings, help defaults, in-process runs."""

from __future__ import annotations

import logging
import os
import signal
import warnings

import pytest
import typer

from docling_evidence.batch import collect_warnings
from docling_evidence.cli.common import (
    Stopped,
    run_app,
    stop_on_signals,
    usage_error,
    with_default,
)


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
