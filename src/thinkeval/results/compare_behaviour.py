"""Paired behaviour deltas: where does the candidate think longer, loop, hesitate or lose an
answer it had found, by how the baseline fared on the question?

Quantized reasoning models are known to think longer on hard items, which an accuracy
difference hides. Per task and phase, on the compared questions, split by the baseline's
difficulty (its adaptive solve rate: over repeats "solved every repeat / some / none", with one
reply "baseline right / not right"), and over all of them:

- **length ratio**: per question, (candidate length + 1) / (baseline length + 1), lengths
  averaged over repeats first; summarised as the geometric mean ratio, exp(mean log ratio),
  with a Student t interval of the mean log ratio (the paired analysis of log-transformed
  lengths, which are right-skewed). The length is `usage.reasoning_tokens` where both sides
  report it for every compared reply, else completion tokens (reasoning included). A reply cut
  at the budget is right-censored too, so in the fixed phase the ratio understates the
  inflation of questions both sides ran out on.
- **loop, hesitation, found_then_lost rates**: the share of units whose counted reply the
  diagnosis labels so (`diagnosis.reply`; only replies that did not finish get a label), each
  side, and the paired difference per question with Tango's score interval
  (`compare_stats.paired_interval`), as Δ's.
"""

from __future__ import annotations

import math

import msgspec
import numpy as np

from thinkeval.diagnosis.reply import LABELS, Label
from thinkeval.results.compare_stats import ALPHA, paired_interval, z

SHOWN_LABELS: tuple[Label, ...] = ("loop", "hesitation", "found_then_lost")
ALL = "all"


class LengthRatio(msgspec.Struct, kw_only=True, frozen=True):
    """The geometric mean of per-question length ratios, candidate / baseline."""

    measure: str  # "reasoning tokens" or "completion tokens"
    questions: int
    ratio: float
    low: float | None  # None with one question
    high: float | None


class RateDelta(msgspec.Struct, kw_only=True, frozen=True):
    """One diagnosis label's share of units on each side, and the paired difference."""

    label: str
    baseline: float
    candidate: float
    difference: float
    low: float
    high: float


class Stratum(msgspec.Struct, kw_only=True, frozen=True):
    """The deltas on the questions of one difficulty (or all of them)."""

    stratum: str
    questions: int
    length: LengthRatio | None  # None when no question has a length on both sides
    rates: list[RateDelta]


def t_quantile(p: float, df: int) -> float:
    """Student's t quantile by the Cornish-Fisher expansion around the normal one
    (Abramowitz and Stegun 26.7.5, four terms: within 0.002 of the exact value from 5 degrees
    of freedom, tested against scipy; numpy has no t quantile and scipy is not a dependency).

    >>> round(t_quantile(0.95, 29), 3)
    1.699
    """
    g = z(p)
    terms = (
        (g**3 + g) / 4,
        (5 * g**5 + 16 * g**3 + 3 * g) / 96,
        (3 * g**7 + 19 * g**5 + 17 * g**3 - 15 * g) / 384,
        (79 * g**9 + 776 * g**7 + 1482 * g**5 - 1920 * g**3 - 945 * g) / 92160,
    )
    return g + float(sum(term / df ** (i + 1) for i, term in enumerate(terms)))


def length_ratio(
    base: np.ndarray, cand: np.ndarray, measure: str, confidence: float
) -> LengthRatio | None:
    """The ratio of per-question mean lengths (questions, repeats; -1: not reported).

    >>> r = length_ratio(np.array([[99], [199]]), np.array([[199], [399]]), "tokens", 0.9)
    >>> round(r.ratio, 4), r.low == r.high == 2.0
    (2.0, True)
    """
    known = ((base >= 0) & (cand >= 0)).all(axis=1)
    n = int(known.sum())
    if n == 0:
        return None
    logs = np.log((cand[known].mean(axis=1) + 1.0) / (base[known].mean(axis=1) + 1.0))
    center = float(logs.mean())
    if n < 2:
        return LengthRatio(measure=measure, questions=n, ratio=math.exp(center), low=None,
                           high=None)  # fmt: skip
    half = t_quantile(1 - (1 - confidence) / 2, n - 1) * float(logs.std(ddof=1)) / math.sqrt(n)
    return LengthRatio(
        measure=measure,
        questions=n,
        ratio=math.exp(center),
        low=math.exp(center - half),
        high=math.exp(center + half),
    )


def rate_delta(label: str, base: np.ndarray, cand: np.ndarray, confidence: float) -> RateDelta:
    """The paired difference of one label's share (booleans, (questions, repeats))."""
    interval = paired_interval(cand.mean(axis=1) - base.mean(axis=1), confidence)
    return RateDelta(
        label=label,
        baseline=float(base.mean()),
        candidate=float(cand.mean()),
        difference=interval.estimate,
        low=interval.low,
        high=interval.high,
    )


def strata(solve_rate: np.ndarray, k: int) -> list[tuple[str, np.ndarray]]:
    """The difficulty strata of questions from the baseline's solve rate, non-empty only."""
    if k == 1:
        named = [("baseline right", solve_rate == 1), ("baseline not right", solve_rate < 1)]
    else:
        named = [
            ("solved every repeat", solve_rate == 1),
            ("solved some", (solve_rate > 0) & (solve_rate < 1)),
            ("solved none", solve_rate == 0),
        ]
    return [(name, mask) for name, mask in named if mask.any()]


def behaviour(
    lengths: tuple[np.ndarray, np.ndarray],
    measure: str,
    labels: tuple[np.ndarray, np.ndarray],
    solve_rate: np.ndarray,
    alpha: float = ALPHA,
) -> list[Stratum]:
    """The deltas over all compared questions, then per difficulty stratum. `lengths` and
    `labels` (diagnosis label codes, positions in `diagnosis.LABELS`, -1 for none) are the
    baseline's and the candidate's, (questions, repeats); `solve_rate` is per question."""
    confidence = 1 - 2 * alpha
    k = lengths[0].shape[1]
    out: list[Stratum] = []
    for name, mask in [(ALL, np.ones(solve_rate.shape, dtype=bool)), *strata(solve_rate, k)]:
        rates = [
            rate_delta(
                label,
                labels[0][mask] == LABELS.index(label),
                labels[1][mask] == LABELS.index(label),
                confidence,
            )
            for label in SHOWN_LABELS
        ]
        length = length_ratio(lengths[0][mask], lengths[1][mask], measure, confidence)
        out.append(Stratum(stratum=name, questions=int(mask.sum()), length=length, rates=rates))
    return out
