"""The per-reply measures of the read model: one typed column each, in one ordered registry.

A measure is a number read off each reply that counts (its tokens, its budget, its latency):
the read model (`results.columns`) keeps one column of it per model, task and phase, filled in
the summary's counting pass, and every reader (report sections, compare, the viewer, export)
reads that column. A new measure is one entry in `MEASURES` and its test; nothing else reads
the journal for it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from thinkeval.records import Attempt

__all__ = ["MEASURES", "NONE", "Measure", "measure"]

NONE = -1  # an integer column's "not reported"


@dataclass(frozen=True)
class Measure:
    """One number per counted reply: its column's name, numpy type, the value a unit without a
    reply (or a reply that does not report it) holds, and how to read it off an attempt
    (None: not reported, stored as `missing`)."""

    name: str
    dtype: Literal["int32", "float64"]
    missing: float
    of: Callable[[Attempt], float | None]


def _clamped(attempt: Attempt) -> int:
    """The max_tokens sent when the server's window cut the budget, else 0."""
    return attempt.max_tokens if attempt.clamped_from is not None else 0


MEASURES: tuple[Measure, ...] = (
    Measure("completion", "int32", NONE, lambda a: a.usage.completion_tokens),
    Measure("reasoning", "int32", NONE, lambda a: a.usage.reasoning_tokens),
    Measure("budget", "int32", 0, lambda a: a.budget),
    Measure("clamped", "int32", 0, _clamped),
    Measure("latency", "float64", float("nan"), lambda a: a.latency_s),
    Measure("ttft", "float64", float("nan"), lambda a: a.ttft_s),
)
_BY_NAME = {each.name: each for each in MEASURES}


def measure(name: str) -> Measure:
    """The registered measure called `name`; KeyError names the registered ones."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"no measure {name!r}; registered: {', '.join(_BY_NAME)}") from None
