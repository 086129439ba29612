"""The math-scoring benchmark behind `bench/math_bench.py`: what judging LaTeX answers with
Math-Verify costs, per reply and per request of a whole run, beside GSM8K's number kind.

1. **Scoring time per reply**, in this process: the strict verdict of finished MATH-500 and AIME
   replies (the simulator's math flavour: boxed answers, some written in an equivalent form,
   30% wrong) with the math kind, each with Math-Verify's parse cache cleared, beside GSM8K
   replies with the number kind; and one verdict's round trip through the scoring pool.
2. **A run with math scoring**: `thinkeval run` of MATH-500 (500) plus AIME 2024 and 2025 with
   4 repeats (240) against the simulator, beside a GSM8K run of the same size, each also at a
   tenth of the size to split start-up from per-request CPU. CPU is the whole process tree's
   (the run and its scoring workers), measured from outside; the run itself reports its own
   CPU and how long its event loop was ever held up while requests were in flight: a 5 ms
   ticker's worst lateness, and the most CPU the loop's thread spent between two ticks (which
   leaves out the time the machine's other load kept the process waiting).
"""

from __future__ import annotations

import asyncio
import json
import resource
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any
from unittest import mock

from thinkeval_bench.measure import run_measured
from thinkeval_bench.runenv import thinkeval_env
from thinkeval_bench.sections import MARKERS
from thinkeval_bench.simulator import Simulator

TICK_S = 0.005


def _quantile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


@dataclass
class Timing:
    """Per-reply scoring times in milliseconds."""

    replies: int
    median_ms: float
    p90_ms: float
    p99_ms: float
    max_ms: float

    @classmethod
    def of(cls, seconds: Sequence[float]) -> Timing:
        ms = [1000 * s for s in seconds]
        return cls(len(ms), statistics.median(ms), _quantile(ms, 0.9), _quantile(ms, 0.99),
                   max(ms))  # fmt: skip


def finished_replies(
    tasks: Sequence[str], data_dir: Path, limit: int | None = None
) -> list[tuple[str, str]]:
    """(content, gold) of the simulator's finished replies to `tasks`' samples."""
    from thinkeval.sim import SimConfig, answer_key_from_samples
    from thinkeval.sim.behaviour import generate, last_user_text, plan_for, prompt_key
    from thinkeval.tasks import load_samples

    samples = [s for task in tasks for s in load_samples(task, data_dir)[:limit]]
    key = answer_key_from_samples(samples)
    config = SimConfig(seed=7, p_wrong=0.3, p_long=0.0, p_never=0.0, p_malformed=0.0, p_empty=0.0)
    out = []
    for sample in samples:
        text = last_user_text(sample.messages)
        plan = plan_for(config, prompt_key(text), text, key)
        out.append((generate(plan, thinking=True, limit=1 << 20).content_text, sample.gold))
    return out


def time_scoring(kind_name: str, replies: Sequence[tuple[str, str]], cold: Callable[[], None]
                 ) -> Timing:  # fmt: skip
    """Each reply's strict verdict, timed alone after `cold()` empties the caches."""
    from thinkeval.scoring.kinds import make_kind
    from thinkeval.scoring.strict import strict_verdict

    kind = make_kind(kind_name)
    strict_verdict(kind, replies[0][0], "stop", replies[0][1])  # imports, first-use set-up
    seconds = []
    for content, gold in replies:
        cold()
        started = time.perf_counter()
        strict_verdict(kind, content, "stop", gold)
        seconds.append(time.perf_counter() - started)
    return Timing.of(seconds)


def time_pool_round_trip(replies: Sequence[tuple[str, str]]) -> Timing:
    """One verdict at a time through a one-worker scoring pool: what a reply waits."""
    from thinkeval.scoring.kinds import make_kind
    from thinkeval.scoring.pool import ScoringPool
    from thinkeval.scoring.strict import strict_verdict

    kind = make_kind("math")
    pool = ScoringPool(workers=1)
    try:
        pool.call(strict_verdict, kind, replies[0][0], "stop", replies[0][1], None)
        seconds = []
        for content, gold in replies:
            started = time.perf_counter()
            pool.call(strict_verdict, kind, content, "stop", gold, None)
            seconds.append(time.perf_counter() - started)
    finally:
        pool.close()
    return Timing.of(seconds)


