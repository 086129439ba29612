"""Argument types shared by several commands."""

from __future__ import annotations

import argparse


def parse_budgets(text: str) -> tuple[int, int]:
    """`"2048,8192"` → `(2048, 8192)`: the fixed budget, then the larger retry budget.

    >>> parse_budgets("2048,8192")
    (2048, 8192)
    """
    try:
        fixed, retry = (int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"budgets must look like B1,B2 (e.g. 2048,8192), got {text!r}"
        ) from None
    if fixed <= 0 or retry <= fixed:
        raise argparse.ArgumentTypeError(
            f"budgets {text!r}: B1 must be positive and B2 larger than B1"
        )
    return fixed, retry
