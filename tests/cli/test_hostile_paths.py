"""Paths the OS refuses to examine, streams the shell holds, limits too small, odd records: one line, never a traceback.

Each case was a traceback, an "internal error ... this is a bug", or a damaged file before (found by a hostile review).
"""

from __future__ import annotations

import json
import os
import pathlib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from docling_evidence.cli.common import WARNING_MAX_CHARS, warning
from docling_evidence.cli.main import app
from docling_evidence.cli.safe_write import OutputError, check_output, is_stream_path, open_output

TOO_LONG = "a" * 300  # longer than any file system's name limit (255): os.stat raises ENAMETOOLONG


def _errors(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("error:")]


def test_an_input_name_too_long_is_that_files_error(runner: CliRunner, example_json: Path, tmp_path: Path) -> None:
    bad = tmp_path / f"{TOO_LONG}.json"
    result = runner.invoke(app, ["chunk", str(bad), str(example_json)])
    assert result.exit_code == 1, result.stderr
    (line,) = _errors(result.stderr)
    assert "cannot access: File name too long" in line
    assert {json.loads(x)["meta"]["source"] for x in result.stdout.splitlines()} == {str(example_json)}
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("command", [["chunk"], ["inspect"], ["cite", "-a", "5"]])
def test_unexaminable_paths_never_raise(runner: CliRunner, example_json: Path, tmp_path: Path, command: list[str]):
    result = runner.invoke(app, [command[0], str(tmp_path / f"{TOO_LONG}.json"), *command[1:]])
    assert result.exit_code == 1, result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert len(_errors(result.stderr)) == 1


@pytest.mark.parametrize("command", [["chunk"], ["inspect"]])
def test_an_output_name_too_long_is_a_usage_error(runner: CliRunner, example_json: Path, tmp_path: Path, command):
    result = runner.invoke(app, [*command, str(example_json), "-o", str(tmp_path / TOO_LONG)])
    assert result.exit_code == 2, result.stderr
    (line,) = _errors(result.stderr)
    assert "File name too long" in line


