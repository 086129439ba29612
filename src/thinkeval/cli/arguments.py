"""Argument types shared by several commands."""

from __future__ import annotations

import argparse

from thinkeval.errors import ConfigError
from thinkeval.settings import parse_budgets


def budgets_type(text: str) -> tuple[int, int]:
    """`parse_budgets` as an argparse type: the same checks and message, shown by argparse.

    >>> budgets_type("2048,8192")
    (2048, 8192)
    """
    try:
        return parse_budgets(text)
    except ConfigError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
