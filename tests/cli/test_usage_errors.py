"""A usage error is one ``error:`` line and exit 2 from every entry point, never click's boxed usage message."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from docling_evidence.cli.common import run_app
from docling_evidence.cli.main import app

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["chunk", "report.json", "--jobs", "0"], "'--jobs'"),
        (["chunk"], "Missing argument 'INPUTS...'"),
        (["chunk", "report.json", "--no-such-option"], "No such option: --no-such-option"),
    ],
)
def test_run_app_reports_a_usage_error_in_one_line(
    argv: list[str], expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_app(app, argv, prog_name="docling-evidence") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith("error: ") and expected in err[0]
    assert "--help" in err[0] and "╭" not in err[0]


def test_run_app_keeps_help_and_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_app(app, ["--help"], prog_name="docling-evidence") == 0
    assert "chunk" in capsys.readouterr().out
    assert run_app(app, [], prog_name="docling-evidence") == 2  # no arguments: the help, as before
    assert "Usage" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("module_args", "expected"),
    [
        (["-c", "from docling_evidence.cli.main import main; main()", "chunk", "x.json", "--jobs", "0"], "'--jobs'"),
    ],
)
def test_console_entry_points_print_one_line(module_args: list[str], expected: str, tmp_path: Path) -> None:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(REPO)}
    proc = subprocess.run(
        [sys.executable, *module_args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and expected in lines[0], proc.stderr
