"""A `decide:` run replayed from its journal: the order, every look, where it stopped, why.

The run and `thinkeval compare` call the same `replay`, so a resumed run takes the looks the
killed one would have taken, and `compare` reaches the run's verdict by the run's own rule. Per
task, questions are dealt in a permutation of the samples file fixed by `decide.seed` and the
task's name. Look L admits the first `L * batch` of them; it is taken once every unit admitted
is recorded in both phases for every model (a transport error is recorded: its pair is left
out). The task stops at the first look whose verdict is settled for every candidate, or once the
whole task was asked ("not settled"). The decision per task is made at the task's own margin
(`baseline.margins`, else `baseline.margin`, else 1 point); several tasks are decided apart.
"""

from __future__ import annotations

import hashlib
import math
import zlib
from array import array
from pathlib import Path

import msgspec
import numpy as np
import numpy.typing as npt

from thinkeval.config import BaselineConfig, DecideConfig
from thinkeval.errors import ThinkevalError
from thinkeval.records import Attempt, Sample
from thinkeval.results.compare_stats import Decision
from thinkeval.results.counts import SampleResult
from thinkeval.results.sequential import looks, sequence_bounds
from thinkeval.results.tally import tally
from thinkeval.store.run_record import RunRecord, read_run_record
from thinkeval.store.rundir import CONFIG_FILE

DECIDE_FILE = "decide.json"
DEFAULT_MARGIN_POINTS = 1.0


class Verdict(msgspec.Struct, kw_only=True):
    """One candidate on one task at the run's stop."""

    candidate: str
    decision: Decision
    pairs: int
    estimate: float  # mean difference, candidate - baseline (0.01 = 1 point)
    low: float  # the confidence sequence's ends
    high: float


class TaskLook(msgspec.Struct, kw_only=True):
    admitted: int  # questions dealt so far
    decisions: dict[str, Decision]  # per candidate
    settled: bool


class TaskDecision(msgspec.Struct, kw_only=True):
    task: str
    size: int  # questions in the task
    margin: float  # 0.01 = 1 point
    order: str  # sha256 of the dealt positions, so a reader can check the order
    looks: list[TaskLook]
    asked: int  # questions admitted when it stopped (or so far)
    state: str  # "settled", "not settled" (the whole task asked), "asking"
    verdicts: list[Verdict]
    tokens: int  # server tokens (prompt + completion) every model spent on the task

    @property
    def early(self) -> bool:
        return self.state == "settled" and self.asked < self.size


class DecideRecord(msgspec.Struct, kw_only=True):
    """`RUN_DIR/decide.json`: what `decide:` did, derived again from the journal on demand."""

    seed: int
    goal: str
    alpha: float
    batch: int
    baseline: str
    candidates: list[str]
    tasks: list[TaskDecision]

    @property
    def done(self) -> bool:
        return all(task.state != "asking" for task in self.tasks)


def dealt_order(seed: int, task: str, size: int) -> npt.NDArray[np.int64]:
    """The positions (in samples-file order) in the order they are dealt."""
    rng = np.random.default_rng([seed, zlib.crc32(task.encode())])
    order: npt.NDArray[np.int64] = rng.permutation(size).astype(np.int64)
    return order


def baseline_of(record: RunRecord) -> BaselineConfig:
    raw = record.baseline
    if raw is None:
        raise ValueError("decide: needs a baseline")
    return BaselineConfig(model=raw) if isinstance(raw, str) else raw


def candidates_of(record: RunRecord) -> list[str]:
    chosen = baseline_of(record)
    return chosen.candidates or [m for m in record.model_names if m != chosen.model]


def margin_of(record: RunRecord, task: str) -> float:
    chosen = baseline_of(record)
    points = chosen.margins.get(task, chosen.margin or DEFAULT_MARGIN_POINTS)
    return points / 100


class QuestionScores:
    """Per model and task: each question's mean correctness over its repeats (NaN: an error or
    a refusal), and whether every unit of it is recorded in both phases; 9 bytes a question."""

    def __init__(self) -> None:
        self.scores: dict[tuple[str, str], array[float]] = {}
        self.recorded: dict[tuple[str, str], array[int]] = {}
        self.tokens: dict[str, int] = {}

    def question(
        self, model: str, task: str, sample: Sample, results: list[SampleResult | None]
    ) -> None:
        finals = [r.adaptive if r is not None else None for r in results]
        recorded = all(final is not None for final in finals)
        score = math.nan
        if recorded and all(f is not None and f.status not in ("error", "refused") for f in finals):
            score = sum(f is not None and f.status == "correct" for f in finals) / len(finals)
        self.scores.setdefault((model, task), array("d")).append(score)
        self.recorded.setdefault((model, task), array("b")).append(recorded)

    def attempt(self, attempt: Attempt) -> None:
        used = (attempt.usage.prompt_tokens or 0) + (attempt.usage.completion_tokens or 0)
        self.tokens[attempt.task] = self.tokens.get(attempt.task, 0) + used


