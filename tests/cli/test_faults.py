"""Fault injection: what the command line does with broken, unreadable, unwritable and dangerous inputs and outputs.

Every test works in its own temp folder, takes a byte snapshot of every file there before the run and checks after
it that no pre-existing file changed (except the output it was asked to write) and nothing else was left behind.

The tests run as root in CI, and root reads a ``chmod 000`` file and writes into a ``chmod 555`` folder. The
permission tests therefore run the command in a subprocess without the capabilities that let root ignore file
permissions (``setpriv --bounding-set -dac_override,-dac_read_search``), which is what an ordinary user gets; as a
non-root user no wrapper is needed. They skip only when neither is possible.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from docling_evidence.cli.inspect_command import report_names
from docling_evidence.cli.main import app
from tests.cli.conftest import build_doc

REPO = Path(__file__).resolve().parents[2]


def _snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _errors(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("error:")]


def _warnings(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("warning:")]


def _n_chunks() -> int:
    """How many chunks the default chunker makes of ``build_doc()`` (the records a ``chunk`` run writes)."""
    from docling_evidence import EvidenceChunker

    return len(list(EvidenceChunker().chunk(build_doc())))


def _records(stdout: str) -> list[dict]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def _doc_data() -> dict:
    return json.loads(build_doc().model_dump_json(by_alias=True))


def _write_json(path: Path, data: dict) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


# --- output onto an input, onto a symlink -------------------------------------------------------------------------


def test_output_onto_its_own_input_is_refused(runner: CliRunner, doc_json: Path) -> None:
    before = _snapshot(doc_json.parent)
    for args in (["chunk", str(doc_json), "-o", str(doc_json)], ["inspect", str(doc_json), "-o", str(doc_json)]):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, result.stderr
        assert _errors(result.stderr) == [
            f"error: cannot write {doc_json}: it is one of the inputs (give a different output file; inputs are "
            "never overwritten)"
        ]
    assert _snapshot(doc_json.parent) == before


def test_output_onto_an_input_inside_a_folder_or_through_a_link(
    runner: CliRunner, doc_json: Path, tmp_path: Path
) -> None:
    link = tmp_path / "latest.json"
    link.symlink_to(doc_json)
    before = _snapshot(tmp_path)
    for target in (doc_json, link):
        result = runner.invoke(app, ["chunk", str(doc_json.parent), "-f", "json", "-o", str(target)])
        assert result.exit_code == 2 and "it is one of the inputs" in result.stderr
    assert link.is_symlink()
    assert _snapshot(tmp_path) == before


def test_output_through_a_symlink_keeps_the_link(runner: CliRunner, doc_json: Path, tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "today.jsonl").write_text("old\n", encoding="utf-8")
    link = tmp_path / "latest.jsonl"
    link.symlink_to(runs / "today.jsonl")
    result = runner.invoke(app, ["chunk", str(doc_json), "-o", str(link)])
    assert result.exit_code == 0, result.stderr
    assert link.is_symlink() and os.readlink(link) == str(runs / "today.jsonl")
    assert [r["meta"]["source"] for r in _records((runs / "today.jsonl").read_text())] == [str(doc_json)] * _n_chunks()
    assert sorted(p.name for p in runs.iterdir()) == ["today.jsonl"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes on this platform")
def test_output_onto_a_fifo_is_written_in_place(runner: CliRunner, doc_json: Path, tmp_path: Path) -> None:
    """A pipe (like a device) must not be replaced by a regular file: it is written directly."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    result = runner.invoke(app, ["chunk", str(doc_json), "-o", str(fifo)])
    reader.join(timeout=60)
    assert result.exit_code == 0, result.stderr
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert len(_records(received[0].decode("utf-8"))) == _n_chunks()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["inputs", "pipe"]


def test_inspect_to_stdout(runner: CliRunner, doc_json: Path, tmp_path: Path) -> None:
    result = runner.invoke(app, ["inspect", str(doc_json), "-o", "-"])
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("<!DOCTYPE html>")
    result = runner.invoke(app, ["inspect", str(doc_json), str(doc_json.parent), "-o", "-"])
    assert result.exit_code == 2 and "several inputs" in result.stderr