def scoring_section(data_dir: Path) -> dict[str, Any]:
    """Part 1: scoring time per reply, math beside number."""
    from thinkeval.scoring.kinds import math as math_kind

    maths = finished_replies(("math500", "aime24", "aime25"), data_dir)
    gsm8k = finished_replies(("gsm8k",), data_dir, limit=560)

    def needs_math_verify(content: str, gold: str) -> bool:
        found = math_kind.MathKind().find(content)
        return found is None or math_kind.quick_match(found.answer, gold) is None

    slow = [(content, gold) for content, gold in maths if needs_math_verify(content, gold)]
    return {
        "math": asdict(time_scoring("math", maths, math_kind.parsed.cache_clear)),
        "math_verify_only": asdict(time_scoring("math", slow, math_kind.parsed.cache_clear)),
        "math_quick_share": 1 - len(slow) / len(maths),
        "number": asdict(time_scoring("number", gsm8k, lambda: None)),
        "pool_round_trip": asdict(time_pool_round_trip(maths[:200])),
    }


# A run, measured from outside ------------------------------------------------------------------


def drive(config_path: str, out_path: str) -> None:
    """`math_bench.py --drive`: run a config in this process with a 5 ms ticker on its event
    loop, and write what the run used to `out_path`."""
    from thinkeval.config import load_config
    from thinkeval.ops import evaluate
    from thinkeval.run import runner

    summary_at: list[float] = []
    requests_at: list[float] = []
    # The run's own CPU at the models' start and at the summary's: what asking costs, without
    # start-up before it and the summary's statistics after it.
    cpu_at: list[float] = []
    # Looked up (and patched below) on the modules that call them, not where they are defined.
    write_summary = evaluate.write_summary  # type: ignore[attr-defined]
    run_models = runner.run_models  # type: ignore[attr-defined]

    def timed_summary(run_dir: Path) -> Any:
        summary_at.append(time.monotonic())
        cpu_at.append(time.process_time())
        return write_summary(run_dir)

    async def timed_models(*args: Any, **kwargs: Any) -> Any:
        requests_at.append(time.monotonic())
        cpu_at.append(time.process_time())
        return await run_models(*args, **kwargs)

    # (when, how late the tick woke, CPU the loop's thread spent meanwhile): lateness with
    # little CPU behind it is the machine's other load, not work holding the loop.
    lateness: list[tuple[float, float, float]] = []

    async def ticker() -> None:
        while True:
            before, cpu = time.monotonic(), time.thread_time()
            await asyncio.sleep(TICK_S)
            late = time.monotonic() - before - TICK_S
            lateness.append((before, late, time.thread_time() - cpu))

    # The ticker's own CPU per tick, measured alone on this loop first: it is the bench's
    # cost, not the run's, and over a long run (math replies keep the workers busy for
    # seconds) it adds up to ~0.1 ms per request. It is taken off `asking_cpu_s`.
    per_tick: list[float] = []

    async def main() -> None:
        tick = asyncio.create_task(ticker())
        cpu = time.process_time()
        await asyncio.sleep(0.5)
        per_tick.append((time.process_time() - cpu) / max(1, len(lateness)))
        lateness.clear()
        config = load_config(config_path)
        await evaluate.evaluate(config, Path(out_path).parent / "run")
        tick.cancel()

    # The loop is measured while requests are in flight: from the models' start (the samples
    # are written before) to the summary's.
    with (
        mock.patch.object(runner, "run_models", timed_models),
        mock.patch.object(evaluate, "write_summary", timed_summary),
    ):
        asyncio.run(main())
    ended = time.monotonic()
    during = [(late, cpu) for at, late, cpu in lateness if requests_at[0] <= at < summary_at[0]]
    lags = [late for late, _ in during]
    own = resource.getrusage(resource.RUSAGE_SELF)
    ticker_cpu_s = len(during) * per_tick[0]
    Path(out_path).write_text(json.dumps({
        "self_cpu_s": own.ru_utime + own.ru_stime,
        "asking_cpu_s": cpu_at[1] - cpu_at[0] - ticker_cpu_s,
        "ticker_cpu_s": ticker_cpu_s,
        "max_lag_ms": 1000 * max(lags, default=0.0),
        "p99_lag_ms": 1000 * _quantile(lags, 0.99) if lags else 0.0,
        "max_busy_ms": 1000 * max((cpu for _, cpu in during), default=0.0),
        "summary_s": ended - summary_at[0] if summary_at else None,
    }))  # fmt: skip


