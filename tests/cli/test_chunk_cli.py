"""``docling-evidence chunk``: every option, output formats, re-validation into EvidenceChunk, parallel jobs."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from docling_evidence import EvidenceChunker
from docling_evidence.cli.main import app
from docling_evidence.meta import EvidenceChunk
from docling_evidence.tokenizer import BUNDLED_TOKENIZER_DIR, bundled_tokenizer


def _records(stdout: str) -> list[dict]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def test_jsonl_to_stdout_revalidates_into_evidence_chunks(runner: CliRunner, example_json: Path) -> None:
    result = runner.invoke(app, ["chunk", str(example_json)])
    assert result.exit_code == 0, result.stderr
    records = _records(result.stdout)
    assert records, "no chunk written"
    tables = [r for r in records if r["meta"]["kind"] == "table"]
    assert {r["meta"]["caption"].split(":")[0] for r in tables if r["meta"]["caption"]} >= {"Table 1", "Table 2"}
    for record in records:
        chunk = EvidenceChunk.model_validate(record["chunk"])
        assert chunk.meta.unit_id == record["meta"]["unit_id"]
        assert chunk.meta.page_span == record["meta"]["page_span"]
        assert [it.self_ref for it in chunk.meta.doc_items] == record["meta"]["doc_items"]
        assert record["meta"]["source"] == str(example_json)
        assert record["meta"]["num_tokens"] == bundled_tokenizer().count_tokens(record["text"])
        assert set(record["meta"]["roles"].values()) <= {"caption", "context", "table", "footnote", "text"}
        # the views to embed beside the chunk: as contextualize_views gives them, each within the limit
        chunker = EvidenceChunker()
        assert record["meta"]["views"] == chunker.contextualize_views(chunk)
        assert all(bundled_tokenizer().count_tokens(v) <= 256 for v in record["meta"]["views"])
    assert all(r["meta"]["views"] for r in tables), "every table piece has row views"
    # The 64-row vessel register cannot fit in 256 tokens: its pieces share one unit id and count parts.
    register = [r for r in tables if (r["meta"]["caption"] or "").startswith("Table 3")]
    assert len(register) > 1
    assert {r["meta"]["unit_id"] for r in register} == {register[0]["meta"]["unit_id"]}
    assert [r["meta"]["part"] for r in register] == list(range(len(register)))
    assert all(r["meta"]["parts"] == len(register) for r in register)
    assert "chunked into" in result.stderr  # the summary goes to stderr, never into the JSONL


def test_json_and_md_formats_and_output_file(runner: CliRunner, example_json: Path, tmp_path: Path) -> None:
    jsonl = runner.invoke(app, ["chunk", str(example_json)])
    as_json = runner.invoke(app, ["chunk", str(example_json), "--format", "json"])
    assert as_json.exit_code == 0, as_json.stderr
    assert json.loads(as_json.stdout) == _records(jsonl.stdout)

    out = tmp_path / "chunks.md"
    md = runner.invoke(app, ["chunk", str(example_json), "-f", "md", "-o", str(out)])
    assert md.exit_code == 0, md.stderr
    assert md.stdout == ""
    text = out.read_text(encoding="utf-8")
    assert text.startswith("# annual_report.json")
    assert "**Caption:** Table 1: Financial highlights" in text
    assert [p.name for p in tmp_path.iterdir()] == ["chunks.md"]  # no temp file left behind

    records = _records(jsonl.stdout)
    units = {r["meta"]["unit_id"] for r in records if r["meta"]["kind"] == "table"}
    texts = sum(r["meta"]["kind"] == "text" for r in records)
    assert text.count("## Chunk ") == texts + len(units)  # one piece per table unit by default
    full = runner.invoke(app, ["chunk", str(example_json), "-f", "md", "--all"])
    assert full.exit_code == 0, full.stderr
    assert full.stdout.count("## Chunk ") == len(records)


def test_max_tokens_and_tokenizer_path(runner: CliRunner, example_json: Path) -> None:
    default = _records(runner.invoke(app, ["chunk", str(example_json)]).stdout)
    result = runner.invoke(
        app, ["chunk", str(example_json), "--max-tokens", "128", "--tokenizer", str(BUNDLED_TOKENIZER_DIR)]
    )
    assert result.exit_code == 0, result.stderr
    small = _records(result.stdout)
    assert len(small) > len(default)
    counter = bundled_tokenizer(128)
    assert max(counter.count_tokens(r["text"]) for r in small) <= 128


def test_table_formats(runner: CliRunner, one_page_fixture: Path) -> None:
    texts = {}
    for fmt in ("markdown", "html", "triplets"):
        result = runner.invoke(app, ["chunk", str(one_page_fixture), "--table-format", fmt])
        assert result.exit_code == 0, result.stderr
        texts[fmt] = "\n".join(r["text"] for r in _records(result.stdout) if r["meta"]["kind"] == "table")
    assert "|---" in texts["markdown"] and "<table" not in texts["markdown"]
    assert "<table" in texts["html"] and "<td" in texts["html"]
    assert " = " in texts["triplets"] and "|---" not in texts["triplets"]


def test_bbox_threshold_changes_context_on_layout_document(runner: CliRunner, shared_dir: Path) -> None:
    page = shared_dir / "fixtures" / "more" / "annual_report_page_shareholders.json"  # one page, two tables

    def context_members(threshold: str) -> int:
        result = runner.invoke(app, ["chunk", str(page), "--bbox-threshold", threshold])
        assert result.exit_code == 0, result.stderr
        return sum(
            list(r["meta"]["roles"].values()).count("context")
            for r in _records(result.stdout)
            if r["meta"]["kind"] == "table"
        )

    assert context_members("0") < context_members("1000")


def test_jobs_2_gives_the_same_output_as_jobs_1(runner: CliRunner, example_json: Path, one_page_fixture: Path) -> None:
    args = ["chunk", str(example_json), str(one_page_fixture)]
    serial = runner.invoke(app, [*args, "--jobs", "1"])
    parallel = runner.invoke(app, [*args, "--jobs", "2"])
    assert serial.exit_code == parallel.exit_code == 0, parallel.stderr
    assert parallel.stdout == serial.stdout
    sources = [r["meta"]["source"] for r in _records(parallel.stdout)]
    assert sources[0] == str(example_json) and sources[-1] == str(one_page_fixture)  # input order kept


def test_folder_input_is_recursive(runner: CliRunner, example_json: Path, tmp_path: Path) -> None:
    nested = tmp_path / "a" / "b"
    nested.mkdir(parents=True)
    (nested / "report.json").write_bytes(example_json.read_bytes())
    (tmp_path / "a" / "notes.bin").write_bytes(b"\x00\x01")  # unsupported files inside folders are skipped
    result = runner.invoke(app, ["chunk", str(tmp_path)])
    assert result.exit_code == 0, result.stderr
    assert {r["meta"]["source"] for r in _records(result.stdout)} == {str(nested / "report.json")}


def test_example_command_prints_the_bundled_report(runner: CliRunner) -> None:
    result = runner.invoke(app, ["example"])
    assert result.exit_code == 0
    path = Path(result.stdout.strip())
    assert path.name == "annual_report.html" and "<caption>Table 1:" in path.read_text(encoding="utf-8")
    docx = runner.invoke(app, ["example", "--format", "docx"])
    assert Path(docx.stdout.strip()).is_file()
    assert runner.invoke(app, ["example", "--format", "pdf"]).exit_code == 2


def test_the_benchmark_is_no_sub_command(runner: CliRunner) -> None:
    result = runner.invoke(app, ["--help"])  # the benchmark is its own command, docling-evidence-bench
    assert result.exit_code == 0 and "chunk" in result.stdout
    assert "bench" not in result.stdout


def test_md_listing_leads_with_a_unit_summary(runner: CliRunner, tmp_path: Path) -> None:
    from tests.cli.conftest import build_doc

    path = tmp_path / "long.json"
    build_doc(rows=40).save_as_json(path)
    records = _records(runner.invoke(app, ["chunk", str(path), "--max-tokens", "96"]).stdout)
    pieces = [r for r in records if r["meta"]["kind"] == "table"]
    assert len(pieces) > 2 and len({r["meta"]["unit_id"] for r in pieces}) == 1

    result = runner.invoke(app, ["chunk", str(path), "--max-tokens", "96", "-f", "md"])
    assert result.exit_code == 0, result.stderr
    text = result.stdout
    unit_id = pieces[0]["meta"]["unit_id"]
    summary_row = f"| T1 | `{unit_id}` | Table 1: Revenue by region (USD m) | 1 | {len(pieces)} | page 1 |"
    assert summary_row in text
    assert text.index(summary_row) < text.index("## Chunk")  # the summary comes first
    assert text.count("## Chunk ") == len(records) - len(pieces) + 1
    # the listing shows the first piece that holds rows (a piece of general context may come first) and names the rest
    shown = next(k for k, r in enumerate(pieces, 1) if r["meta"]["rows"][1] > r["meta"]["rows"][0])
    rest = [k for k in range(1, len(pieces) + 1) if k != shown]
    runs = [[rest[0]]]
    for k in rest[1:]:
        runs[-1].append(k) if k == runs[-1][-1] + 1 else runs.append([k])
    named = ", ".join(str(r[0]) if len(r) == 1 else f"{r[0]}–{r[-1]}" for r in runs)
    assert f"pieces {named} of T1 (rows " in text and "`--all` lists them" in text

    two = tmp_path / "two.json"
    build_doc(rows=6).save_as_json(two)
    records_two = _records(runner.invoke(app, ["chunk", str(two), "--max-tokens", "96"]).stdout)
    assert sum(r["meta"]["kind"] == "table" for r in records_two) == 2
    listing = runner.invoke(app, ["chunk", str(two), "--max-tokens", "96", "-f", "md"]).stdout
    assert "_… piece 2 of T1 (row" in listing and "pieces 2–2" not in listing

    full = runner.invoke(app, ["chunk", str(path), "--max-tokens", "96", "-f", "md", "--all"]).stdout
    assert full.count("## Chunk ") == len(records)
    assert "not shown" not in full


def test_md_listing_shows_the_piece_with_rows_when_a_unit_opens_with_context(
    runner: CliRunner, example_json: Path
) -> None:
    """Table 2 of the bundled example fits one piece but not with the paragraph naming it: the paragraph gets a
    piece of its own before the table's. The listing shows the table's piece and says the context piece is hidden."""
    records = _records(runner.invoke(app, ["chunk", str(example_json)]).stdout)
    t2 = [r["meta"] for r in records if r["meta"]["kind"] == "table" and "Table 2:" in (r["meta"]["caption"] or "")]
    assert [m["rows"] for m in t2] == [[0, 0], [0, 5]]
    listing = runner.invoke(app, ["chunk", str(example_json), "-f", "md"]).stdout
    assert "· part 2 of 2 · rows 1–5 ·" in listing and "_… piece 1 of T2 (context) not shown;" in listing
    full = runner.invoke(app, ["chunk", str(example_json), "-f", "md", "--all"]).stdout
    assert "· part 1 of 2 · no rows ·" in full


def test_md_listing_counts_context_paragraphs_not_inline_runs(runner: CliRunner, tmp_path: Path) -> None:
    """A paragraph with two links is one inline group of five runs: the summary counts it as one context paragraph,
    beside a plain paragraph and two list items (each a paragraph)."""
    from docling_core.types.doc import DocItemLabel, DoclingDocument, GroupLabel

    doc = DoclingDocument(name="links")
    doc.add_heading(text="Tariffs")
    lead = doc.add_inline_group(parent=doc.body)
    doc.add_text(label=DocItemLabel.TEXT, text="The tariffs below follow the", parent=lead)
    doc.add_text(label=DocItemLabel.TEXT, text="port rules", hyperlink="https://example.org/rules", parent=lead)
    doc.add_text(label=DocItemLabel.TEXT, text="and the", parent=lead)
    doc.add_text(label=DocItemLabel.TEXT, text="harbour act", hyperlink="https://example.org/act", parent=lead)
    doc.add_text(label=DocItemLabel.TEXT, text="for every vessel class and tonnage.", parent=lead)
    doc.add_table(data=_tariff_table())
    doc.add_text(label=DocItemLabel.TEXT, text="Tariffs for each vessel class apply per tonnage band.")
    notes = doc.add_group(label=GroupLabel.LIST)
    doc.add_list_item(text="Tankers pay the tonnage tariff twice.", parent=notes)
    doc.add_list_item(text="Ferries pay half the vessel tariff.", parent=notes)
    path = tmp_path / "links.json"
    doc.save_as_json(path)
    records = _records(runner.invoke(app, ["chunk", str(path)]).stdout)
    (unit,) = [r for r in records if r["meta"]["kind"] == "table"]
    assert list(unit["meta"]["roles"].values()).count("context") == 8  # five runs, a paragraph, two list items
    listing = runner.invoke(app, ["chunk", str(path), "-f", "md"]).stdout
    assert f"| T1 | `{unit['meta']['unit_id']}` | _none found_ | 4 | 1 | – |" in listing


def _tariff_table() -> object:
    from docs_builder import table_data

    return table_data([["Vessel class", "Tonnage", "Tariff"]], [["Tanker", "5000", "12"], ["Ferry", "800", "4"]])
