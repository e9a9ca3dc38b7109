"""The check of a packing budget, for every caller that takes one: the packer and the retrievers' ``budget=``."""

from __future__ import annotations

from typing import Any


def validate_budget(budget: Any, *, optional: bool = False) -> None:
    """Refuse a budget that is not an int number of tokens of at least 1 (a bool is not a number of tokens).

    ``optional``: ``None`` is accepted too (a retriever without a budget does not pack), and the message says so.

    Raises:
        ValueError: for any other budget.
    """
    if budget is None and optional:
        return
    is_int = isinstance(budget, int) and not isinstance(budget, bool)
    if is_int and budget >= 1:
        return
    if optional:
        raise ValueError(f"budget must be None or an int of at least 1 token, got {budget!r}")
    if not is_int:
        raise ValueError(f"budget must be an int number of tokens, got {budget!r}")
    raise ValueError(f"budget must be at least 1 token, got {budget}")
