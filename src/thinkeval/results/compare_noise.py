"""The deployment's noise floor (an A/A comparison): how many answers flip with no model change.

Batch composition, concurrency and kernel choice change even greedy outputs, so a candidate
that flips 3% of the baseline's answers says little until the baseline, asked again under the
same deployment, is known to flip 2.5% against itself. The floor comes from

- an **A/A copy**: the baseline model served and asked a second time under a second model
  name in the same deployment (`baseline.noise_floor: NAME`, `--noise-floor NAME`); units are
  paired by question and repeat, as the candidate's are; or else
- the baseline's **repeats** (k ≥ 2): every pair of repeats r < r' of a question.

Per task and phase, on the compared questions:

- `flip_rate`: the share of paired units whose correctness differs, with a Wilson interval at
  the Rao-Scott effective sample size (units / design effect, the design effect estimated from
  the per-question flip shares and never below 1; Rao and Scott, JASA 1981), since the units
  of one question are not independent;
- `candidate_flip_rate`: the same share between the candidate and the baseline, and `excess`,
  the candidate's rate minus the floor's, per question, with Tango's paired score interval
  (`compare_stats.paired_interval`);
- with an A/A copy, `aa_difference`: the copy's accuracy minus the baseline's with its paired
  interval, and the between-run spread it implies, `tau = sqrt(max(0, d² − se²))` (the method
  of moments estimate of a random run effect on a difference, as DerSimonian and Laird's
  between-study variance with one study, 1986). Folded into the minimum detectable effect:
  `MDE_floor = (z_{1−α/2} + z_power) · sqrt(se² + tau²)`, the smallest difference the paired
  test would still detect if each run carried such a shift (`mde_with_floor`). One A/A pair
  estimates tau with a single degree of freedom, so it is a rough floor, not a precise one.
"""

from __future__ import annotations

import math

import msgspec
import numpy as np

from thinkeval.results.compare_stats import ALPHA, minimum_detectable, paired_interval
from thinkeval.results.stats import wilson_interval

SIGNIFICANCE = 0.05  # the paired test's two-sided level, as in `results.compare`


class NoiseFloorFlips(msgspec.Struct, kw_only=True, frozen=True):
    """The baseline against itself next to the candidate against the baseline (proportions)."""

    source: str  # "A/A copy NAME" or "repeats"
    questions: int
    units: int  # paired units the floor counts (pairs of repeats, with repeats)
    flip_rate: float
    low: float  # 1 - 2 alpha Wilson interval at the Rao-Scott effective size
    high: float
    design_effect: float
    candidate_flip_rate: float
    excess: float  # candidate_flip_rate - flip_rate, per question
    excess_low: float
    excess_high: float
    aa_difference: float | None = None  # the A/A copy's accuracy minus the baseline's
    aa_low: float | None = None
    aa_high: float | None = None
    between_runs: float | None = None  # tau: the run-to-run shift the A/A difference implies
    mde_with_floor: float | None = None  # the paired test's MDE with tau folded in


def pair_flips(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per question, the share of its repeats whose correctness differs between `a` and `b`
    (booleans, (questions, repeats), paired repeat by repeat)."""
    return np.asarray((a != b).mean(axis=1), dtype=float)


def repeat_flips(correct: np.ndarray) -> np.ndarray:
    """Per question, the share of its pairs of repeats (r < r') whose correctness differs:
    with c of k repeats correct, c (k − c) of the k (k − 1) / 2 pairs.

    >>> repeat_flips(np.array([[True, True, False, False], [True, True, True, True]]))
    array([0.66666667, 0.        ])
    """
    k = correct.shape[1]
    right = correct.sum(axis=1).astype(float)
    return np.asarray(right * (k - right) / (k * (k - 1) / 2), dtype=float)


def clustered_wilson(
    shares: np.ndarray, per_question: int, confidence: float
) -> tuple[float, float, float]:
    """(low, high, design effect): the Wilson interval of the mean of per-question shares, each
    over `per_question` units, at the Rao-Scott effective sample size.

    >>> low, high, deff = clustered_wilson(np.array([1.0] * 5 + [0.0] * 95), 1, 0.95)
    >>> (round(low, 4), round(high, 4), deff) == (0.0215, 0.1118, 1.0)
    True
    """
    n = int(shares.size)
    units = n * per_question
    p = float(shares.mean())
    srs = p * (1 - p) / units  # the variance if every unit were independent
    clustered = float(shares.var()) / n  # the variance of a mean of equal-sized clusters
    deff = max(1.0, clustered / srs) if srs > 0 else 1.0
    effective = max(1, round(units / deff))
    low, high = wilson_interval(round(p * effective), effective, confidence)
    return low, high, deff


def floor_mde(se: float, aa_difference: float, aa_se: float) -> tuple[float, float]:
    """(tau, MDE with tau folded in): tau² = max(0, d² − se_AA²) is the extra variance of a
    difference between two runs that one A/A difference `aa_difference` implies beyond its own
    sampling error `aa_se`.

    >>> tau, mde = floor_mde(0.01, 0.03, 0.01)
    >>> round(tau, 4), round(mde, 4)
    (0.0283, 0.084)
    """
    tau = math.sqrt(max(0.0, aa_difference**2 - aa_se**2))
    return tau, minimum_detectable(math.sqrt(se**2 + tau**2), SIGNIFICANCE)


def noise_floor(
    base: np.ndarray,
    cand: np.ndarray,
    copy: np.ndarray | None,
    copy_name: str | None,
    se: float,
    alpha: float = ALPHA,
) -> NoiseFloorFlips | None:
    """The floor of one row from correctness booleans (questions, repeats) on the questions
    every side answered: the baseline's, the candidate's and, when declared, the A/A copy's.
    `se` is the row's standard error of Δ. None without a copy and with a single repeat, or
    when no question is left."""
    confidence = 1 - 2 * alpha
    k = base.shape[1]
    if copy is not None:
        shares = pair_flips(base, copy)
        per_question, source = k, f"A/A copy {copy_name}"
    elif k >= 2:
        shares = repeat_flips(base)
        per_question, source = k * (k - 1) // 2, "repeats"
    else:
        return None
    if shares.size == 0:
        return None
    candidate = pair_flips(base, cand)
    low, high, deff = clustered_wilson(shares, per_question, confidence)
    excess = paired_interval(candidate - shares, confidence)
    floor = NoiseFloorFlips(
        source=source,
        questions=int(shares.size),
        units=int(shares.size) * per_question,
        flip_rate=float(shares.mean()),
        low=low,
        high=high,
        design_effect=deff,
        candidate_flip_rate=float(candidate.mean()),
        excess=excess.estimate,
        excess_low=excess.low,
        excess_high=excess.high,
    )
    if copy is None:
        return floor
    aa = paired_interval(copy.mean(axis=1) - base.mean(axis=1), confidence)
    tau, mde = floor_mde(se, aa.estimate, aa.se)
    return msgspec.structs.replace(
        floor,
        aa_difference=aa.estimate,
        aa_low=aa.low,
        aa_high=aa.high,
        between_runs=tau,
        mde_with_floor=mde,
    )
