"""The citation benchmark's parts: perturbation, judging, summary, and a small TAT-QA run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cite.test_cite import report_doc  # the library tests folder is on the path (pytest pythonpath)
from docling_evidence_bench.citation import judge, main, perturb, summarize
from hypothesis import given, settings
from hypothesis import strategies as st

from docling_evidence.cite import check_answer, extract_claims


def test_perturb_changes_one_digit_of_the_first_number() -> None:
    p = perturb("Revenue was $1,496.5 in 2019")
    assert p is not None
    assert p.answer == "Revenue was $1,496.6 in 2019" and (p.original, p.changed, p.year) == (
        "$1,496.5",
        "$1,496.6",
        False,
    )
    year = perturb("2019\n2018")
    assert year is not None and year.answer == "2018\n2018" and year.year
    assert perturb("no numbers") is None


@settings(max_examples=100, deadline=None)
@given(st.decimals(min_value=-(10**6), max_value=10**6, places=2, allow_nan=False, allow_infinity=False))
def test_perturbed_number_has_another_value(value) -> None:
    answer = f"The total is {value:,}."
    p = perturb(answer)
    assert p is not None
    [before] = [c.number for c in extract_claims(answer) if c.kind == "number"]
    [after] = [c.number for c in extract_claims(p.answer) if c.kind == "number"]
    assert (before.value, before.negative) != (after.value, after.negative)


def test_judge_and_summarize() -> None:
    doc = report_doc()
    report = check_answer("1,496.5\nRevenue grew strongly in 2019 thanks to new customers", doc)
    row = judge(report, ["#/tables/0", "#/texts/5"])
    assert row["cited"] == ["#/tables/0", "#/texts/0"] and row["tp"] == 1 and row["gold"] == 2 and row["verified"]
    s = summarize(
        [
            row
            | {
                "qtype": "table",
                "perturbed": {"verified": False, "year": False, "to_original": False, "claim_supported": False},
            }
        ]
    )
    assert s["precision"] == 0.5 and s["recall"] == 0.5 and s["false_verification"] == 0.0


def test_small_tatqa_run(shared_dir: Path, tmp_path: Path) -> None:
    data = shared_dir / "data" / "tatqa" / "tatqa_dataset_dev.json"
    if not data.is_file():
        pytest.skip("TAT-QA dev is not in ../shared")
    out = tmp_path / "cite.json"
    assert main(["--tatqa", str(data), "--limit-contexts", "3", "--arms", "document,evidence", "-o", str(out)]) == 0
    results = json.loads(out.read_text())["results"]
    for arm in ("document", "evidence"):
        s = results[arm]["summary"]
        assert s["questions"] > 5 and 0 < s["recall"] <= 1 and s["false_to_original"] == 0
    # the whole document cites at least what its top-3 chunks cite
    assert results["document"]["summary"]["recall"] >= results["evidence"]["summary"]["recall"]
