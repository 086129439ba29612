"""`thinkeval compare` and `thinkeval plan`, callable from Python: candidates against a
baseline from run directories, and how many questions (or repeats) a comparison needs."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from thinkeval.errors import ThinkevalError
from thinkeval.results.compare_model import CompareResult


def compare_runs(
    run_dirs: Sequence[Path],
    baseline: str | None,
    candidates: Sequence[str] = (),
    margin: float | None = None,
    recovery: float | None = None,
    task_margins: dict[str, float] | None = None,
    allow_mismatch: bool = False,
    max_unfinished_gap: float | None = None,
    noise_floor: str | None = None,
) -> CompareResult:
    """Compare `candidates` (default: every other model) with `baseline` (default: the runs'
    `baseline:`). Margins are in points (1 = 1 point); `recovery` is a threshold such as 0.99.
    `max_unfinished_gap` (points) refuses a verdict where the unfinished rates differ by more;
    `noise_floor` names the baseline's A/A copy (default: the config's). Reads only the run
    directories."""
    import dataclasses

    from thinkeval.ops.decide import refuse_fixed_n
    from thinkeval.report._collect import collect
    from thinkeval.report._compare import DEFAULT_POINTS, Settings, compare_collection, configured
    from thinkeval.results.compare_model import Margin

    if margin is not None and recovery is not None:
        raise ThinkevalError("--margin and --recovery: give one of them, not both")
    refuse_fixed_n([Path(d) for d in run_dirs])
    with collect([Path(d) for d in run_dirs], like_for_like=False) as data:
        recorded = configured(data)
        name = baseline or (recorded.baseline if recorded else None)
        if name is None:
            raise ThinkevalError(
                "no baseline: pass --baseline MODEL, or name one in the config (baseline: MODEL)"
            )
        settings = recorded if recorded and recorded.baseline == name else Settings(baseline=name)
        chosen = Margin(points=DEFAULT_POINTS) if not recorded else settings.margin
        if margin is not None:
            chosen = Margin(points=margin / 100, source="--margin")
        if recovery is not None:
            chosen = Margin(recovery=recovery, source="--recovery")
        per_task = dict(settings.task_margins)
        per_task.update({t: m / 100 for t, m in (task_margins or {}).items()})
        settings = dataclasses.replace(
            settings,
            candidates=tuple(candidates) or settings.candidates,
            margin=chosen,
            task_margins=per_task,
            allow_mismatch=allow_mismatch,
        )
        if max_unfinished_gap is not None:
            settings = dataclasses.replace(settings, max_unfinished_gap=max_unfinished_gap / 100)
        if noise_floor is not None:
            settings = dataclasses.replace(settings, noise_floor=noise_floor)
        return compare_collection(data, settings)


@dataclass(frozen=True)
class Plan:
    """What a comparison of one task needs at a margin."""

    task: str
    margin: float  # points
    disagreement: float
    repeats: int
    available: int | None  # questions the task has (None: not known here)
    noninferior: int  # questions to find an equal candidate non-inferior, 80% power
    equivalent: int  # ... equivalent
    repeats_needed: int | None  # at the available questions, for non-inferiority


def plan(task: str, margin: float, disagreement: float = 0.05, repeats: int = 1,
         data_dir: str | None = None) -> Plan:  # fmt: skip
    """Questions (and repeats) a comparison of `task` needs at `margin` points."""
    from thinkeval.results.compare_stats import per_question_sd, questions_needed

    if margin <= 0:
        raise ThinkevalError(f"--margin must be positive (points), got {margin:g}")
    if not 0 < disagreement <= 1:
        raise ThinkevalError(f"--disagreement must lie in (0, 1], got {disagreement:g}")
    if repeats < 1:
        raise ThinkevalError(f"--repeats must be at least 1, got {repeats}")
    sd = per_question_sd(disagreement, repeats)
    available = _task_size(task, data_dir)
    repeats_needed = None
    if available:
        # Variance falls as 1/k with independent repeats: k = ceil(k * n_needed / available).
        need = questions_needed(margin / 100, per_question_sd(disagreement, 1))
        repeats_needed = max(1, math.ceil(need / available))
    return Plan(
        task=task,
        margin=margin,
        disagreement=disagreement,
        repeats=repeats,
        available=available,
        noninferior=questions_needed(margin / 100, sd),
        equivalent=questions_needed(margin / 100, sd, equivalence=True),
        repeats_needed=repeats_needed,
    )


def _task_size(task: str, data_dir: str | None) -> int | None:
    """How many samples the task has in the data directory (None when it cannot be read)."""
    from thinkeval.tasks import get_task, iter_samples, resolve_data_dir

    spec = get_task(task)  # an unknown task is a ThinkevalError naming the known ones
    directory = resolve_data_dir(data_dir)
    if directory is None:
        return None
    try:
        return sum(1 for _ in iter_samples(spec, directory))
    except (ThinkevalError, OSError):
        return None
