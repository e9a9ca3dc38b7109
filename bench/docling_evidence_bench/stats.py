"""Paired statistics of an arm against the baseline on the same questions.

- :func:`paired_bootstrap_ci`: the difference of means (arm - baseline) with a percentile CI from a cluster bootstrap
  that resamples whole documents, because questions about one document are not independent. Both arms are resampled
  with the same documents (paired), which is what an unpaired CI gets wrong.
- :func:`mcnemar_exact`: the exact (binomial) McNemar test on per-question binary outcomes, with the win/loss counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

N_RESAMPLES: int = 10_000
"""Bootstrap resamples: the percentile CI's Monte Carlo error is then well under a tenth of a point."""

_BLOCK: int = 1_000


@dataclass(frozen=True)
class BootstrapCI:
    """A paired difference of means and its bootstrap confidence interval."""

    diff: float
    low: float
    high: float
    n_groups: int
    n_resamples: int
    confidence: float

    def to_dict(self) -> dict[str, float | int]:
        """Plain-JSON form."""
        return asdict(self)


@dataclass(frozen=True)
class McNemar:
    """Exact McNemar test: ``wins`` = arm right & baseline wrong, ``losses`` = the reverse."""

    wins: int
    losses: int
    both: int
    neither: int
    p_value: float

    def to_dict(self) -> dict[str, float | int]:
        """Plain-JSON form."""
        return asdict(self)


def paired_bootstrap_ci(
    arm: Sequence[float] | np.ndarray,
    baseline: Sequence[float] | np.ndarray,
    groups: Sequence[str],
    *,
    n_resamples: int = N_RESAMPLES,
    seed: int = 0,
    confidence: float = 0.95,
) -> BootstrapCI:
    """Percentile CI of ``mean(arm) - mean(baseline)`` resampling ``groups`` (documents) with replacement.

    Each resample draws as many groups as there are, sums both arms' values and the question counts over the drawn
    groups, and takes the difference of the two ratios (a question-weighted mean, like the point estimate).

    Raises:
        ValueError: on length mismatches, no values, non-finite values, or a bad ``confidence``/``n_resamples``.
    """
    a = np.asarray(arm, dtype=np.float64)
    b = np.asarray(baseline, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1 or len(groups) != a.shape[0]:
        raise ValueError(f"arm ({a.shape}), baseline ({b.shape}) and groups ({len(groups)}) must have one length")
    if a.shape[0] == 0:
        raise ValueError("no values to bootstrap")
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise ValueError("values must be finite")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be positive, got {n_resamples}")
    _, group_idx = np.unique(np.asarray(groups, dtype=object).astype(str), return_inverse=True)
    n_groups = int(group_idx.max()) + 1
    diff_sum = np.bincount(group_idx, weights=a - b, minlength=n_groups)
    count = np.bincount(group_idx, minlength=n_groups).astype(np.float64)
    rng = np.random.default_rng(seed)
    stats = np.empty(n_resamples, dtype=np.float64)
    for start in range(0, n_resamples, _BLOCK):
        stop = min(start + _BLOCK, n_resamples)
        draw = rng.integers(0, n_groups, size=(stop - start, n_groups))
        stats[start:stop] = diff_sum[draw].sum(axis=1) / count[draw].sum(axis=1)
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(stats, [tail, 100 - tail])
    return BootstrapCI(float(a.mean() - b.mean()), float(low), float(high), n_groups, n_resamples, confidence)


def mcnemar_exact(arm: Sequence[bool] | np.ndarray, baseline: Sequence[bool] | np.ndarray) -> McNemar:
    """Exact two-sided McNemar test of paired binary outcomes (p = 1 when there is no discordant pair).

    Raises:
        ValueError: when the two sequences differ in length.
    """
    from scipy.stats import binomtest

    a = np.asarray(arm, dtype=bool)
    b = np.asarray(baseline, dtype=bool)
    if a.shape != b.shape:
        raise ValueError(f"arm ({a.shape}) and baseline ({b.shape}) differ in length")
    wins = int(np.sum(a & ~b))
    losses = int(np.sum(~a & b))
    n = wins + losses
    p = float(binomtest(wins, n, 0.5, alternative="two-sided").pvalue) if n else 1.0
    return McNemar(wins, losses, int(np.sum(a & b)), int(np.sum(~a & ~b)), p)


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolation percentile (numpy's default) of ``values``; NaN for no values."""
    if len(values) == 0:
        return float("nan")
    return float(np.percentile(np.asarray(values, dtype=np.float64), q))
