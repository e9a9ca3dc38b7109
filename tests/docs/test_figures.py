"""The figures README and docs quote are the ones in docs/results: regenerating every marked region changes nothing."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path
from unittest.mock import patch

import pytest
from docling_evidence_bench.tools import docs_figures
from hypothesis import given
from hypothesis import strategies as st

from docs.blocks import REPO

FIX = "python -m docling_evidence_bench.tools.docs_figures"
EXPECTED_REGIONS = {
    "README.md": {
        "tatqa-headline",
        "tatqa-bm25",
        "single-vector-loss",
        "tatqa-cost",
        "views-cost",
        "fixture-speed",
        "dropin",
        "example-chunks",
    },
    "docs/integrations.md": {"integrations-gains", "match-first-ok"},
    "docs/cli.md": {"fixture-batch", "fixture-largest"},
    "docs/benchmark.md": {"benchmark-arms", "benchmark-deltas", "fixture-qa-arms", "fixture-qa-deltas"},
}


@pytest.fixture(scope="module")
def figures() -> object:
    return docs_figures.Figures()


@pytest.fixture(scope="module")
def rendered(figures: object) -> dict[str, tuple[str, str]]:
    return docs_figures.rendered_files(figures)


def _text(name: str) -> str:
    return (REPO / name).read_text(encoding="utf-8")


def _flat(text: str) -> str:
    """The text as a reader sees it: region markers dropped, white space as single blanks."""
    return " ".join(re.sub(r"<!-- /?results:[\w-]+ -->", "", text).split())


def test_docs_mark_the_figures_they_quote() -> None:
    for name, expected in EXPECTED_REGIONS.items():
        assert expected <= set(docs_figures.regions(_text(name))), f"{name} lost a marked figure"
    assert set().union(*EXPECTED_REGIONS.values()) == set(docs_figures.RENDERERS)


def test_regenerating_changes_nothing(rendered: dict[str, tuple[str, str]]) -> None:
    for name, (current, new) in rendered.items():
        if current == new:
            continue
        now, then = docs_figures.regions(current), docs_figures.regions(new)
        differ = [region for region in then if now.get(region) != then[region]] or ["(outside the regions)"]
        pytest.fail(f"{name}: {', '.join(differ)} differ from docs/results; run `{FIX}`")


def test_integrations_quote_the_readme_gains() -> None:
    """integrations.md states the hit@1 gains (dense, BM25, table-only single vector) that README states."""
    pattern = r"gains (\S+) hit@1 over .*? BM25 alone (\S+)\. .*? table-only questions \((\S+)\)"
    gains = re.search(pattern, _flat(_text("docs/integrations.md")))
    assert gains, "docs/integrations.md no longer states the gains"
    dense, bm25, single = gains.groups()
    readme = _flat(_text("README.md"))
    row = re.search(r"\| limit 256, all questions \|(?: [^|]+ \|){3} (\S+) \[", readme)
    assert row, "README's headline table has no 'limit 256, all questions' row"
    assert row.group(1) == dense
    assert f"the gain over HybridChunker is {bm25} [" in readme
    assert f"({single} at 256, CI [" in readme


def test_cli_chunk_counts_are_the_fixture_report(figures: object) -> None:
    totals = figures.fixtures["totals"]  # type: ignore[attr-defined]
    text = _flat(_text("docs/cli.md"))
    assert f"{totals['chunks_evidence']} chunks, {totals['chunks_table']} of them table pieces" in text
    assert "1393 chunks" not in text


def test_fixture_qa_rows_are_the_results(figures: object) -> None:
    """benchmark.md's 512 dense `evidence-single` row (cell-value and overall hit@1) is the one in docs/results."""
    qa = figures.fixture_qa  # type: ignore[attr-defined]
    hit = docs_figures.pct(qa.value(512, "evidence-single", "dense", "hit@1"))
    cell = docs_figures.pct(qa.value(512, "evidence-single", "dense", "hit@1", "cell_value"))
    row = f"| 512 | dense | `evidence-single` | {cell} | "
    assert row in _text("docs/benchmark.md")
    assert f" | {hit} | " in next(line for line in _text("docs/benchmark.md").splitlines() if line.startswith(row))


def test_readme_speed_is_the_measured_ratios(figures: object) -> None:
    ratios = {
        f"{figures.fixtures['totals']['time_ratio']:.2f}x",  # type: ignore[attr-defined]
        f"{figures.performance['fixtures']['ratio']:.2f}x",  # type: ignore[attr-defined]
    }
    speed = docs_figures.regions(_text("README.md"))["fixture-speed"]
    assert ratios <= set(speed.split(" to ")), speed


def test_dropin_counts_name_cases_and_functions(figures: object) -> None:
    """'25 of 49' counted cases while pytest's wrapper reports one skip per deselected function (22)."""
    sys.path.insert(0, str(REPO / "tests"))
    from dropin.core_suite import DESELECTED

    dropin = figures.dropin  # type: ignore[attr-defined]
    assert dropin["deselected_functions"] == len(DESELECTED)
    region = docs_figures.regions(_text("README.md"))["dropin"]
    assert region.startswith(f"{len(DESELECTED)} of the {dropin['functions']} test functions, ")
    assert f"{dropin['deselected_cases']} of their {dropin['cases']} cases" in region


def test_example_counts_are_current(figures: object) -> None:
    """The README's first command on the bundled example gives the counts docs/results/example.json holds."""
    assert docs_figures.measure_example() == figures.example, f"re-measure: `{FIX} --measure`"  # type: ignore[attr-defined]


def test_unknown_region_is_a_clear_error(figures: object) -> None:
    with pytest.raises(ValueError, match="unknown results region 'nope'"):
        docs_figures.fill("a <!-- results:nope -->1<!-- /results:nope --> b", figures)


def test_stale_copy_is_reported(tmp_path: Path, figures: object) -> None:
    for name in [*EXPECTED_REGIONS, docs_figures.FIXTURES_MD]:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / name, tmp_path / name)
    readme = tmp_path / "README.md"
    text = readme.read_text(encoding="utf-8")
    row = re.search(r"^\| limit 256, all questions \|.*$", text, flags=re.MULTILINE)
    assert row, "README's headline table has no 'limit 256, all questions' row"
    stale = row.group(0).replace("%", "0%", 1)  # one figure made wrong
    readme.write_text(text.replace(row.group(0), stale), encoding="utf-8")
    out = docs_figures.rendered_files(figures, repo=tmp_path)
    assert out["README.md"][0] != out["README.md"][1]
    assert row.group(0) in out["README.md"][1] and stale not in out["README.md"][1]
    assert all(current == new for name, (current, new) in out.items() if name != "README.md")


_plain = st.text(st.characters(blacklist_characters="<>"), max_size=60)


@given(before=_plain, body=_plain, after=_plain)
def test_fill_replaces_only_region_bodies_and_is_idempotent(before: str, body: str, after: str) -> None:
    with patch.dict(docs_figures.RENDERERS, {"probe": lambda _f: "[42]"}):
        text = f"{before}<!-- results:probe -->{body}<!-- /results:probe -->{after}"
        once = docs_figures.fill(text, None)
        assert once == f"{before}<!-- results:probe -->[42]<!-- /results:probe -->{after}"
        assert docs_figures.fill(once, None) == once
        assert docs_figures.fill(before + after, None) == before + after


def test_results_files_are_json() -> None:
    for name in ("example.json", "dropin.json"):
        assert isinstance(json.loads((docs_figures.RESULTS / name).read_text(encoding="utf-8")), dict)