@dataclass
class RunFigures:
    name: str
    requests: int
    wall_s: float
    cpu_s: float  # the process tree: the run and its scoring workers
    self_cpu_s: float  # the run's own process
    # the run's own process while requests run (no start-up, no summary, not the bench's ticker)
    asking_cpu_s: float
    max_lag_ms: float  # the ticker's worst lateness, wall clock
    p99_lag_ms: float
    max_busy_ms: float  # the most CPU the loop's thread spent between two ticks
    summary_s: float | None


def measure_run(
    name: str, tasks: list[dict[str, Any]], url: str, work: Path, data_dir: Path
) -> RunFigures:
    folder = work / name
    folder.mkdir(parents=True, exist_ok=True)
    model = {"name": "m", "base_url": url, "model": "sim-qwen3", "concurrency": 64,
             "generation": {"seed": 0, "temperature": 0.6}}  # fmt: skip
    config = folder / "run.yaml"
    run = {"run": name, "data_dir": str(data_dir), "tasks": tasks, "models": [model]}
    config.write_text(json.dumps(run))
    out = folder / "driver.json"
    usage = run_measured(
        [sys.executable, str(Path(__file__).resolve().parent.parent / "math_bench.py"),
         "--drive", str(config), str(out)],
        env=thinkeval_env(), cwd=folder, log_path=folder / "run.log", timeout_s=900,
    )  # fmt: skip
    if usage.exit_code != 0:
        raise SystemExit(f"error: the {name} run failed; see {folder / 'run.log'}")
    driver = json.loads(out.read_text())
    requests = sum(
        line.count("\n") for line in
        (p.read_text() for p in (folder / "run" / "journal").glob("*.jsonl"))
    )  # fmt: skip
    return RunFigures(name, requests, usage.wall_s, usage.cpu_s, driver["self_cpu_s"],
                      driver["asking_cpu_s"], driver["max_lag_ms"], driver["p99_lag_ms"],
                      driver["max_busy_ms"], driver["summary_s"])  # fmt: skip


def math_tasks(scale: int) -> list[dict[str, Any]]:
    """MATH-500 and AIME 2024/2025 with 4 repeats: 740 requests at scale 10, 74 at 1."""
    return [
        {"name": "math500", "limit": 50 * scale},
        {"name": "aime24", "repeats": 4, "limit": 3 * scale},
        {"name": "aime25", "repeats": 4, "limit": 3 * scale},
    ]


def runs_section(data_dir: Path, work: Path, seed: int) -> list[RunFigures]:
    """Part 2: the math runs beside GSM8K runs of the same sizes, against one simulator."""
    sim = Simulator(seed=seed, latency_s=0.0, data_dir=data_dir, log_path=work / "sim.log")
    sim.start()
    try:
        return [
            measure_run(name, tasks, sim.base_url, work, data_dir)
            for name, tasks in (
                ("math-74", math_tasks(1)),
                ("math-740", math_tasks(10)),
                ("gsm8k-74", [{"name": "gsm8k", "limit": 74}]),
                ("gsm8k-740", [{"name": "gsm8k", "limit": 740}]),
            )
        ]
    finally:
        sim.stop()


def per_request_ms(small: RunFigures, large: RunFigures, field: str = "cpu_s") -> float:
    """CPU per request after start-up: the difference between two sizes of the same run."""
    spent: float = getattr(large, field) - getattr(small, field)
    return 1000 * spent / (large.requests - small.requests)


