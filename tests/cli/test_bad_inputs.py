"""Bad input: a one-line message naming the file and the fix, the batch goes on, exit codes 0 / 1 / 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from docling_evidence.cli.main import app
from docling_evidence.cli.safe_write import open_output

EXAMPLES = Path(__file__).resolve().parents[2] / "docling_evidence" / "examples"

# A minimal one-page PDF (no text); enough for Docling to try its PDF pipeline.
MINIMAL_PDF = (
    b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n"
    b"3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n"
)


def _error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("error:")]


def _run_with_good_file(runner: CliRunner, bad: Path, good: Path, *extra: str):
    result = runner.invoke(app, ["chunk", str(bad), str(good), *extra])
    assert result.exit_code == 1, result.stderr
    errors = _error_lines(result.stderr)
    assert len(errors) == 1, result.stderr
    assert str(bad) in errors[0]
    sources = {json.loads(line)["meta"]["source"] for line in result.stdout.splitlines()}
    assert sources == {str(good)}, "the good file must still be chunked"
    assert "1 input(s) failed" in result.stderr
    return errors[0]


def test_missing_file(runner: CliRunner, example_json: Path, tmp_path: Path) -> None:
    line = _run_with_good_file(runner, tmp_path / "nope.json", example_json)
    assert "no such file" in line and "check the path" in line


def test_folder_without_supported_files(runner: CliRunner, example_json: Path, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    (empty / "sub").mkdir(parents=True)
    (empty / "sub" / "image.bmpx").write_bytes(b"x")
    line = _run_with_good_file(runner, empty, example_json)
    assert "folder has no supported files" in line and ".docx" in line


def test_unsupported_extension(runner: CliRunner, example_json: Path, tmp_path: Path) -> None:
    bad = tmp_path / "slides.key"
    bad.write_text("x")
    line = _run_with_good_file(runner, bad, example_json)
    assert "unsupported file type '.key'" in line


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ('{"schema_name": "DoclingDocument", "name": ', "corrupt JSON (line 1"),
        ('{"name": "x", "texts": []}', "not a DoclingDocument"),
        ('{"schema_name": "DoclingDocument", "texts": "oops"}', 'texts should be a valid list, got "oops"'),
        ("[1, 2, 3]", "not a DoclingDocument"),
    ],
)
def test_corrupt_or_foreign_json(
    runner: CliRunner, example_json: Path, tmp_path: Path, content: str, expected: str
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(content, encoding="utf-8")
    line = _run_with_good_file(runner, bad, example_json)
    assert expected in line and "save_as_json" in line


def test_truncated_docx(runner: CliRunner, example_json: Path, tmp_path: Path, has_docling: bool) -> None:
    if not has_docling:
        pytest.skip("Docling converters are not installed")
    data = (EXAMPLES / "annual_report.docx").read_bytes()
    for size in (len(data) // 2, 5000):  # Docling fails differently: bad zip directory vs. "not valid" input
        bad = tmp_path / f"truncated_{size}.docx"
        bad.write_bytes(data[:size])
        line = _run_with_good_file(runner, bad, example_json)
        assert "truncated or corrupt" in line and "re-export" in line


def test_password_protected_office_file(runner: CliRunner, example_json: Path, tmp_path: Path) -> None:
    # Encrypted OOXML files are OLE compound files (magic D0 CF 11 E0 ...), not zips.
    bad = tmp_path / "protected.xlsx"
    bad.write_bytes(bytes.fromhex("d0cf11e0a1b11ae1") + b"\x00" * 1024)
    line = _run_with_good_file(runner, bad, example_json)
    assert "password-protected" in line and "unprotected copy" in line


def test_empty_document_file(runner: CliRunner, example_json: Path, tmp_path: Path) -> None:
    bad = tmp_path / "empty.html"
    bad.write_bytes(b"")
    assert "file is empty" in _run_with_good_file(runner, bad, example_json)


def test_pdf_without_docling_models_gives_install_hint(runner: CliRunner, example_json: Path, tmp_path: Path) -> None:
    pdf = tmp_path / "scan.pdf"
    pdf.write_bytes(MINIMAL_PDF)
    result = runner.invoke(app, ["chunk", str(pdf), str(example_json)])
    if result.exit_code == 0:
        pytest.skip("this environment has Docling's PDF pipeline and models installed")
    line = _run_with_good_file(runner, pdf, example_json)
    assert "pip install 'docling-evidence[pdf]'" in line and "docling-tools models download" in line
    assert "Traceback" not in result.stderr


def test_pdf_hub_failure_is_one_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """What full Docling raises offline without models: a hub error deep in the layout model's init."""
    from docling_evidence.document import convert

    class LocalEntryNotFoundError(OSError):
        pass

    class Converter:
        def convert(self, *_args: object, **_kwargs: object) -> None:
            try:
                raise LocalEntryNotFoundError("Cannot find the requested files in the disk cache")
            except OSError as exc:
                raise RuntimeError("Pipeline StandardPdfPipeline failed") from exc

    monkeypatch.setattr(convert, "_document_converter", Converter)
    pdf = tmp_path / "paper.pdf"
    pdf.write_bytes(MINIMAL_PDF)
    with pytest.raises(convert.InputError) as info:
        convert.convert_path(pdf)
    message = str(info.value)
    assert "\n" not in message and str(pdf) in message and "docling-tools models download" in message


