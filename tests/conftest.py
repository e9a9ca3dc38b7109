"""Shared test setup: offline Hugging Face hub, the ../shared data folder, document builders."""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from pathlib import Path

import pytest

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
