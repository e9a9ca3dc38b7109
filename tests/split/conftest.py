"""Seed reporting for the splitting suite (the hypothesis profiles live in ``tests/conftest.py``).

The default profile is reproducible: the split properties use ``@seed(SEED)`` with SEED 0, the others derandomize.
``thorough``: many more examples, shrinking, and a new seed (``tests/conftest.py`` prints it at the end of the run);
reproduce a failure with ``SPLIT_HYPOTHESIS_SEED=<seed> HYPOTHESIS_PROFILE=thorough pytest tests/split`` (see
docs/splitting.md).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
# the test modules import their strategies and checkers from split_helpers.py beside this file
sys.path.insert(0, str(Path(__file__).resolve().parent))

from split_helpers import SEED

PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """Add the run's seed to the report of every failing property test of this folder."""
    outcome = yield
    report = outcome.get_result()
    if report.failed and getattr(getattr(item, "obj", None), "is_hypothesis_test", False):
        report.sections.append(("hypothesis seed", f"reproduce with SPLIT_HYPOTHESIS_SEED={SEED} (profile {PROFILE})"))
