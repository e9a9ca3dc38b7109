"""Shared test setup: offline Hugging Face hub, the ../shared data folder, document builders."""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, settings

_HEALTH = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]
# ci (default) is reproducible: derandomized, so every run (CI's and a developer's) draws the same examples and a
# failure reruns as it failed; it does not shrink, since shrinking a 500-row table can take many minutes (the blob
# is printed). thorough explores: many more examples, a new seed each run, shrinking.
settings.register_profile(
    "ci",
    max_examples=20,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=_HEALTH,
    print_blob=True,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
)
settings.register_profile(
    "thorough",
    max_examples=int(os.environ.get("HYPOTHESIS_MAX_EXAMPLES", "1000")),
    deadline=None,
    suppress_health_check=_HEALTH,
    print_blob=True,
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
"""``../shared`` beside the repository: real fixtures and TAT-QA. Tests that need it skip when it is absent."""


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The ../shared folder, or skip the test."""
    if not SHARED.is_dir():
        pytest.skip("../shared is not present")
    return SHARED


@pytest.fixture(scope="session")
def fixture_paths(shared_dir: Path) -> list[Path]:
    """Every real DoclingDocument JSON under ../shared/fixtures."""
    paths = sorted((shared_dir / "fixtures").rglob("*.json"))
    if not paths:
        pytest.skip("no fixtures in ../shared/fixtures")
    return paths


SHARED_FIXTURES = frozenset({"shared_dir", "fixture_paths"})
"""Fixtures that read ../shared: a test requesting one (directly or through another fixture) is ``slow``."""

SLOW_MODULES = frozenset(
    {
        "test_docling_core_suite",  # runs docling-core's own chunker tests in a subprocess per case
        "test_hybrid_settings",  # every HybridChunker setting against HybridChunker, one at a time
        "test_signals",  # starts --jobs worker pools and waits for them to stop
        "test_ray",  # starts a local Ray cluster
        "test_docs_examples",  # runs the integrations' documented examples end to end
        "test_readme_examples",  # runs the README's blocks, once in a subprocess
        "test_split_properties",  # end-to-end properties over three tokenizers
        "test_import",  # fresh interpreters checking what importing the package pulls in
        "test_imports",  # the same for the integrations
        "test_embed",  # loads the embedding models
    }
)
"""Modules whose tests are ``slow`` although they need no ../shared: each costs seconds to minutes."""


def pytest_configure(config: pytest.Config) -> None:
    """Register the ``slow`` marker: ``pytest -m "not slow"`` is the fast unit tier (no ../shared, about a minute)."""
    config.addinivalue_line("markers", "slow: reads ../shared or takes seconds; left out by -m 'not slow'")


def _under_shared(value: object) -> bool:
    return isinstance(value, Path) and (value == SHARED or SHARED in value.parents)


def _module_reads_shared(module: object) -> bool:
    """Whether a test module keeps a path into ../shared (its fixtures folder, TAT-QA) at module level."""
    return any(_under_shared(value) for value in vars(module).values())


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the tests of the slow tier: those that read ../shared (a fixture of :data:`SHARED_FIXTURES`, a module
    path into it, a parameter under it) and those of :data:`SLOW_MODULES`."""
    shared_modules: dict[str, bool] = {}
    for item in items:
        module = getattr(item, "module", None)
        name = module.__name__ if module is not None else ""
        if module is not None and name not in shared_modules:
            shared_modules[name] = _module_reads_shared(module)
        params = getattr(getattr(item, "callspec", None), "params", {})
        if (
            SHARED_FIXTURES & set(getattr(item, "fixturenames", ()))
            or shared_modules.get(name, False)
            or name.rpartition(".")[2] in SLOW_MODULES
            or any(_under_shared(value) for value in params.values())
        ):
            item.add_marker(pytest.mark.slow)
