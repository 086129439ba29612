"""One candidate against the baseline on one task and phase, from per-unit outcome codes:
the difference over questions and its decision at the margin, recovery, the paired test beside
it with its minimum detectable effect, the flip matrix, costs and the baseline's noise floor;
then the mean over tasks and the family decision (`compare_family`).

Inputs are arrays of shape (questions, repeats) aligned on the same questions; the codes are
the report's (`correct, wrong, no_answer, empty, unfinished, error, pending`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import msgspec
import numpy as np

from thinkeval.records import STATUSES
from thinkeval.results.compare_model import (
    AGGREGATE,
    Cost,
    Flips,
    Margin,
    NoiseFloor,
    Overall,
    PhaseComparison,
    Side,
)
from thinkeval.results.compare_stats import (
    ALPHA,
    POWER,
    Decision,
    PairedInterval,
    decide,
    decide_recovery,
    holm,
    margin_tests,
    minimum_detectable,
    paired_interval,
    questions_needed,
    recovery,
    smallest_margin,
    z,
)
from thinkeval.results.stats import mcnemar_exact

CORRECT, ERROR, PENDING = 0, len(STATUSES), len(STATUSES) + 1
SIGNIFICANCE = 0.05  # the two-sided level of the paired test of "no difference"


@dataclass
class PhaseData:
    """One side in one phase, per unit (questions x repeats)."""

    codes: np.ndarray  # int8 outcome codes
    reasoning: np.ndarray  # reasoning tokens of the counted reply; -1: not reported
    completion: np.ndarray  # completion tokens of the counted reply; -1: not reported
    hit_budget: np.ndarray  # bool: the counted reply stopped at its token budget
    latency: np.ndarray  # seconds; nan: not timed
    retry_candidates: np.ndarray  # bool: the fixed reply was empty or unfinished
    # Diagnosis label codes of the counted reply (positions in `diagnosis.LABELS`, -1: none);
    # None when not diagnosed (`results.compare_deltas` then shows no behaviour deltas).
    labels: np.ndarray | None = None


@dataclass
class SideData:
    """One model on one task: its phases, aligned with the other side's questions."""

    model: str
    run: str
    phases: dict[str, PhaseData]
    extra: dict[str, int] = field(default_factory=dict)  # further per-side counts, by name


def _percentile(values: np.ndarray, q: float) -> float | None:
    return float(np.percentile(values, q)) if values.size else None


def _cost(data: PhaseData, chosen: np.ndarray) -> Cost:
    arrived = chosen & (data.codes < ERROR)
    reasoning = data.reasoning[arrived & (data.reasoning >= 0)].astype(float)
    completion = data.completion[arrived & (data.completion >= 0)].astype(float)
    latency = data.latency[arrived & ~np.isnan(data.latency)]
    hits = int(arrived.sum())
    return Cost(
        reasoning_p50=_percentile(reasoning, 50),
        reasoning_p90=_percentile(reasoning, 90),
        completion_p50=_percentile(completion, 50),
        completion_p90=_percentile(completion, 90),
        hit_budget=float(data.hit_budget[arrived].sum()) / hits if hits else None,
        retry_candidates=int(data.retry_candidates[chosen].sum()),
        latency_p50_s=_percentile(latency, 50),
        latency_p90_s=_percentile(latency, 90),
    )


def _side(side: SideData, phase: str, compared: np.ndarray) -> Side:
    data = side.phases[phase]
    chosen = np.broadcast_to(compared[:, None], data.codes.shape)
    codes = data.codes[compared]
    return Side(
        model=side.model,
        run=side.run,
        accuracy=float((codes == CORRECT).mean()) if codes.size else math.nan,
        correct=int((codes == CORRECT).sum()),
        units=int(codes.size),
        errors=int((data.codes == ERROR).sum()),
        pending=int((data.codes == PENDING).sum()),
        cost=_cost(data, chosen),
        extra=dict(side.extra),
    )


def _flips(ids: list[str], base: np.ndarray, cand: np.ndarray) -> Flips:
    """Outcome classes unit by unit; units with an error or pending on either side apart."""
    k = base.shape[1]
    matrix = [[0] * len(STATUSES) for _ in STATUSES]
    lost: list[str] = []
    gained: list[str] = []
    for q, r in zip(*np.nonzero((base < ERROR) & (cand < ERROR)), strict=True):
        b, c = int(base[q, r]), int(cand[q, r])
        matrix[b][c] += 1
        name = ids[q] if k == 1 else f"{ids[q]}#{r}"
        if b == CORRECT and c != CORRECT:
            lost.append(name)
        elif c == CORRECT and b != CORRECT:
            gained.append(name)
    return Flips(classes=list(STATUSES), matrix=matrix, lost=lost, gained=gained)


