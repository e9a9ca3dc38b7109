"""docling-core 2.104.0's own HybridChunker and chunk-expander tests, run against EvidenceChunker.

How: ``core_suite.run_suite`` copies ``../shared/docling-core-tests`` to a temporary folder, swaps the one
``HybridChunker`` import line for ``EvidenceChunker``, runs pytest on the copy offline in a subprocess, and each test
below asserts the outcome of one docling-core test function (all its parametrized cases). Tests in
``core_suite.DESELECTED`` are not run, each for the one-line reason given there. Skipped when ../shared is absent.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from dropin.core_suite import DESELECTED, SUITE, TEST_MODULES, run_suite

KNOWN_FAILING: dict[str, str] = {
    "test_table_caption_not_repeated_in_split_chunks": "deliberate: docs/dropin.md, The deliberate differences",
}
"""docling-core test function -> why EvidenceChunker does not pass it yet (xfail, strict: a pass fails the run)."""


def _test_functions() -> list[str]:
    """``module::[Class::]function`` for every test function of the copied modules (empty when ../shared is absent)."""
    found = []
    for module in TEST_MODULES:
        path = SUITE / module
        if not path.is_file():
            return []
        tree = ast.parse(path.read_text())
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                found.append(f"{module}::{node.name}")
            elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
                found += [
                    f"{module}::{node.name}::{f.name}"
                    for f in node.body
                    if isinstance(f, ast.FunctionDef) and f.name.startswith("test_")
                ]
    return found


def _params() -> list[object]:
    params = []
    for test_id in _test_functions():
        name, key = test_id.rsplit("::", 1)[1], test_id.split("::", 1)[1]
        marks = []
        if name in DESELECTED:
            marks.append(pytest.mark.skip(reason=f"deselected: {DESELECTED[name]}"))
        elif key in KNOWN_FAILING:
            marks.append(pytest.mark.xfail(reason=KNOWN_FAILING[key], strict=True))
        params.append(pytest.param(test_id, id=test_id.split("/", 1)[1], marks=marks))
    return params or [pytest.param(None, id="absent", marks=pytest.mark.skip(reason=f"{SUITE} is not present"))]


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Every run test's node id -> outcome, from one run of the copied suite with EvidenceChunker."""
    return run_suite(tmp_path_factory.mktemp("docling_core_suite"), "evidence")


@pytest.mark.parametrize("test_id", _params())
def test_docling_core_chunker_test_passes_with_evidence_chunker(test_id: str, outcomes: dict[str, str]) -> None:
    cases = {node: outcome for node, outcome in outcomes.items() if node.split("[", 1)[0] == test_id}
    assert cases, f"{test_id} did not run (collection error in the copied suite?)"
    failed = {node: outcome for node, outcome in sorted(cases.items()) if outcome != "passed"}
    assert not failed, f"failed with EvidenceChunker: {failed}"


def test_every_deselected_test_exists() -> None:
    """The deselect list names only real docling-core tests (a renamed test must not stay silently deselected)."""
    names = {t.rsplit("::", 1)[1] for t in _test_functions()}
    if not names:
        pytest.skip(f"{SUITE} is not present")
    assert set(DESELECTED) <= names
    assert set(KNOWN_FAILING) <= {t.split("::", 1)[1] for t in _test_functions()} - set(DESELECTED)


def test_harness_swaps_the_import(tmp_path: Path) -> None:
    """The harness really runs EvidenceChunker: the swapped import line is in the copy."""
    from dropin.core_suite import CHUNKERS, HYBRID_IMPORT

    if not (SUITE / TEST_MODULES[0]).is_file():
        pytest.skip(f"{SUITE} is not present")
    assert HYBRID_IMPORT in (SUITE / TEST_MODULES[0]).read_text()
    assert "EvidenceChunker as HybridChunker" in CHUNKERS["evidence"]
