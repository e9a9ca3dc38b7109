"""Hypothesis profiles for the splitting suite.

``ci`` (default): new random examples on every run, from a seed chosen per run (``SPLIT_HYPOTHESIS_SEED`` fixes it);
the seed is printed with every failure, so a failing run is reproduced with
``SPLIT_HYPOTHESIS_SEED=<seed> pytest tests/split``. ``thorough``: many more examples, and shrinking; run it with
``HYPOTHESIS_PROFILE=thorough HYPOTHESIS_MAX_EXAMPLES=1000 pytest tests/split`` (see docs/splitting.md).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, settings

os.environ.setdefault("HF_HUB_OFFLINE", "1")
# the test modules import their strategies and checkers from split_helpers.py beside this file
sys.path.insert(0, str(Path(__file__).resolve().parent))

from split_helpers import SEED

_HEALTH = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]
# ci does not shrink: a failure is reported at once (shrinking a 500-row table can take many minutes); reproduce it
# with the printed seed (or blob), or shrink it with the thorough profile
settings.register_profile(
    "ci",
    max_examples=20,
    deadline=None,
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
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")
settings.load_profile(PROFILE)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """Add the run's seed to the report of every failing property test of this folder."""
    outcome = yield
    report = outcome.get_result()
    if report.failed and getattr(getattr(item, "obj", None), "is_hypothesis_test", False):
        report.sections.append(("hypothesis seed", f"reproduce with SPLIT_HYPOTHESIS_SEED={SEED} (profile {PROFILE})"))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Name the run's seed and profile at the end of every run that collected this folder."""
    terminalreporter.write_line(f"split property suite: SPLIT_HYPOTHESIS_SEED={SEED}, profile {PROFILE}")
