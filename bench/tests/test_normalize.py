"""Answer matching: hand-made cases for each normalisation rule and each boundary trap."""

from __future__ import annotations

import pytest
from docling_evidence_bench.normalize import answer_variants, contains_all, contains_answer, normalize_text


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("  Total\n\tSales  ", "total sales"),
        ("1,234.5", "1234.5"),
        ("1,234,567", "1234567"),
        ("2018,2019", "2018,2019"),  # a list, not a thousands separator
        ("$ 12", "12"),
        ("$12", "12"),
        ("12 %", "12%"),
        ("( 12 )", "(12)"),
        ("\u221212", "-12"),  # unicode minus
        ("R&amp;D", "r&d"),
        ("Deloitte &amp;amp; Touche", "deloitte & touche"),
        ("snake\\_case", "snake_case"),
        ("ﬁnancing", "financing"),
        ("contract\u2019s", "contract's"),
        ("Q4\xa02019", "q4 2019"),
    ],
)
def test_normalize_text(raw: str, expected: str) -> None:
    assert normalize_text(raw) == expected


@pytest.mark.parametrize(
    ("chunk", "answer", "expected"),
    [
        ("Other 144.1 56.7", "44.1", False),
        ("Other 44.15", "44.1", False),
        ("Other 44.1.2", "44.1", False),
        ("Other 1.44.1", "44.1", False),
        ("Other 44.1, 56.7", "44.1", True),
        ("Other 44.1.", "44.1", True),
        ("total 1,234.5", "1234.5", True),
        ("total 1234.5", "1,234.5", True),
        ("total 11,234.5", "1,234.5", False),
        ("price $ 12", "$12", True),
        ("price $12", "$ 12", True),
        ("price 112", "$12", False),
        ("growth 12 %", "12%", True),
        ("growth (%) 12", "12%", True),  # "%" in the column header only
        ("growth 12.5%", "12%", False),
        ("net loss (12)", "-12", True),
        ("net loss -12", "(12)", True),
        ("net loss (123)", "-12", False),
        ("net loss \u221212", "-12", True),
        ("Fixed Price | $ | 1,452.4", "$1,452.4", True),
        ("total costs", "cost", False),
        ("the cost-plus type", "cost-plus type", True),
        ("R&amp;D grants", "R&D grants", True),
        ("fy2019", "2019", False),
    ],
)
def test_contains_answer(chunk: str, answer: str, expected: bool) -> None:
    assert contains_answer(chunk, answer) is expected


def test_empty_answer_matches_nothing() -> None:
    assert not contains_answer("anything", "   ")
    assert not contains_answer("anything", "$")


def test_answer_variants() -> None:
    assert answer_variants("-12") == ("-12", "(12)")
    assert answer_variants("(1,234)") == ("(1234)", "-1234")
    assert answer_variants("12.5%") == ("12.5",)
    assert answer_variants("Total") == ("total",)


def test_contains_all() -> None:
    assert contains_all("2019 sales 1,496.5", ("2019", "1496.5"))
    assert not contains_all("2019 sales 1,496.5", ("2019", "1202.9"))
    assert not contains_all("anything", ())


def test_normalize_rejects_non_str() -> None:
    with pytest.raises(TypeError):
        normalize_text(12)  # type: ignore[arg-type]
