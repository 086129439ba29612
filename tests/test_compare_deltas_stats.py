"""The statistics behind censoring bounds, truncation parity, the noise floor and the paired
behaviour deltas, against answers computed independently (by hand, by enumeration, scipy and
statsmodels)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import scipy.stats
from statsmodels.stats.proportion import proportion_confint

from thinkeval.diagnosis.reply import LABELS
from thinkeval.results.censoring import censored
from thinkeval.results.compare import family
from thinkeval.results.compare_behaviour import behaviour, length_ratio, strata, t_quantile
from thinkeval.results.compare_model import Margin, PhaseComparison
from thinkeval.results.compare_noise import clustered_wilson, floor_mde, noise_floor, repeat_flips
from thinkeval.results.compare_parity import truncation_parity
from thinkeval.results.counts import OutcomeCounts

CORRECT, WRONG, EMPTY, UNFINISHED = 0, 1, 3, 4


def test_censored_bounds_count_unfinished_wrong_then_right() -> None:
    # 50 units: 30 correct, 5 wrong, 2 no answer, 6 empty, 4 unfinished, 2 errors, 1 pending.
    counts = OutcomeCounts(correct=30, wrong=5, no_answer=2, empty=6, unfinished=4, error=2,
                           pending=1)  # fmt: skip
    found = censored(counts, 50)
    assert (found.lower, found.upper) == (30 / 50, 40 / 50)
    assert found.unfinished == 10 and found.finished == 37
    assert found.finished_accuracy == pytest.approx(30 / 37)
    assert censored(OutcomeCounts(empty=3), 3).finished_accuracy is None


def test_parity_flags_a_gap_whose_interval_excludes_zero_and_refuses_past_the_declared_one() -> (
    None
):
    base = np.zeros((200, 1), dtype=np.int8)  # every reply correct
    cand = base.copy()
    cand[:30, 0] = EMPTY  # 15% more cut off, none fewer
    parity = truncation_parity(base, cand)
    assert (parity.baseline_rate, parity.candidate_rate) == (0.0, 0.15)
    assert parity.gap == pytest.approx(0.15) and parity.low > 0 and parity.differs
    assert not parity.refused
    assert truncation_parity(base, cand, max_gap=0.10).refused
    assert not truncation_parity(base, cand, max_gap=0.20).refused
    # Fewer cut off refuses too: the budget flatters the candidate then.
    assert truncation_parity(cand, base, max_gap=0.10).refused
    # Bounds: the candidate's 30 empty replies could all have been right.
    assert (parity.candidate.lower, parity.candidate.upper) == (0.85, 1.0)
    assert parity.candidate.finished_accuracy == 1.0


def test_parity_of_equal_rates_is_not_flagged() -> None:
    rng = np.random.default_rng(3)
    codes = np.where(rng.random((300, 1)) < 0.1, UNFINISHED, CORRECT).astype(np.int8)
    parity = truncation_parity(codes, codes)
    assert parity.gap == 0 and parity.low < 0 < parity.high and not parity.differs


@pytest.mark.parametrize("k", [2, 3, 4, 6])
def test_repeat_flips_equal_enumerating_every_pair_of_repeats(k: int) -> None:
    rng = np.random.default_rng(k)
    correct = rng.random((40, k)) < 0.6
    expected = [
        np.mean([row[r] != row[s] for r, s in itertools.combinations(range(k), 2)])
        for row in correct
    ]
    assert repeat_flips(correct) == pytest.approx(expected)


def test_clustered_wilson_is_wilson_for_independent_units_and_shrinks_n_for_clusters() -> None:
    shares = np.array([1.0] * 7 + [0.0] * 193)
    low, high, deff = clustered_wilson(shares, 1, 0.90)
    expected = proportion_confint(7, 200, alpha=0.10, method="wilson")
    assert deff == pytest.approx(1.0) and (low, high) == pytest.approx(expected)
    # Four units per question that always agree: 800 units carry only 200 questions' worth.
    low4, high4, deff4 = clustered_wilson(shares, 4, 0.90)
    assert deff4 == pytest.approx(4.0) and (low4, high4) == pytest.approx(expected)


def test_floor_mde_adds_the_between_run_variance_in_quadrature() -> None:
    se, d, se_aa = 0.012, 0.025, 0.010
    tau, mde = floor_mde(se, d, se_aa)
    assert tau == pytest.approx(math.sqrt(d**2 - se_aa**2))
    z = scipy.stats.norm.ppf(0.975) + scipy.stats.norm.ppf(0.8)
    assert mde == pytest.approx(z * math.sqrt(se**2 + tau**2))
    # An A/A difference within its own sampling error adds nothing.
    assert floor_mde(se, 0.005, 0.010) == pytest.approx((0.0, z * se))


def test_noise_floor_from_an_aa_copy_and_from_repeats() -> None:
    rng = np.random.default_rng(5)
    base = rng.random((300, 1)) < 0.7
    copy = base.copy()
    copy[:12, 0] = ~copy[:12, 0]  # the deployment flips 4%
    cand = base.copy()
    cand[:30, 0] = ~cand[:30, 0]  # the candidate flips 10%
    floor = noise_floor(base, cand, copy, "bf16-again", se=0.02)
    assert floor is not None and floor.source == "A/A copy bf16-again"
    assert floor.flip_rate == pytest.approx(0.04) and floor.candidate_flip_rate == 0.1
    assert floor.excess == pytest.approx(0.06) and floor.excess_low > 0
    assert floor.aa_difference == pytest.approx(float(copy.mean() - base.mean()))
    assert floor.mde_with_floor is not None and floor.between_runs is not None
    # Without a copy and with one reply per question there is no floor; with repeats, pairs.
    assert noise_floor(base, cand, None, None, 0.02) is None
    repeated = rng.random((50, 4)) < 0.5
    from_repeats = noise_floor(repeated, repeated, None, None, 0.02)
    assert from_repeats is not None and from_repeats.source == "repeats"
    assert from_repeats.units == 50 * 6 and from_repeats.mde_with_floor is None


@pytest.mark.parametrize("df", [5, 8, 12, 29, 60, 200])
@pytest.mark.parametrize("p", [0.9, 0.95, 0.975])
def test_t_quantile_matches_scipy(df: int, p: float) -> None:
    assert t_quantile(p, df) == pytest.approx(scipy.stats.t.ppf(p, df), abs=0.002)


def test_length_ratio_is_the_paired_t_interval_of_log_ratios() -> None:
    rng = np.random.default_rng(11)
    base = rng.integers(100, 3000, size=(60, 1))
    cand = (base * rng.lognormal(0.2, 0.3, size=(60, 1))).astype(int)
    found = length_ratio(base, cand, "reasoning tokens", 0.90)
    logs = np.log((cand[:, 0] + 1) / (base[:, 0] + 1))
    low, high = scipy.stats.t.interval(0.90, 59, loc=logs.mean(), scale=scipy.stats.sem(logs))
    assert found is not None and found.ratio == pytest.approx(math.exp(logs.mean()))
    assert (found.low, found.high) == pytest.approx((math.exp(low), math.exp(high)), rel=1e-3)
    # A question either side did not report is left out.
    base[0, 0] = -1
    assert length_ratio(base, cand, "reasoning tokens", 0.9).questions == 59  # type: ignore[union-attr]


def test_strata_by_the_baseline_s_solve_rate() -> None:
    assert [name for name, _ in strata(np.array([1.0, 0.0, 1.0]), 1)] == [
        "baseline right", "baseline not right",
    ]  # fmt: skip
    found = strata(np.array([1.0, 0.5, 0.0, 0.25, 1.0]), 4)
    assert [(name, int(mask.sum())) for name, mask in found] == [
        ("solved every repeat", 2), ("solved some", 2), ("solved none", 1),
    ]  # fmt: skip


def test_behaviour_rates_are_paired_differences_of_label_shares() -> None:
    loop = LABELS.index("loop")
    n = 100
    b_labels = np.full((n, 1), -1)
    c_labels = np.full((n, 1), -1)
    c_labels[:20, 0] = loop  # the candidate loops on 20 questions the baseline got right
    b_labels[90:, 0] = loop  # the baseline on 10 it got wrong
    solved = np.array([1.0] * 80 + [0.0] * 20)
    lengths = np.full((n, 1), 500)
    found = behaviour((lengths, lengths * 2), "reasoning tokens", (b_labels, c_labels), solved)
    every, right, wrong = found
    assert [s.stratum for s in found] == ["all", "baseline right", "baseline not right"]
    loops = {s.stratum: s.rates[0] for s in found}
    assert loops["all"].difference == pytest.approx(0.10)
    assert loops["baseline right"].difference == pytest.approx(20 / 80)
    assert loops["baseline not right"].difference == pytest.approx(-10 / 20)
    assert every.length is not None and every.length.ratio == pytest.approx(1001 / 501)
    assert right.questions == 80 and wrong.questions == 20


def _row(task: str, decision: str, p_holm: float) -> PhaseComparison:
    return PhaseComparison(
        task=task, phase="adaptive", questions=100, asked=100, repeats=1, baseline=None,
        candidate=None, difference=0.0, low=-0.01, high=0.01, se=0.01, recovery=None,
        recovery_low=None, recovery_high=None, margin=Margin(points=0.01),
        decision=decision,  # type: ignore[arg-type]
        p_noninferior=0.5, p_inferior=p_holm, p_equivalent=0.5, p_inferior_holm=p_holm,
        settle=None, test="McNemar exact", p_value=1.0, significant=False, mde=0.03,
        disagreement=0.0, questions_needed=None, smallest_margin=0.03, flips=None,
        noise_floor=None,
    )  # fmt: skip


def test_a_refused_task_refuses_every_claim_but_inferiority_elsewhere() -> None:
    refused = family([_row("gsm8k", "refused", 0.01), _row("boolq", "equivalent", 0.9)], "x")
    assert refused.decision == "refused" and "gsm8k" in refused.reason
    # A refused row's own small p does not make the family inferior; another task's does.
    inferior = family([_row("gsm8k", "refused", 0.5), _row("boolq", "inferior", 0.01)], "x")
    assert inferior.decision == "inferior" and "boolq" in inferior.reason


def test_the_clustered_floor_interval_covers_where_treating_pairs_as_independent_does_not() -> None:
    # Questions of Beta(2, 5) difficulty, four repeats each: the pairs of one question's repeats
    # are correlated, so a plain Wilson interval over the 6 n pairs is too narrow.
    rng = np.random.default_rng(0)
    a, b, n, k, sims = 2.0, 5.0, 150, 4, 400
    mean, square = a / (a + b), a * (a + 1) / ((a + b) * (a + b + 1))
    truth = 2 * (mean - square)  # E[2 p (1 - p)]: the expected share of differing pairs
    clustered = plain = 0
    for _ in range(sims):
        p = rng.beta(a, b, n)
        shares = repeat_flips(rng.random((n, k)) < p[:, None])
        low, high, _ = clustered_wilson(shares, 6, 0.90)
        clustered += low <= truth <= high
        pairs = 6 * n
        low, high = proportion_confint(round(shares.mean() * pairs), pairs, 0.10, "wilson")
        plain += low <= truth <= high
    assert clustered / sims >= 0.85  # nominal 0.90
    assert plain / sims < clustered / sims - 0.08
