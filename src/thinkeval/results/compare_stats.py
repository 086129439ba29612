"""The statistics of "is the candidate as good as the baseline?": equivalence and
non-inferiority at a declared margin, recovery, power and planning, and Holm's correction.

The difference is candidate minus baseline over questions (`d_q`, each question's accuracy
difference: -1, 0 or 1 when asked once, a mean over repeats otherwise), so repeats are clustered
by question. Its interval is Tango's score interval for paired proportions (Tango 1998): the set
of differences a score test with the other cells at their restricted maximum-likelihood values
does not reject. It has its nominal one-sided coverage where a release decision lives, at small
disagreement and when the discordant answers all go one way (the candidate only loses answers),
where the Wald interval, even with the Bonett-Price pseudo pairs, covers 90% instead of 95%; and
it never collapses: 233 identical answers give +-1.15 points at 90%, the Wilson bound of 0 in
233. With repeats the gains and losses are the positive and negative parts of `d_q`, summed,
which bounds the variance of a value in [-1, 1] from above (conservative). A decision at margin
`m` (a proportion) uses the two-sided `1 - 2 alpha` interval, which is two one-sided score tests
at `alpha` each (TOST):

* `equivalent`: the whole interval lies within (-m, +m);
* `non-inferior`: its lower bound is above -m (it may also be better by more than m);
* `inferior`: its upper bound is below -m;
* `inconclusive`: it straddles -m.

Only numpy and the standard library are needed; tests check each function against statsmodels.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Literal

import numpy as np

# `refused`: no verdict, the two sides ran out of budget too differently (`compare_parity`).
Decision = Literal["equivalent", "non-inferior", "inferior", "inconclusive", "refused"]
DECISIONS: tuple[Decision, ...] = ("equivalent", "non-inferior", "inferior", "inconclusive")
ALPHA = 0.05  # each one-sided test; the decision interval is the 90% two-sided one
POWER = 0.8
_NORMAL = NormalDist()


def z(p: float) -> float:
    """The standard normal quantile at `p`."""
    return _NORMAL.inv_cdf(p)


@dataclass(frozen=True)
class PairedInterval:
    """The mean per-question difference and its interval; `gained` and `lost` (the summed
    positive and negative parts of the differences) are set for a score interval and absent for
    a normal one (the aggregate over tasks)."""

    n: int  # questions
    estimate: float  # the plain mean difference (candidate - baseline)
    center: float  # the midpoint of the interval
    se: float  # the interval's half-width over its normal quantile: what power is computed from
    low: float
    high: float
    confidence: float
    disagreement: float  # mean squared difference: the share of disagreeing pairs when k = 1
    gained: float | None = None
    lost: float | None = None


def _restricted_lost(delta: float, gained: float, lost: float, n: int) -> float:
    """The maximum-likelihood probability of a lost answer when the difference is `delta`
    (Tango's closed form: the positive root of a quadratic)."""
    w = -gained - lost + (2 * n - gained + lost) * delta
    root = math.sqrt(max(0.0, w * w + 8.0 * n * lost * delta * (1.0 - delta)))
    return max(0.0, (root - w) / (4.0 * n))


def score_statistic(delta: float, gained: float, lost: float, n: int) -> float:
    """Tango's score statistic for "the difference is `delta`": positive when the observed
    difference (gained - lost) / n lies above `delta`."""
    q = _restricted_lost(delta, gained, lost, n)
    numerator = gained - lost - n * delta
    variance = n * (2.0 * q + delta * (1.0 - delta))
    if variance <= 0.0:
        return math.copysign(math.inf, numerator) if numerator else 0.0
    return numerator / math.sqrt(variance)


def _root(target: float, low: float, high: float, gained: float, lost: float, n: int) -> float:
    """The `delta` in [low, high] where the (decreasing) score statistic equals `target`."""
    for _ in range(60):
        mid = (low + high) / 2.0
        if score_statistic(mid, gained, lost, n) > target:
            low = mid
        else:
            high = mid
    return (low + high) / 2.0


def paired_interval(diffs: Sequence[float], confidence: float = 1 - 2 * ALPHA) -> PairedInterval:
    """Tango's score interval of the mean of per-question differences `diffs` (in [-1, 1]).

    >>> result = paired_interval([0.0] * 98 + [-1.0, -1.0])
    >>> round(result.estimate, 4), round(result.low, 4), round(result.high, 4)
    (-0.02, -0.0586, 0.0069)
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence!r}")
    raw = np.asarray(diffs, dtype=float)
    if raw.ndim != 1 or raw.size == 0:
        raise ValueError("need one difference per question, at least one question")
    if np.any(np.abs(raw) > 1.0):
        raise ValueError("a per-question difference lies in [-1, 1]")
    n = int(raw.size)
    gained, lost = float(raw[raw > 0].sum()), float(-raw[raw < 0].sum())
    estimate = (gained - lost) / n
    quantile = z(1.0 - (1.0 - confidence) / 2.0)
    low = -1.0 if estimate <= -1.0 else _root(quantile, -1.0, estimate, gained, lost, n)
    high = 1.0 if estimate >= 1.0 else _root(-quantile, estimate, 1.0, gained, lost, n)
    return PairedInterval(
        n=n,
        estimate=float(raw.mean()),
        center=(low + high) / 2.0,
        se=(high - low) / (2.0 * quantile),
        low=low,
        high=high,
        confidence=confidence,
        disagreement=float(np.mean(raw * raw)),
        gained=gained,
        lost=lost,
    )


def decide(low: float, high: float, margin: float) -> Decision:
    """The decision for an interval of the difference at `margin` (proportions).

    >>> decide(-0.004, 0.006, 0.01), decide(-0.004, 0.03, 0.01), decide(-0.05, -0.02, 0.01)
    ('equivalent', 'non-inferior', 'inferior')
    >>> decide(-0.02, 0.005, 0.01)
    'inconclusive'
    """
    if margin <= 0:
        raise ValueError(f"the margin must be positive, got {margin!r}")
    if low > -margin:
        return "equivalent" if high < margin else "non-inferior"
    if high < -margin:
        return "inferior"
    return "inconclusive"


@dataclass(frozen=True)
class MarginTests:
    """One-sided p-values at a margin: H0 d <= -m (non-inferiority), H0 d >= -m (inferiority),
    and the TOST p-value of equivalence (the larger of its two one-sided p-values)."""

    p_noninferior: float
    p_inferior: float
    p_equivalent: float


def margin_tests(result: PairedInterval, margin: float) -> MarginTests:
    """The p-values matching `decide` on the `1 - 2 alpha` interval: score tests at -margin and
    +margin for a score interval, normal ones (as the interval) for the aggregate."""
    if result.gained is not None and result.lost is not None:
        at_low = score_statistic(-margin, result.gained, result.lost, result.n)
        at_high = score_statistic(margin, result.gained, result.lost, result.n)
    elif result.se == 0.0:
        above = result.center > -margin
        below = result.center < margin
        return MarginTests(float(not above), float(above), float(not (above and below)))
    else:
        at_low = (result.center + margin) / result.se
        at_high = (result.center - margin) / result.se
    p_ni = 1.0 - _NORMAL.cdf(at_low)
    return MarginTests(p_ni, _NORMAL.cdf(at_low), max(p_ni, _NORMAL.cdf(at_high)))


def minimum_detectable(
    se: float, alpha: float = ALPHA, power: float = POWER, sided: int = 2
) -> float:
    """The smallest true difference a test of "no difference" at `alpha` (two-sided by default)
    detects with `power`, for a standard error `se`: (z_{1-alpha/2} + z_power) * se.

    >>> round(minimum_detectable(0.01), 4)
    0.028
    """
    return (z(1.0 - alpha / sided) + z(power)) * se


def per_question_sd(disagreement: float, repeats: int = 1) -> float:
    """Standard deviation of one question's difference when a share `disagreement` of reply
    pairs disagree and the true difference is 0; `repeats` independent replies per question
    divide the variance by k (optimistic when replies to one question are correlated)."""
    if not 0.0 < disagreement <= 1.0:
        raise ValueError(f"the disagreement rate must lie in (0, 1], got {disagreement!r}")
    if repeats < 1:
        raise ValueError(f"repeats must be >= 1, got {repeats!r}")
    return math.sqrt(disagreement / repeats)


def questions_needed(
    margin: float, sd: float, alpha: float = ALPHA, power: float = POWER, equivalence: bool = False
) -> int:
    """Questions a comparison needs to be decided non-inferior (or, with `equivalence`,
    equivalent) with `power` when the true difference is 0.

    >>> questions_needed(0.01, math.sqrt(0.05))
    3092
    """
    if margin <= 0:
        raise ValueError(f"the margin must be positive, got {margin!r}")
    beta = 1.0 - power
    quantile = z(1.0 - beta / 2.0) if equivalence else z(power)
    return math.ceil(((z(1.0 - alpha) + quantile) * sd / margin) ** 2)


def smallest_margin(se: float, alpha: float = ALPHA, power: float = POWER) -> float:
    """The smallest margin at which a candidate truly equal to the baseline is found
    non-inferior with `power`, at standard error `se`."""
    return (z(1.0 - alpha) + z(power)) * se


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (family-wise error at the level they are read at).

    >>> holm([0.01, 0.04, 0.03])
    [0.03, 0.06, 0.06]
    """
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = round(running, 15)
    return adjusted


@dataclass(frozen=True)
class Ratio:
    """Recovery: candidate accuracy / baseline accuracy, with a delta-method interval."""

    value: float | None
    low: float | None
    high: float | None


def recovery(
    candidate: Sequence[float], baseline: Sequence[float], confidence: float = 1 - 2 * ALPHA
) -> Ratio:
    """candidate / baseline mean accuracy over the same questions, with the normal interval of
    its logarithm (delta method, paired: the covariance of the two sides counts). No value
    when the baseline solved nothing; no interval when either side solved nothing."""
    c = np.asarray(candidate, dtype=float)
    b = np.asarray(baseline, dtype=float)
    if c.shape != b.shape or c.ndim != 1 or c.size == 0:
        raise ValueError("need the same questions, at least one, on both sides")
    mean_c, mean_b = float(c.mean()), float(b.mean())
    if mean_b == 0.0:
        return Ratio(None, None, None)
    value = mean_c / mean_b
    n = c.size
    if mean_c == 0.0 or n < 2:
        return Ratio(value, None, None)
    cov = np.cov(np.stack([c, b]), ddof=1)
    var_log = (
        cov[0, 0] / (n * mean_c**2)
        + cov[1, 1] / (n * mean_b**2)
        - 2.0 * cov[0, 1] / (n * mean_c * mean_b)
    )
    half = z(1.0 - (1.0 - confidence) / 2.0) * math.sqrt(max(0.0, float(var_log)))
    return Ratio(value, value * math.exp(-half), value * math.exp(half))


def decide_recovery(low: float | None, high: float | None, threshold: float) -> Decision:
    """The decision on a recovery interval at `threshold` (e.g. 0.99): equivalent when it lies
    within (threshold, 1 / threshold), non-inferior above threshold, inferior below."""
    if not 0.0 < threshold < 1.0:
        raise ValueError(f"a recovery threshold lies strictly between 0 and 1, got {threshold!r}")
    if low is None or high is None:
        return "inconclusive"
    if low > threshold:
        return "equivalent" if high < 1.0 / threshold else "non-inferior"
    if high < threshold:
        return "inferior"
    return "inconclusive"