def test_dash_writes_to_stdout(runner: CliRunner, doc_json: Path, tmp_path: Path) -> None:
    result = runner.invoke(app, ["chunk", str(doc_json), "-o", "-"])
    assert result.exit_code == 0
    assert len(_records(result.stdout)) == _n_chunks()
    assert not (Path.cwd() / "-").exists()


# --- broken inputs ----------------------------------------------------------------------------------------------


def test_mixed_good_and_bad_folder(runner: CliRunner, tmp_path: Path) -> None:
    """Every bad file is one error line naming it, every good file is chunked, exit 1, nothing else touched."""
    folder = tmp_path / "mixed"
    good = _write_json(folder / "a_good.json", _doc_data())
    text = good.read_text(encoding="utf-8")
    (folder / "b_truncated.json").write_text(text[: len(text) // 2], encoding="utf-8")
    (folder / "c_empty.json").write_text("", encoding="utf-8")
    _write_json(folder / "d_foreign.json", {"hello": "world"})
    dangling = _doc_data()
    dangling["body"]["children"].append({"$ref": "#/texts/999"})
    _write_json(folder / "e_dangling_body.json", dangling)
    (folder / "f_binary.json").write_bytes(b"\xff\xfe\x00garbage")
    (folder / "g_truncated.docx").write_bytes(b"PK\x03\x04" + b"\0" * 20)
    (folder / "notes.txt").write_text("not a document", encoding="utf-8")  # unsupported inside a folder: skipped
    sub = folder / "sub"
    _write_json(sub / "h_good.json", _doc_data())
    out = tmp_path / "out.jsonl"
    out.write_text("previous\n", encoding="utf-8")
    before = _snapshot(folder)

    result = runner.invoke(app, ["chunk", str(folder), "-o", str(out)])
    assert result.exit_code == 1
    errors = _errors(result.stderr)
    bad = ["b_truncated", "c_empty", "d_foreign", "e_dangling_body", "f_binary", "g_truncated"]
    assert len(errors) == len(bad), result.stderr
    for name, line in zip(bad, errors, strict=True):
        assert name in line and "\n" not in line
    assert "line 1" in errors[0] or "corrupt JSON" in errors[0]
    assert "rejected by docling-core's validation: #/body refers to #/texts/999, which does not exist" in errors[3]
    assert not any("internal error" in line for line in errors)  # bad input is never called our bug
    assert {r["meta"]["source"] for r in _records(out.read_text())} == {str(good), str(sub / "h_good.json")}
    assert "2 file(s) chunked" in result.stderr and f"{len(bad)} input(s) failed" in result.stderr
    assert _snapshot(folder) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mixed", "out.jsonl"]


def test_truncated_copies_of_a_real_document(runner: CliRunner, tmp_path: Path, one_page_fixture: Path) -> None:
    data = one_page_fixture.read_bytes()
    for fraction in (0.1, 0.5, 0.99):
        path = tmp_path / f"cut_{fraction}.json"
        path.write_bytes(data[: int(len(data) * fraction)])
    result = runner.invoke(app, ["chunk", str(tmp_path)])
    assert result.exit_code == 1
    errors = _errors(result.stderr)
    assert len(errors) == 3 and all("corrupt JSON" in line for line in errors)
    assert result.stdout == ""


def test_internal_error_is_told_apart_from_invalid_input(
    runner: CliRunner, doc_json: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dangling = _doc_data()
    dangling["body"]["children"].append({"$ref": "#/texts/999"})
    invalid = _write_json(tmp_path / "invalid.json", dangling)

    def broken(self: object, dl_doc: object, **kwargs: object) -> None:
        raise KeyError("a bug of ours")

    monkeypatch.setattr("docling_evidence.chunker.EvidenceChunker.chunk", broken)
    result = runner.invoke(app, ["chunk", str(invalid), str(doc_json)])
    assert result.exit_code == 1
    first, second = _errors(result.stderr)
    assert first.startswith(f"error: {invalid}: invalid DoclingDocument, rejected by docling-core's validation")
    assert "bug" not in first
    assert second.startswith(f"error: {doc_json}: internal error: KeyError: 'a bug of ours'")
    assert second.endswith("(this is a bug in docling-evidence: please report it with the file)")


def test_missing_input_is_reported_before_the_tokenizer_loads(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("the tokenizer must not load when no input exists")

    monkeypatch.setattr("docling_evidence.pipeline.make_chunker", never)
    monkeypatch.setattr("docling_evidence.batch.process._CHUNKERS", {})
    result = runner.invoke(app, ["chunk", str(tmp_path / "missing.json"), "-o", str(tmp_path / "out.jsonl")])
    assert result.exit_code == 1
    assert _errors(result.stderr) == [f"error: {tmp_path / 'missing.json'}: no such file or folder (check the path)"]
    result = runner.invoke(app, ["inspect", str(tmp_path / "missing.json"), "-o", str(tmp_path / "r.html")])
    assert result.exit_code == 1 and "no such file" in result.stderr
    assert list(tmp_path.iterdir()) == []


# --- warnings name their file -------------------------------------------------------------------------------------


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_every_warning_names_its_file(runner: CliRunner, tmp_path: Path, jobs: str) -> None:
    caption = _doc_data()
    caption["tables"][0]["captions"] = [{"$ref": "#/texts/99999"}]
    bad_caption = _write_json(tmp_path / "bad_caption.json", caption)
    inf = _doc_data()
    inf["texts"][0]["prov"][0]["bbox"]["t"] = math.inf
    infinite = tmp_path / "infinite.json"
    infinite.write_text(json.dumps(inf), encoding="utf-8")  # json writes Infinity, which docling-core reads
    result = runner.invoke(app, ["chunk", str(bad_caption), str(infinite), "--jobs", jobs])
    assert result.exit_code == 0, result.stderr
    warnings = _warnings(result.stderr)
    assert any(
        line.startswith(f"warning: {bad_caption}: captions of #/tables/0 points to #/texts/99999") for line in warnings
    )
    assert any(line.startswith(f"warning: {infinite}: ") and "outside page bounds" in line for line in warnings)
    assert "UserWarning" not in result.stderr and "document.py" not in result.stderr  # nothing raw from docling-core
    lines = result.stderr.splitlines()
    assert all(line.startswith(("warning: ", "error: ")) or "chunked into" in line for line in lines), lines


# --- inspect ------------------------------------------------------------------------------------------------------


def test_inspect_goes_on_past_bad_files_with_distinct_report_names(runner: CliRunner, tmp_path: Path) -> None:
    inputs = tmp_path / "in"
    _write_json(inputs / "a" / "doc.json", _doc_data())
    _write_json(inputs / "b" / "doc.json", _doc_data())
    dangling = _doc_data()
    dangling["body"]["children"].append({"$ref": "#/texts/999"})
    _write_json(inputs / "a" / "broken.json", dangling)
    nan = _doc_data()
    nan["tables"][0]["prov"][0]["bbox"]["l"] = math.nan
    _write_json(inputs / "nan_box.json", nan)
    before = _snapshot(inputs)
    out = tmp_path / "reports"
    result = runner.invoke(app, ["inspect", str(inputs), "-o", str(out)])
    assert result.exit_code == 1
    errors = _errors(result.stderr)
    assert len(errors) == 1 and "broken.json" in errors[0] and "rejected by docling-core" in errors[0]
    names = sorted(p.name for p in out.iterdir())
    assert names == ["a_doc.json.inspect.html", "b_doc.json.inspect.html", "nan_box.inspect.html"]
    page = (out / "nan_box.inspect.html").read_text(encoding="utf-8")
    assert "<rect" in page and not re.search(r'="-?(nan|inf)', page)  # no <rect x="nan">
    assert "1 bounding box(es) with a NaN or infinite coordinate are not drawn" in page
    assert any("nan_box.json" in w and "not drawn" in w for w in _warnings(result.stderr))
    assert _snapshot(inputs) == before


def test_report_names_are_distinct() -> None:
    files = [Path("a/doc.json"), Path("a/doc.html"), Path("b/doc.json"), Path("c/other.json"), Path("c/Other.md")]
    names = report_names(files)
    assert len({n.lower() for n in names}) == len(files)
    assert names[1] == "doc.html.inspect.html"
    assert names[0] == "a_doc.json.inspect.html" and names[2] == "b_doc.json.inspect.html"
    assert report_names([Path("x/report.json")]) == ["report.inspect.html"]


# --- permissions: a read-only folder, an unreadable file ---------------------------------------------------------


def _unprivileged() -> list[str]:
    """A command prefix that runs without root's permission override, or skip."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: cannot drop the capability to ignore file permissions")
    return [setpriv, "--bounding-set=-dac_override,-dac_read_search", "--inh-caps=-dac_override,-dac_read_search"]


def _cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(REPO), HF_HUB_OFFLINE="1")
    return subprocess.run(
        [*_unprivileged(), sys.executable, "-m", "docling_evidence.cli", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.mark.skipif(sys.platform != "linux", reason="permission semantics as on Linux")
def test_read_only_output_folder(doc_json: Path, tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "old.jsonl").write_text("old\n", encoding="utf-8")
    locked.chmod(0o555)
    try:
        before = _snapshot(tmp_path)
        result = _cli(["chunk", str(doc_json), "-o", str(locked / "old.jsonl")], tmp_path)
        after = _snapshot(tmp_path)
    finally:
        locked.chmod(0o755)
    assert result.returncode == 2, result.stderr
    assert _errors(result.stderr) == [
        f"error: cannot write {locked / 'old.jsonl'}: folder {locked} is not writable (choose a writable location)"
    ]
    assert after == before


@pytest.mark.skipif(sys.platform != "linux", reason="permission semantics as on Linux")
def test_unreadable_input_is_one_line_and_the_rest_goes_on(doc_json: Path, tmp_path: Path) -> None:
    secret = doc_json.parent / "secret.json"
    shutil.copy(doc_json, secret)
    secret.chmod(0o000)
    try:
        result = _cli(["chunk", str(doc_json.parent)], tmp_path)
    finally:
        secret.chmod(0o644)
    assert result.returncode == 1, result.stderr
    assert _errors(result.stderr) == [f"error: {secret}: cannot read file: Permission denied"]
    assert {r["meta"]["source"] for r in _records(result.stdout)} == {str(doc_json)}


# --- help ----------------------------------------------------------------------------------------------------------


def _commands(group: object, prefix: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], object]]:
    import typer.main

    command = typer.main.get_command(group) if not hasattr(group, "params") else group
    found = [(prefix, command)]
    for name, sub in getattr(command, "commands", {}).items():
        found += _commands(sub, (*prefix, name))
    return found


_LEAVES = [path for path, command in _commands(app) if path and not hasattr(command, "commands")]


@pytest.mark.parametrize("path", _LEAVES, ids=[" ".join(p) for p in _LEAVES])
def test_every_option_help_shows_its_default(runner: CliRunner, path: tuple[str, ...]) -> None:
    """Every command (chunk, inspect, example, bench ..., bench sweep ...): each optional option's row shows it."""
    result = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "400", "TERMINAL_WIDTH": "400"})
    assert result.exit_code == 0
    commands = dict(_commands(app))
    options = [p for p in commands[path].params if p.param_type_name == "option" and not p.required]
    assert options or path == ("bench", "report")  # its only option, -o, is required
    for option in options:
        flag = max(option.opts, key=len)
        rows = [line for line in result.stdout.splitlines() if re.match(rf"^\W*{re.escape(flag)}\s", line)]
        assert rows and "[default: " in rows[0], (flag, rows)


def test_help_defaults_match_the_chunker() -> None:
    from docling_evidence.chunker import EvidenceChunker
    from docling_evidence.tokenizer import DEFAULT_MAX_TOKENS

    assert EvidenceChunker.model_fields["bbox_threshold"].default == 300.0
    assert DEFAULT_MAX_TOKENS == 256


def test_reports_in_an_input_folder_are_not_read_back(runner: CliRunner, doc_json: Path) -> None:
    folder = doc_json.parent
    for _ in range(2):
        result = runner.invoke(app, ["inspect", str(folder), "-o", str(folder)])
        assert result.exit_code == 0, result.stderr
    assert sorted(p.name for p in folder.iterdir()) == ["report.inspect.html", "report.json"]
