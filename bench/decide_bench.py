#!/usr/bin/env python3
"""`decide:` against a full run: server tokens to the verdict, and the error rates by simulation;
see docs/comparing.md ("Deciding with fewer questions").

    python bench/decide_bench.py                 # printed and put in bench/RESULTS.md
    python bench/decide_bench.py --replications 500 --no-write

1. Savings. Two simulators over real HTTP on C-Eval, BoolQ and GSM8K (the whole tasks): the
   same model twice, and a candidate 5 points worse (`p_wrong` 0.12 → 0.17, same seed: it is
   wrong on a superset of the baseline's questions). Each case runs once in full and once with
   `decide:`; the server tokens (prompt + completion, from the replies' usage, both models) are
   compared task by task and in all.
2. Error rates. The paired adaptive outcomes of two full runs are the populations: the 5-point
   drop, and a noisy candidate (another seed, `p_wrong` 0.15: a third of the answers disagree).
   Thousands of runs of the sequential rule resample questions from a population with
   replacement, in the run's batches, with the margin set to the population's own drop (Δ = -m
   exactly, the hardest case): there "equivalent" / "non-inferior" and "inferior" are both false,
   and each must happen in at most α of the runs.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import io
import shlex
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from thinkeval_bench import BENCH_DIR
from thinkeval_bench.sections import put_section

TASKS = ("ceval", "boolq", "gsm8k")
MARGINS = {"ceval": 5.0, "boolq": 1.0, "gsm8k": 2.0}  # points, as docs/comparing.md advises
BATCH = 50
ALPHA = 0.05


@contextlib.contextmanager
def simulator(answer_key: Any, **knobs: Any) -> Iterator[str]:
    """A simulator on 127.0.0.1 in its own thread; yields its base URL."""
    from thinkeval.sim.app import serve
    from thinkeval.sim.config import SimConfig

    ready, url, loop = threading.Event(), [""], asyncio.new_event_loop()
    stop = asyncio.Event()

    async def main() -> None:
        async with serve(SimConfig(port=0, model="m", **knobs), answer_key, port=0) as base:
            url[0] = base
            ready.set()
            await stop.wait()

    thread = threading.Thread(target=loop.run_until_complete, args=(main(),), daemon=True)
    thread.start()
    ready.wait(60)
    try:
        yield url[0]
    finally:
        loop.call_soon_threadsafe(stop.set)
        thread.join(10)


def run(out: Path, base: str, cand: str, decide: bool) -> float:
    """One run of both models on the three tasks; its wall seconds."""
    from thinkeval.cli import main

    def entry(name: str, url: str) -> dict[str, Any]:
        return {"name": name, "base_url": url, "model": "m", "concurrency": 64,
                "generation": {"temperature": 0.0}}  # fmt: skip

    import yaml

    config: dict[str, Any] = {
        "run": out.name,
        "tasks": list(TASKS),
        "models": [entry("base", base), entry("cand", cand)],
        "baseline": {"model": "base", "margins": MARGINS},
    }
    if decide:
        config["decide"] = {"batch": BATCH, "alpha": ALPHA}
    path = out.parent / f"{out.name}.yaml"
    path.write_text(yaml.safe_dump(config))
    started = time.monotonic()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = main(["run", str(path), "--output", str(out)])
    if code != 0:
        raise SystemExit(f"error: the run {out} ended with {code}")
    return time.monotonic() - started


def tokens(run_dir: Path) -> dict[str, int]:
    from thinkeval.store.journal import iter_attempts

    found = dict.fromkeys(TASKS, 0)
    for attempt in iter_attempts(run_dir):
        usage = attempt.usage
        found[attempt.task] += (usage.prompt_tokens or 0) + (usage.completion_tokens or 0)
    return found


def paired(run_dir: Path) -> dict[str, np.ndarray]:
    """Per task, the paired adaptive differences (candidate - baseline) of a full run."""
    from thinkeval.results.sequential_run import QuestionScores
    from thinkeval.results.tally import tally
    from thinkeval.store.run_record import read_run_record

    record = read_run_record(run_dir)
    seen = QuestionScores()
    tally(run_dir, record, ["base", "cand"], list(TASKS), on_question=seen.question)
    out = {}
    for task in TASKS:
        d = np.asarray(seen.scores["cand", task]) - np.asarray(seen.scores["base", task])
        out[task] = d[~np.isnan(d)]
    return out


def error_rates(population: np.ndarray, replications: int, seed: int) -> tuple[float, ...]:
    """False claims at Δ = -m (m: the population's own drop) over resampled runs, drawn in
    chunks so that memory stays near 100 MB whatever the task's size."""
    from thinkeval.results.sequential import DECISION_CODES, Goal, settled_at

    margin = -float(population.mean())
    n = population.size
    rng = np.random.default_rng(seed)
    at = np.unique(np.append(np.arange(BATCH, n, BATCH), n))
    codes = np.array(DECISION_CODES)
    claims = np.zeros(4)
    for start in range(0, replications, 500):
        draws = rng.integers(0, n, size=(min(500, replications - start), n))
        goals: tuple[Goal, ...] = ("equivalent", "non-inferior")
        for index, goal in enumerate(goals):
            _, decided = settled_at(population[draws], at, margin, ALPHA, goal)
            said = codes[decided]
            claims[2 * index] += np.isin(said, ["equivalent", "non-inferior"]).sum()
            claims[2 * index + 1] += (said == "inferior").sum()
    return margin, float(np.mean(population != 0)), *(claims / replications).tolist()


def main() -> int:
    parser = argparse.ArgumentParser(prog="decide_bench.py", description=__doc__.split("\n")[0])
    parser.add_argument("--replications", type=int, default=4000)
    parser.add_argument("--no-write", action="store_true", help="print only")
    parser.add_argument("--out", type=Path, default=BENCH_DIR / "RESULTS.md")
    args = parser.parse_args()
    from thinkeval.sim.behaviour import answer_key_from_samples
    from thinkeval.tasks import get_task, load_samples, resolve_data_dir

    data_dir = resolve_data_dir(None)
    if data_dir is None:
        raise SystemExit("error: no data dir: set THINKEVAL_DATA_DIR or put ../shared/datasets")
    key = answer_key_from_samples(s for t in TASKS for s in load_samples(get_task(t), data_dir))
    cases = {"same model": {}, "5-point drop": {"p_wrong": 0.17}}
    lines = [
        "| case | task | questions | margin | verdict | asked | tokens decide | tokens full "
        "| share |",
        "| --- | --- | ---: | ---: | --- | ---: | ---: | ---: | ---: |",
    ]
    populations: dict[str, dict[str, np.ndarray]] = {}
    walls = []
    with tempfile.TemporaryDirectory(prefix="decide-bench-") as scratch:
        work = Path(scratch)
        for label, knobs in cases.items():
            name = label.replace(" ", "-")
            with simulator(key, seed=5) as base, simulator(key, seed=5, **knobs) as cand:
                full_s = run(work / f"{name}-full", base, cand, decide=False)
                seq_s = run(work / f"{name}-decide", base, cand, decide=True)
            walls.append((label, full_s, seq_s))
            full, seq = tokens(work / f"{name}-full"), tokens(work / f"{name}-decide")
            from thinkeval.results.sequential_run import read_decide

            record = read_decide(work / f"{name}-decide")
            assert record is not None
            for task in record.tasks:
                share = seq[task.task] / full[task.task]
                lines.append(
                    f"| {label} | {task.task} | {task.size} | ±{MARGINS[task.task]:g} pp | "
                    f"{task.verdicts[0].decision} ({task.state}) | {task.asked} | "
                    f"{seq[task.task]:,} | {full[task.task]:,} | {share:.0%} |"
                )
            total = sum(seq.values()) / sum(full.values())
            lines.append(f"| {label} | all three | | | | | {sum(seq.values()):,} | "
                         f"{sum(full.values()):,} | {total:.0%} |")  # fmt: skip
            if label == "5-point drop":
                populations[label] = paired(work / f"{name}-full")
        with simulator(key, seed=5) as base, simulator(key, seed=6, p_wrong=0.15) as cand:
            run(work / "noisy-full", base, cand, decide=False)
        populations["noisy candidate"] = paired(work / "noisy-full")
    rates = ["| population | task | m = its drop | disagreement | goal equivalent: false "
             "equivalent or non-inferior | false inferior | goal non-inferior: false "
             "non-inferior | false inferior |", "| --- | --- | ---: | ---: | ---: | ---: | ---: "
             "| ---: |"]  # fmt: skip
    started = time.monotonic()
    for label, by_task in populations.items():
        for index, (name, population) in enumerate(by_task.items()):
            if population.mean() > -0.005:  # no drop to set a margin at
                rates.append(f"| {label} | {name} | no drop ({population.mean() * 100:+.2f} "
                             "pp): no margin to test at | | | | | |")  # fmt: skip
                continue
            margin, disagree, *found = error_rates(population, args.replications, index)
            cells = " | ".join(f"{rate:.2%}" for rate in found)
            rates.append(f"| {label} | {name} | {margin * 100:.2f} pp | {disagree:.1%} | {cells} |")
    simulated_s = time.monotonic() - started
    now = dt.datetime.now(dt.UTC)
    command = shlex.join(["python", "bench/decide_bench.py", *sys.argv[1:]])
    section = "\n".join([
        "<!-- decide:start -->",
        "## decide: the verdict with fewer tokens, and its error rates",
        "",
        f"Measured {now:%Y-%m-%d %H:%M} UTC with `{command}`. Two simulators (seed 5) over "
        f"HTTP, the whole C-Eval, BoolQ and GSM8K, budgets 2048 → 8192, `decide: {{batch: "
        f"{BATCH}, alpha: {ALPHA}}}`, margins declared per task (C-Eval 5, BoolQ 1, GSM8K 2 "
        "points). Server tokens: prompt + completion of every reply of both models, from the "
        "journal's usage; share = decide / full, side by side in one run of this script. "
        "Wall s (full, decide): "
        + "; ".join(f"{label} {full:.0f} / {seq:.0f}" for label, full, seq in walls) + ".",
        "",
        *lines,
        "",
        f"Error rates at α = {ALPHA} per one-sided claim, {args.replications} resampled runs "
        "per row (questions drawn with replacement from the full run's paired outcomes, looks "
        f"every {BATCH}, up to the task's size), the margin set to the population's own drop so "
        f"that each claim below is false ({simulated_s:.0f} s):",
        "",
        *rates,
        "<!-- decide:end -->",
    ])  # fmt: skip
    print(section)
    if not args.no_write:
        put_section(args.out, section + "\n", "decide")
        print(f"wrote the decide section of {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