def _noise_floor(base: np.ndarray) -> NoiseFloor | None:
    if base.shape[1] < 2 or base.shape[0] == 0:
        return None
    accuracies = [float(x) for x in (base == CORRECT).mean(axis=0)]
    return NoiseFloor(
        repeats=base.shape[1],
        accuracies=accuracies,
        spread=max(accuracies) - min(accuracies),
        sd=float(np.std(accuracies, ddof=1)),
    )


def _settle(
    decision: Decision, needed: int | None, n: int, k: int, to_inferior: int | None = None
) -> str | None:
    """What would settle an inconclusive decision: the questions that show a truly equal
    candidate non-inferior, and, when the estimate already lies below -margin, the questions
    that would show the observed drop inferior."""
    if decision != "inconclusive":
        return None
    if needed is None:
        return "the interval straddles the margin; more questions would narrow it"
    more = (
        f"about {needed} questions at the disagreement observed if the models are truly equal "
        f"(this run compared {n})"
    )
    if to_inferior is not None:
        more += f", or about {to_inferior} if the drop is as observed (then inferior)"
    if k > 1 or needed <= n:
        return f"the interval straddles the margin: {more}, or more repeats"
    return (
        f"the interval straddles the margin: {more}; a task this small cannot settle it, "
        "so widen the margin (declared before running) or add repeats"
    )


def compare_phase(
    task: str,
    phase: str,
    ids: list[str],
    base: SideData,
    cand: SideData,
    margin: Margin,
    alpha: float = ALPHA,
) -> PhaseComparison | None:
    """The candidate against the baseline on `task` in `phase`; None when no question has an
    answer from both sides in every repeat."""
    b_codes, c_codes = base.phases[phase].codes, cand.phases[phase].codes
    compared: np.ndarray = np.asarray(((b_codes < ERROR) & (c_codes < ERROR)).all(axis=1))
    n, k = int(compared.sum()), int(b_codes.shape[1])
    if n == 0:
        return None
    b_rate = (b_codes[compared] == CORRECT).mean(axis=1)
    c_rate = (c_codes[compared] == CORRECT).mean(axis=1)
    diffs = c_rate - b_rate
    interval = paired_interval(diffs, 1 - 2 * alpha)
    ratio = recovery(c_rate, b_rate, 1 - 2 * alpha)
    decision, tests, points = _decision(
        interval, ratio_bounds=(ratio.low, ratio.high), margin=margin, baseline=float(b_rate.mean())
    )
    sd = interval.se * math.sqrt(interval.n)
    needed = questions_needed(points, sd, alpha, POWER) if points > 0 and sd > 0 else None
    gap = -points - interval.estimate  # how far the estimate lies below -margin
    to_inferior = math.ceil((z(1 - alpha) * sd / gap) ** 2) if gap > 0 and sd > 0 else None
    p_value = mcnemar_exact(int((diffs > 0).sum()), int((diffs < 0).sum()))
    return PhaseComparison(
        task=task,
        phase=phase,
        questions=n,
        asked=int(b_codes.shape[0]),
        repeats=k,
        baseline=_side(base, phase, compared),
        candidate=_side(cand, phase, compared),
        difference=interval.estimate,
        low=interval.low,
        high=interval.high,
        se=interval.se,
        recovery=ratio.value,
        recovery_low=ratio.low,
        recovery_high=ratio.high,
        margin=margin,
        decision=decision,
        p_noninferior=tests[0],
        p_inferior=tests[1],
        p_equivalent=tests[2],
        settle=_settle(decision, needed, n, k, to_inferior),
        test="McNemar exact" if k == 1 else "sign test over questions (exact)",
        p_value=p_value,
        significant=p_value < SIGNIFICANCE,
        mde=minimum_detectable(interval.se, SIGNIFICANCE),
        disagreement=interval.disagreement,
        questions_needed=needed,
        smallest_margin=smallest_margin(interval.se, alpha),
        flips=_flips(
            [ids[i] for i in np.nonzero(compared)[0]], b_codes[compared], c_codes[compared]
        ),
        noise_floor=_noise_floor(b_codes[compared]),
    )


def _decision(
    interval: PairedInterval,
    ratio_bounds: tuple[float | None, float | None],
    margin: Margin,
    baseline: float,
) -> tuple[Decision, tuple[float, float, float], float]:
    """The decision, its three p-values, and the margin in points it was tested at (a recovery
    threshold r is tested on the recovery interval; its points are (1 - r) * baseline)."""
    if margin.recovery is not None:
        points = (1.0 - margin.recovery) * baseline
        decision = decide_recovery(*ratio_bounds, margin.recovery)
    else:
        assert margin.points is not None
        points = margin.points
        decision = decide(interval.low, interval.high, points)
    if points <= 0:
        return decision, (1.0, 1.0, 1.0), points
    tests = margin_tests(interval, points)
    return decision, (tests.p_noninferior, tests.p_inferior, tests.p_equivalent), points


