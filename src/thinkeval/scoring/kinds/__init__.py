"""Answer kinds: the unit of strict scoring, shared by every task with that kind of answer.

A kind finds the final answer of a *finished* reply (the protocol has already set empty and cut-off
replies apart) and compares it with the gold. Tasks name a kind in their spec; nothing here knows
a task.

>>> kind = make_kind("number")
>>> kind.find("So she pays 5*3=15 dollars.\\nThe answer is 15.")
Found(answer='15', rule='the answer is', readable=True)
>>> kind.matches("15", "15.00")
True
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from thinkeval.scoring.kinds.base import AnswerKind, Found, KindError

__all__ = ["KINDS", "AnswerKind", "Found", "KindError", "make_kind"]


def _built_in(module: str, class_name: str) -> Callable[..., AnswerKind]:
    """The constructor of a built-in kind, importing its module on first use: a run loads only
    the kinds its tasks use (their patterns are compiled when the module is imported)."""

    def build(**options: Any) -> AnswerKind:
        factory = getattr(importlib.import_module(f"{__name__}.{module}"), class_name)
        kind: AnswerKind = factory(**options)
        return kind

    build.__qualname__ = build.__name__ = class_name
    return build


# name -> constructor taking the kind's options as keywords (`choice` takes `letters`, `regex`
# takes `pattern`). A task file names a kind and its options; specs build kinds directly.
KINDS: dict[str, Callable[..., AnswerKind]] = {
    "number": _built_in("number", "NumberKind"),
    "choice": _built_in("choice", "ChoiceKind"),
    "boolean": _built_in("boolean", "BooleanKind"),
    "math": _built_in("math", "MathKind"),
    "exact": _built_in("exact", "ExactKind"),
    "regex": _built_in("regex", "RegexKind"),
    "code": _built_in("code", "CodeKind"),
    "instructions": _built_in("instructions", "InstructionsKind"),
    "tool_calls": _built_in("tool_calls", "ToolCallsKind"),
}


def register_kind(name: str, factory: Callable[..., AnswerKind]) -> None:
    """Make a kind available by name (to task files); a second registration replaces the first."""
    KINDS[name] = factory


def make_kind(name: str, **options: Any) -> AnswerKind:
    """The kind called `name`, built with `options`; `KindError` names what is wrong.

    >>> make_kind("choice", letters="ABCDE").letters
    'ABCDE'
    >>> make_kind("fuzzy")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    thinkeval.scoring.kinds.base.KindError: unknown answer kind 'fuzzy'; known kinds: number, ...
    """
    factory = KINDS.get(name)
    if factory is None:
        raise KindError(f"unknown answer kind {name!r}; known kinds: {', '.join(KINDS)}")
    try:
        kind = factory(**options)
    except TypeError as exc:
        raise KindError(f"answer kind {name!r}: {exc}") from None
    if not isinstance(kind, AnswerKind):
        raise KindError(f"answer kind {name!r}: {kind!r} is no AnswerKind; subclass it")
    return kind
