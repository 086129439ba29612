"""Shards: a stable split of the work by sample (and repeat), so processes on several machines
share one run directory without asking anything twice."""

from __future__ import annotations

import zlib
from collections.abc import Mapping
from dataclasses import dataclass

# A Kubernetes Indexed Job puts the pod's index in JOB_COMPLETION_INDEX but not the number of
# completions: the Job's manifest sets it in this variable (examples/k8s-job.yaml).
SHARD_COUNT_ENV = "THINKEVAL_SHARD_COUNT"


@dataclass(frozen=True)
class Shard:
    """Shard `index` of `count` (1-based)."""

    index: int
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        try:
            i, n = (int(part) for part in text.split("/"))
        except ValueError:
            raise ValueError(f"--shard must look like I/N (e.g. 2/3), got {text!r}") from None
        if not 1 <= i <= n:
            raise ValueError(f"--shard {text}: I must be between 1 and N")
        return cls(i, n)

    @property
    def writer(self) -> str:
        return f"shard-{self.index}-of-{self.count}"

    def owns(self, sample_id: str, repeat: int = 0) -> bool:
        """Whether this shard asks repeat `repeat` of `sample_id`.

        Repeats are spread over the shards too (a 30-question task with 64 repeats would
        otherwise be split 30 ways at most); repeat 0 keys on the id alone, so runs without
        repeats split exactly as before repeats existed.
        """
        key = sample_id if repeat == 0 else f"{sample_id}#{repeat}"
        # crc32 is stable across processes and machines (unlike hash()).
        return zlib.crc32(key.encode()) % self.count == self.index - 1


def shard_from_environment(environ: Mapping[str, str]) -> tuple[Shard, str]:
    """`--shard auto`: this process's shard from the cluster scheduler, and where it came from.

    A Slurm job array (`SLURM_ARRAY_TASK_ID`, `_COUNT`, `_MIN`, and `_STEP` when not 1: the
    indices need not start at 0 or 1, e.g. `--array=5-12`), or a Kubernetes Indexed Job
    (`JOB_COMPLETION_INDEX`, 0-based, with the completions count in `THINKEVAL_SHARD_COUNT`).

    >>> shard_from_environment({"SLURM_ARRAY_TASK_ID": "7", "SLURM_ARRAY_TASK_MIN": "5",
    ...                         "SLURM_ARRAY_TASK_MAX": "12", "SLURM_ARRAY_TASK_COUNT": "8"})
    (Shard(index=3, count=8), 'Slurm array task 7 of 5-12')
    >>> shard_from_environment({"JOB_COMPLETION_INDEX": "0", "THINKEVAL_SHARD_COUNT": "4"})
    (Shard(index=1, count=4), 'Kubernetes Indexed Job completion index 0 of 4')
    """
    if "SLURM_ARRAY_TASK_ID" in environ:
        return _slurm(environ)
    if "JOB_COMPLETION_INDEX" in environ:
        index = _number(environ, "JOB_COMPLETION_INDEX")
        if SHARD_COUNT_ENV not in environ:
            raise ValueError(
                f"--shard auto: JOB_COMPLETION_INDEX is set but {SHARD_COUNT_ENV} is not; a "
                "Kubernetes Indexed Job must set it to its completions (examples/k8s-job.yaml)"
            )
        count = _number(environ, SHARD_COUNT_ENV)
        if not 0 <= index < count:
            raise ValueError(
                f"--shard auto: JOB_COMPLETION_INDEX {index} is not below {SHARD_COUNT_ENV} "
                f"{count}; set it to the Job's completions"
            )
        return Shard(index + 1, count), (
            f"Kubernetes Indexed Job completion index {index} of {count}"
        )
    raise ValueError(
        "--shard auto: no Slurm job array (SLURM_ARRAY_TASK_ID) or Kubernetes Indexed Job "
        "(JOB_COMPLETION_INDEX) in the environment; give --shard I/N"
    )


def _slurm(environ: Mapping[str, str]) -> tuple[Shard, str]:
    task = _number(environ, "SLURM_ARRAY_TASK_ID")
    count = _number(environ, "SLURM_ARRAY_TASK_COUNT")
    low = _number(environ, "SLURM_ARRAY_TASK_MIN")
    high = _number(environ, "SLURM_ARRAY_TASK_MAX") if "SLURM_ARRAY_TASK_MAX" in environ else None
    step = _number(environ, "SLURM_ARRAY_TASK_STEP") if "SLURM_ARRAY_TASK_STEP" in environ else 1
    span = f"{low}-{high}" if high is not None else f"{low}-"
    # Shards must cover the array's tasks one to one: a list like --array=1,4,9 has gaps.
    if step < 1 or (high is not None and (high - low) // step + 1 != count):
        raise ValueError(
            f"--shard auto: the Slurm array {span} (step {step}) does not have "
            f"SLURM_ARRAY_TASK_COUNT={count} evenly spaced tasks; use a range like "
            "--array=0-7 (or --array=0-14:2), or give --shard I/N"
        )
    offset, remainder = divmod(task - low, step)
    if remainder or not 0 <= offset < count:
        raise ValueError(f"--shard auto: Slurm array task {task} is not in the array {span}")
    return Shard(offset + 1, count), f"Slurm array task {task} of {span}"


def _number(environ: Mapping[str, str], name: str) -> int:
    if name not in environ:
        raise ValueError(f"--shard auto: {name} is not set")
    value = environ[name]
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"--shard auto: {name} must be a whole number, got {value!r}") from None