def aggregate(rows: list[PhaseComparison], margin: Margin, alpha: float = ALPHA) -> PhaseComparison:
    """The unweighted mean over tasks of one phase (tasks weigh the same, whatever their
    size); tasks are independent, so the standard errors add in quadrature."""
    t = len(rows)
    center = sum((r.low + r.high) / 2 for r in rows) / t
    se = math.sqrt(sum(r.se**2 for r in rows)) / t
    half = z(1.0 - alpha) * se
    interval = PairedInterval(
        n=sum(r.questions for r in rows),
        estimate=sum(r.difference for r in rows) / t,
        center=center,
        se=se,
        low=center - half,
        high=center + half,
        confidence=1 - 2 * alpha,
        disagreement=sum(r.disagreement for r in rows) / t,
    )
    baseline = sum(r.baseline.accuracy for r in rows if r.baseline) / t
    # A recovery threshold becomes points at the mean baseline accuracy.
    points = margin.points if margin.points is not None else (1 - (margin.recovery or 1)) * baseline
    decision = decide(interval.low, interval.high, points)
    tests = margin_tests(interval, points)
    p_value = min(1.0, min(r.p_value for r in rows) * t)  # Bonferroni over tasks
    return PhaseComparison(
        task=AGGREGATE,
        phase=rows[0].phase,
        questions=interval.n,
        asked=sum(r.asked for r in rows),
        repeats=max(r.repeats for r in rows),
        baseline=None,
        candidate=None,
        difference=interval.estimate,
        low=interval.low,
        high=interval.high,
        se=se,
        recovery=None,
        recovery_low=None,
        recovery_high=None,
        margin=Margin(points=points, source=margin.source),
        decision=decision,
        p_noninferior=tests.p_noninferior,
        p_inferior=tests.p_inferior,
        p_equivalent=tests.p_equivalent,
        settle=None if decision != "inconclusive" else "more questions on every task",
        test="smallest per-task p, Bonferroni",
        p_value=p_value,
        significant=p_value < SIGNIFICANCE,
        mde=minimum_detectable(se, SIGNIFICANCE),
        disagreement=interval.disagreement,
        questions_needed=None,
        smallest_margin=smallest_margin(se, alpha),
        flips=None,
        noise_floor=None,
    )


def with_holm(rows: list[PhaseComparison]) -> list[PhaseComparison]:
    """The rows of one phase with their inferiority p-values Holm-adjusted over the tasks."""
    adjusted = holm([r.p_inferior for r in rows])
    return [
        msgspec.structs.replace(r, p_inferior_holm=p) for r, p in zip(rows, adjusted, strict=True)
    ]


def family(rows: list[PhaseComparison], phase: str, alpha: float = ALPHA) -> Overall:
    """The decision over all tasks of a phase. "Inferior somewhere" is a union of claims, so
    its per-task p-values are Holm-adjusted (family-wise error <= alpha); "non-inferior (or
    equivalent) everywhere" is an intersection of claims, each made at alpha: the family-wise
    error of that claim is already <= alpha (intersection-union test, Berger 1982). A
    task refused for truncation parity (`compare_parity`) has no verdict: inferiority
    elsewhere still stands, any other overall claim is refused."""
    inferior = [
        r.task
        for r in rows
        if r.p_inferior_holm is not None and r.p_inferior_holm < alpha and r.decision != "refused"
    ]
    decisions = [r.decision for r in rows]
    if inferior:
        return Overall(
            phase=phase,
            decision="inferior",
            method="Holm over tasks",
            reason=f"inferior on {', '.join(inferior)} after Holm's correction over "
            f"{len(rows)} tasks",
        )
    refused = [r.task for r in rows if r.decision == "refused"]
    if refused:  # a task without a verdict: no claim about every task can be made
        return Overall(
            phase=phase,
            decision="refused",
            method="truncation parity",
            reason=f"unfinished rates differ by more than the declared gap on {', '.join(refused)}",
        )
    if all(d == "equivalent" for d in decisions):
        return Overall(
            phase=phase,
            decision="equivalent",
            method="intersection-union",
            reason=f"equivalent on all {len(rows)} tasks",
        )
    if all(d in ("equivalent", "non-inferior") for d in decisions):
        return Overall(
            phase=phase,
            decision="non-inferior",
            method="intersection-union",
            reason=f"non-inferior on all {len(rows)} tasks",
        )
    open_tasks = [r.task for r in rows if r.decision in ("inconclusive", "inferior")]
    return Overall(
        phase=phase,
        decision="inconclusive",
        method="intersection-union; Holm over tasks",
        reason=f"not settled on {', '.join(open_tasks)} (none inferior after Holm's correction)",
    )
