"""`decide:` during a run: the gate that looks after each batch and stops once decided.

At each look the run's journal is replayed (`results/sequential_run.py`), `decide.json` is
written, and the next batch is dealt to the tasks still open; a resumed run replays the same
journal, so it takes the same looks. The scheduler only runs the batches (`run/lockstep.py`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from thinkeval.config import RunConfig
from thinkeval.errors import ThinkevalError
from thinkeval.results.sequential_run import (
    DECIDE_FILE,
    DecideRecord,
    TaskDecision,
    admitted_flags,
    is_decide_run,
    replay,
)
from thinkeval.run.lockstep import Admitted
from thinkeval.run.progress import Progress
from thinkeval.run.runner import RunOptions
from thinkeval.store.run_record import read_run_record
from thinkeval.store.rundir import write_json


@dataclass
class DecideGate:
    """Deals each batch of `decide:` and says, per task, when and why it stopped."""

    run_dir: Path
    progress: Progress
    _last: Admitted | None = None
    _said: set[str] = field(default_factory=set)

    def look(self) -> Admitted | None:
        record = replay(self.run_dir, read_run_record(self.run_dir))
        write_json(self.run_dir / DECIDE_FILE, msgspec.to_builtins(record))
        for task in record.tasks:
            if task.state != "asking" and task.task not in self._said:
                self._said.add(task.task)
                self.progress.say(stop_line(task, record))
        if record.done:
            return None
        admitted = {task.task: admitted_flags(task, record.seed) for task in record.tasks}
        if admitted == self._last:
            # A batch that ended without a signal or a failure records every unit it admits.
            raise ThinkevalError(
                f"{self.run_dir}: a decide: batch ended with questions still unrecorded; "
                "run the same command again to resume"
            )
        self._last = admitted
        return admitted


def stop_line(task: TaskDecision, record: DecideRecord) -> str:
    """`gsm8k: stopped early at 400 of 1319 questions (equivalent: m8; ±1.00 pp)`."""
    verdicts = ", ".join(f"{v.decision}: {v.candidate}" for v in task.verdicts)
    margin = f"±{task.margin * 100:.2f} pp"
    if task.early:
        how = f"stopped early at {task.asked} of {task.size} questions"
    elif task.state == "settled":
        how = f"settled at the last look, all {task.size} questions asked"
    else:
        how = f"not settled after all {task.size} questions"
    return f"{task.task}: {how} ({verdicts}; {margin}, α {record.alpha:g} one-sided)"


def with_gate(config: RunConfig, run_dir: Path, options: RunOptions,
              progress: Progress) -> RunOptions:  # fmt: skip
    """`options` with the `decide:` gate when the config has one; refuses what it cannot
    run in lockstep."""
    if config.decide is None:
        return options
    if options.shard is not None:
        raise ThinkevalError("decide: asks every model in lockstep in one process; drop --shard")
    for flag, given in (("--model", options.only_models), ("--tasks", options.only_tasks)):
        if given:
            raise ThinkevalError(
                f"decide: asks every model on every task of the config in lockstep; drop {flag}"
            )
    return dataclasses.replace(options, gate=DecideGate(run_dir, progress))


def refuse_fixed_n(run_dirs: list[Path]) -> None:
    """A fixed-n test on a `decide:` run's sample would ignore that the run chose when to stop,
    and lose the declared error rates: refused, with what to run instead."""
    for run_dir in run_dirs:
        if is_decide_run(run_dir):
            raise ThinkevalError(
                f"{run_dir} was run with decide: and stops once decided; a fixed-n test on its "
                f"sample would not keep the declared error rates. Run `thinkeval compare "
                f"{run_dir}` on it alone: it decides by the run's sequential rule"
            )
