"""The comparison statistics against statsmodels, and their error rates by simulation."""

from __future__ import annotations

import math
from collections.abc import Callable
from statistics import NormalDist

import numpy as np
import pytest
from scipy.optimize import minimize_scalar
from scipy.stats import binom
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.power import NormalIndPower
from statsmodels.stats.proportion import proportion_confint
from statsmodels.stats.weightstats import DescrStatsW

from thinkeval.results.compare_stats import (
    decide,
    decide_recovery,
    holm,
    margin_tests,
    minimum_detectable,
    paired_interval,
    per_question_sd,
    questions_needed,
    recovery,
    score_statistic,
)
from thinkeval.results.stats import mcnemar_exact


def _diffs(rng: np.random.Generator, n: int, lost: float, gained: float) -> np.ndarray:
    u = rng.random(n)
    return np.where(u < lost, -1.0, np.where(u < lost + gained, 1.0, 0.0))


def test_no_disagreement_gives_the_wilson_bound_of_zero_in_n() -> None:
    ours = paired_interval([0.0] * 233)
    _, wilson = proportion_confint(0, 233, alpha=0.10, method="wilson")
    assert (ours.low, ours.high) == pytest.approx((-wilson, wilson), abs=1e-9)
    assert ours.high > 0.011  # 233 identical answers cannot prove 1 point
    assert decide(ours.low, ours.high, 0.01) == "inconclusive"


@pytest.mark.parametrize(
    ("gained", "lost", "n", "delta"), [(3, 11, 233, -0.01), (0, 7, 233, 0.0), (40, 20, 160, 0.2)]
)
def test_score_statistic_uses_the_restricted_maximum_likelihood(
    gained: int, lost: int, n: int, delta: float
) -> None:
    def minus_loglik(q: float) -> float:
        return -(gained * math.log(q + delta) + lost * math.log(q)
                 + (n - gained - lost) * math.log(1 - 2 * q - delta))  # fmt: skip

    low, high = max(0.0, -delta) + 1e-12, (1 - delta) / 2 - 1e-12
    found = minimize_scalar(minus_loglik, bounds=(low, high), method="bounded",
                            options={"xatol": 1e-12})  # fmt: skip
    q = found.x
    expected = (gained - lost - n * delta) / math.sqrt(n * (2 * q + delta - delta**2))
    assert score_statistic(delta, gained, lost, n) == pytest.approx(expected, rel=1e-5)


@pytest.mark.parametrize(("n", "lost", "gained"), [(233, 0.03, 0.01), (1319, 0.01, 0.005)])
def test_interval_inverts_the_score_test(n: int, lost: float, gained: float) -> None:
    diffs = _diffs(np.random.default_rng(n), n, lost, gained)
    ours = paired_interval(diffs, 0.90)
    assert ours.estimate == pytest.approx(diffs.mean())
    assert ours.gained == (diffs > 0).sum() and ours.lost == (diffs < 0).sum()
    quantile = NormalDist().inv_cdf(0.95)
    assert score_statistic(ours.low, ours.gained, ours.lost, n) == pytest.approx(quantile)
    assert score_statistic(ours.high, ours.gained, ours.lost, n) == pytest.approx(-quantile)
    for margin in (0.005, 0.01, 0.02, 0.05):
        tests = margin_tests(ours, margin)
        assert (ours.low > -margin) == (tests.p_noninferior < 0.05)
        assert (ours.high < -margin) == (tests.p_inferior < 0.05)
        equivalent = decide(ours.low, ours.high, margin) == "equivalent"
        assert equivalent == (tests.p_equivalent < 0.05)


def _lower_coverage(interval: Callable[[int, int], float], n: int, lost: float) -> float:
    """Exact probability, over the trinomial of (gained, lost, same) with no gains, that the
    lower bound lies at or below the true difference -lost."""
    covered = 0.0
    for c in range(46):  # beyond 45 losses the probability is negligible here
        covered += binom.pmf(c, n, lost) * (interval(0, c) <= -lost + 1e-12)
    return covered


