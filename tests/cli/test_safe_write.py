"""The one atomic-write helper: complete or untouched, umask permissions, never over an input, through symlinks."""

from __future__ import annotations

import json
import os
import stat
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docling_evidence.cli.safe_write import (
    DiscardOutput,
    OutputError,
    check_output,
    current_umask,
    open_output,
    output_problem,
    write_bytes,
    write_json,
    write_text,
)


def _names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


@pytest.fixture
def umask_027():
    old = os.umask(0o027)
    try:
        yield
    finally:
        os.umask(old)


def test_new_file_gets_umask_permissions(tmp_path: Path, umask_027: None) -> None:
    assert current_umask() == 0o027
    write_text(tmp_path / "new.txt", "x")
    assert stat.S_IMODE((tmp_path / "new.txt").stat().st_mode) == 0o640  # not mkstemp's 0600


def test_replaced_file_keeps_its_permissions(tmp_path: Path) -> None:
    private = tmp_path / "private.json"
    private.write_text("old")
    private.chmod(0o600)
    write_json(private, {"a": 1})
    assert json.loads(private.read_text()) == {"a": 1}
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    shared = tmp_path / "shared.txt"
    shared.write_text("old")
    shared.chmod(0o664)
    write_text(shared, "new")
    assert stat.S_IMODE(shared.stat().st_mode) == 0o664


def test_failure_leaves_previous_file_and_no_temp(tmp_path: Path) -> None:
    out = tmp_path / "result.jsonl"
    out.write_text("old\n")
    with pytest.raises(RuntimeError), open_output(out) as stream:
        stream.write("half-writ")
        raise RuntimeError("interrupted")
    assert out.read_text() == "old\n"
    assert _names(tmp_path) == ["result.jsonl"]
    with pytest.raises(KeyboardInterrupt), open_output(out) as stream:
        stream.write("half")
        raise KeyboardInterrupt
    assert out.read_text() == "old\n"
    assert _names(tmp_path) == ["result.jsonl"]


def test_failing_rename_cleans_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "r.json"
    out.write_text("old")

    def full_disk(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full_disk)
    with pytest.raises(OSError, match="No space left"):
        write_text(out, "new")
    assert out.read_text() == "old"
    assert _names(tmp_path) == ["r.json"]


def test_discard_leaves_target_untouched(tmp_path: Path) -> None:
    out = tmp_path / "out.txt"
    out.write_text("old")
    with open_output(out) as stream:
        stream.write("new")
        raise DiscardOutput
    assert out.read_text() == "old"
    assert _names(tmp_path) == ["out.txt"]
    with open_output(tmp_path / "never.txt") as stream:
        raise DiscardOutput
    assert _names(tmp_path) == ["out.txt"]


@pytest.mark.parametrize("spelling", ["same", "dotted", "symlink", "hardlink"])
def test_never_over_an_input(tmp_path: Path, spelling: str) -> None:
    source = tmp_path / "v.json"
    source.write_text('{"keep": true}')
    out = {
        "same": source,
        "dotted": tmp_path / "." / "v.json",
        "symlink": tmp_path / "link.json",
        "hardlink": tmp_path / "hard.json",
    }[spelling]
    if spelling == "symlink":
        out.symlink_to(source)
    elif spelling == "hardlink":
        os.link(source, out)
    with pytest.raises(OutputError, match="it is one of the inputs"):
        write_text(out, "oops", inputs=[source])
    assert "one of the inputs" in (output_problem(out, inputs=[source]) or "")
    assert source.read_text() == '{"keep": true}'


def test_symlink_is_written_through_not_replaced(tmp_path: Path) -> None:
    (tmp_path / "runs").mkdir()
    target = tmp_path / "runs" / "today.jsonl"
    target.write_text("old")
    link = tmp_path / "latest.jsonl"
    link.symlink_to(Path("runs") / "today.jsonl")
    write_text(link, "new")
    assert link.is_symlink()
    assert os.readlink(link) == str(Path("runs") / "today.jsonl")
    assert target.read_text() == "new"
    assert _names(tmp_path / "runs") == ["today.jsonl"]  # the temp file was beside the target, and is gone


def test_dangling_symlink_creates_its_target(tmp_path: Path) -> None:
    link = tmp_path / "out.txt"
    link.symlink_to(tmp_path / "real.txt")
    write_text(link, "x")
    assert link.is_symlink() and (tmp_path / "real.txt").read_text() == "x"


def test_symlink_loop_and_link_to_folder_refused(tmp_path: Path) -> None:
    loop = tmp_path / "loop"
    loop.symlink_to(tmp_path / "loop")
    with pytest.raises(OutputError, match="cannot write"):
        write_text(loop, "x")
    assert loop.is_symlink()
    to_dir = tmp_path / "dirlink"
    to_dir.symlink_to(tmp_path)
    with pytest.raises(OutputError, match="it is a folder"):
        write_text(to_dir, "x")
    assert to_dir.is_symlink()


def test_folder_and_missing_parent_refused(tmp_path: Path) -> None:
    with pytest.raises(OutputError, match="it is a folder"):
        check_output(tmp_path)
    with pytest.raises(OutputError, match=r"does not exist \(create it first\)"):
        write_text(tmp_path / "missing" / "x.txt", "x")
    assert not (tmp_path / "missing").exists()
    (tmp_path / "file").write_text("")
    with pytest.raises(OutputError, match=r"is not a folder|Not a directory"):
        write_text(tmp_path / "file" / "x.txt", "x")
    write_text(tmp_path / "a" / "b" / "x.txt", "x", parents=True)
    assert (tmp_path / "a" / "b" / "x.txt").read_text() == "x"


def test_fifo_is_written_directly(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    write_text(fifo, "through the pipe\n")
    reader.join(timeout=30)
    assert received == [b"through the pipe\n"]
    assert stat.S_ISFIFO(fifo.lstat().st_mode)  # still a pipe, not replaced by a regular file
    assert _names(tmp_path) == ["pipe"]


def test_dash_is_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    with open_output("-") as stream:
        stream.write("to stdout\n")
    assert capsys.readouterr().out == "to stdout\n"
    assert check_output("-") is None


def test_bytes(tmp_path: Path) -> None:
    write_bytes(tmp_path / "x.png", b"\x89PNG")
    assert (tmp_path / "x.png").read_bytes() == b"\x89PNG"


@settings(max_examples=40, deadline=None)
@given(
    old=st.text(max_size=200),
    new=st.text(st.characters(exclude_categories=["Cs"]), max_size=200),
    fail_at=st.integers(min_value=-1, max_value=5),
)
def test_file_is_old_or_new_never_partial(tmp_path_factory: pytest.TempPathFactory, old: str, new: str, fail_at: int):
    """Whatever point a write fails at, the file holds the old text or the whole new text, and nothing else is left."""
    folder = tmp_path_factory.mktemp("prop")
    out = folder / "out.txt"
    out.write_bytes(old.encode("utf-8", "surrogatepass"))
    pieces = [new[i::6] for i in range(6)] if new else [""]
    try:
        with open_output(out) as stream:
            for i, piece in enumerate(pieces):
                if i == fail_at:
                    raise RuntimeError("fail")
                stream.write(piece)
    except RuntimeError:
        assert out.read_bytes() == old.encode("utf-8", "surrogatepass")
    else:
        assert out.read_bytes() == "".join(pieces).encode("utf-8")
    assert _names(folder) == ["out.txt"]
