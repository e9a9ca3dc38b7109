"""Each bad input is told what is wrong with it and what to do, in one line, and never passes as a document."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from docling_evidence.cli.main import app
from docling_evidence.document.convert import InputError, convert_path, load_docling_json, looks_binary
from docling_evidence.pipeline import chunk_path
from tests.cli.conftest import build_doc


def _errors(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("error:")]


def _sources(stdout: str) -> set[str]:
    return {json.loads(line)["meta"]["source"] for line in stdout.splitlines() if line.strip()}


def _doc_data() -> dict:
    return json.loads(build_doc().model_dump_json(by_alias=True))


# --- entries of a batch folder that are not files ----------------------------------------------------------------


def test_a_dangling_symlink_in_a_batch_folder_is_one_error_line(runner: CliRunner, tmp_path: Path) -> None:
    batch = tmp_path / "batch"
    batch.mkdir()
    good = batch / "a.json"
    build_doc().save_as_json(good)
    (batch / "b.json").symlink_to(tmp_path / "moved-away.json")
    result = runner.invoke(app, ["chunk", str(batch)])
    assert result.exit_code == 1, result.stderr
    (line,) = _errors(result.stderr)
    assert line == (
        f"error: {batch / 'b.json'}: dangling symlink: it points to {tmp_path / 'moved-away.json'}, which does not "
        "exist (fix or remove the link)"
    )
    assert _sources(result.stdout) == {str(good)}, "the batch goes on"
    assert "1 input(s) failed" in result.stderr
    direct = runner.invoke(app, ["chunk", str(batch / "b.json"), str(good)])
    assert direct.exit_code == 1 and _errors(direct.stderr) == [line], "the same line as when named directly"
    both = runner.invoke(app, ["chunk", str(batch), str(batch / "b.json")])
    assert _errors(both.stderr) == [line], "named directly and found in the folder: reported once"


def test_loops_and_fifos_in_a_batch_folder_are_errors_too(runner: CliRunner, tmp_path: Path) -> None:
    batch = tmp_path / "batch"
    batch.mkdir()
    build_doc().save_as_json(batch / "a.json")
    (batch / "loop.json").symlink_to(batch / "loop.json")
    os.mkfifo(batch / "pipe.md")
    (batch / "notes.txt").symlink_to(tmp_path / "gone.txt")  # not a supported name: skipped, as any such file
    result = runner.invoke(app, ["chunk", str(batch)])
    assert result.exit_code == 1, result.stderr
    errors = _errors(result.stderr)
    assert len(errors) == 2, result.stderr
    assert "loop.json: symlink loop" in errors[0] and "pipe.md: not a regular file" in errors[1]
    assert _sources(result.stdout) == {str(batch / "a.json")}


def test_chunk_path_on_a_folder_says_it_is_a_folder(tmp_path: Path) -> None:
    with pytest.raises(InputError) as info:
        chunk_path(tmp_path)
    message = str(info.value)
    assert f"{tmp_path}: is a folder, not a file" in message
    assert "iter_input_files" in message and "docling-evidence chunk FOLDER" in message


# --- content that is not what its name says ----------------------------------------------------------------------


@pytest.mark.parametrize(("name", "kind"), [("noise.md", "a Markdown"), ("noise.html", "an HTML")])
def test_random_bytes_named_as_text_formats_are_an_error(
    runner: CliRunner, tmp_path: Path, name: str, kind: str
) -> None:
    bad = tmp_path / name
    bad.write_bytes(bytes(range(256)) * 12)
    good = tmp_path / "good.json"
    build_doc().save_as_json(good)
    result = runner.invoke(app, ["chunk", str(bad), str(good)])
    assert result.exit_code == 1, result.stderr
    (line,) = _errors(result.stderr)
    assert line.startswith(f"error: {bad}: not {kind} file: it holds binary data")
    assert "real" in line or "extension" in line
    assert _sources(result.stdout) == {str(good)}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(min_size=1, max_size=2000), suffix=st.sampled_from([".html", ".md"]))
def test_bytes_with_a_nul_never_convert_as_html_or_markdown(tmp_path: Path, data: bytes, suffix: str) -> None:
    blob = b"\0" + data
    path = tmp_path / f"blob{suffix}"
    path.write_bytes(blob)
    with pytest.raises(InputError, match="binary data"):
        convert_path(path)


_TEXT = st.text(st.characters(blacklist_categories=("Cc", "Cs")) | st.sampled_from("\t\n\r\f"), max_size=400)


@given(text=_TEXT, encoding=st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "cp1252"]))
def test_text_in_any_common_encoding_is_not_binary(text: str, encoding: str) -> None:
    try:
        data = text.encode(encoding)
    except UnicodeEncodeError:
        data = text.encode("utf-8")
    assert not looks_binary(data)


@pytest.mark.parametrize("name", ["empty.json", "empty.html", "empty.md", "blank.json"])
def test_every_empty_file_gets_one_message(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_text("  \n" if name.startswith("blank") else "")
    with pytest.raises(InputError) as info:
        convert_path(path)
    assert str(info.value) == f"{path}: file is empty (re-export or re-download the file)"


# --- JSON that is not a valid DoclingDocument --------------------------------------------------------------------


def test_a_wrong_schema_says_it_is_not_a_docling_document_and_what_was_expected(tmp_path: Path) -> None:
    path = tmp_path / "wrong.json"
    path.write_text('{"schema_name": "DoclingDocument", "name": "x", "texts": "oops"}')
    with pytest.raises(InputError) as info:
        load_docling_json(path)
    message = str(info.value)
    assert "not a valid DoclingDocument JSON" in message
    assert 'texts should be a valid list, got "oops"' in message
    assert "errors, first at" not in message and "save_as_json" in message


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(index=st.integers(0, 2), field=st.sampled_from(["text", "orig"]))
def test_a_bad_field_of_a_text_item_is_named_by_item_and_field(tmp_path: Path, index: int, field: str) -> None:
    data = _doc_data()
    data["texts"][index][field] = None
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(InputError) as info:
        load_docling_json(path)
    message = str(info.value)
    assert f"texts[{index}].{field} should be a valid string, got null" in message
    assert not re.search(r"[A-Z][a-z]+Item", message), "no union member pydantic merely tried"
    assert "more)" not in message, "one problem, counted once"


@pytest.mark.parametrize("value", [7, "x", None, [1]])
def test_an_item_that_is_no_object_is_one_problem_at_the_item(tmp_path: Path, value: object) -> None:
    data = _doc_data()
    data["texts"][1] = value
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(InputError) as info:
        load_docling_json(path)
    message = str(info.value)
    assert "texts[1] should be a valid dictionary" in message
    assert "texts[1]." not in message, "not one problem per union member pydantic tried"
    assert "more)" not in message


def test_an_unknown_label_lists_the_labels_it_could_be(tmp_path: Path) -> None:
    data = _doc_data()
    data["texts"][1]["label"] = "bogus"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(InputError) as info:
        load_docling_json(path)
    assert "texts[1].label is \"bogus\", not one of 'title', 'section_header'" in str(info.value)


def test_a_missing_field_is_named(tmp_path: Path) -> None:
    data = _doc_data()
    del data["tables"][0]["self_ref"]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(InputError, match=re.escape("tables[0].self_ref is missing")):
        load_docling_json(path)


# --- a token limit too small -------------------------------------------------------------------------------------


def test_a_limit_too_small_names_the_smallest_max_tokens_that_works(runner: CliRunner, doc_json: Path) -> None:
    result = runner.invoke(app, ["chunk", str(doc_json), "--max-tokens", "1"])
    assert result.exit_code == 1, result.stderr
    (line,) = _errors(result.stderr)
    found = re.search(r"use --max-tokens (\d+) or more \(\1 is the smallest limit that chunks this file\)", line)
    assert found, line
    assert "tokenizer with a larger max_tokens" not in line
    smallest = int(found.group(1))
    assert runner.invoke(app, ["chunk", str(doc_json), "--max-tokens", str(smallest)]).exit_code == 0
    assert runner.invoke(app, ["chunk", str(doc_json), "--max-tokens", str(smallest - 1)]).exit_code == 1


def test_a_trial_run_failing_otherwise_gives_no_limit_instead_of_escaping(monkeypatch: pytest.MonkeyPatch) -> None:
    """The limit search runs inside the CLI's handler of the limit error: a trial run that fails for another reason
    must end the search (no advice), not raise out of that handler past the per-file error line."""
    from dataclasses import dataclass

    from docling_evidence.batch import limit_search

    @dataclass(frozen=True)
    class Settings:
        max_tokens: int | None = 2
        tokenizer: str | None = None
        bbox_threshold: float | None = None
        table_format: str | None = None

    def broken_chunker(settings: object) -> object:
        raise RuntimeError("a trial chunker that cannot be built")

    monkeypatch.setattr(limit_search, "_chunker_for_limit", broken_chunker)
    assert limit_search.smallest_max_tokens(build_doc(), Settings(), failed=2) == (None, False)
