"""Pareto front over (quality up, cost down) on hand cases, ties included."""

from __future__ import annotations

import math

import pytest
from docling_evidence_bench.pareto import ParetoPoint, dominates, pareto_front


def _names(points: list[ParetoPoint]) -> list[str]:
    return [p.name for p in points]


def test_hand_case() -> None:
    pts = [
        ParetoPoint("a", quality=0.50, cost=100),
        ParetoPoint("b", quality=0.70, cost=200),
        ParetoPoint("c", quality=0.60, cost=250),  # dominated by b (worse and dearer)
        ParetoPoint("d", quality=0.90, cost=400),
        ParetoPoint("e", quality=0.40, cost=100),  # dominated by a (same cost, worse)
        ParetoPoint("f", quality=0.90, cost=500),  # dominated by d (same quality, dearer)
    ]
    assert _names(pareto_front(pts)) == ["a", "b", "d"]
    assert dominates(pts[1], pts[2])
    assert not dominates(pts[0], pts[1]) and not dominates(pts[1], pts[0])


def test_exact_ties_both_stay_and_order_is_deterministic() -> None:
    pts = [ParetoPoint("z", 0.8, 10), ParetoPoint("y", 0.8, 10), ParetoPoint("x", 0.5, 5)]
    assert _names(pareto_front(pts)) == ["x", "y", "z"]
    assert _names(pareto_front(list(reversed(pts)))) == ["x", "y", "z"]
    assert not dominates(pts[0], pts[1])


def test_nan_points_are_dropped_and_never_dominate() -> None:
    pts = [ParetoPoint("failed", math.nan, 1), ParetoPoint("ok", 0.1, 100), ParetoPoint("nocost", 1.0, math.nan)]
    assert _names(pareto_front(pts)) == ["ok"]


def test_single_and_empty() -> None:
    assert pareto_front([]) == []
    assert _names(pareto_front([ParetoPoint("only", 0.0, 0.0)])) == ["only"]


def test_rejects_other_types() -> None:
    with pytest.raises(TypeError):
        pareto_front([(0.5, 1.0)])  # type: ignore[list-item]
