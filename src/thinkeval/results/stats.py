"""The statistics behind model comparisons.

Everything a report says about "A versus B" comes from here: a Wilson interval for one accuracy,
an exact McNemar test and a paired bootstrap for the difference between two models scored on the
same samples, the accuracy-versus-budget curve, and latency percentiles.

Only numpy is needed at runtime; the tests check each function against scipy and statsmodels.
Every result is deterministic for its inputs (and seed), so a report rendered twice is identical
byte for byte.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

# The clustered bootstrap draws its index matrix in chunks of about this many entries, so memory
# stays near 16 MiB whatever the question count or number of resamples.
_CHUNK_ELEMENTS = 1 << 21


def _check_confidence(confidence: float) -> None:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence!r}")


def _two_sided_z(confidence: float) -> float:
    """The normal quantile that leaves (1 - confidence) / 2 in each tail."""
    return NormalDist().inv_cdf(1.0 - (1.0 - confidence) / 2.0)


def wilson_interval(correct: int, total: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for the proportion `correct / total`.

    Unlike the normal ("Wald") interval it stays inside [0, 1] and keeps a sensible width at
    accuracies of 0% or 100%. With `total == 0` there is no estimate at all, so both bounds are
    `nan` rather than a made-up (0, 1): a caller that forgets the empty case then shows "nan"
    instead of a confident-looking interval.

    >>> low, high = wilson_interval(81, 100)
    >>> round(low, 4), round(high, 4)
    (0.7222, 0.8749)
    >>> wilson_interval(0, 0)
    (nan, nan)
    """
    if total < 0 or not 0 <= correct <= total:
        raise ValueError(f"need 0 <= correct <= total, got correct={correct}, total={total}")
    _check_confidence(confidence)
    if total == 0:
        return (math.nan, math.nan)
    z = _two_sided_z(confidence)
    p = correct / total
    z2_n = z * z / total
    denom = 1.0 + z2_n
    center = (p + z2_n / 2.0) / denom
    half = z * math.sqrt(p * (1.0 - p) / total + z2_n / (4.0 * total)) / denom
    # At correct == 0 (or == total) the lower (upper) bound is exactly 0 (1) in real arithmetic;
    # set it outright, since center - half leaves rounding residue such as 2e-19.
    low = 0.0 if correct == 0 else max(0.0, center - half)
    high = 1.0 if correct == total else min(1.0, center + half)
    return (low, high)


def mcnemar_exact(a_only: int, b_only: int) -> float:
    """Exact two-sided McNemar p-value from the discordant counts.

    Under the null hypothesis each discordant sample is equally likely to favour either model,
    so min(a_only, b_only) is Binomial(a_only + b_only, 1/2) and the two-sided p-value is
    `min(1, 2 * P(X <= min))`. With no discordant samples there is no evidence either way: 1.0.

    The tail is summed in exact integer arithmetic and divided once, so the result is the
    correctly rounded float even for thousands of discordant samples, where float binomial
    terms would underflow.

    >>> mcnemar_exact(0, 5)
    0.0625
    >>> mcnemar_exact(0, 0)
    1.0
    """
    if a_only < 0 or b_only < 0:
        raise ValueError(f"discordant counts must be >= 0, got {a_only} and {b_only}")
    n = a_only + b_only
    k = min(a_only, b_only)
    if 2 * k >= n - 1:
        # The lower tail holds at least half the mass (counts equal or one apart): p is 1.
        return 1.0
    term = 1  # comb(n, 0), updated in place to comb(n, i) to avoid k separate comb() calls
    tail = 1
    for i in range(k):
        term = term * (n - i) // (i + 1)
        tail += term
    # 2 * tail / 2**n, as one correctly rounded big-integer division.
    return min(1.0, tail / (1 << (n - 1)))


def _format_points(value: float, signed: bool) -> str:
    # Round before formatting so that a tiny negative number prints as "+0.00", not "-0.00".
    rounded = round(value, 2) + 0.0
    return f"{rounded:+.2f}" if signed else f"{rounded:.2f}"


