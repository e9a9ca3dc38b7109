"""Setup of the bench's tests: offline Hugging Face hub, the ../shared data folder, the ``slow`` tier.

The shared folder is the library tests' (``tests/shared_paths.py``): ``DOCLING_EVIDENCE_SHARED`` names another one,
and naming a missing one skips every test that reads it.

The repository's ``python -m pytest`` collects these tests beside the library's (``testpaths``); run alone
(``python -m pytest bench/tests``) they get the same offline hub, hypothesis profile and ``slow`` marking here.
"""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis.errors import InvalidArgument
from shared_paths import SHARED  # the library tests' folder is on the path (pytest pythonpath)

HERE = Path(__file__).resolve().parent

SLOW_MODULES = frozenset(
    {
        "test_embed",  # loads the embedding models
    }
)
"""Modules whose tests are ``slow`` although they need no ../shared: each costs seconds to minutes."""
SHARED_FIXTURES = frozenset({"shared_dir", "fixture_paths"})
"""Fixtures that read ../shared: a test requesting one (directly or through another fixture) is ``slow``."""


def _hypothesis_profiles() -> None:
    """The library tests' ``ci`` and ``thorough`` profiles, when this folder runs without them (its conftest
    registers them first otherwise)."""
    try:
        settings.get_profile("ci")
    except InvalidArgument:
        health = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]
        settings.register_profile(
            "ci",
            max_examples=20,
            deadline=None,
            derandomize=True,
            database=None,
            suppress_health_check=health,
            print_blob=True,
            phases=[Phase.explicit, Phase.reuse, Phase.generate],
        )
        settings.register_profile(
            "thorough",
            max_examples=int(os.environ.get("HYPOTHESIS_MAX_EXAMPLES", "1000")),
            deadline=None,
            suppress_health_check=health,
            print_blob=True,
        )
        settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


_hypothesis_profiles()


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


def pytest_configure(config: pytest.Config) -> None:
    """Register the ``slow`` marker (also registered by the library tests' conftest)."""
    config.addinivalue_line("markers", "slow: reads ../shared or takes seconds; left out by -m 'not slow'")


def _under_shared(value: object) -> bool:
    return isinstance(value, Path) and (value == SHARED or SHARED in value.parents)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark this folder's slow tests: those that read ../shared (a fixture of :data:`SHARED_FIXTURES`, a module-level
    path into it, a parameter under it) and those of :data:`SLOW_MODULES`."""
    for item in items:
        if HERE not in item.path.parents:
            continue
        module = getattr(item, "module", None)
        params = getattr(getattr(item, "callspec", None), "params", {})
        if (
            SHARED_FIXTURES & set(getattr(item, "fixturenames", ()))
            or item.path.stem in SLOW_MODULES
            or (module is not None and any(_under_shared(v) for v in vars(module).values()))
            or any(_under_shared(value) for value in params.values())
        ):
            item.add_marker(pytest.mark.slow)