def render(scoring: dict[str, Any], runs: list[RunFigures]) -> str:
    """The figures side by side, as printed and pasted into docs/benchmarks.md."""
    math, number, trip = scoring["math"], scoring["number"], scoring["pool_round_trip"]
    lines = [
        "scoring time per reply (ms), one process, caches cleared per reply",
        "",
        "| kind | replies | median | p90 | p99 | max |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    rows = (
        ("math (MATH-500 + AIME)", math),
        ("math, the replies Math-Verify judges", scoring["math_verify_only"]),
        ("number (GSM8K)", number),
        ("math through the pool, round trip", trip),
    )
    for name, t in rows:
        lines.append(f"| {name} | {t['replies']} | {t['median_ms']:.2f} | {t['p90_ms']:.2f} | "
                     f"{t['p99_ms']:.2f} | {t['max_ms']:.2f} |")  # fmt: skip
    lines.append("")  # a line right after a table would read as one more row
    ratio = math["median_ms"] / number["median_ms"]
    quick = 100 * scoring["math_quick_share"]
    lines.append(f"math / number, median: {ratio:.1f}x; decided without Math-Verify: {quick:.0f}%")
    lines += [
        "",
        "runs against the simulator (zero latency, concurrency 64)",
        "",
        "| run | requests | wall s | CPU s (tree) | of which the run | loop lag max / p99 ms | "
        "loop busy max ms | summary s |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for run in runs:
        lines.append(
            f"| {run.name} | {run.requests} | {run.wall_s:.2f} | {run.cpu_s:.2f} | "
            f"{run.self_cpu_s:.2f} | {run.max_lag_ms:.1f} / {run.p99_lag_ms:.1f} | "
            f"{run.max_busy_ms:.1f} | {run.summary_s or 0:.2f} |"
        )
    lines.append("")
    by = {run.name: run for run in runs}
    math_tree = per_request_ms(by["math-74"], by["math-740"])
    math_self = per_request_ms(by["math-74"], by["math-740"], "self_cpu_s")
    gsm_tree = per_request_ms(by["gsm8k-74"], by["gsm8k-740"])
    lines.append(
        f"CPU per request after start-up: math {math_tree:.2f} ms (the run's own process "
        f"{math_self:.2f} ms, scoring workers {math_tree - math_self:.2f} ms), gsm8k "
        f"{gsm_tree:.2f} ms; math / gsm8k {math_tree / gsm_tree:.1f}x"
    )
    math_asking = per_request_ms(by["math-74"], by["math-740"], "asking_cpu_s")
    gsm_asking = per_request_ms(by["gsm8k-74"], by["gsm8k-740"], "asking_cpu_s")
    lines.append(
        f"CPU per request while requests run (the run's own process, without start-up, the summary "
        f"and the bench's ticker): math {math_asking:.2f} ms, gsm8k {gsm_asking:.2f} ms"
    )
    return "\n".join(lines)


LOOP_BUSY_TARGET_MS = 50.0
PER_REQUEST_TARGET_MS = 1.0


def results_section(
    scoring: dict[str, Any], runs: list[RunFigures], *, command: str, when: str, settings: str
) -> str:
    """The math section of RESULTS.md, between its markers, with the two targets judged: CPU
    per request of a run with math scoring while requests run, and the event loop's longest
    hold-up by work."""
    start, end = MARKERS["math"]
    by = {run.name: run for run in runs}
    asking = per_request_ms(by["math-74"], by["math-740"], "asking_cpu_s")
    busy = max(by["math-74"].max_busy_ms, by["math-740"].max_busy_ms)

    def met(ok: bool) -> str:
        return "met" if ok else "NOT met"

    return (
        "\n".join(
            [
                start,
                "## Math scoring: per reply, and per request of a run",
                "",
                f"Measured {when} with `{command}`. {settings} What each figure means: "
                "[docs/benchmarks.md](../docs/benchmarks.md#math-scoring-benchmath_benchpy).",
                "",
                render(scoring, runs),
                "",
                f"Target CPU per request ≤ {PER_REQUEST_TARGET_MS:g} ms with math scoring "
                "(the run's own process while requests run): "
                f"**{met(asking <= PER_REQUEST_TARGET_MS)}** ({asking:.2f} ms). "
                "Target event loop never held up by work for more than "
                f"{LOOP_BUSY_TARGET_MS:g} ms: **{met(busy <= LOOP_BUSY_TARGET_MS)}** "
                f"({busy:.1f} ms).",
                end,
            ]
        )
        + "\n"
    )
