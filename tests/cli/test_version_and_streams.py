"""What the console script prints besides chunks: its version, nothing when stdout's reader goes away (``| head``),
one line when stdout cannot be written (``> /dev/full``), and no third-party log line unless ``--verbose`` asks for
them."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from docling_evidence.cli.common import EXIT_BROKEN_PIPE, run_app
from docling_evidence.cli.main import app

REPO = Path(__file__).resolve().parents[2]


def _env() -> dict[str, str]:
    return {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(REPO)}


def test_version_prints_the_package_metadata_version(capsys: pytest.CaptureFixture[str]) -> None:
    from importlib.metadata import version

    assert run_app(app, ["--version"], prog_name="docling-evidence") == 0
    out = capsys.readouterr()
    assert out.out == f"docling-evidence {version('docling-evidence')}\n" and out.err == ""


def test_version_from_the_console_entry_point(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", "from docling_evidence.cli.main import main; main()", "--version"],
        cwd=tmp_path,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("docling-evidence ") and proc.stderr == ""


def test_a_closed_stdout_ends_the_run_quietly_with_141(example_json: Path, tmp_path: Path) -> None:
    """`chunk ... | head -c 100`: the reader leaves after 100 bytes; coreutils end silently (killed by SIGPIPE,
    which a shell reports as 141), and so do we, without the usage-error code or a message."""
    inputs = [shutil.copy(example_json, tmp_path / f"copy{i}.json") for i in range(4)]  # far more than a pipe holds
    proc = subprocess.Popen(
        [sys.executable, "-m", "docling_evidence.cli", "chunk", *map(str, inputs)],
        cwd=tmp_path,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    head = proc.stdout.read(100)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    code = proc.wait(timeout=300)
    assert len(head) == 100
    assert code == EXIT_BROKEN_PIPE == 141, err
    assert err == "", err


DEV_FULL = Path("/dev/full")


@pytest.mark.skipif(not DEV_FULL.exists(), reason="no /dev/full on this system")
@pytest.mark.parametrize("command", ["cite", "chunk", "example", "--help", "--version"])
def test_a_full_stdout_ends_any_command_with_one_line_and_exit_2(
    command: str, example_json: Path, tmp_path: Path
) -> None:
    """``> /dev/full``: every write fails with ENOSPC; the command says so on one line, with no traceback."""
    args = {
        "cite": ["cite", str(example_json), "--answer", "Revenue was 12."],
        "chunk": ["chunk", str(example_json)],
    }.get(command, [command])
    with DEV_FULL.open("w") as full:
        proc = subprocess.run(
            [sys.executable, "-m", "docling_evidence.cli", *args],
            cwd=tmp_path,
            env=_env(),
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=300,
        )
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == "error: cannot write stdout: No space left on device\n", proc.stderr


_FAILING_HUB = """
import logging, sys
import docling_evidence.tokenizer as tokenizer
from huggingface_hub.utils import logging as hub_logging

def offline_hub(name):
    # what huggingface_hub logs on each retry when the hub cannot be reached, before transformers gives up
    hub_logging.get_logger("huggingface_hub.utils._http").warning(
        "'[Errno -2] Name or service not known' thrown while requesting HEAD https://huggingface.co/" + name
    )
    raise OSError("We couldn't connect to 'https://huggingface.co' to load the files")

tokenizer._load_hf_tokenizer = offline_hub
from docling_evidence.cli.main import main
main()
"""


@pytest.mark.parametrize("verbose", [False, True])
def test_an_uncached_tokenizer_gives_only_our_line(example_json: Path, tmp_path: Path, verbose: bool) -> None:
    args = ["chunk", str(example_json), "--tokenizer", "some-org/uncached-model", *(["--verbose"] if verbose else [])]
    proc = subprocess.run(
        [sys.executable, "-c", _FAILING_HUB, *args],
        cwd=tmp_path,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    ours = [line for line in lines if line.startswith("error: could not load tokenizer 'some-org/uncached-model'")]
    assert len(ours) == 1 and "hf download some-org/uncached-model" in ours[0], proc.stderr
    hub_lines = [line for line in lines if "thrown while requesting" in line]
    if verbose:
        assert len(hub_lines) == 1, proc.stderr
    else:
        assert lines == ours, proc.stderr


def test_verbose_is_an_option_of_chunk_and_inspect(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("chunk", "inspect"):
        assert run_app(app, [command, "--help"], prog_name="docling-evidence") == 0
        assert "--verbose" in capsys.readouterr().out
