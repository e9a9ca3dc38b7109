"""``docling_evidence_bench.tools.per_question``: the per-question diagnosis counts what it says (BM25, a few TAT-QA
contexts)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from docling_evidence_bench.tools import per_question as pq
from shared_paths import SHARED

TATQA_DEV = SHARED / "data" / "tatqa" / "tatqa_dataset_dev.json"


def test_variants_parse_as_python_literals() -> None:
    assert pq.parse_variant("tri=table_format='triplets';with_context=False") == (
        "tri",
        {"table_format": "triplets", "with_context": False},
    )
    assert pq.parse_variant("plain=") == ("plain", {})
    for bad in ("noequals", "x=with_context", "x=table_format=triplets"):
        with pytest.raises((ValueError, SyntaxError)):
            pq.parse_variant(bad)


@pytest.mark.skipif(not TATQA_DEV.is_file(), reason="../shared TAT-QA dev file not present")
def test_losses_and_wins_add_up_to_the_per_question_outcomes(tmp_path: Path) -> None:
    out = tmp_path / "pq.json"
    args = ["--tatqa", str(TATQA_DEV), "--contexts", "12", "--method", "bm25", "--variant", "nc=with_context=False"]
    assert pq.main([*args, "-o", str(out)]) == 0
    report = json.loads(out.read_text())
    per_q = report["per_question"]
    assert set(per_q) == {"hybrid", "evidence", "nc"}
    for name in ("evidence", "nc"):
        pairs = [(h, e) for h, e in zip(per_q["hybrid"], per_q[name], strict=True) if h["type"] == "table"]
        losses = sum(h["hit1"] and not e["hit1"] for h, e in pairs)
        assert sum(report["losses"][name]["table_losses"].values()) == losses
        assert report["losses"][name]["table_wins"] == sum(e["hit1"] and not h["hit1"] for h, e in pairs)
        for qtype, value in report["hit1"][name].items():
            rows = [x for x in per_q[name] if x["type"] == qtype]
            assert value == round(100 * sum(x["hit1"] for x in rows) / len(rows), 1)
    assert "mean_cosine" not in report["losses"]["evidence"]  # BM25: no embeddings
