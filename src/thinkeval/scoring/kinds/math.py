"""A mathematical answer in LaTeX (`\\frac{14}{3}`, `(3, \\frac{\\pi}{2})`, `90^\\circ`), judged
by Math-Verify, the parser and equivalence checker of lighteval and lm-eval's minerva_math.

Finding the answer is plain string work (`scoring.math_statements`): a JSON answer field, the
last `\\boxed{}`, an explicit final-answer statement, the closing sentence. Reading and comparing
it is Math-Verify's: `0.5` equals `\\frac12`, `025` equals `25`, `x=3` equals `3`, `\\text{(B)}`
equals `B`; an ordinal suffix is dropped first (`12^{\\text{th}}` is 12). An answer Math-Verify
cannot read at all is `no_answer` (rule `<rule>: not an expression`), never a wrong answer.
Symbolic algebra can take long or hang, so the kind is `pooled`: a run scores it in worker
processes (`scoring.pool`), never on the event loop. Math-Verify is imported on first use, so
a run without maths never loads sympy.
"""

from __future__ import annotations

import re
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

from thinkeval.records import Verdict
from thinkeval.scoring.kinds.base import AnswerKind, Found
from thinkeval.scoring.math_statements import final_answer

_INTEGER = re.compile(r"[-+]?\d+")
# An ordinal suffix after a number: 12^{\text{th}}, 3^{rd}, 1\text{st}, 2nd.
_ORDINAL = re.compile(
    r"(?<=\d)\s*(?:\^\s*\{?\s*(?:\\(?:text|textrm|mathrm)\s*\{\s*)?(?:st|nd|rd|th)\s*\}?\s*\}?"
    r"|\\(?:text|textrm|mathrm)\s*\{\s*(?:st|nd|rd|th)\s*\}|(?:st|nd|rd|th)\b)"
)
# CPU seconds one `matches` may take; past that it raises TimeoutError, which the strict scorer
# turns into `no_answer`. Math-Verify's own per-step limits (whole seconds, wall clock) are set
# above it, so that ours decides; the scoring pool's hard limit covers what no signal can stop.
MATCH_TIME_LIMIT_S = 5.0
_INNER_TIMEOUT_S = 30


class _Expired(BaseException):
    """Raised by the timer inside Math-Verify; a BaseException so its `except Exception`
    clauses let it through."""


@dataclass(frozen=True)
class MathKind(AnswerKind):
    """The final answer (last `\\boxed{}` or explicit statement), equal to the gold when
    Math-Verify says the two are equivalent."""

    name: str = "math"
    version: str = "2"
    pooled: bool = True

    def find(self, text: str) -> Found | None:
        found = final_answer(text)
        return Found(*found) if found else None

    def matches(self, answer: str, gold: str) -> bool:
        """Whether `answer` is equivalent to `gold`; TimeoutError when the check runs past
        `MATCH_TIME_LIMIT_S` in a main thread (elsewhere nothing can stop it: use the pool).

        The same text and two plain integers (AIME's `025` and `25`) are decided without
        Math-Verify, which would say the same; everything else is Math-Verify's call.
        """
        return self.judged(answer, gold) is True

    def explain(self, found: Found, gold: str) -> Verdict:
        """The strict verdict on a found answer: `no_answer` when Math-Verify cannot read it."""
        same = self.judged(found.answer, gold)
        if same is None:
            return Verdict("no_answer", found.answer, f"{found.rule}: not an expression")
        return Verdict("correct" if same else "wrong", found.answer, found.rule)

    def judged(self, answer: str, gold: str) -> bool | None:
        """Whether `answer` equals `gold`, or None when Math-Verify reads no expression in it."""
        answer = without_ordinal(answer)
        quick = quick_match(answer, gold)
        return quick if quick is not None else equivalent(answer, gold)

    def quick_matches(self, answer: str, gold: str) -> bool | None:
        """`matches` when it needs no algebra (see `quick_match`), else None. With this, and a
        `find` that is plain string work, a run judges such replies without a worker."""
        return quick_match(without_ordinal(answer), gold)

    def check_gold(self, gold: str) -> str | None:
        if not gold.strip():
            return f"gold {gold!r} is empty"
        if not parsed(gold):
            return f"gold {gold!r} is not an expression Math-Verify can read"
        return None

    def warm_up(self) -> None:
        """Import Math-Verify and run one comparison, so the first real one is not slow."""
        equivalent("\\frac{1}{2}", "0.5")


def quick_match(answer: str, gold: str) -> bool | None:
    """The verdict when it needs no algebra (the same text, or two integers), else None.

    >>> quick_match("025", "25"), quick_match(" x^2+1", "x^2+1"), quick_match("0.5", "1/2")
    (True, True, None)
    """
    if answer.strip() == gold.strip():
        return True
    if _INTEGER.fullmatch(answer.strip()) and _INTEGER.fullmatch(gold.strip()):
        return int(answer) == int(gold)
    return None


def without_ordinal(answer: str) -> str:
    """The answer without an ordinal suffix on a number: a rank is the number.

    >>> without_ordinal("12^{\\\\text{th}}\\\\text{ grade}"), without_ordinal("3rd")
    ('12\\\\text{ grade}', '3')
    """
    return _ORDINAL.sub("", answer) if any(c.isdigit() for c in answer) else answer


def equivalent(answer: str, gold: str) -> bool | None:
    """Math-Verify's verdict on `answer` against `gold` (see `MathKind.matches`), None when it
    reads no expression in `answer`.

    Math-Verify times its steps with `signal.alarm`, which works only in a process's main
    thread (elsewhere it would fail quietly and read nothing), so other threads are refused:
    they score through `scoring.pool`. Past `MATCH_TIME_LIMIT_S` of CPU time, TimeoutError.
    """
    if threading.current_thread() is not threading.main_thread():
        raise RuntimeError(
            "Math-Verify runs only in a process's main thread; score maths through "
            "thinkeval.scoring.pool"
        )
    verify = _math_verify().verify
    try:
        with _cpu_limit(MATCH_TIME_LIMIT_S):
            given = parsed(answer)
            if not given:
                return None
            expected = parsed(gold)
            return bool(
                expected and verify(list(expected), list(given), timeout_seconds=_INNER_TIMEOUT_S)
            )
    except _Expired:
        raise TimeoutError(f"Math-Verify gave no verdict within {MATCH_TIME_LIMIT_S:g} s") from None


@cache
def _math_verify() -> Any:
    import math_verify  # type: ignore[import-untyped]

    return math_verify


@cache
def _extraction() -> tuple[Any, ...]:
    module = _math_verify()
    return (module.LatexExtractionConfig(boxed_match_priority=0), module.ExprExtractionConfig())


@lru_cache(maxsize=4096)
def parsed(text: str) -> tuple[Any, ...]:
    """Math-Verify's reading of `text` (the expression and its string), empty when unreadable.

    The text is read as the content of a `\\boxed{}`, so dollar signs and text inside it
    stay part of the answer.
    """
    module = _math_verify()
    return tuple(
        module.parse(f"\\boxed{{{text}}}", _extraction(), parsing_timeout=_INNER_TIMEOUT_S)
    )


@contextmanager
def _cpu_limit(seconds: float) -> Iterator[None]:
    """Raise `_Expired` once this process has spent `seconds` more CPU time. A CPU timer
    (SIGPROF), because Math-Verify's own wall-clock alarms (SIGALRM) come and go inside."""

    def expire(signum: int, frame: object) -> None:
        raise _Expired

    previous = signal.signal(signal.SIGPROF, expire)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)
