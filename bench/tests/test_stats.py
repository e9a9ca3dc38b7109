"""Paired bootstrap CI and exact McNemar on hand-computed cases."""

from __future__ import annotations

import numpy as np
import pytest
from docling_evidence_bench.stats import mcnemar_exact, paired_bootstrap_ci


def test_mcnemar_counts_and_exact_p() -> None:
    arm = [1, 1, 1, 0, 0, 1]
    base = [0, 0, 0, 1, 0, 1]
    m = mcnemar_exact(np.array(arm, dtype=bool), np.array(base, dtype=bool))
    assert (m.wins, m.losses, m.both, m.neither) == (3, 1, 1, 1)
    # two-sided binomial(4, 0.5): P(X >= 3) + P(X <= 1) = 5/16 + 5/16
    assert m.p_value == pytest.approx(10 / 16)


def test_mcnemar_extreme_and_no_discordant_pairs() -> None:
    m = mcnemar_exact([True] * 10, [False] * 10)
    assert (m.wins, m.losses) == (10, 0)
    assert m.p_value == pytest.approx(2 / 2**10)
    same = mcnemar_exact([True, False], [True, False])
    assert same.p_value == 1.0 and same.wins == same.losses == 0
    with pytest.raises(ValueError, match="length"):
        mcnemar_exact([True], [True, False])


def test_bootstrap_two_documents_hand_computed() -> None:
    # doc A: arm 2 hits, baseline 0 (2 questions); doc B: both miss (1 question).
    # Resamples: AA -> 4/4 = 1 (p=1/4), AB or BA -> 2/3 (p=1/2), BB -> 0 (p=1/4): the 95% interval is [0, 1].
    ci = paired_bootstrap_ci([1, 1, 0], [0, 0, 0], ["A", "A", "B"], seed=1)
    assert ci.diff == pytest.approx(2 / 3)
    assert ci.low == 0.0 and ci.high == 1.0
    assert ci.n_groups == 2 and ci.n_resamples == 10_000


def test_bootstrap_constant_and_zero_differences() -> None:
    groups = ["a", "b", "c", "c"]
    same = paired_bootstrap_ci([1, 0, 1, 0], [1, 0, 1, 0], groups)
    assert (same.diff, same.low, same.high) == (0.0, 0.0, 0.0)
    plus = paired_bootstrap_ci([1, 1, 1, 1], [0, 0, 0, 0], groups)
    assert (plus.diff, plus.low, plus.high) == (1.0, 1.0, 1.0)


def test_bootstrap_is_seeded_and_paired() -> None:
    rng = np.random.default_rng(7)
    groups = [f"d{i % 300}" for i in range(3000)]
    base = rng.random(3000) < 0.5
    arm = base | (rng.random(3000) < 0.1)  # arm never loses a question: paired CI must sit above 0
    a = paired_bootstrap_ci(arm, base, groups, seed=3)
    b = paired_bootstrap_ci(arm, base, groups, seed=3)
    assert a == b
    assert 0 < a.low <= a.diff <= a.high


def test_bootstrap_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="one length"):
        paired_bootstrap_ci([1, 0], [1], ["a", "b"])
    with pytest.raises(ValueError, match="no values"):
        paired_bootstrap_ci([], [], [])
    with pytest.raises(ValueError, match="finite"):
        paired_bootstrap_ci([np.nan], [0.0], ["a"])
    with pytest.raises(ValueError, match="confidence"):
        paired_bootstrap_ci([1], [0], ["a"], confidence=1.5)
