"""Repeated-sampling metrics: pass@k, maj@k, the interval clustered by question, paired
comparisons over questions."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import scipy.stats
import statsmodels.api as sm

from thinkeval.results.repeats import (
    compare_per_question,
    group_answers,
    group_votes,
    majority_credit,
    pass_at_k,
    pass_ks,
    phase_repeats,
    question_phase,
)
from thinkeval.results.stats import cluster_bootstrap, wilson_interval
from thinkeval.scoring.kinds import make_kind


@pytest.mark.parametrize("n", range(1, 9))
def test_pass_at_k_equals_brute_force_enumeration(n: int) -> None:
    for c in range(n + 1):
        replies = [True] * c + [False] * (n - c)
        for k in range(1, n + 1):
            subsets = list(itertools.combinations(range(n), k))
            expected = sum(any(replies[i] for i in subset) for subset in subsets) / len(subsets)
            assert pass_at_k(n, c, k) == pytest.approx(expected, abs=1e-12), (n, c, k)


def test_pass_at_k_stays_exact_for_large_n() -> None:
    # math.comb directly, as a second reference where enumeration is out of reach.
    for n, c, k in [(64, 3, 16), (200, 1, 100), (1000, 10, 1)]:
        expected = 1 - math.comb(n - c, k) / math.comb(n, k)
        assert pass_at_k(n, c, k) == pytest.approx(expected, rel=1e-9)
    with pytest.raises(ValueError):
        pass_at_k(4, 5, 1)


def test_reported_pass_ks() -> None:
    assert pass_ks(1) == [1] and pass_ks(4) == [1, 2, 4] and pass_ks(10) == [1, 2, 4, 8, 10]


def test_majority_ties_split_the_credit() -> None:
    assert majority_credit([True, True, False], [0, 0, 1]) == 1.0
    assert majority_credit([False, False, True], [0, 0, 1]) == 0.0
    assert majority_credit([True, False], [0, 1]) == 0.5
    assert majority_credit([True, False, False, True], [0, 1, 2, 0]) == 1.0
    # Three answers tie with one vote each, one of them right: a third of the credit.
    assert majority_credit([False, True, False], [0, 1, 2]) == pytest.approx(1 / 3)
    assert majority_credit([True, True, False, False], [0, 0, 1, 1]) == 0.5


def test_only_replies_with_a_final_answer_vote() -> None:
    outcomes = [
        ("correct", "12"),
        ("empty", None),
        ("unfinished", None),
        ("no_answer", None),
        ("error", None),
        None,  # pending
        ("wrong", "7"),
        ("wrong", "7"),
    ]
    phase = question_phase(outcomes)
    assert phase.solved == 1
    assert phase.votes.answers == ["12", "7", "7"] and phase.votes.correct == [True, False, False]
    group_votes(make_kind("number"), [phase])
    assert phase.majority == 0.0 and not phase.tie
    nobody = question_phase([("empty", None), ("unfinished", None), None, ("no_answer", None)])
    group_votes(make_kind("number"), [nobody])
    assert nobody.majority == 0.0 and nobody.votes.answers == []
    half = question_phase([("correct", "1")] * 2 + [None] * 2)
    group_votes(make_kind("number"), [half])
    metrics = phase_repeats(4, [nobody, half])
    assert metrics.no_vote == 1 and metrics.maj.value == 0.5 and metrics.solved == [1, 0, 1, 0, 0]


def test_equivalent_answers_are_one_vote() -> None:
    math = make_kind("math")
    assert group_answers(math, ["0.5", "\\frac12", "\\dfrac{1}{2}", "2", "1/2"]) == [0, 0, 0, 1, 0]
    phases = [
        question_phase([("correct", "\\frac{1}{2}"), ("correct", "0.5"), ("wrong", "2"),
                        ("wrong", "3")]),
        question_phase([("wrong", "25"), ("wrong", "025"), ("correct", "24"), ("wrong", "x")]),
    ]  # fmt: skip
    group_votes(math, phases)  # pooled: grouped in scoring workers
    assert phases[0].groups == [0, 0, 1, 2] and phases[0].majority == 1.0
    assert phases[1].groups == [0, 0, 1, 2] and phases[1].majority == 0.0


def _correlated(questions: int, k: int, seed: int) -> np.ndarray:
    """0/1 outcomes, k per question, strongly correlated within a question."""
    rng = np.random.default_rng(seed)
    difficulty = rng.beta(0.6, 0.6, size=questions)
    return (rng.random((questions, k)) < difficulty[:, None]).astype(float)


def test_clustered_interval_matches_reference_computations() -> None:
    outcomes = _correlated(400, 4, seed=1)
    per_question = outcomes.mean(axis=1)
    ours = cluster_bootstrap([[x] for x in per_question], resamples=20_000, seed=3)
    # Reference 1: the cluster-robust standard error of the mean (regression on a constant
    # with errors clustered by question), normal interval.
    y = outcomes.ravel()
    groups = np.repeat(np.arange(len(per_question)), outcomes.shape[1])
    fit = sm.OLS(y, np.ones_like(y)).fit(cov_type="cluster", cov_kwds={"groups": groups})
    half = 1.959964 * float(fit.bse[0])
    assert ours.means[0] == pytest.approx(float(fit.params[0]))
    assert ours.highs[0] - ours.lows[0] == pytest.approx(2 * half, rel=0.06)
    # Reference 2: scipy's percentile bootstrap over the per-question means.
    reference = scipy.stats.bootstrap(
        (per_question,), np.mean, n_resamples=20_000, method="percentile",
        random_state=np.random.default_rng(5),
    ).confidence_interval  # fmt: skip
    assert ours.lows[0] == pytest.approx(reference.low, abs=0.006)
    assert ours.highs[0] == pytest.approx(reference.high, abs=0.006)
    # Treating the 1600 replies as independent would give a far narrower interval.
    low, high = wilson_interval(int(y.sum()), len(y))
    assert high - low < 0.7 * (ours.highs[0] - ours.lows[0])


def test_paired_comparison_resamples_questions() -> None:
    a = _correlated(300, 4, seed=7).mean(axis=1)
    b = np.clip(a - 0.1 + 0.05 * np.random.default_rng(9).standard_normal(300), 0, 1)
    paired = compare_per_question(list(a), list(b))
    assert paired.value == pytest.approx(float(np.mean(a - b)))
    assert paired.low > 0  # the models differ on the same questions
    # Unpaired (each model's interval on its own) would hide it: the intervals overlap.
    alone_a = cluster_bootstrap([[x] for x in a])
    alone_b = cluster_bootstrap([[x] for x in b])
    assert alone_b.highs[0] > alone_a.lows[0]
    with pytest.raises(ValueError, match="compare the same ones"):
        compare_per_question([1.0], [1.0, 0.0])


def test_the_bootstrap_is_deterministic() -> None:
    values = [[x, 1 - x] for x in _correlated(50, 2, seed=2).mean(axis=1)]
    assert cluster_bootstrap(values, seed=4) == cluster_bootstrap(values, seed=4)
