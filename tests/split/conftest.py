"""Hypothesis profiles for the splitting suite.

``ci`` (default): derandomized and bounded, so the suite is reproducible and fast. ``thorough``: many more random
examples; run it with ``HYPOTHESIS_PROFILE=thorough pytest tests/split``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from hypothesis import HealthCheck, Phase, settings

os.environ.setdefault("HF_HUB_OFFLINE", "1")
# the test modules import their strategies and checkers from split_helpers.py beside this file
sys.path.insert(0, str(Path(__file__).resolve().parent))

_HEALTH = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]
# ci does not shrink: a failure is reported at once (shrinking a 500-row table can take many minutes); reproduce it
# with the printed blob, or shrink it with the thorough profile
settings.register_profile(
    "ci",
    max_examples=20,
    deadline=None,
    derandomize=True,
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
