"""BFCL's own AST checker (the `bfcl-eval` package), imported without its heavy dependencies.

`bfcl_eval.eval_checker.ast_eval.ast_checker` imports `bfcl_eval.constants.model_config` for one
flag, whether a model's function names had their dots sent as underscores (OpenAI's tool names
allow no dots); that module imports every vendor's SDK (openai, anthropic, mistralai, ...). So
the checker module is imported with a stand-in for it that answers that flag for the one model
name thinkeval passes (the OpenAI FC handler's, whose names it sends as thinkeval does), and the
stand-in is taken out of `sys.modules` again: a process that uses the whole of bfcl-eval imports
the real one. The checking itself is BFCL's, line for line.
"""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from thinkeval.scoring.kinds.base import KindError

VERSION = "2026.3.23"  # the bfcl-eval release the tasks and the checker are pinned to
INSTALL = f"pip install --no-deps bfcl-eval=={VERSION}"
# A model BFCL lists as an OpenAI FC model with underscore_to_dot: names compare as thinkeval
# sends them (`math.factorial` asked as `math_factorial`).
CHECKER_MODEL = "gpt-4o-2024-11-20-FC"
_MODEL_CONFIG = "bfcl_eval.constants.model_config"


@dataclass(frozen=True)
class _Config:
    underscore_to_dot: bool = True


@cache
def bfcl_module(name: str) -> types.ModuleType:
    """`bfcl_eval.<name>`, imported with the model config stood in for; `KindError` says how to
    install bfcl-eval when it is missing or another release."""
    try:
        from importlib.metadata import PackageNotFoundError, version

        found = version("bfcl-eval")
    except PackageNotFoundError:
        raise KindError(f"BFCL's data and checker need bfcl-eval {VERSION}: {INSTALL}") from None
    if found != VERSION:
        raise KindError(f"bfcl-eval {found} is installed; thinkeval pins {VERSION}: {INSTALL}")
    stood_in = _MODEL_CONFIG not in sys.modules
    if stood_in:
        stand_in = types.ModuleType(_MODEL_CONFIG)
        stand_in.MODEL_CONFIG_MAPPING = {CHECKER_MODEL.replace("_", "/"): _Config()}  # type: ignore[attr-defined]
        sys.modules[_MODEL_CONFIG] = stand_in
    try:
        return importlib.import_module(f"bfcl_eval.{name}")
    finally:
        if stood_in:
            sys.modules.pop(_MODEL_CONFIG, None)
            constants = sys.modules.get("bfcl_eval.constants")
            if constants is not None and hasattr(constants, "model_config"):
                delattr(constants, "model_config")


@dataclass(frozen=True)
class Checked:
    """BFCL's verdict on some calls: `valid`, and its error type when not (for the audit)."""

    valid: bool
    error_type: str | None


def check_calls(
    category: str,
    functions: Sequence[dict[str, Any]],
    calls: list[dict[str, dict[str, Any]]],
    answer: Sequence[dict[str, Any]],
) -> Checked:
    """BFCL's `ast_checker` on decoded calls `[{name: {arg: value}}]` of a category with an
    answer key (not the (ir)relevance ones, which are decided by whether a call was made)."""
    checker: Callable[..., dict[str, Any]] = bfcl_module(
        "eval_checker.ast_eval.ast_checker"
    ).ast_checker
    enums = bfcl_module("constants.enums")
    language = (
        enums.Language.JAVA
        if category.endswith("java")
        else enums.Language.JAVASCRIPT
        if category.endswith("javascript")
        else enums.Language.PYTHON
    )
    result = checker(list(functions), calls, list(answer), language, category, CHECKER_MODEL)
    valid = bool(result.get("valid"))
    return Checked(valid, None if valid else str(result.get("error_type") or "invalid"))
