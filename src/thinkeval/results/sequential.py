"""Anytime-valid paired comparison: the decision of `decide:`, valid however early it stops.

The paired per-question differences `d_i` (candidate minus baseline; -1, 0 or 1, a mean over
repeats otherwise) arrive in an order fixed before any reply is seen. Each one-sided hypothesis
about their mean `Δ` at a boundary `b` is tested by betting (Waudby-Smith & Ramdas 2023,
"Estimating means of bounded random variables by betting", JRSS-B 86(1)): a gambler's capital

    K_t = prod_{i<=t} (1 + λ_i (d_i - b))        (H0: Δ <= b; the mirror image for Δ >= b)

is a nonnegative supermartingale under the null, since `λ_i >= 0` is chosen from `d_1..d_{i-1}`
only and keeps every factor positive. By Ville's inequality the null holds with
`P(sup_t K_t >= 1/α) <= α`, so rejecting once the capital reaches `1/α`, at any look and
whatever made the run stop, keeps the error at `α`. The bet is the paper's aGRAPA (an
approximation of the growth-rate optimal bet from the predictable mean and variance),
clipped to `c / (1 + b)` with `c = 0.75`. The non-rejected boundaries form a confidence
sequence; its ends are found by bisection over `b`.

The verdicts are the fixed-n compare's words (`results.compare_stats`), one-sided at `α` each:
`non-inferior` when `Δ <= -m` is rejected, `equivalent` when `Δ >= +m` is too, `inferior`
when `Δ >= -m` is rejected, else `inconclusive`. A run stops a task once its verdict settles.
Everything is vectorised over leading axes, so the bench runs thousands of replications at once.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from thinkeval.results.compare_stats import Decision

Goal = Literal["equivalent", "non-inferior"]
Floats = npt.NDArray[np.float64]
# The largest share of capital a bet risks: 0.75 as in Waudby-Smith & Ramdas's experiments.
_CLIP = 0.75
_PRIOR_VARIANCE = 1.0  # of a value in [-1, 1], worth one observation
_BISECTIONS = 30


def log_capital(d: npt.ArrayLike, bound: float, side: int = 1) -> Floats:
    """The running log capital against H0 `Δ <= bound` (side +1) or `Δ >= bound` (side -1),
    after each of the differences `d` (last axis; any leading axes are replications)."""
    y = side * np.asarray(d, dtype=np.float64)
    null = side * bound
    n = y.shape[-1]
    count = np.arange(1, n + 1, dtype=np.float64)
    # The mean and variance after i observations, each with a prior worth one observation.
    mean_after = np.cumsum(y, axis=-1) / (count + 1)
    spread_after = (_PRIOR_VARIANCE + np.cumsum((y - mean_after) ** 2, axis=-1)) / (count + 1)
    # Predictable: the bet on d_t sees only d_1..d_{t-1} (the priors for the first).
    mean = np.concatenate([np.zeros_like(y[..., :1]), mean_after[..., :-1]], axis=-1)
    spread = np.concatenate(
        [np.full_like(y[..., :1], _PRIOR_VARIANCE), spread_after[..., :-1]], axis=-1
    )
    edge = mean - null
    bet = np.clip(edge / (spread + edge**2), 0.0, _CLIP / (1.0 + null))
    result: Floats = np.cumsum(np.log1p(bet * (y - null)), axis=-1)
    return result


def rejected_by(d: npt.ArrayLike, bound: float, side: int, alpha: float) -> npt.NDArray[np.bool_]:
    """Whether the capital against the one-sided null at `bound` has reached `1/α` by each
    time (last axis): once rejected, it stays rejected."""
    capital = log_capital(d, bound, side)
    return np.maximum.accumulate(capital, axis=-1) >= math.log(1 / alpha)


DECISION_CODES: tuple[Decision, ...] = ("equivalent", "non-inferior", "inferior", "inconclusive")
# The four one-sided nulls at margin m, as (boundary sign, side): Δ <= -m, Δ >= +m, Δ >= -m,
# Δ <= +m. Rejecting them says: not worse by m, not better by m, worse by more than m, better
# by more than m.
_NULLS = ((-1, 1), (1, -1), (-1, -1), (1, 1))


def _tests(d: Floats, margin: float, alpha: float) -> list[npt.NDArray[np.bool_]]:
    return [rejected_by(d, sign * margin, side, alpha) for sign, side in _NULLS]


def _codes(tests: list[npt.NDArray[np.bool_]]) -> npt.NDArray[np.int64]:
    """The decision (index in `DECISION_CODES`) from the four tests, elementwise."""
    above_minus, below_plus, below_minus, _ = tests
    code = np.full(above_minus.shape, DECISION_CODES.index("inconclusive"), dtype=np.int64)
    code[above_minus] = DECISION_CODES.index("non-inferior")
    code[above_minus & below_plus] = DECISION_CODES.index("equivalent")
    code[below_minus & ~above_minus] = DECISION_CODES.index("inferior")
    return code


def _settled(tests: list[npt.NDArray[np.bool_]], goal: Goal) -> npt.NDArray[np.bool_]:
    """Where asking more cannot change what the run set out to decide: inferior, or non-inferior
    for that goal, or for equivalence: equivalent, or better than the margin (never equivalent)."""
    above_minus, below_plus, below_minus, above_plus = tests
    if goal == "non-inferior":
        return below_minus | above_minus
    done: npt.NDArray[np.bool_] = below_minus | above_minus & (below_plus | above_plus)
    return done


@dataclass(frozen=True)
class Look:
    """The verdict after the first n differences."""

    n: int
    decision: Decision
    settled: bool


def looks(d: npt.ArrayLike, at: list[int], margin: float, alpha: float, goal: Goal) -> list[Look]:
    """The verdict of one sequence `d` at each look (counts of differences in `at`)."""
    values = np.asarray(d, dtype=np.float64)
    if values.size == 0:
        return [Look(n, "inconclusive", False) for n in at]
    tests = _tests(values, margin, alpha)
    codes, done = _codes(tests), _settled(tests, goal)
    return [
        Look(n, DECISION_CODES[int(codes[n - 1])], bool(done[n - 1]))
        if n
        else Look(0, "inconclusive", False)
        for n in at
    ]


def settled_at(
    d: npt.ArrayLike, at: npt.ArrayLike, margin: float, alpha: float, goal: Goal
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """For replications `d` (rows), the first look (a count of differences, from `at`) at
    which the verdict settles, the last look when none does, and the decision code there
    (index in `DECISION_CODES`)."""
    values = np.asarray(d, dtype=np.float64)
    index = np.asarray(at, dtype=np.int64) - 1
    tests = [test[:, index] for test in _tests(values, margin, alpha)]
    done = _settled(tests, goal)
    done[:, -1] = True
    first = np.argmax(done, axis=1)
    rows = np.arange(values.shape[0])
    return index[first] + 1, _codes(tests)[rows, first]


def sequence_bounds(d: npt.ArrayLike, alpha: float) -> tuple[float, float]:
    """The confidence sequence's ends after all of `d` (each side at `α`, a 1 - 2α sequence):
    where the lower-side test stops rejecting `Δ <= b` as `b` rises, and where the upper-side
    test starts rejecting `Δ >= b`, by bisection over `b` in [-1, 1]."""
    values = np.asarray(d, dtype=np.float64)
    if values.size == 0:
        return -1.0, 1.0

    def edge(side: int) -> float:
        # Rejected towards -side (below the mean for the lower end), kept towards +side.
        rejected, kept = -float(side), float(side)
        for _ in range(_BISECTIONS):
            middle = (rejected + kept) / 2
            if rejected_by(values, middle, side, alpha)[-1]:
                rejected = middle
            else:
                kept = middle
        return kept

    return edge(1), edge(-1)
