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