def test_lower_bound_keeps_its_coverage_when_the_candidate_only_loses() -> None:
    n = 233

    def tango(gained: int, lost: int) -> float:
        return paired_interval([1.0] * gained + [-1.0] * lost + [0.0] * (n - gained - lost)).low

    def bonett_price(gained: int, lost: int) -> float:  # Wald with one pseudo pair each way
        values = [1.0] * (gained + 1) + [-1.0] * (lost + 1) + [0.0] * (n - gained - lost)
        return float(DescrStatsW(np.asarray(values)).zconfint_mean(alpha=0.10)[0])

    for lost in (0.01, 0.02, 0.04):
        assert _lower_coverage(tango, n, lost) >= 0.945  # nominal 0.95
    assert _lower_coverage(bonett_price, n, 0.01) < 0.91  # what the Wald variant gave


@pytest.mark.parametrize(("a", "b"), [(3, 11), (0, 7), (40, 52), (5, 5)])
def test_mcnemar_matches_statsmodels(a: int, b: int) -> None:
    expected = mcnemar([[10, a], [b, 10]], exact=True).pvalue
    assert mcnemar_exact(a, b) == pytest.approx(min(1.0, expected))


def test_holm_matches_statsmodels() -> None:
    p = [0.01, 0.04, 0.03, 0.2, 0.001]
    assert holm(p) == pytest.approx(list(multipletests(p, method="holm")[1]))


def test_power_matches_statsmodels() -> None:
    sd = per_question_sd(0.05)
    effect = NormalIndPower().solve_power(
        effect_size=0.01 / sd, alpha=0.05, power=0.8, ratio=0, alternative="larger"
    )
    assert questions_needed(0.01, sd) == math.ceil(effect)
    n = 233
    es = NormalIndPower().solve_power(nobs1=n, alpha=0.05, power=0.8, ratio=0)
    assert minimum_detectable(sd / math.sqrt(n)) == pytest.approx(es * sd, rel=1e-3)
    assert per_question_sd(0.05, 4) == pytest.approx(sd / 2)


def test_decisions() -> None:
    assert decide(-0.004, 0.006, 0.01) == "equivalent"
    assert decide(-0.004, 0.02, 0.01) == "non-inferior"
    assert decide(-0.05, -0.02, 0.01) == "inferior"
    assert decide(-0.02, 0.0, 0.01) == "inconclusive"
    assert decide_recovery(0.995, 1.004, 0.99) == "equivalent"
    assert decide_recovery(0.95, 0.98, 0.99) == "inferior"
    assert decide_recovery(None, None, 0.99) == "inconclusive"
    with pytest.raises(ValueError, match="margin must be positive"):
        decide(-0.1, 0.1, 0.0)


def test_recovery_interval_covers() -> None:
    rng = np.random.default_rng(7)
    covered, trials = 0, 400
    for _ in range(trials):
        b = (rng.random(800) < 0.8).astype(float)
        flip = rng.random(800) < 0.05
        c = np.where(flip, 1.0 - b, b)  # true recovery: (0.8 * 0.95 + 0.2 * 0.05) / 0.8
        ratio = recovery(c, b, 0.90)
        assert ratio.low is not None and ratio.high is not None
        covered += ratio.low < (0.76 + 0.01) / 0.8 < ratio.high
    assert abs(covered / trials - 0.90) < 0.05


def _rates(n: int, truth: float, disagreement: float, trials: int) -> dict[str, float]:
    """Decision rates at a 1-point margin over simulated pairs with a known true difference."""
    rng = np.random.default_rng(int(1000 * disagreement) + n)
    lost, gained = (disagreement - truth) / 2, (disagreement + truth) / 2
    counts = dict.fromkeys(("equivalent", "non-inferior", "inferior", "inconclusive"), 0)
    for _ in range(trials):
        result = paired_interval(_diffs(rng, n, lost, gained))
        counts[decide(result.low, result.high, 0.01)] += 1
    return {key: value / trials for key, value in counts.items()}


def test_error_rates_by_simulation() -> None:
    trials = 2000
    slack = 3 * math.sqrt(0.05 * 0.95 / trials)  # three Monte-Carlo standard errors
    # True difference exactly at -margin: "good enough" and "inferior" each at most alpha.
    at_margin = _rates(3000, -0.01, 0.06, trials)
    assert at_margin["equivalent"] + at_margin["non-inferior"] <= 0.05 + slack
    assert at_margin["inferior"] <= 0.05 + slack
    # Truly equal, at the questions the planner asks for: non-inferior in about 80% of runs.
    needed = questions_needed(0.01, per_question_sd(0.05))
    equal = _rates(needed, 0.0, 0.05, trials)
    shown = equal["equivalent"] + equal["non-inferior"]
    assert abs(shown - 0.80) < 0.04
    assert equal["inferior"] == 0.0
