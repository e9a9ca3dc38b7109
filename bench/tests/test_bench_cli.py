"""The bench CLI end to end: smoke runs (TAT-QA slice, in-test documents), report regeneration, bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from docling_core.types.doc import DocItemLabel, DoclingDocument
from docling_evidence_bench.cli import app
from docling_evidence_bench.summary import summarize
from docs_builder import add_table, paged_doc, prov
from shared_paths import SHARED
from typer.testing import CliRunner

TATQA_DEV = SHARED / "data" / "tatqa" / "tatqa_dataset_dev.json"
runner = CliRunner()


def _invoke(*args: str) -> object:
    return runner.invoke(app, list(args))


def _report_cell(report: str, section: str, arm: str, ranking: str) -> str:
    """The hit@1 cell of ``arm``/``ranking`` in the Overall table of ``section`` (e.g. 'bm25 retrieval, doc scope')."""
    body = report.split(f"## {section}", 1)[1]
    for line in body.splitlines():
        if line.startswith(f"| `{arm}` | {ranking} |"):
            return line.split("|")[3].strip()
    raise AssertionError(f"no row for {arm}/{ranking} in {section}")


def _check_recomputes(out: Path) -> dict:
    results = json.loads((out / "results.json").read_text())
    assert json.loads(json.dumps(summarize(results))) == results["summary"]
    report = (out / "report.md").read_text()
    assert "matches the recomputation: yes" in report
    for run in results["runs"]:
        if run["scope"] != results["config"]["scopes"][0]:
            continue
        # independent recomputation of hit@1 from the raw first-hit ranks
        hit1 = sum(1 for r in run["first_hit"] if r == 1) / len(run["first_hit"])
        section = f"{run['method']} retrieval, {run['scope']} scope"
        assert _report_cell(report, section, run["arm"], run["ranking"]) == f"{100 * hit1:.1f}"
    _check_rank_measures(results)
    for name in ("hit_by_type.png", "quality_vs_cost.png"):
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    return results


def _check_rank_measures(results: dict) -> None:
    """The summary's rank measures (computed by ir_measures) are those counted by hand from each run's raw ranks."""
    stored = {(s["arm"], s["method"], s["scope"], s["ranking"]): s["overall"] for s in results["summary"]["runs"]}
    eligible = [q["page_eligible"] for q in results["questions"]]
    for run in results["runs"]:
        overall = stored[(run["arm"], run["method"], run["scope"], run["ranking"])]
        firsts = run["first_hit"]
        pages = [p for p, keep in zip(run["first_page_hit"], eligible, strict=True) if keep]
        for k in (1, 5, 10):
            assert overall[f"Success@{k}"] == sum(f is not None and f <= k for f in firsts) / len(firsts)
            if pages:
                assert overall[f"page_Success@{k}"] == sum(p is not None and p <= k for p in pages) / len(pages)
        assert overall["hit@1"] == overall["Success@1"]
        assert overall["RR@10"] == pytest.approx(sum(1 / f for f in firsts if f is not None) / len(firsts))


@pytest.mark.skipif(not TATQA_DEV.is_file(), reason="../shared TAT-QA dev file not present")
def test_smoke_tatqa_slice_same_seed_same_numbers(tmp_path: Path) -> None:
    args = ["run", "--tatqa", str(TATQA_DEV), "--limit-contexts", "4", "--contexts-per-doc", "2"]
    args += ["--arms", "hybrid,evidence", "--retrieval", "bm25,hybrid", "--scope", "doc,corpus"]
    args += ["--embedder", "hashing", "--seed", "5", "-q"]
    first = _invoke(*args, "-o", str(tmp_path / "a"))
    assert first.exit_code == 0, first.output
    second = _invoke(*args, "-o", str(tmp_path / "b"))
    assert second.exit_code == 0, second.output
    a = _check_recomputes(tmp_path / "a")
    b = _check_recomputes(tmp_path / "b")
    assert a["summary"] == b["summary"]
    assert a["runs"] == b["runs"]
    assert a["dataset"]["n_documents"] == 2
    assert {r["arm"] for r in a["runs"]} == {"hybrid", "evidence"}
    assert a["arms"]["evidence"]["cost"]["query_ms"]["hybrid/corpus"]["n"] == a["dataset"]["n_questions"]


def _qa_fixture(tmp_path: Path) -> tuple[Path, Path]:
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, (rev, cost) in {"r1.json": ("1,496.5", "44.1"), "r2.json": ("7,821", "913.2")}.items():
        doc: DoclingDocument = paged_doc(pages=2)
        doc.add_heading("Results of operations", prov=prov(1, 50, 40, 500, 60))
        doc.add_text(DocItemLabel.TEXT, "Revenue grew on new contracts.", prov=prov(1, 50, 80, 500, 120))
        doc.add_text(DocItemLabel.TEXT, "The following table shows revenue by year:", prov=prov(1, 50, 130, 500, 150))
        add_table(doc, [["", "2019"]], [["Revenue", rev], ["Costs", cost]], provs=[prov(2, 50, 60, 500, 200)])
        doc.save_as_json(docs / name)
    lines = [
        {"id": "a", "doc": "r1.json", "question": "What was revenue in 2019?", "answers": ["1,496.5"],
         "type": "cell_value", "evidence": {"refs": ["#/tables/0"], "pages": [2]}},
        {"id": "b", "doc": "r2.json", "question": "What were costs in 2019?", "answers": ["913.2"],
         "type": "cell_value", "evidence": {"refs": ["#/tables/0"], "pages": [2]}},
        {"id": "c", "doc": "r2.json", "question": "Which table shows revenue by year?", "answers": ["7,821"],
         "type": "context_dependent", "evidence": {"pages": [1, 2]},
         "required_texts": ["The following table shows revenue by year:"]},
    ]  # fmt: skip
    qa = tmp_path / "qa.jsonl"
    qa.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    return qa, docs


def test_smoke_qa_jsonl_in_test_documents_and_report_command(tmp_path: Path) -> None:
    qa, docs = _qa_fixture(tmp_path)
    out = tmp_path / "out"
    arms = "hybrid,evidence,page,rowsplit"
    res = _invoke(
        "run", "--qa", str(qa), "--docs", str(docs), "--arms", arms, "--retrieval", "bm25", "-q", "-o", str(out)
    )
    assert res.exit_code == 0, res.output
    results = _check_recomputes(out)
    assert all(q["page_eligible"] for q in results["questions"])
    page_runs = [r for r in results["runs"] if r["arm"] == "page"]
    assert all(r["first_page_hit"][0] in (1, 2) for r in page_runs)
    cost = results["arms"]["rowsplit"]["cost"]
    assert cost["vectors"] == cost["chunks"] + 4  # one row vector per body row of the two tables
    assert cost["chunks"] == results["arms"]["hybrid"]["cost"]["chunks"]
    # the report command regenerates the same report from the JSON alone
    again = tmp_path / "again"
    res = _invoke("report", str(out / "results.json"), "-o", str(again))
    assert res.exit_code == 0, res.output
    assert (again / "report.md").read_text() == (out / "report.md").read_text()


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--arms", "hybrid,semantic"], "'semantic'"),
        (["--retrieval", "dense,splade"], "'splade'"),
        (["--scope", "page"], "'page'"),
        (["--embedder", "/no/such/model/folder"], "/no/such/model/folder"),
    ],
)
def test_bad_options_exit_2_and_write_nothing(tmp_path: Path, args: list[str], needle: str) -> None:
    qa, docs = _qa_fixture(tmp_path)
    out = tmp_path / "out"
    res = _invoke("run", "--qa", str(qa), "--docs", str(docs), *args, "-q", "-o", str(out))
    assert res.exit_code == 2
    assert res.output.strip().splitlines() == [res.output.strip()]  # one line
    assert res.output.startswith("error:") and needle in res.output
    assert not out.exists()


def test_bad_datasets_exit_2(tmp_path: Path) -> None:
    qa, docs = _qa_fixture(tmp_path)
    out = tmp_path / "out"
    missing = _invoke("run", "--tatqa", str(tmp_path / "missing.json"), "-o", str(out))
    assert missing.exit_code == 2 and "missing.json" in missing.output
    both = _invoke("run", "--tatqa", str(qa), "--qa", str(qa), "--docs", str(docs), "-o", str(out))
    assert both.exit_code == 2 and "exactly one dataset" in both.output
    no_docs = _invoke("run", "--qa", str(qa), "-o", str(out))
    assert no_docs.exit_code == 2 and "--docs" in no_docs.output
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    res = _invoke("run", "--qa", str(empty), "--docs", str(docs), "--retrieval", "bm25", "-o", str(out))
    assert res.exit_code == 2 and "empty.jsonl" in res.output
    bad_line = tmp_path / "bad.jsonl"
    bad_line.write_text(json.dumps({"id": "x", "doc": "nope.json", "question": "q", "answers": ["1"], "type": "t",
                                    "evidence": {}}) + "\n")  # fmt: skip
    res = _invoke("run", "--qa", str(bad_line), "--docs", str(docs), "--retrieval", "bm25", "-o", str(out))
    assert res.exit_code == 2 and "bad.jsonl:1" in res.output
    assert not out.exists()


def test_report_command_bad_input(tmp_path: Path) -> None:
    res = _invoke("report", str(tmp_path / "nope.json"), "-o", str(tmp_path / "r"))
    assert res.exit_code == 2 and "nope.json" in res.output
    junk = tmp_path / "junk.json"
    junk.write_text('{"a": 1}')
    res = _invoke("report", str(junk), "-o", str(tmp_path / "r"))
    assert res.exit_code == 2 and "not a benchmark results file" in res.output


def test_cli_module_level_imports_are_light() -> None:
    import ast

    import docling_evidence_bench.cli as cli_module

    tree = ast.parse(Path(cli_module.__file__).read_text())
    top = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            top |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            # the shared CLI helpers are light too (stdlib, typer, rich)
            top.add(node.module if node.module == "docling_evidence.cli.common" else node.module.split(".")[0])
    assert top <= {"__future__", "logging", "os", "sys", "pathlib", "typing", "typer", "docling_evidence.cli.common"}


def test_a_usage_error_is_one_line_from_the_app_and_from_both_entry_points(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from docling_evidence.cli.common import run_app

    assert run_app(app, ["targets", "-o", "out"], prog_name="docling-evidence-bench") == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("error: ") and "Missing option '--tatqa'" in line and "╭" not in line
    assert "'docling-evidence-bench targets --help'" in line
    for entry in (["-m", "docling_evidence_bench"], ["-c", "from docling_evidence_bench.cli import main; main()"]):
        proc = subprocess.run(
            [sys.executable, *entry, "targets", "-o", "out"], cwd=tmp_path, capture_output=True, text=True, timeout=120
        )
        assert proc.returncode == 2, proc.stderr
        (line,) = proc.stderr.strip().splitlines()
        assert line.startswith("error: ") and "Missing option '--tatqa'" in line, proc.stderr


def test_module_entry_point() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "docling_evidence_bench", "report", "/no/such/results.json", "-o", "/tmp/x"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert "/no/such/results.json" in proc.stderr