def _format_p(p: float) -> str:
    if p < 0.001:
        return "p < 0.001"
    # Three decimals near the usual thresholds (0.021, 0.050), two elsewhere (0.41, 1.00).
    return f"p = {p:.3f}" if p < 0.1 else f"p = {p:.2f}"


@dataclass(frozen=True)
class PairedComparison:
    """Model A against model B on the same `n` samples.

    Accuracies and the difference are proportions (0.021 means 2.1 percentage points);
    `difference` is `accuracy_a - accuracy_b`, so it is negative when A is worse.
    """

    n: int
    accuracy_a: float
    accuracy_b: float
    difference: float
    ci_low: float  # paired bootstrap percentile interval of `difference`
    ci_high: float
    a_only: int  # samples A got right and B got wrong
    b_only: int  # samples A got wrong and B got right
    p_value: float  # exact McNemar test on a_only and b_only
    resamples: int
    seed: int
    confidence: float

    @property
    def alpha(self) -> float:
        """The significance level, `1 - confidence`.

        >>> PairedComparison(10, 0.5, 0.5, 0.0, 0.0, 0.0, 0, 0, 1.0, 100, 0, 0.95).alpha
        0.05
        """
        # Rounded so that 0.95 gives 0.05 and not 0.050000000000000044.
        return round(1.0 - self.confidence, 12)

    @property
    def ci_excludes_zero(self) -> bool:
        """Whether the bootstrap interval lies entirely above or entirely below 0.

        >>> c = PairedComparison(10, 0.6, 0.5, 0.1, 0.02, 0.18, 2, 1, 0.5, 100, 0, 0.95)
        >>> c.ci_excludes_zero
        True
        """
        return self.ci_low > 0.0 or self.ci_high < 0.0

    @property
    def significant(self) -> bool:
        """True when both tests agree the difference is real.

        That is, the bootstrap interval excludes 0 *and* the McNemar p-value is below `alpha`.
        Requiring both keeps a borderline case, where one test passes and the other does not,
        from being reported as a difference.

        >>> PairedComparison(10, 0.5, 0.5, 0.0, 0.0, 0.0, 0, 0, 1.0, 100, 0, 0.95).significant
        False
        """
        return self.ci_excludes_zero and self.p_value < self.alpha

    def sentence(self, name_a: str, name_b: str) -> str:
        """One plain English sentence for a report.

        The gap is in percentage points with two decimals; the interval bounds carry an explicit
        sign ("+0.40", "-3.90") so their direction reads at a glance.

        >>> c = PairedComparison(1000, 0.70, 0.721, -0.021, -0.039, -0.003, 10, 31,
        ...                      0.0014, 10_000, 0, 0.95)
        >>> c.sentence("qwen-w8a8", "qwen-bf16")  # doctest: +NORMALIZE_WHITESPACE
        'qwen-w8a8 is 2.10 pp below qwen-bf16 (95% CI -3.90 to -0.30 pp, McNemar p = 0.001):
        the difference is unlikely to be noise.'
        """
        points = 100.0 * self.difference
        gap = _format_points(abs(points), signed=False)
        if gap == "0.00":
            head = f"{name_a} scores the same as {name_b}"
        else:
            head = f"{name_a} is {gap} pp {'above' if points > 0 else 'below'} {name_b}"
        ci = (
            f"{100.0 * self.confidence:g}% CI {_format_points(100.0 * self.ci_low, True)} to "
            f"{_format_points(100.0 * self.ci_high, True)} pp"
        )
        p = f"McNemar {_format_p(self.p_value)}"
        if self.significant:
            return f"{head} ({ci}, {p}): the difference is unlikely to be noise."
        if not self.ci_excludes_zero:
            evidence = f"{ci} includes 0, {p}"
        else:
            evidence = f"{ci}, but McNemar {_format_p(self.p_value)} is not below {self.alpha:g}"
        return f"{head}, which cannot be told apart from noise ({evidence})."


