"""Truncation parity: did both models run out of budget about as often?

A reply still `empty` or `unfinished` when its phase ends is censored (`results.censoring`):
its outcome is unknown, and the headline counts it wrong. When the candidate is cut off more
often than the baseline, part of its accuracy gap is the budget, not the answers; when less
often, the comparison flatters it. So every comparison row carries, on its compared units,
both sides' unfinished rates, their paired difference (candidate − baseline) with the same
1 − 2·alpha Tango score interval as Δ (the same questions on both sides: a paired design),
and each side's accuracy bounds.

- The row is *flagged* (`differs`) when that interval excludes 0.
- With a declared `max_gap` (`baseline.max_unfinished_gap`, `--max-unfinished-gap`), a row
  whose observed gap exceeds it in either direction is *refused*: its decision becomes
  `refused` and the statistical decision it set aside is kept beside (`set_aside`).
"""

from __future__ import annotations

import msgspec
import numpy as np

from thinkeval.records import STATUSES, Status
from thinkeval.results.censoring import CensoredAccuracy, censored
from thinkeval.results.compare_stats import ALPHA, Decision, paired_interval
from thinkeval.results.counts import OutcomeCounts

UNFINISHED_CODES = (STATUSES.index("empty"), STATUSES.index("unfinished"))


class TruncationParity(msgspec.Struct, kw_only=True, frozen=True):
    """Both sides' unfinished replies on one row's compared units (proportions)."""

    baseline: CensoredAccuracy
    candidate: CensoredAccuracy
    baseline_rate: float  # share of units empty or unfinished when the phase ended
    candidate_rate: float
    gap: float  # candidate − baseline
    low: float  # the 1 − 2 alpha paired score interval of the gap (Tango)
    high: float
    differs: bool  # the interval excludes 0
    max_gap: float | None = None  # the declared largest gap a verdict is given at
    refused: bool = False  # |gap| > max_gap: the row's decision is `refused`
    set_aside: Decision | None = None  # the decision a refusal replaced


def _counts(codes: np.ndarray) -> OutcomeCounts:
    found = np.bincount(codes.ravel().astype(np.int64), minlength=len(STATUSES))
    by_status: dict[Status, int] = {s: int(found[i]) for i, s in enumerate(STATUSES)}
    return OutcomeCounts(**by_status)


def unfinished(codes: np.ndarray) -> np.ndarray:
    """Per unit: the reply was empty or unfinished when its phase ended."""
    return np.isin(codes, UNFINISHED_CODES)


def truncation_parity(
    base: np.ndarray, cand: np.ndarray, alpha: float = ALPHA, max_gap: float | None = None
) -> TruncationParity:
    """Parity of two sides' outcome codes, (questions, repeats) aligned, every unit arrived.

    >>> b = np.array([[0], [0], [3], [0]]); c = np.array([[3], [4], [3], [0]])
    >>> p = truncation_parity(b, c)
    >>> p.baseline_rate, p.candidate_rate, p.gap, p.differs
    (0.25, 0.75, 0.5, False)
    """
    b_cut, c_cut = unfinished(base), unfinished(cand)
    interval = paired_interval(c_cut.mean(axis=1) - b_cut.mean(axis=1), 1 - 2 * alpha)
    gap = float(c_cut.mean() - b_cut.mean())
    refused = max_gap is not None and abs(gap) > max_gap
    return TruncationParity(
        baseline=censored(_counts(base), int(base.size)),
        candidate=censored(_counts(cand), int(cand.size)),
        baseline_rate=float(b_cut.mean()),
        candidate_rate=float(c_cut.mean()),
        gap=gap,
        low=interval.low,
        high=interval.high,
        differs=interval.low > 0 or interval.high < 0,
        max_gap=max_gap,
        refused=refused,
    )