def replay(run_dir: Path, record: RunRecord) -> DecideRecord:
    """Every task's looks from what the journal holds (see the module's docstring)."""
    decide = record.decide or DecideConfig()
    base = baseline_of(record).model
    candidates = candidates_of(record)
    models = [base, *candidates]
    tasks = [t.name for t in record.tasks]
    seen = QuestionScores()
    tally(run_dir, record, models, tasks, observe=seen.attempt, on_question=seen.question)
    out = []
    for task in tasks:
        size = len(seen.recorded.get((base, task), []))
        order = dealt_order(decide.seed, task, size)
        margin = margin_of(record, task)
        recorded = np.ones(size, dtype=bool)
        for model in models:
            recorded &= np.asarray(
                seen.recorded.get((model, task), array("b", bytes(size))), dtype=bool
            )
        done_in_order = recorded[order]
        differences = {
            c: (
                np.asarray(seen.scores[c, task], dtype=np.float64)
                - np.asarray(seen.scores[base, task], dtype=np.float64)
            )[order]
            for c in candidates
        }
        decision = _task(task, size, margin, decide, done_in_order, differences, order)
        out.append(msgspec.structs.replace(decision, tokens=seen.tokens.get(task, 0)))
    return DecideRecord(
        seed=decide.seed,
        goal=decide.goal,
        alpha=decide.alpha,
        batch=decide.batch,
        baseline=base,
        candidates=candidates,
        tasks=out,
    )


def _task(
    task: str,
    size: int,
    margin: float,
    decide: DecideConfig,
    done_in_order: npt.NDArray[np.bool_],
    differences: dict[str, npt.NDArray[np.float64]],
    order: npt.NDArray[np.int64],
) -> TaskDecision:
    taken: list[TaskLook] = []
    asked, state = min(size, decide.batch), "asking"
    while size and done_in_order[:asked].all():
        decisions, settled = {}, True
        for candidate, d in differences.items():
            kept = d[:asked][~np.isnan(d[:asked])]
            look = looks(kept, [kept.size], margin, decide.alpha, decide.goal)[0]
            decisions[candidate] = look.decision
            settled = settled and look.settled
        taken.append(TaskLook(admitted=asked, decisions=decisions, settled=settled))
        if settled or asked == size:
            state = "settled" if settled else "not settled"
            break
        asked = min(size, asked + decide.batch)
    verdicts = []
    for candidate, d in differences.items():
        kept = d[:asked][~np.isnan(d[:asked])]
        low, high = sequence_bounds(kept, decide.alpha)
        last = taken[-1].decisions[candidate] if taken else "inconclusive"
        estimate = float(kept.mean()) if kept.size else 0.0
        verdicts.append(Verdict(candidate=candidate, decision=last, pairs=int(kept.size),
                                estimate=estimate, low=low, high=high))  # fmt: skip
    digest = hashlib.sha256(order.astype("<i8").tobytes()).hexdigest()
    return TaskDecision(task=task, size=size, margin=margin, order=digest, looks=taken,
                        asked=asked, state=state, verdicts=verdicts, tokens=0)  # fmt: skip


def admitted_flags(decision: TaskDecision, seed: int) -> bytes:
    """One flag per sample, in samples-file order: the questions dealt so far."""
    flags = bytearray(decision.size)
    for position in dealt_order(seed, decision.task, decision.size)[: decision.asked]:
        flags[int(position)] = 1
    return bytes(flags)


def read_decide(run_dir: Path) -> DecideRecord | None:
    """`decide.json` as the run last wrote it (None: not a `decide:` run, or not started)."""
    path = run_dir / DECIDE_FILE
    if not path.exists():
        return None
    return msgspec.json.decode(path.read_bytes(), type=DecideRecord)


def is_decide_run(run_dir: Path) -> bool:
    """Whether `run_dir` was run with `decide:` (its config.json says so)."""
    if not (run_dir / CONFIG_FILE).is_file():
        return False
    return read_run_record(run_dir).decide is not None


def decided(run_dir: Path, overrides: list[str]) -> DecideRecord:
    """The sequential comparison of a `decide:` run (what `thinkeval compare RUN` prints),
    replayed from its journal; `overrides` are the compare options given, which a sequential
    run refuses: its margin, baseline and candidates were declared before it started."""
    if overrides:
        raise ThinkevalError(
            f"{run_dir} was run with decide: and is decided at the baseline, candidates and "
            f"margin its config declared; drop {', '.join(overrides)}"
        )
    return replay(run_dir, read_run_record(run_dir))


def dealt_positions(run_dir: Path) -> dict[str, frozenset[int]] | None:
    """Per task, the positions (samples-file order) a `decide:` run dealt, from its
    `decide.json`; None for any other run. The questions never dealt were never due."""
    record = read_decide(run_dir)
    if record is None:
        return None
    return {
        task.task: frozenset(
            int(p) for p in dealt_order(record.seed, task.task, task.size)[: task.asked]
        )
        for task in record.tasks
    }
