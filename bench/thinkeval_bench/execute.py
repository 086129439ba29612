"""One run: a fresh simulator, one harness command against it, and what both measured."""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable
from pathlib import Path

from thinkeval_bench.figures import ideal_wall
from thinkeval_bench.measure import Usage, run_measured
from thinkeval_bench.peers import HARNESSES
from thinkeval_bench.peers.base import Context
from thinkeval_bench.plan import RunSpec
from thinkeval_bench.results import Result
from thinkeval_bench.simulator import Simulator
from thinkeval_bench.workload import CONCURRENCY


def _tail(path: Path, lines: int = 3) -> str:
    """The last non-empty lines of a log, joined by ` / `, at most 400 characters."""
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return ""
    kept = [line.strip() for line in text.strip().splitlines() if line.strip()][-lines:]
    return " / ".join(kept)[-400:]


def execute(
    spec: RunSpec,
    *,
    envs: Path,
    out_dir: Path,
    prompt_file: Path,
    answer_dir: Path,
    seed: int,
    timeout_s: float,
    log: Callable[[str], None],
) -> Result:
    """Start a simulator (its answer key from `answer_dir`), run one harness against it, measure,
    stop everything. A run that cannot start is a `failed` result, never an exception."""
    result = Result(spec.harness, spec.scenario, spec.setting, spec.requests, spec.latency_s, "ok")
    name = f"{spec.scenario}-{spec.harness}-{spec.setting}-{spec.requests}"
    workdir = out_dir / name
    workdir.mkdir(parents=True, exist_ok=True)
    result.log = str(workdir / "harness.log")
    sim = Simulator(
        seed=seed, latency_s=spec.latency_s, data_dir=answer_dir, log_path=workdir / "sim.log"
    )
    try:
        sim.start()
        ctx = Context(
            harness=spec.harness,
            envs=envs,
            workdir=workdir,
            base_url=sim.base_url,
            port=sim.port,
            data_dir=spec.data_dir,
            prompt_file=prompt_file,
            concurrency=None if spec.setting == "default" else CONCURRENCY,
        )
        argv, env = HARNESSES[spec.harness].command(ctx)
        result.command = shlex.join(argv)
        limit = spec.stop_after_s if spec.stop_after_s is not None else timeout_s
        log(f"run {name}: {result.command}")
        usage = run_measured(
            argv,
            env=env,
            cwd=workdir,
            log_path=workdir / "harness.log",
            timeout_s=limit,
            on_start=sim.watch,
        )
        sim.unwatch()
        stats = sim.stats()
    except Exception as exc:
        result.status, result.reason = "failed", f"{type(exc).__name__}: {exc}"
        log(f"run {name}: {result.reason}")
        return result
    finally:
        sim.stop()
    result.wall_s, result.cpu_s, result.peak_rss_mb = usage.wall_s, usage.cpu_s, usage.peak_rss_mb
    result.exit_code = usage.exit_code
    result.sim_requests = stats["requests"]
    result.sim_completed = stats["completed"]
    result.max_in_flight = stats["max_in_flight"]
    result.distinct_prompts = stats["distinct_prompts"]
    result.generation_tokens = stats["generation_tokens"]
    result.prompt_tokens = stats["prompt_tokens"]
    result.by_status = stats["by_status"]
    result.span_s = sim.span_s()
    if sim.first_request is not None and sim.last_completion is not None:
        result.before_first_s = sum(sim.first_request) / 2 - usage.started
        result.after_last_s = usage.ended - sum(sim.last_completion) / 2
    result.loadavg = os.getloadavg()
    if spec.latency_s > 0 and result.sim_requests:
        # At the harness's defaults, C is the concurrency it actually reached.
        concurrency = CONCURRENCY if spec.setting == "c64" else result.max_in_flight
        if concurrency:
            result.ideal_s = ideal_wall(result.sim_requests, concurrency, spec.latency_s)
    _judge(result, spec, usage, timeout_s, workdir / "harness.log")
    log(
        f"run {name}: {result.status} wall {usage.wall_s:.1f}s cpu {usage.cpu_s:.2f}s "
        f"rss {usage.peak_rss_mb:.0f}MB requests {result.sim_requests} "
        f"max_in_flight {result.max_in_flight} span {result.span_s}"
    )
    return result


def _judge(result: Result, spec: RunSpec, usage: Usage, timeout_s: float, log_path: Path) -> None:
    """Set the status of a run that ran: a stopped probe, a timeout, a failed exit, too few
    requests completed, or ok."""
    if usage.timed_out:
        if spec.stop_after_s is not None:
            result.status = "probe"
            result.reason = f"stopped after {spec.stop_after_s:g} s (a probe of the defaults)"
        else:
            result.status = "timeout"
            result.reason = f"killed after {timeout_s:g} s"
    elif usage.exit_code != 0:
        result.status = "failed"
        result.reason = f"exit {usage.exit_code}: {_tail(log_path)}"
    elif (result.sim_completed or 0) < spec.requests:
        result.status = "failed"
        result.reason = (
            f"only {result.sim_completed} of {spec.requests} requests completed: {_tail(log_path)}"
        )