def _resampled_sums(d: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    """Sum of `d` (values in {-1, 0, 1}) over each of `resamples` bootstrap resamples (int64).

    A resample draws `n` samples with replacement, and the sum only depends on how many of the
    draws fall in each outcome class (both right or neither: 0, only A: +1, only B: -1). Those
    counts are multinomial with the classes' shares as probabilities, so drawing them directly
    gives exactly the distribution of resampling indices, in O(resamples) instead of
    O(resamples * n) (at n = 100,000: milliseconds instead of seconds). Integer sums keep the
    result exactly reproducible.
    """
    n = d.shape[0]
    classes = np.array(
        [np.count_nonzero(d == 1), np.count_nonzero(d == -1), np.count_nonzero(d == 0)]
    )
    draws = np.random.default_rng(seed).multinomial(n, classes / n, size=resamples)
    return (draws[:, 0] - draws[:, 1]).astype(np.int64)


def paired_bootstrap(
    a: Sequence[bool],
    b: Sequence[bool],
    resamples: int = 10_000,
    seed: int = 0,
    confidence: float = 0.95,
) -> PairedComparison:
    """Compare two models scored on the same samples, in the same order.

    `a[i]` and `b[i]` say whether model A and model B got sample `i` right. The interval is a
    percentile bootstrap of the accuracy difference that resamples *samples*, keeping each
    sample's pair of verdicts together: the two models share the questions, and ignoring that
    pairing would make the interval far too wide. The p-value is the exact McNemar test.

    The result depends only on the inputs and `seed`.

    >>> c = paired_bootstrap([True, True, False, True], [True, False, False, False], resamples=200)
    >>> c.difference, c.a_only, c.b_only, c.p_value
    (0.5, 2, 0, 0.5)
    """
    verdicts_a = np.asarray(a, dtype=bool)
    verdicts_b = np.asarray(b, dtype=bool)
    if verdicts_a.ndim != 1 or verdicts_b.ndim != 1:
        raise ValueError("a and b must be flat sequences of booleans, one per sample")
    if verdicts_a.shape != verdicts_b.shape:
        raise ValueError(
            f"a has {verdicts_a.shape[0]} samples but b has {verdicts_b.shape[0]}: "
            "compare the two models on the same samples, in the same order"
        )
    n = int(verdicts_a.shape[0])
    if n == 0:
        raise ValueError("cannot compare models on zero samples")
    if resamples < 1:
        raise ValueError(f"resamples must be >= 1, got {resamples}")
    _check_confidence(confidence)

    # Per-sample difference in {-1, 0, 1}: the mean of d is the accuracy difference.
    d = verdicts_a.astype(np.int8) - verdicts_b.astype(np.int8)
    a_only = int(np.count_nonzero(d == 1))
    b_only = int(np.count_nonzero(d == -1))
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(_resampled_sums(d, resamples, seed) / n, [tail, 1.0 - tail])
    return PairedComparison(
        n=n,
        accuracy_a=int(np.count_nonzero(verdicts_a)) / n,
        accuracy_b=int(np.count_nonzero(verdicts_b)) / n,
        difference=(a_only - b_only) / n,
        ci_low=float(low),
        ci_high=float(high),
        a_only=a_only,
        b_only=b_only,
        p_value=mcnemar_exact(a_only, b_only),
        resamples=resamples,
        seed=seed,
        confidence=confidence,
    )


def budget_curve(
    attempts_per_sample: Sequence[Sequence[tuple[bool, int | None]]],
    budgets: Sequence[int],
) -> list[int]:
    """How many samples count as correct at each completion-token budget.

    `attempts_per_sample[i]` lists sample `i`'s attempts as `(correct, completion_tokens)`. A
    sample counts at budget `b` when one of its correct attempts finished within `b` completion
    tokens. This rests on one assumption: decoding is deterministic, so a run with a smaller
    budget repeats the same prefix, and a reply that finished in `t` tokens under a larger budget
    would have finished identically under any budget `>= t`. One run therefore answers every
    smaller budget without re-querying the model.

    An attempt whose `completion_tokens` is None (the server did not report usage) never counts:
    without its length we cannot say at which budgets it would have finished, and counting it
    everywhere would overstate small budgets.

    Counts are returned in the order of `budgets` (divide by the sample count for accuracy). For
    sorted budgets they never decrease.

    >>> samples = [[(True, 900)], [(False, 300)], [(False, 2048), (True, 5000)]]
    >>> budget_curve(samples, [512, 1024, 8192])
    [0, 1, 2]
    """
    first_correct = sorted(
        min(tokens for correct, tokens in attempts if correct and tokens is not None)
        for attempts in attempts_per_sample
        if any(correct and tokens is not None for correct, tokens in attempts)
    )
    # For each budget, the number of samples whose shortest correct attempt is <= the budget.
    counts = np.searchsorted(np.asarray(first_correct, dtype=np.int64), budgets, side="right")
    return [int(count) for count in counts]


def percentiles(
    values: Sequence[float], qs: Sequence[float] = (50, 90, 99)
) -> dict[str, float | None]:
    """Percentiles of `values`, keyed "p50", "p90", "p99.9" and so on.

    Uses numpy's default "linear" interpolation. With no values every entry is None, so a report
    can show a dash instead of failing.

    >>> percentiles([1.0, 2.0, 3.0, 4.0], qs=(50, 90))
    {'p50': 2.5, 'p90': 3.7}
    >>> percentiles([])
    {'p50': None, 'p90': None, 'p99': None}
    """
    keys = [f"p{q:g}" for q in qs]
    if len(values) == 0:
        return dict.fromkeys(keys)
    result = np.percentile(np.asarray(values, dtype=float), list(qs), method="linear")
    return {key: float(value) for key, value in zip(keys, result, strict=True)}


@dataclass(frozen=True)
class ClusteredMeans:
    """Means of per-question values with percentile bootstrap intervals that resample
    questions: `means[j]`, `lows[j]`, `highs[j]` for column `j` of the values."""

    means: tuple[float, ...]
    lows: tuple[float, ...]
    highs: tuple[float, ...]
    questions: int
    resamples: int
    seed: int
    confidence: float


def cluster_bootstrap(
    values: Sequence[Sequence[float]],
    resamples: int = 10_000,
    seed: int = 0,
    confidence: float = 0.95,
) -> ClusteredMeans:
    """Means of the columns of `values` (one row per question) with bootstrap intervals.

    Each resample draws questions with replacement and keeps every value of a drawn question,
    so replies to the same question (repeats, which are correlated) are never treated as
    independent: the interval is clustered by question. All columns share the same resamples.
    With no questions every number is `nan`.

    >>> result = cluster_bootstrap([[1.0], [0.0], [0.5], [1.0]], resamples=500)
    >>> result.means, result.lows[0] < 0.625 < result.highs[0]
    ((0.625,), True)
    """
    _check_confidence(confidence)
    if resamples < 1:
        raise ValueError(f"resamples must be >= 1, got {resamples}")
    table = np.asarray(values, dtype=float)
    if table.ndim != 2:
        raise ValueError("values must be one row of numbers per question")
    n, columns = table.shape
    if n == 0:
        nans = (math.nan,) * columns
        return ClusteredMeans(nans, nans, nans, 0, resamples, seed, confidence)
    rng = np.random.default_rng(seed)
    rows_per_chunk = max(1, (_CHUNK_ELEMENTS // 8) // (n * columns))
    sums = np.empty((resamples, columns))
    for start in range(0, resamples, rows_per_chunk):
        rows = min(rows_per_chunk, resamples - start)
        idx = rng.integers(0, n, size=(rows, n))
        sums[start : start + rows] = table[idx].sum(axis=1)
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(sums / n, [tail, 1.0 - tail], axis=0)
    return ClusteredMeans(
        means=tuple(float(x) for x in table.mean(axis=0)),
        lows=tuple(float(x) for x in low),
        highs=tuple(float(x) for x in high),
        questions=n,
        resamples=resamples,
        seed=seed,
        confidence=confidence,
    )
