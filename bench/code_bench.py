#!/usr/bin/env python3
"""What running code costs, and whether load can flip a verdict; see docs/code.md.

    python bench/code_bench.py --data-dir ../shared/datasets

1. Sandbox start-up: the wall time of an empty program in bubblewrap and as a plain child
   process (`--unsafe-local-exec`), the median of many; the difference is the sandbox's cost.
2. Throughput: HumanEval's 164 canonical solutions and a broken variant of each (328 programs)
   through the scoring pool (its default size: half the cores), in executions per second.
3. Load: the same 328 again while as many busy loops as there are cores run beside them; the
   verdicts (status and reason) must equal the idle run's.
"""

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import orjson

from thinkeval.execution.sandbox import Limits, run_program
from thinkeval.records import Sample
from thinkeval.scoring.pool import ScoringPool, default_workers
from thinkeval.scoring.pooled import many_verdicts
from thinkeval.scoring.scorers import ReplyText
from thinkeval.tasks import get_task, load_samples


def _fenced(program: str) -> str:
    return f"```python\n{program.rstrip()}\n```"


def _programs(samples: list[Sample]) -> list[tuple[str, str]]:
    """(reply, gold): each canonical solution, then each redefined to return None."""
    right, broken = [], []
    for sample in samples:
        gold = orjson.loads(sample.gold)
        right.append((_fenced(gold["reference"]), sample.gold))
        stub = f"\n\ndef {gold['entry_point']}(*args, **kwargs):\n    return None\n"
        broken.append((_fenced(gold["reference"] + stub), sample.gold))
    return right + broken


def _verdicts(pool: ScoringPool, programs: list[tuple[str, str]]) -> tuple[list[str], float]:
    task = get_task("humaneval")
    jobs = [(task, ReplyText(reply, None, "stop"), gold) for reply, gold in programs]
    started = time.monotonic()
    verdicts = [each["strict"] for each in many_verdicts(jobs, pool)]
    wall = time.monotonic() - started
    return [f"{s.status} {(s.rule or '').split(':')[0]}" for s in verdicts], wall


def _start_up(count: int) -> tuple[float, float]:
    limits = Limits(cpu_s=5, wall_s=30)
    sandboxed = [run_program("pass", limits=limits).wall_s for _ in range(count)]
    local = [run_program("pass", limits=limits, unsafe_local=True).wall_s for _ in range(count)]
    return statistics.median(sandboxed), statistics.median(local)


def main() -> int:
    parser = argparse.ArgumentParser(prog="code_bench.py", description=__doc__.split("\n")[0])
    parser.add_argument("--data-dir", type=Path, required=True, help="the real datasets")
    parser.add_argument("--starts", type=int, default=30, help="executions for the start-up")
    parser.add_argument("--workers", type=int, help="scoring workers (default: the pool's)")
    args = parser.parse_args()
    samples = load_samples("humaneval", args.data_dir)
    programs = _programs(samples)
    sandboxed, local = _start_up(args.starts)
    workers = args.workers or default_workers()
    pool = ScoringPool(workers=workers, warm=None)
    busy: list[subprocess.Popen[bytes]] = []
    try:
        _verdicts(pool, programs[:workers])  # start the workers
        idle, idle_wall = _verdicts(pool, programs)
        loops = os.cpu_count() or 2
        code = "while True:\n    pass\n"
        busy = [subprocess.Popen([sys.executable, "-c", code]) for _ in range(loops)]
        loaded, loaded_wall = _verdicts(pool, programs)
    finally:
        for process in busy:
            process.kill()
            process.wait()
        pool.close()
    flipped = [i for i, (a, b) in enumerate(zip(idle, loaded, strict=True)) if a != b]
    print(f"| measure | value ({os.cpu_count()} cores, {workers} scoring workers) |")
    print("| --- | --- |")
    print(f"| empty program in bubblewrap (median of {args.starts}) | {sandboxed * 1000:.0f} ms |")
    print(f"| empty program, plain child process | {local * 1000:.0f} ms |")
    print(f"| sandbox start-up per execution | {(sandboxed - local) * 1000:.0f} ms |")
    print(f"| {len(programs)} HumanEval programs, idle | {len(programs) / idle_wall:.1f} exec/s |")
    print(f"| the same beside {loops} busy loops | {len(programs) / loaded_wall:.1f} exec/s |")
    print(f"| verdicts that differ, idle vs loaded | {len(flipped)} of {len(programs)} |")
    half = len(samples)
    right = sum(v.startswith("correct") for v in idle[:half])
    wrong = sum(v.startswith("correct") for v in idle[half:])
    print(f"| correct: canonical, broken | {right} of {half}, {wrong} of {half} |")
    return 1 if flipped else 0


if __name__ == "__main__":
    raise SystemExit(main())