def test_an_unreadable_input_does_not_stop_the_batch(
    runner: CliRunner, example_json: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # as root no file is unreadable: simulate what a user gets from chmod 000 (click's up-front check used os.access
    # and stopped the whole batch with exit 2; the file's own read fails with EACCES)
    secret = tmp_path / "secret.json"
    secret.write_text("{}")
    access, read_text = os.access, pathlib.Path.read_text
    monkeypatch.setattr(os, "access", lambda p, mode, **kw: False if str(p) == str(secret) else access(p, mode, **kw))

    def deny(self: Path, *args, **kwargs) -> str:
        if str(self) == str(secret):
            raise PermissionError(13, "Permission denied", str(self))
        return read_text(self, *args, **kwargs)

    monkeypatch.setattr(pathlib.Path, "read_text", deny)
    result = runner.invoke(app, ["chunk", str(secret), str(example_json)])
    assert result.exit_code == 1, result.stderr
    (line,) = _errors(result.stderr)
    assert line == f"error: {secret}: cannot read file: Permission denied"
    assert result.stdout.strip(), "the readable file is still chunked"


def test_json_nested_too_deeply_is_an_input_error(runner: CliRunner, tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    for args in (["chunk", str(deep)], ["cite", str(deep), "-a", "x"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 1, result.stderr
        (line,) = _errors(result.stderr)
        assert "nested too deeply" in line and "internal error" not in line


@pytest.mark.parametrize("max_tokens", ["1", "2"])
def test_a_limit_too_small_says_what_to_change_not_that_it_is_a_bug(
    runner: CliRunner, example_json: Path, max_tokens: str
) -> None:
    result = runner.invoke(app, ["chunk", str(example_json), "--max-tokens", max_tokens])
    assert result.exit_code == 1, result.stderr
    (line,) = _errors(result.stderr)
    assert f"max_tokens={max_tokens}" in line and "use --max-tokens" in line
    assert "internal error" not in line and "bug" not in line


def test_inspect_into_a_folder_that_cannot_be_created(runner: CliRunner, example_json: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.json"
    other.write_bytes(example_json.read_bytes())
    dangling = tmp_path / "dlink"
    dangling.symlink_to(tmp_path / "nowhere")
    result = runner.invoke(app, ["inspect", str(example_json), str(other), "-o", str(dangling)])
    assert result.exit_code == 2, result.stderr
    (line,) = _errors(result.stderr)
    assert "dangling symlink" in line
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_a_bad_rows_field_in_cited_chunks_is_a_line_error(runner: CliRunner, example_json: Path, tmp_path: Path):
    for rows in ("[null, null]", "[1e999, 2]", '["a", 2]', "[-1, 2]"):
        chunks = tmp_path / "chunks.jsonl"
        record = '{"text": "x", "meta": {"doc_items": ["#/tables/0"], "rows": ROWS}}\n'
        chunks.write_text(record.replace("ROWS", rows))
        result = runner.invoke(app, ["cite", str(example_json), "-a", "x", "--chunks", str(chunks)])
        assert result.exit_code == 1, (rows, result.stderr)
        (line,) = _errors(result.stderr)
        assert f"{chunks}:1:" in line and "meta.rows" in line


# -- streams the process holds: /dev/stdout, /dev/fd/N ------------------------------------------------------------


def test_stream_paths_are_recognised() -> None:
    for path in ("/dev/stdout", "/dev/stderr", "/dev/fd/3", "/proc/self/fd/1", "/proc/123/fd/4", "/dev//stdout"):
        assert is_stream_path(path), path
    for path in ("/dev/null", "/dev/fd", "out.jsonl", "/proc/self/status", "/tmp/dev/stdout"):
        assert not is_stream_path(path), path


def test_a_held_stream_is_appended_to_never_replaced(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    log.write_text("previous\n")
    fd = os.open(log, os.O_WRONLY | os.O_APPEND)  # what `>> log.jsonl` gives the process
    try:
        inode = log.stat().st_ino
        with open_output(f"/dev/fd/{fd}") as out:
            out.write("new\n")
        assert log.read_text() == "previous\nnew\n"
        assert log.stat().st_ino == inode, "the shell's file must not be replaced"
        with pytest.raises(OutputError, match="one of the inputs"):
            check_output(f"/dev/fd/{fd}", inputs=[log])
    finally:
        os.close(fd)
    with pytest.raises(OutputError, match="no such open file descriptor"):
        check_output(f"/dev/fd/{fd}")


def test_chunk_to_dev_stdout_appends_to_the_redirected_file(example_json: Path, tmp_path: Path) -> None:
    import subprocess
    import sys

    from docling_evidence import EvidenceChunk

    log = tmp_path / "r.jsonl"
    log.write_text("previous\n")
    with log.open("a") as out:
        done = subprocess.run(
            [sys.executable, "-m", "docling_evidence.cli", "chunk", str(example_json), "-o", "/dev/stdout"],
            stdout=out,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "HF_HUB_OFFLINE": "1"},
            check=False,
        )
    assert done.returncode == 0, done.stderr
    lines = log.read_text().splitlines()
    assert lines[0] == "previous" and len(lines) > 1
    records = [json.loads(line) for line in lines[1:]]  # whole JSON lines after the kept one
    assert {r["meta"]["source"] for r in records} == {str(example_json)}
    assert [EvidenceChunk.model_validate(r["chunk"]).meta.unit_id for r in records] == [
        r["meta"]["unit_id"] for r in records
    ]


def test_a_huge_warning_is_cut_to_one_readable_line(capsys: pytest.CaptureFixture[str]) -> None:
    warning("Headers and captions are too long: doc_chunk=" + "x" * 5000)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "more characters)" in err
    assert len(err) < WARNING_MAX_CHARS + 100