@pytest.mark.parametrize("option", [["--max-tokens", "0"], ["--jobs", "0"], ["--bbox-threshold", "-1"]])
def test_out_of_range_options_are_usage_errors(
    runner: CliRunner, example_json: Path, option: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("docling_evidence.pipeline.make_chunker", _never_called)
    result = runner.invoke(app, ["chunk", str(example_json), *option])
    assert result.exit_code == 2
    assert option[0] in result.stderr and "not in the range" in result.stderr
    assert result.stdout == ""


def test_bad_tokenizer_is_one_usage_error_line(runner: CliRunner, example_json: Path) -> None:
    result = runner.invoke(app, ["chunk", str(example_json), "--tokenizer", "/no/such/dir"])
    assert result.exit_code == 2
    errors = _error_lines(result.stderr)
    assert len(errors) == 1 and "tokenizer" in errors[0]


def _never_called(*args: object, **kwargs: object) -> None:
    raise AssertionError("the tokenizer must not load")


def test_bad_choice_is_a_usage_error(runner: CliRunner, example_json: Path) -> None:
    assert runner.invoke(app, ["chunk", str(example_json), "--format", "xml"]).exit_code == 2
    assert runner.invoke(app, ["chunk", str(example_json), "--table-format", "csv"]).exit_code == 2


def test_unwritable_output_path(runner: CliRunner, example_json: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "file.txt"
    blocker.write_text("x")
    for target in (blocker / "out.jsonl", tmp_path / "missing" / "out.jsonl", tmp_path):
        result = runner.invoke(app, ["chunk", str(example_json), "-o", str(target)])
        assert result.exit_code == 2, target
        errors = _error_lines(result.stderr)
        assert len(errors) == 1 and str(target) in errors[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file.txt"]


def test_failed_batch_keeps_previous_output(runner: CliRunner, tmp_path: Path) -> None:
    out = tmp_path / "chunks.jsonl"
    out.write_text("previous run\n")
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    result = runner.invoke(app, ["chunk", str(bad), "-o", str(out)])
    assert result.exit_code == 1
    assert out.read_text() == "previous run\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.json", "chunks.jsonl"]


def test_atomic_output_leaves_nothing_on_error(tmp_path: Path) -> None:
    out = tmp_path / "result.json"
    out.write_text("old")
    with pytest.raises(RuntimeError), open_output(out) as stream:
        stream.write("half-writ")
        raise RuntimeError("interrupted")
    assert out.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["result.json"]
    with open_output(out) as stream:
        stream.write("new")
    assert out.read_text() == "new"
    plain = tmp_path / "plain.txt"
    plain.write_text("x")
    assert out.stat().st_mode & 0o777 == plain.stat().st_mode & 0o777  # not mkstemp's 0600
