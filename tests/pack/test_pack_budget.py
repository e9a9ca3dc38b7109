"""The one check of a packing budget: the packer's, and the retrievers' ``budget=`` with None allowed."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from docling_evidence.integrations import packing
from docling_evidence.pack.budget import validate_budget


@given(st.integers(min_value=-5, max_value=10_000))
def test_an_int_budget_is_accepted_exactly_when_it_is_at_least_one_token(budget: int) -> None:
    for optional in (False, True):
        if budget >= 1:
            validate_budget(budget, optional=optional)
        else:
            with pytest.raises(ValueError, match="at least 1 token"):
                validate_budget(budget, optional=optional)


@pytest.mark.parametrize("budget", [True, False, 2.0, "512", None])
def test_a_budget_that_is_no_int_is_refused_saying_so(budget: Any) -> None:
    with pytest.raises(ValueError, match="budget must be an int number of tokens"):
        validate_budget(budget)


@pytest.mark.parametrize("budget", [True, 2.0, "512", 0])
def test_an_optional_budget_allows_none_and_says_so_when_refusing(budget: Any) -> None:
    validate_budget(None, optional=True)
    with pytest.raises(ValueError, match="budget must be None or an int of at least 1 token"):
        validate_budget(budget, optional=True)


def test_the_retrievers_budget_is_the_optional_check() -> None:
    packing.validate_budget(None)
    packing.validate_budget(3)
    with pytest.raises(ValueError, match="budget must be None or an int"):
        packing.validate_budget(0)


def test_the_packer_refuses_a_bad_budget_before_reading_anything() -> None:
    from docling_evidence.pack.packer import pack

    with pytest.raises(ValueError, match="at least 1 token"):
        pack("q", [], 0, count=len)
