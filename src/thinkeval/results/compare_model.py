"""The comparison of candidates with a baseline as data: what `thinkeval compare --json`
writes, what the report's comparison section shows, and what `thinkeval schema compare`
describes. Proportions throughout (0.012 is 1.2 points); candidate minus baseline."""

from __future__ import annotations

import msgspec

from thinkeval.results.compare_behaviour import Stratum
from thinkeval.results.compare_noise import NoiseFloorFlips
from thinkeval.results.compare_parity import TruncationParity
from thinkeval.results.compare_stats import Decision

# 2: `truncation` (parity of unfinished replies, `refused` decisions), `floor` (the A/A noise
# floor) and `behaviour` (paired behaviour deltas by difficulty) per row.
COMPARE_SCHEMA_VERSION = 2


class Margin(msgspec.Struct, kw_only=True, frozen=True):
    """The margin a decision is made at, declared before looking: a difference in points
    (`points`: 0.01 is 1 point) or a recovery threshold (`recovery`: 0.99), and where it came
    from (`default`, `--margin`, `--recovery`, `config`, or `config: TASK`)."""

    points: float | None = None
    recovery: float | None = None
    source: str = "default"


class Cost(msgspec.Struct, kw_only=True, frozen=True):
    """What one side's replies cost in one phase (the counted reply of each unit)."""

    reasoning_p50: float | None  # None: the server did not report usage.reasoning_tokens
    reasoning_p90: float | None
    completion_p50: float | None  # all generated tokens, reasoning included
    completion_p90: float | None
    hit_budget: float | None  # share of replies that stopped at the token budget
    retry_candidates: int  # fixed replies empty or unfinished: re-asked at B2
    latency_p50_s: float | None
    latency_p90_s: float | None


class Side(msgspec.Struct, kw_only=True, frozen=True):
    """One model in one comparison. `extra` holds further per-side counts other analyses add
    (e.g. replies that loop), keyed by name, so they travel with the comparison."""

    model: str
    run: str
    accuracy: float  # on the compared questions (avg@k with repeats)
    correct: int  # correct units on the compared questions
    units: int
    errors: int  # units with a transport error (not an answer: left out)
    pending: int  # units not asked yet (left out)
    cost: Cost
    extra: dict[str, int] = {}


class NoiseFloor(msgspec.Struct, kw_only=True, frozen=True):
    """The baseline against itself across its repeats, on the compared questions."""

    repeats: int
    accuracies: list[float]  # per repeat
    spread: float  # largest minus smallest
    sd: float  # standard deviation over repeats


class Flips(msgspec.Struct, kw_only=True, frozen=True):
    """Outcome classes of paired units (same question, same repeat), errors and pending apart:
    `matrix[baseline class][candidate class]` counts units; `lost` lists the units the baseline
    got right and the candidate did not, `gained` the reverse (ids, `id#r` for repeat r)."""

    classes: list[str]
    matrix: list[list[int]]
    lost: list[str]
    gained: list[str]


class PhaseComparison(msgspec.Struct, kw_only=True, frozen=True):
    """The candidate against the baseline on one task in one phase (or over all tasks)."""

    task: str  # AGGREGATE for the mean over tasks
    phase: str  # fixed | adaptive
    questions: int  # compared: both sides answered every repeat
    asked: int  # questions both sides were asked
    repeats: int
    baseline: Side | None
    candidate: Side | None
    difference: float
    low: float  # the 1 - 2 alpha score interval of the difference (Tango; see compare_stats)
    high: float
    se: float
    recovery: float | None
    recovery_low: float | None
    recovery_high: float | None
    margin: Margin
    decision: Decision
    p_noninferior: float
    p_inferior: float
    p_equivalent: float
    p_inferior_holm: float | None = None  # over the family of tasks (per-task rows only)
    settle: str | None  # inconclusive: what would settle it
    test: str  # the paired test of "no difference", beside the decision
    p_value: float
    significant: bool
    mde: float  # smallest difference that test detects with 80% power at this n
    disagreement: float  # share of disagreeing pairs (mean squared difference with repeats)
    questions_needed: int | None  # to decide at this margin with 80% power, as observed
    smallest_margin: float  # the margin this n settles with 80% power
    flips: Flips | None
    noise_floor: NoiseFloor | None
    # Per task: both sides' unfinished replies, their gap, and a refusal at a declared
    # `max_unfinished_gap` (`results.compare_parity`).
    truncation: TruncationParity | None = None
    # The baseline's flips against itself (A/A copy or repeats) beside the candidate's
    # (`results.compare_noise`).
    floor: NoiseFloorFlips | None = None
    # Length ratio and diagnosis rates, paired, by the baseline's difficulty
    # (`results.compare_behaviour`).
    behaviour: list[Stratum] | None = None


class Overall(msgspec.Struct, kw_only=True, frozen=True):
    """The family decision over the compared tasks in one phase."""

    phase: str
    decision: Decision
    method: str
    reason: str


class Candidate(msgspec.Struct, kw_only=True, frozen=True):
    """One candidate against the baseline: per task and phase, the mean over tasks, and the
    family decision per phase."""

    model: str
    like_for_like: bool
    differences: list[str]  # every comparability difference (refused unless allowed)
    rows: list[PhaseComparison]
    aggregate: list[PhaseComparison]
    overall: list[Overall]


class CompareResult(msgspec.Struct, kw_only=True, frozen=True):
    """`thinkeval compare --json`."""

    schema_version: int = COMPARE_SCHEMA_VERSION
    baseline: str
    runs: list[str]
    alpha: float  # each one-sided test; the decision interval is 1 - 2 alpha
    power: float  # for the minimum detectable effect and the questions needed
    margin: Margin  # the default margin; a row's own margin may override it per task
    candidates: list[Candidate]
    max_unfinished_gap: float | None = None  # declared: a larger gap refuses the verdict
    noise_floor: str | None = None  # the A/A copy of the baseline, when one is declared


AGGREGATE = "all tasks (mean)"
