"""Tests for thinkeval.results.stats against independent references: statsmodels, scipy."""

from __future__ import annotations

import doctest
import inspect
import itertools
import math
import time
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats as scipy_stats
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar
from statsmodels.stats.proportion import proportion_confint

from thinkeval.results import stats
from thinkeval.results.stats import (
    PairedComparison,
    budget_curve,
    mcnemar_exact,
    paired_bootstrap,
    percentiles,
    wilson_interval,
)


def test_docstring_examples() -> None:
    result = doctest.testmod(stats, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0
    assert result.failed == 0


# --- wilson_interval -------------------------------------------------------------------------

WILSON_CASES = [
    (k, n)
    for n in (1, 2, 5, 10, 37, 100, 1319, 3270)
    for k in sorted({0, 1, n // 3, n // 2, n - 1, n})
    if 0 <= k <= n
]


@pytest.mark.parametrize("confidence", [0.9, 0.95, 0.99])
def test_wilson_matches_statsmodels(confidence: float) -> None:
    for k, n in WILSON_CASES:
        low, high = wilson_interval(k, n, confidence)
        ref_low, ref_high = proportion_confint(k, n, alpha=1 - confidence, method="wilson")
        assert low == pytest.approx(ref_low, rel=1e-9, abs=1e-12), (k, n)
        assert high == pytest.approx(ref_high, rel=1e-9, abs=1e-12), (k, n)


def test_wilson_edges_are_exact_and_inside_unit_interval() -> None:
    for n in (1, 7, 1319):
        assert wilson_interval(0, n)[0] == 0.0
        assert wilson_interval(n, n)[1] == 1.0
    for k, n in WILSON_CASES:
        low, high = wilson_interval(k, n)
        assert 0.0 <= low <= k / n <= high <= 1.0


def test_wilson_widens_with_confidence() -> None:
    widths = [wilson_interval(40, 100, c)[1] - wilson_interval(40, 100, c)[0] for c in (0.9, 0.99)]
    assert widths[0] < widths[1]


def test_wilson_empty_is_nan() -> None:
    low, high = wilson_interval(0, 0)
    assert math.isnan(low) and math.isnan(high)


@pytest.mark.parametrize(
    ("correct", "total", "confidence"),
    [(-1, 10, 0.95), (11, 10, 0.95), (0, -1, 0.95), (5, 10, 0.0), (5, 10, 1.0), (5, 10, 95)],
)
def test_wilson_rejects_bad_input(correct: int, total: int, confidence: float) -> None:
    with pytest.raises(ValueError):
        wilson_interval(correct, total, confidence)


# --- mcnemar_exact ---------------------------------------------------------------------------

MCNEMAR_CASES = [
    (0, 0),
    (0, 1),
    (1, 0),
    (1, 1),
    (0, 5),
    (5, 0),
    (2, 3),
    (3, 9),
    (30, 12),
    (12, 30),
    (50, 50),
    (400, 380),
    (380, 400),
    (100, 160),
    (2000, 1900),
    (1900, 2000),
    (5000, 4700),
]


def _exact_reference(b: int, c: int) -> float:
    """2 * P(X <= min) for X ~ Binomial(b + c, 1/2), in rational arithmetic."""
    n, k = b + c, min(b, c)
    return float(min(Fraction(1), Fraction(2 * sum(math.comb(n, i) for i in range(k + 1)), 2**n)))


@pytest.mark.parametrize(("b", "c"), MCNEMAR_CASES)
def test_mcnemar_matches_statsmodels_and_scipy(b: int, c: int) -> None:
    p = mcnemar_exact(b, c)
    table = [[10, b], [c, 10]]  # the concordant cells do not enter the exact test
    assert p == pytest.approx(sm_mcnemar(table, exact=True).pvalue, rel=1e-9, abs=1e-300)
    if b + c > 0:
        binom_p = scipy_stats.binomtest(min(b, c), b + c, 0.5).pvalue
        assert p == pytest.approx(binom_p, rel=1e-9, abs=1e-300)
    else:
        assert p == 1.0


# (5000, 4700) is left to the statsmodels/scipy comparison: the rational reference takes seconds.
EXACT_CASES = [case for case in MCNEMAR_CASES if sum(case) < 5000] + [(10, 3000), (0, 1100)]


@pytest.mark.parametrize(("b", "c"), EXACT_CASES)
def test_mcnemar_is_exact_for_large_counts(b: int, c: int) -> None:
    # Exactly equal to the correctly rounded rational value, even where float terms underflow.
    assert mcnemar_exact(b, c) == _exact_reference(b, c)
    assert mcnemar_exact(b, c) == mcnemar_exact(c, b)


def test_mcnemar_balanced_counts_give_one() -> None:
    assert mcnemar_exact(5000, 4999) == mcnemar_exact(5000, 5000) == 1.0


def test_mcnemar_rejects_negative_counts() -> None:
    with pytest.raises(ValueError):
        mcnemar_exact(-1, 3)


# --- paired_bootstrap ------------------------------------------------------------------------


def _correlated_pair(n: int, seed: int) -> tuple[list[bool], list[bool]]:
    """Two models that agree on most samples, as real model pairs do."""
    rng = np.random.default_rng(seed)
    a = rng.random(n) < 0.8
    b = np.where(rng.random(n) < 0.12, ~a, a)
    return a.tolist(), b.tolist()


def test_bootstrap_defaults() -> None:
    params = inspect.signature(paired_bootstrap).parameters
    assert params["resamples"].default >= 10_000
    assert params["seed"].default == 0
    assert params["confidence"].default == 0.95


def test_bootstrap_is_deterministic_for_a_seed() -> None:
    a, b = _correlated_pair(500, seed=1)
    first = paired_bootstrap(a, b, seed=7)
    second = paired_bootstrap(a, b, seed=7)
    assert first == second
    assert repr(first) == repr(second)
    assert paired_bootstrap(a, b, seed=8) != first


def test_bootstrap_draws_exactly_the_distribution_of_resampled_samples() -> None:
    # The resampled sums come from a multinomial draw over the outcome classes; resampling the
    # samples themselves gives this exact distribution, enumerated here over all 6**6 index
    # tuples of a 6-sample comparison (2 both right, 2 only A, 1 only B, 1 neither).
    d = np.array([0, 0, 1, 1, -1, 0])
    exact: Counter[int] = Counter(
        int(sum(d[i] for i in row)) for row in itertools.product(range(6), repeat=6)
    )
    draws = 200_000
    sums = stats._resampled_sums(d, draws, seed=3)
    assert sums.dtype == np.int64 and sums.shape == (draws,)
    found = Counter(sums.tolist())
    assert set(found) <= set(exact)
    for total, ways in exact.items():
        p = ways / 6**6
        sigma = math.sqrt(draws * p * (1 - p))
        assert abs(found[total] - draws * p) <= 5 * sigma + 1, (total, found[total], draws * p)


def test_bootstrap_counts_and_accuracies() -> None:
    a = [True, True, False, False, True, False]
    b = [True, False, True, False, False, False]
    c = paired_bootstrap(a, b, resamples=500)
    assert (c.n, c.a_only, c.b_only) == (6, 2, 1)
    assert c.accuracy_a == pytest.approx(3 / 6)
    assert c.accuracy_b == pytest.approx(2 / 6)
    assert c.difference == pytest.approx(1 / 6)
    assert c.p_value == mcnemar_exact(2, 1)
    assert (c.resamples, c.seed, c.confidence) == (500, 0, 0.95)


@pytest.mark.parametrize("seed", range(5))
def test_bootstrap_ci_contains_observed_difference(seed: int) -> None:
    a, b = _correlated_pair(400, seed=seed)
    c = paired_bootstrap(a, b, seed=seed)
    assert c.ci_low <= c.difference <= c.ci_high


def test_bootstrap_identical_models() -> None:
    a, _ = _correlated_pair(200, seed=3)
    c = paired_bootstrap(a, a)
    assert c.difference == 0.0
    assert (c.ci_low, c.ci_high) == (0.0, 0.0)
    assert (c.a_only, c.b_only, c.p_value) == (0, 0, 1.0)
    assert not c.significant


def test_bootstrap_width_matches_analytic_paired_se() -> None:
    n = 1319
    a, b = _correlated_pair(n, seed=11)
    c = paired_bootstrap(a, b)
    d = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    analytic = 2 * 1.96 * math.sqrt(d.var(ddof=1) / n)
    assert (c.ci_high - c.ci_low) == pytest.approx(analytic, rel=0.10)


def test_bootstrap_interval_is_the_linear_quantile_of_the_resampled_means() -> None:
    # The interval computed by hand from the same resampled sums.
    n, resamples, seed, confidence = 23, 301, 5, 0.9
    a, b = _correlated_pair(n, seed=4)
    d = np.array([int(x) - int(y) for x, y in zip(a, b, strict=True)])
    means = (stats._resampled_sums(d, resamples, seed) / n).tolist()

    def linear_quantile(values: list[float], q: float) -> float:
        ordered = sorted(values)
        position = q * (len(ordered) - 1)
        below = math.floor(position)
        above = min(below + 1, len(ordered) - 1)
        return ordered[below] + (position - below) * (ordered[above] - ordered[below])

    c = paired_bootstrap(a, b, resamples=resamples, seed=seed, confidence=confidence)
    assert c.ci_low == pytest.approx(linear_quantile(means, 0.05), abs=1e-12)
    assert c.ci_high == pytest.approx(linear_quantile(means, 0.95), abs=1e-12)
    assert np.mean(means) == pytest.approx(c.difference, abs=0.02)


def test_bootstrap_agrees_with_index_resampling_at_scale() -> None:
    # The multinomial draw against the textbook one (indices drawn with replacement) on the
    # same data: the same interval up to Monte Carlo error.
    n = 5000
    a, b = _correlated_pair(n, seed=8)
    d = np.asarray(a, dtype=np.int64) - np.asarray(b, dtype=np.int64)
    rng = np.random.default_rng(99)
    by_index = (
        np.concatenate([d[rng.integers(0, n, size=(500, n))].sum(axis=1) for _ in range(8)]) / n
    )
    c = paired_bootstrap(a, b, resamples=4000, seed=1)
    low, high = np.quantile(by_index, [0.025, 0.975])
    assert c.ci_low == pytest.approx(low, abs=0.002)
    assert c.ci_high == pytest.approx(high, abs=0.002)


@pytest.mark.parametrize("confidence", [0.9, 0.95])
def test_bootstrap_agrees_with_scipy(confidence: float) -> None:
    a, b = _correlated_pair(1319, seed=21)
    c = paired_bootstrap(a, b, resamples=10_000, seed=0, confidence=confidence)
    ref = scipy_stats.bootstrap(
        (np.asarray(a, dtype=float), np.asarray(b, dtype=float)),
        lambda x, y, axis: x.mean(axis=axis) - y.mean(axis=axis),
        paired=True,
        vectorized=True,
        n_resamples=10_000,
        method="percentile",
        confidence_level=confidence,
        rng=np.random.default_rng(1),  # a different stream: only Monte Carlo agreement expected
    ).confidence_interval
    assert c.ci_low == pytest.approx(ref.low, abs=0.003)
    assert c.ci_high == pytest.approx(ref.high, abs=0.003)


def test_bootstrap_wider_at_higher_confidence() -> None:
    a, b = _correlated_pair(600, seed=9)
    narrow = paired_bootstrap(a, b, confidence=0.9)
    wide = paired_bootstrap(a, b, confidence=0.99)
    assert wide.ci_low < narrow.ci_low and narrow.ci_high < wide.ci_high


def test_bootstrap_is_fast_for_a_full_benchmark() -> None:
    a, b = _correlated_pair(3270, seed=5)
    timings = []
    for _ in range(2):  # best of two, so one hiccup on a busy machine does not fail the test
        start = time.perf_counter()
        paired_bootstrap(a, b, resamples=10_000)
        timings.append(time.perf_counter() - start)
    assert min(timings) < 1.0


@pytest.mark.parametrize(
    ("a", "b", "kwargs"),
    [
        ([True, False], [True], {}),
        ([], [], {}),
        ([True], [False], {"resamples": 0}),
        ([True], [False], {"confidence": 1.0}),
        ([[True]], [[False]], {}),
    ],
)
def test_bootstrap_rejects_bad_input(a: list, b: list, kwargs: dict) -> None:
    with pytest.raises(ValueError):
        paired_bootstrap(a, b, **kwargs)


# --- PairedComparison ------------------------------------------------------------------------


def _comparison(
    difference: float, ci: tuple[float, float], p: float, confidence: float = 0.95
) -> PairedComparison:
    return PairedComparison(
        n=1000,
        accuracy_a=0.7 + difference,
        accuracy_b=0.7,
        difference=difference,
        ci_low=ci[0],
        ci_high=ci[1],
        a_only=40,
        b_only=30,
        p_value=p,
        resamples=10_000,
        seed=0,
        confidence=confidence,
    )


@pytest.mark.parametrize(
    ("ci", "p", "expected"),
    [
        ((0.001, 0.03), 0.01, True),
        ((-0.03, -0.001), 0.049, True),
        ((-0.01, 0.03), 0.01, False),  # interval includes 0
        ((0.001, 0.03), 0.05, False),  # p not below alpha
        ((0.0, 0.03), 0.001, False),  # touching 0 is not excluding it
    ],
)
def test_significant_needs_both_tests(ci: tuple[float, float], p: float, expected: bool) -> None:
    assert _comparison(0.01, ci, p).significant is expected


def test_sentence_significant_below() -> None:
    c = _comparison(-0.021, (-0.039, -0.003), 0.021)
    assert c.sentence("qwen-w8a8", "qwen-bf16") == (
        "qwen-w8a8 is 2.10 pp below qwen-bf16 (95% CI -3.90 to -0.30 pp, McNemar p = 0.021): "
        "the difference is unlikely to be noise."
    )


def test_sentence_significant_above() -> None:
    c = _comparison(0.0345, (0.012, 0.057), 0.0004)
    assert c.sentence("a", "b") == (
        "a is 3.45 pp above b (95% CI +1.20 to +5.70 pp, McNemar p < 0.001): "
        "the difference is unlikely to be noise."
    )


def test_sentence_noise_when_interval_includes_zero() -> None:
    c = _comparison(0.004, (-0.012, 0.02), 0.41, confidence=0.9)
    assert c.sentence("a", "b") == (
        "a is 0.40 pp above b, which cannot be told apart from noise "
        "(90% CI -1.20 to +2.00 pp includes 0, McNemar p = 0.41)."
    )


def test_sentence_noise_when_mcnemar_disagrees() -> None:
    c = _comparison(-0.01, (-0.02, -0.001), 0.07)
    assert c.sentence("a", "b") == (
        "a is 1.00 pp below b, which cannot be told apart from noise "
        "(95% CI -2.00 to -0.10 pp, but McNemar p = 0.070 is not below 0.05)."
    )


def test_sentence_tie_and_negative_zero() -> None:
    c = _comparison(-0.000001, (-0.00001, 0.01), 1.0)
    assert c.sentence("a", "b") == (
        "a scores the same as b, which cannot be told apart from noise "
        "(95% CI +0.00 to +1.00 pp includes 0, McNemar p = 1.00)."
    )


def test_sentence_from_real_bootstrap() -> None:
    a, b = _correlated_pair(1319, seed=21)
    c = paired_bootstrap(a, b)
    assert c.significant
    assert c.sentence("x", "y").startswith(f"x is {100 * c.difference:.2f} pp above y (95% CI +")


# --- budget_curve ----------------------------------------------------------------------------

HAND_MADE = [
    [(True, 900)],
    [(False, 2048), (True, 5000)],
    [(False, 300)],
    [(True, None)],
    [],
]


def test_budget_curve_hand_made() -> None:
    assert budget_curve(HAND_MADE, [512, 1024, 2048, 4096, 8192]) == [0, 1, 1, 1, 2]


def test_budget_curve_is_inclusive_and_keeps_budget_order() -> None:
    assert budget_curve(HAND_MADE, [900, 899, 5000, 4999]) == [1, 0, 2, 1]
    assert budget_curve(HAND_MADE, []) == []
    assert budget_curve([], [512, 1024]) == [0, 0]


def test_budget_curve_uses_shortest_correct_attempt() -> None:
    samples = [[(True, 4000), (False, 100), (True, 700), (True, None)]]
    assert budget_curve(samples, [600, 700, 4000]) == [0, 1, 1]


def test_budget_curve_is_monotone_on_random_data() -> None:
    rng = np.random.default_rng(0)
    samples = [
        [
            (bool(rng.random() < 0.5), None if rng.random() < 0.1 else int(rng.integers(1, 10_000)))
            for _ in range(int(rng.integers(0, 4)))
        ]
        for _ in range(500)
    ]
    budgets = list(range(0, 10_001, 250))
    curve = budget_curve(samples, budgets)
    assert all(x <= y for x, y in itertools.pairwise(curve))
    # Brute force for every budget.
    for budget, count in zip(budgets, curve, strict=True):
        expected = sum(
            any(ok and tokens is not None and tokens <= budget for ok, tokens in attempts)
            for attempts in samples
        )
        assert count == expected


# --- percentiles -----------------------------------------------------------------------------


def test_percentiles_match_numpy() -> None:
    values = np.random.default_rng(3).lognormal(size=257).tolist()
    qs = (0, 50, 90, 99, 99.9, 100)
    result = percentiles(values, qs)
    assert list(result) == ["p0", "p50", "p90", "p99", "p99.9", "p100"]
    for q in qs:
        assert result[f"p{q:g}"] == np.percentile(values, q, method="linear")


def test_percentiles_defaults_and_edge_cases() -> None:
    assert percentiles([]) == {"p50": None, "p90": None, "p99": None}
    assert percentiles([4.0]) == {"p50": 4.0, "p90": 4.0, "p99": 4.0}
    result = percentiles([1, 2, 3, 4, 5])
    assert result == {"p50": 3.0, "p90": pytest.approx(4.6), "p99": pytest.approx(4.96)}
    assert all(type(value) is float for value in result.values())
