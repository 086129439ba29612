"""The examples in the public docstrings run as written."""

from __future__ import annotations

import doctest
import importlib

import pytest


@pytest.mark.parametrize(
    "module",
    ["thinkeval", "thinkeval.scoring", "thinkeval.scoring.lenient", "thinkeval.stats"],
)
def test_docstring_examples(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module), verbose=False)
    assert result.attempted > 0
    assert result.failed == 0
