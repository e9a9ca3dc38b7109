"""The benchmark's target checks: margins per measure, met / not met, and the targets command end to end."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from docling_evidence_bench.cli import app
from docling_evidence_bench.measures import BUDGETS
from docling_evidence_bench.targets import ANSWER_TYPES, TARGET_ARMS, check_targets, render_targets
from shared_paths import SHARED
from typer.testing import CliRunner

TATQA_DEV = SHARED / "data" / "tatqa" / "tatqa_dataset_dev.json"


def _run(arm: str, base: float, table_text: float) -> dict[str, Any]:
    block = {"hit@1": base, "Success@10": base, **{f"ok@{b}": base for b in BUDGETS}}
    by_type = {t: dict(block) for t in ANSWER_TYPES}
    by_type["table-text"] = {**block, "hit@1": table_text}
    return {"arm": arm, "method": "bm25", "scope": "doc", "ranking": "maxpool", "overall": block, "by_qtype": by_type}


def _results(ours: float, ours_tt: float) -> dict[str, Any]:
    return {
        "config": {"arms": ["hybrid", "evidence"], "methods": ["bm25"]},
        "summary": {"runs": [_run("hybrid", 0.5, 0.3), _run("evidence", ours, ours_tt)]},
    }


def test_margins_table_text_plus_20_ok512_plus_5_the_rest_not_below() -> None:
    checks = check_targets(_results(0.5, 0.49), "bm25")
    margins = {(c.measure, c.subset): c.margin for c in checks}
    assert margins[("hit@1", "table-text")] == pytest.approx(0.20)
    assert margins[("ok@512", "all")] == pytest.approx(0.05)
    assert margins[("hit@1", "table")] == 0 and margins[("Success@10", "all")] == 0
    assert len(checks) == 3 + 4 * len(BUDGETS) + 1
    met = {(c.measure, c.subset): c.met for c in checks}
    assert met[("hit@1", "table-text")] is False  # +19 points is not +20
    assert met[("ok@512", "all")] is False  # equal is not +5
    assert met[("ok@256", "all")] is True and met[("hit@1", "text")] is True  # equal is "not below"
    better = {(c.measure, c.subset): c.met for c in check_targets(_results(0.56, 0.5), "bm25")}
    assert all(better.values())
    worse = check_targets(_results(0.49, 0.6), "bm25")
    assert [c.subset for c in worse if c.met is False and c.measure == "hit@1"] == ["table", "text"]


def test_targets_md_names_the_command_of_each_limit_run() -> None:
    # the two limits are run in parallel, one process each: targets.md must not show only the last one's command
    by_limit = {
        256: {**_results(0.5, 0.5), "command": ["bench", "targets", "--limits", "256"]},
        512: {**_results(0.5, 0.5), "command": ["bench", "targets", "--limits", "512"]},
    }
    text = render_targets(by_limit, ["bench", "targets", "--limits", "512"])
    assert "`bench targets --limits 256`" in text and "`bench targets --limits 512`" in text
    one = render_targets({256: by_limit[256]}, ["ignored"])
    assert "Command: `bench targets --limits 256`" in one


@pytest.mark.skipif(not TATQA_DEV.is_file(), reason="../shared TAT-QA dev file not present")
def test_targets_command_writes_one_results_per_limit(tmp_path: Path) -> None:
    args = ["targets", "--tatqa", str(TATQA_DEV), "--limit-contexts", "2", "--retrieval", "bm25"]
    result = CliRunner().invoke(app, [*args, "--limits", "128,512", "-q", "-o", str(tmp_path)])
    assert result.exit_code == 0, result.output
    text = (tmp_path / "targets.md").read_text()
    assert "| 128 | bm25 |" in text and "| 512 | bm25 |" in text
    for limit in (128, 512):
        res = json.loads((tmp_path / f"limit-{limit}" / "results.json").read_text())
        assert res["config"]["max_tokens"] == limit
        assert {r["arm"] for r in res["runs"]} == set(TARGET_ARMS)
    # a second run into the same folder adds its limit; targets.md covers all three
    result = CliRunner().invoke(app, [*args, "--limits", "256", "-q", "-o", str(tmp_path)])
    assert result.exit_code == 0, result.output
    text = (tmp_path / "targets.md").read_text()
    assert all(f"| {n} | bm25 |" in text for n in (128, 256, 512))
    assert text.index("| 128 | bm25 |") < text.index("| 256 | bm25 |") < text.index("| 512 | bm25 |")


def test_targets_command_rejects_a_bad_limit(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["targets", "--tatqa", "x.json", "--limits", "0", "-o", str(tmp_path)])
    assert result.exit_code == 2
    assert "--limits" in result.output


def test_report_refuses_results_judged_the_old_way(tmp_path: Path) -> None:
    old = tmp_path / "results.json"
    old.write_text(
        json.dumps(
            {
                "schema": "docling-evidence-bench-results/1",
                "seed": 0,
                "config": {},
                "questions": [],
                "runs": [],
                "arms": {},
            }
        )
    )
    result = CliRunner().invoke(app, ["report", str(old), "-o", str(tmp_path / "out")])
    assert result.exit_code == 2
    assert "re-assembled unit" in result.output
    assert not (tmp_path / "out").exists()
