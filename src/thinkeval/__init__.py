r"""thinkeval: strict fixed-then-adaptive evaluation of thinking models.

The public Python API:

>>> import thinkeval
>>> thinkeval.score("gsm8k", "So she has 18 eggs.\nThe answer is 18", "stop", gold="18").status
'correct'
>>> thinkeval.score("gsm8k", "Let me compute 16 - 3", "length", gold="18").status
'unfinished'
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from thinkeval.errors import ArgumentError, ThinkevalError
from thinkeval.version import __version__

if TYPE_CHECKING:
    from thinkeval.api import evaluate, evaluate_async, score
    from thinkeval.records import Attempt, Sample, Verdict
    from thinkeval.results.loaded import RunResults, SampleOutcome, load_run

__all__ = [
    "ArgumentError",
    "Attempt",
    "RunResults",
    "Sample",
    "SampleOutcome",
    "ThinkevalError",
    "Verdict",
    "__version__",
    "evaluate",
    "evaluate_async",
    "load_run",
    "score",
]

# Imported on first use: every command imports this package, and its start-up stays short.
_LAZY = {
    "Attempt": "thinkeval.records",
    "Sample": "thinkeval.records",
    "Verdict": "thinkeval.records",
    "score": "thinkeval.api",
    "evaluate": "thinkeval.api",
    "evaluate_async": "thinkeval.api",
    "RunResults": "thinkeval.results.loaded",
    "SampleOutcome": "thinkeval.results.loaded",
    "load_run": "thinkeval.results.loaded",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'thinkeval' has no attribute {name!r}")
