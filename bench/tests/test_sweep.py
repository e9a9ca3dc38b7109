"""The sweep runner and its report: smoke runs with the hashing embedder, measures on hand-computed cases."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from docling_evidence_bench.embed import HashingEmbedder
from docling_evidence_bench.pareto import ParetoPoint, pareto_front
from docling_evidence_bench.stats import percentile
from docling_evidence_bench.sweep import (
    SweepChunk,
    boundary_task,
    duplicate_accounting,
    quality_from_ranks,
    run_sweep,
    tatqa_hit,
    tatqa_task,
)
from docling_evidence_bench.sweep_cli import sweep_app
from docling_evidence_bench.sweep_report import build_markdown, write_outputs
from typer.testing import CliRunner

SMALL_PROFILES = ((400, 0), (400, 80), (1000, 0), (1000, 200))


def test_quality_from_ranks_hand_case() -> None:
    # ranks of the first relevant chunk: 1, 2, not in top 10, 4; the third query has no relevant chunk at all.
    q = quality_from_ranks([1, 2, None, 4], [True, True, False, True])
    assert q == {"coverage": 0.75, "hit@1": 0.25, "hit@3": 0.5, "mrr@10": pytest.approx((1 + 1 / 2 + 1 / 4) / 4)}
    assert math.isnan(quality_from_ranks([], [])["hit@1"])


def test_percentile_hand_case() -> None:
    assert percentile([3.0, 1.0, 2.0], 50) == 2.0
    assert percentile([1.0, 2.0, 3.0, 4.0], 95) == pytest.approx(3.85)  # numpy's linear rule
    assert percentile([1.0, 2.0, 3.0, 4.0], 95) == pytest.approx(float(np.percentile([1, 2, 3, 4], 95)))
    assert math.isnan(percentile([], 50))


def test_duplicate_accounting_exact_and_by_lines() -> None:
    exact = [SweepChunk("a", "x" * 4, 0, 4), SweepChunk("a", "x" * 4, 2, 6), SweepChunk("b", "y" * 3, 0, 3)]
    d = duplicate_accounting(exact)
    assert (d["total_code_points"], d["duplicated_code_points"], d["duplicate_method"]) == (11, 2, "exact-offsets")
    assert d["duplicate_ratio"] == pytest.approx(2 / 11)
    # Documents are accounted separately: the same span in two documents is not a duplicate.
    assert (
        duplicate_accounting([SweepChunk("a", "xy", 0, 2), SweepChunk("b", "xy", 0, 2)])["duplicated_code_points"] == 0
    )
    lines = [SweepChunk("a", "H\nrow1"), SweepChunk("a", "H\nrow2"), SweepChunk("b", "H")]
    d = duplicate_accounting(lines)
    assert (d["total_code_points"], d["duplicated_code_points"], d["duplicate_method"]) == (
        13,
        1,
        "repeated-lines",
    )  # 6 + 6 + 1; "H" repeats once in doc a


def test_tatqa_hit_needs_every_answer_and_the_paragraph() -> None:
    text = "Revenue was $1,452.4 in 2019.\n| Other | 44.1 | 56.7 |"
    assert tatqa_hit(text, ["1452.4", "44.1"], [])
    assert not tatqa_hit(text.replace("44.1", "144.1"), ["44.1"], [])
    assert not tatqa_hit(text, ["44.1"], ["Sales by contract type are shown below."])
    assert tatqa_hit(
        text + " Sales by  contract type are shown below.", ["44.1"], ["Sales by contract type are shown below."]
    )


@pytest.fixture(scope="module")
def smoke() -> dict:
    task = boundary_task(seed=5, profiles=SMALL_PROFILES)
    return run_sweep(task, HashingEmbedder(256), rounds=2, warmup=1, batch_size=16)


def test_smoke_boundary_sweep(smoke: dict) -> None:
    arms = {a["name"]: a for a in smoke["arms"]}
    assert list(arms) == ["fixed-400-0", "fixed-400-80", "fixed-1000-0", "fixed-1000-200"]
    assert smoke["errors"] == 0
    for a in arms.values():
        assert a["status"] == "ok"
        inv = a["invariants"]
        assert inv["count_ok"] and inv["dim_ok"] and inv["finite_ok"]
        assert inv["declared_dim"] == 256
        assert inv["max_batch"] <= 16
        assert inv["vectors"] == 2 * a["chunks"]  # two measured rounds (the warm-up is not counted)
        assert inv["requests"] == 2 * math.ceil(a["chunks"] / 16)
        assert a["quality_stable"]
        assert len(a["embed_seconds"]) == 2
        # The numbers recompute from the per-query outcomes kept in the JSON.
        assert a["quality"] == quality_from_ranks(a["first_relevant_rank"], a["covered"])
    # The corpus is built so that a window edge on the boundary cuts the evidence and the overlap rescues it.
    assert arms["fixed-400-0"]["quality"]["coverage"] < arms["fixed-400-80"]["quality"]["coverage"] == 1.0
    assert arms["fixed-1000-0"]["quality"]["coverage"] < arms["fixed-1000-200"]["quality"]["coverage"] == 1.0
    assert arms["fixed-400-0"]["duplicated_code_points"] == 0 < arms["fixed-400-80"]["duplicated_code_points"]
    assert arms["fixed-1000-0"]["total_code_points"] == smoke["info"]["code_points"]


def test_same_seed_same_quality(smoke: dict) -> None:
    again = run_sweep(boundary_task(seed=5, profiles=SMALL_PROFILES), HashingEmbedder(256), rounds=1, warmup=0)
    for a, b in zip(smoke["arms"], again["arms"], strict=True):
        assert a["quality"] == b["quality"]
        assert a["first_relevant_rank"] == b["first_relevant_rank"]
        assert (a["chunks"], a["indexed_tokens"]) == (b["chunks"], b["indexed_tokens"])
    assert smoke["info"]["corpus_sha256"] == again["info"]["corpus_sha256"]


def test_arm_order_rotates_each_round() -> None:
    seen: list[str] = []
    run_sweep(
        boundary_task(seed=5, profiles=SMALL_PROFILES[:3]),
        HashingEmbedder(64),
        rounds=3,
        warmup=0,
        bm25=False,
        progress=seen.append,
    )
    order = [m.split()[-3].rstrip(":") for m in seen if " round " in m]
    assert order == [
        "fixed-400-0", "fixed-400-80", "fixed-1000-0",
        "fixed-400-80", "fixed-1000-0", "fixed-400-0",
        "fixed-1000-0", "fixed-400-0", "fixed-400-80",
    ]  # fmt: skip


class _NaNPassages(HashingEmbedder):
    """Breaks the finiteness invariant for passages only."""

    def encode_passages(self, texts):  # type: ignore[override]
        out = np.array(super().encode_passages(texts))
        out[0, 0] = np.nan
        return out


class _ShortPassages(HashingEmbedder):
    """Returns one vector too few (without going through the engine's own check)."""

    def encode_passages(self, texts):  # type: ignore[override]
        return np.array(super().encode_passages(texts))[:-1]


@pytest.mark.parametrize(("embedder", "broken"), [(_NaNPassages(32), "finite_ok"), (_ShortPassages(32), "count_ok")])
def test_broken_vectors_fail_the_arm_and_are_counted(embedder, broken) -> None:
    res = run_sweep(boundary_task(seed=5, profiles=SMALL_PROFILES[:2]), embedder, rounds=2, warmup=0)
    assert res["errors"] == 2  # one failed request per arm: an arm stops at its first broken batch
    for a in res["arms"]:
        assert a["status"] == "failed"
        assert a["failed_requests"] == 1
        assert a["invariants"][broken] is False
        assert math.isnan(a["quality"]["hit@1"])
    assert "failed" in build_markdown(_wrap(res))


def _wrap(task_result: dict) -> dict:
    return {
        "schema": "docling-evidence/sweep/v1",
        "command": "test",
        "started": "now",
        "wall_seconds": 1.0,
        "errors": task_result["errors"],
        "environment": {
            "embedder": "hashing",
            "embedder_dim": 256,
            "embedder_max_seq_length": None,
            "dimension_check": "declared",
            "cpu_count": 2,
            "torch_threads": 2,
            "platform": "test",
            "python": "3",
            "packages": {},
        },
        "settings": {
            "rounds": 2,
            "tatqa_rounds": 2,
            "warmup": 1,
            "batch_size": 16,
            "reference": "fixed-1000-200",
            "quality_axis": "hit@1",
        },
        "tasks": {"boundary": task_result},
    }


def test_report_is_generated_from_the_json(smoke: dict, tmp_path: Path) -> None:
    results = _wrap(smoke)
    written = write_outputs(results, tmp_path)
    names = sorted(p.name for p in written)
    assert names == ["boundary_pareto.png", "sweep.md", "sweep_results.json"]
    assert (tmp_path / "boundary_pareto.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    md = (tmp_path / "sweep.md").read_text(encoding="utf-8")
    reloaded = json.loads((tmp_path / "sweep_results.json").read_text(encoding="utf-8"))
    assert build_markdown(reloaded, {"boundary": "boundary_pareto.png"}) == md
    assert "Against the `fixed-1000-200` default" in md
    front = pareto_front(
        ParetoPoint(a["name"], a["quality"]["hit@1"], a["indexed_tokens"])
        for a in reloaded["tasks"]["boundary"]["arms"]
    )
    assert "- against indexed tokens (all-MiniLM-L6-v2 tokenizer): " + ", ".join(f"`{p.name}`" for p in front) in md


def test_tatqa_slice_all_chunker_families(shared_dir: Path) -> None:
    path = shared_dir / "data" / "tatqa" / "tatqa_dataset_dev.json"
    if not path.is_file():
        pytest.skip("TAT-QA dev set not present")
    task = tatqa_task(path, limit_contexts=4, contexts_per_doc=2, profiles=((1000, 200),), max_tokens=(256,))
    res = run_sweep(task, HashingEmbedder(128), rounds=1, warmup=0, bm25=False)
    arms = {a["name"]: a for a in res["arms"]}
    assert list(arms) == ["fixed-1000-200", "hybrid-256", "evidence-256"]
    assert arms["fixed-1000-200"]["duplicate_method"] == "exact-offsets"
    assert arms["fixed-1000-200"]["total_code_points"] > task.info["markdown_code_points"]
    for a in arms.values():
        assert a["status"] == "ok", a.get("error")
        assert len(a["covered"]) == len(task.queries) == task.info["questions"]
        assert 0 < a["quality"]["coverage"] <= 1
        assert a["quality"]["hit@1"] <= a["quality"]["coverage"]
    assert arms["hybrid-256"]["duplicate_method"] == "repeated-lines"


def test_cli_runs_reports_and_rejects_bad_input(tmp_path: Path) -> None:
    runner = CliRunner()
    res = runner.invoke(
        sweep_app,
        [
            "run",
            "--embedder",
            "hashing",
            "--rounds",
            "1",
            "--profiles",
            "400/0,1000/200",
            "--out",
            str(tmp_path),
            "--quiet",
        ],
    )
    assert res.exit_code == 0, res.output
    data = json.loads((tmp_path / "sweep_results.json").read_text(encoding="utf-8"))
    assert [a["name"] for a in data["tasks"]["boundary"]["arms"]] == ["fixed-400-0", "fixed-1000-200"]
    (tmp_path / "sweep.md").unlink()
    res = runner.invoke(sweep_app, ["report", str(tmp_path / "sweep_results.json")])
    assert res.exit_code == 0 and (tmp_path / "sweep.md").is_file()

    bad_out = tmp_path / "bad"
    for args in (
        ["run", "--embedder", "hashing", "--profiles", "400/400", "--out", str(bad_out)],
        ["run", "--embedder", "hashing", "--batch-size", "65", "--out", str(bad_out)],
        ["run", "--embedder", "/no/such/model", "--out", str(bad_out)],
        ["run", "--embedder", "hashing", "--tatqa", str(tmp_path / "missing.json"), "--out", str(bad_out)],
    ):
        res = runner.invoke(sweep_app, args)
        assert res.exit_code == 2, (args, res.output)
        assert "error:" in res.output and "Traceback" not in res.output
    assert not bad_out.exists()  # nothing half-written
    (tmp_path / "other.json").write_text("{}", encoding="utf-8")
    assert runner.invoke(sweep_app, ["report", str(tmp_path / "other.json")]).exit_code == 2


def test_module_import_adds_nothing_heavy() -> None:
    # Compared with what ``import docling_evidence`` itself loads: the sweep module must not add the embedder,
    # numpy or matplotlib at import time.
    heavy = ("torch", "sentence_transformers", "numpy", "matplotlib")
    code = (
        "import sys, docling_evidence; before = set(sys.modules); import docling_evidence_bench.sweep; "
        f"print(sorted(m for m in {heavy!r} if m in sys.modules and m not in before))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[]"
