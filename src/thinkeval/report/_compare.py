"""Candidates against a baseline from combined runs: what `thinkeval compare` prints and the
report's comparison section shows (one computation, so the two agree to the digit).

Each side is read from the report's columns (`_cells`), aligned on the samples both were asked
(by id, in the baseline's order), and its setup from the run's config.json; the statistics are
`results.compare`'s.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field

import msgspec
import numpy as np

from thinkeval.errors import ThinkevalError
from thinkeval.report._cells import Collection, ModelTask
from thinkeval.report._diagnosis import loop_counts
from thinkeval.report._samples_diagnosis import diagnosis_column
from thinkeval.results.columns import PENDING, ReplyColumns
from thinkeval.results.compare import (
    PhaseData,
    SideData,
    aggregate,
    compare_phase,
    family,
    with_holm,
)
from thinkeval.results.compare_check import Setup, differences
from thinkeval.results.compare_deltas import Copy, with_deltas
from thinkeval.results.compare_model import Candidate, CompareResult, Margin, PhaseComparison
from thinkeval.results.compare_stats import ALPHA, POWER
from thinkeval.store.rundir import CONFIG_FILE

PHASES = ("fixed", "adaptive")
DEFAULT_POINTS = 0.01  # 1 point


@dataclass(frozen=True)
class Settings:
    """What to compare and at which margins (proportions: 0.01 is 1 point)."""

    baseline: str
    candidates: tuple[str, ...] = ()  # none: every other model
    margin: Margin = field(default_factory=lambda: Margin(points=DEFAULT_POINTS))
    task_margins: dict[str, float] = field(default_factory=dict)  # per task, proportions
    allow_mismatch: bool = False
    max_unfinished_gap: float | None = None  # proportions; None: flag only, never refuse
    noise_floor: str | None = None  # the baseline's A/A copy (a model of the runs)


class _Recorded(msgspec.Struct):
    baseline: dict[str, object] | str | None = None


def configured(data: Collection) -> Settings | None:
    """The `baseline:` the first run naming one declares (config.json), else None."""
    for run in data.runs:
        raw = msgspec.json.decode((run.path / CONFIG_FILE).read_bytes(), type=_Recorded).baseline
        if raw is None:
            continue
        from thinkeval.config.compare import BaselineConfig

        chosen = msgspec.convert({"model": raw} if isinstance(raw, str) else raw, BaselineConfig)
        margin = Margin(points=DEFAULT_POINTS)
        if chosen.margin is not None:
            margin = Margin(points=chosen.margin / 100, source="config")
        if chosen.recovery is not None:
            margin = Margin(recovery=chosen.recovery, source="config")
        gap = chosen.max_unfinished_gap
        return Settings(
            baseline=chosen.model,
            candidates=tuple(chosen.candidates),
            margin=margin,
            task_margins={task: points / 100 for task, points in chosen.margins.items()},
            max_unfinished_gap=None if gap is None else gap / 100,
            noise_floor=chosen.noise_floor,
        )
    return None


def _setup(mt: ModelTask) -> Setup:
    record = mt.run.record
    entry = record.entry(mt.task)
    model = next(m for m in record.models if m.name == mt.model)
    return Setup(
        digest=entry.digest,
        samples=len(mt.samples),
        budgets=mt.budgets,
        repeats=mt.k,
        generation=record.task(mt.task).request_generation(model.generation_settings).as_dict(),
        task_version=entry.version,
        scoring=entry.scoring,
        scorers=sorted(mt.run.scorer_versions),
        api=model.api,
    )


def _phase(mt: ModelTask, phase: str, rows: np.ndarray, k: int, length: int) -> PhaseData:
    """The units of the samples at positions `rows`, first `k` repeats, as (rows, k)."""
    fixed, retry, due = mt.fixed, mt.retry, mt.candidate

    def shaped(values: np.ndarray) -> np.ndarray:
        return values.reshape(len(mt.samples), mt.k)[rows, :k]

    if phase == "fixed":
        reasoning, finish, latency = fixed.reasoning, fixed.finish, fixed.latency
        completion = fixed.completion
    else:
        reasoning = np.where(due, retry.reasoning, fixed.reasoning)
        completion = np.where(due, retry.completion, fixed.completion)
        finish = np.where(due, retry.finish, fixed.finish)
        latency = np.where(due, retry.latency, fixed.latency)
    labels = _labels(mt, mt.fixed)
    if phase != "fixed":
        labels = np.where(due, _labels(mt, retry), labels)
    return PhaseData(
        labels=shaped(labels),
        codes=shaped(mt.status(phase)),
        reasoning=shaped(reasoning),
        completion=shaped(completion),
        hit_budget=shaped(finish == length),
        latency=shaped(latency),
        retry_candidates=shaped(due),
    )


def _labels(mt: ModelTask, replies: ReplyColumns) -> np.ndarray:
    """Per unit, the diagnosis label code of the reply (only unfinished ones have one)."""
    return diagnosis_column(mt, replies, np.arange(mt.units))


def _side(mt: ModelTask, rows: np.ndarray, k: int, length: int) -> SideData:
    phases = {phase: _phase(mt, phase, rows, k, length) for phase in PHASES}
    return SideData(model=mt.model, run=str(mt.run.path), phases=phases, extra=loop_counts(mt))


def _copy(data: Collection, settings: Settings, task: str, ids: list[str], k: int) -> Copy | None:
    """The A/A copy's outcome codes on the baseline's questions `ids` (its first `k` repeats;
    pending where it was not asked); refused when it was not asked like the baseline."""
    name = settings.noise_floor
    if name is None or (name, task) not in data.cells:
        return None
    mt, base = data.cells[(name, task)], data.cells[(settings.baseline, task)]
    lines = differences(task, _setup(base), _setup(mt))
    if lines and not settings.allow_mismatch:
        raise ThinkevalError(
            f"the noise floor {name} was not asked like for like with {settings.baseline}: "
            + "; ".join(lines)
            + ". An A/A copy must be asked exactly as the baseline (--allow-mismatch to use it)"
        )
    where = mt.samples.position
    present = np.array([i in where for i in ids], dtype=bool)
    rows = np.array([where.get(i, 0) for i in ids], dtype=np.int64)
    shared = min(k, mt.k)
    codes: dict[str, np.ndarray] = {}
    for phase in PHASES:
        found = np.full((len(ids), k), PENDING, dtype=np.int8)
        status = mt.status(phase).reshape(len(mt.samples), mt.k)
        found[present, :shared] = status[rows[present], :shared]
        codes[phase] = found
    return Copy(model=name, codes=codes)


def _margin(settings: Settings, task: str) -> Margin:
    if task in settings.task_margins:
        source = "config: " + task if settings.margin.source == "config" else "--margin " + task
        return Margin(points=settings.task_margins[task], source=source)
    return settings.margin


def _candidate(data: Collection, settings: Settings, name: str) -> Candidate:
    base_model, lines = settings.baseline, []
    tasks = [t for t in data.tasks if (base_model, t) in data.cells and (name, t) in data.cells]
    length = data.finishes.index("length") if "length" in data.finishes else -2
    rows_by_phase: dict[str, list[PhaseComparison]] = {phase: [] for phase in PHASES}
    for task in tasks:
        base, cand = data.cells[(base_model, task)], data.cells[(name, task)]
        lines += differences(task, _setup(base), _setup(cand))
        where = cand.samples.position
        shared = [(i, where[s]) for i, s in enumerate(base.samples.ids) if s in where]
        if not shared:
            continue
        b_rows = np.array([i for i, _ in shared])
        c_rows = np.array([j for _, j in shared])
        k = min(base.k, cand.k)
        ids = [base.samples.ids[i] for i in b_rows]
        sides = (_side(base, b_rows, k, length), _side(cand, c_rows, k, length))
        copy = _copy(data, settings, task, ids, k)
        for phase in PHASES:
            row = compare_phase(task, phase, ids, *sides, margin=_margin(settings, task))
            if row is not None:
                row = with_deltas(row, *sides, copy, settings.max_unfinished_gap)
                rows_by_phase[phase].append(row)
    if lines and not settings.allow_mismatch:
        raise ThinkevalError(
            f"{name} was not asked like for like with {base_model}: "
            + "; ".join(lines)
            + ". Rerun with the same settings, or pass --allow-mismatch to compare anyway "
            "(marked 'not like for like')"
        )
    rows, aggregates, overall = [], [], []
    for phase in PHASES:
        found = with_holm(rows_by_phase[phase]) if rows_by_phase[phase] else []
        rows += found
        if found:
            mean = aggregate(found, settings.margin)
            if any(r.decision == "refused" for r in found):  # a mean over a refused task
                mean = msgspec.structs.replace(mean, decision="refused")
            aggregates.append(mean)
            overall.append(family(found, phase))
    return Candidate(
        model=name,
        like_for_like=not lines,
        differences=lines,
        rows=rows,
        aggregate=aggregates,
        overall=overall,
    )


def compare_collection(data: Collection, settings: Settings) -> CompareResult:
    """Every candidate against the baseline; `ThinkevalError` for an unknown model or, unless
    `allow_mismatch`, a candidate not asked like for like (each difference named)."""
    if settings.baseline not in data.models:
        raise ThinkevalError(
            f"--baseline {settings.baseline!r} is not a model of these runs "
            f"(models: {', '.join(data.models)})"
        )
    if settings.noise_floor is not None and settings.noise_floor not in data.models:
        raise ThinkevalError(
            f"--noise-floor {settings.noise_floor!r} is not a model of these runs "
            f"(models: {', '.join(data.models)})"
        )
    others = [m for m in data.models if m not in (settings.baseline, settings.noise_floor)]
    names: Sequence[str] = settings.candidates or others
    for name in names:
        if name not in data.models:
            raise ThinkevalError(
                f"--candidate {name!r} is not a model of these runs "
                f"(models: {', '.join(data.models)})"
            )
    if not names:
        raise ThinkevalError(
            f"no candidate to compare with {settings.baseline}: give a second model"
        )
    return CompareResult(
        baseline=settings.baseline,
        runs=[str(run.path) for run in data.runs],
        alpha=ALPHA,
        power=POWER,
        margin=settings.margin,
        candidates=[_candidate(data, settings, name) for name in names],
        max_unfinished_gap=settings.max_unfinished_gap,
        noise_floor=settings.noise_floor,
    )


def baseline_comparison(data: Collection) -> CompareResult | None:
    """The report's comparison when a run names a baseline (`baseline:`); a candidate asked
    differently is still compared there, marked not like for like (`thinkeval compare`
    refuses it unless told)."""
    settings = configured(data)
    if settings is None:
        return None
    return compare_collection(data, dataclasses.replace(settings, allow_mismatch=True))
