"""Pareto front over (quality: higher is better, cost: lower is better).

A point ``a`` *dominates* ``b`` when ``a.quality >= b.quality`` and ``a.cost <= b.cost`` with at least one of the
two strict. The front is every point that no other point dominates. Ties:

- Two points with equal quality and equal cost do not dominate each other, so both stay on the front (the report
  names both; neither is hidden by input order).
- Equal quality, different cost: only the cheaper one stays. Equal cost, different quality: only the better one.
- A point whose quality or cost is NaN (a failed arm) is never on the front and never dominates.

The front is returned sorted by cost, then by quality descending, then by name, so it is deterministic.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class ParetoPoint:
    """One arm seen on two axes."""

    name: str
    quality: float
    cost: float


def _valid(p: ParetoPoint) -> bool:
    return not (math.isnan(p.quality) or math.isnan(p.cost))


def dominates(a: ParetoPoint, b: ParetoPoint) -> bool:
    """True when ``a`` is at least as good on both axes and strictly better on one (NaN never dominates)."""
    if not (_valid(a) and _valid(b)):
        return False
    return a.quality >= b.quality and a.cost <= b.cost and (a.quality > b.quality or a.cost < b.cost)


def pareto_front(points: Iterable[ParetoPoint]) -> list[ParetoPoint]:
    """The non-dominated points, sorted by cost, then quality descending, then name.

    Raises:
        TypeError: if an element is not a :class:`ParetoPoint`.
    """
    pts = list(points)
    for p in pts:
        if not isinstance(p, ParetoPoint):
            raise TypeError(f"pareto_front expects ParetoPoint items, got {type(p).__name__}")
    valid = [p for p in pts if _valid(p)]
    front = [p for p in valid if not any(dominates(q, p) for q in valid)]
    return sorted(front, key=lambda p: (p.cost, -p.quality, p.name))
