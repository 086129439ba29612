"""Three models × three tasks on three simulated servers: how close to server-bound is a run?

Each server is `thinkeval sim` with continuous batching: `--max-num-seqs` slots, a reply holds
its slot for `--per-token-s` × its tokens, the rest queue. Reply lengths follow a thinking
model per task (`--task-shape`: C-Eval reasons longest and runs past the first budget most
often, BoolQ least). The same config runs twice on fresh servers: all models at once (one
`thinkeval run`), and model by model (one `thinkeval run --model M` after the other).

The server-bound limit of a run is what no client can beat by much: the busiest server's total
service time divided by its slots, plus the longest fixed → retry chain (a retry can only start
once its fixed reply is back, so the last such chain may run on alone). Wall / limit ≤ 1.1 is
the target.

A second part measures the client alone with three models × 64 in flight (each reply takes
`CLIENT_LATENCY_S`, no tokens are timed): CPU per request (from a small and a large run, as in
the main benchmark's CPU split) and peak RSS at two run lengths (memory must not grow).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from thinkeval_bench.measure import run_measured
from thinkeval_bench.runenv import thinkeval_env
from thinkeval_bench.simulator import Simulator
from thinkeval_bench.workload import SIM_FLAGS

MODELS: tuple[tuple[str, int], ...] = (("w8a8", 1), ("bf16", 2), ("moe", 3))  # name, sim seed
# Thinking-model reply lengths per task: share running past the first budget, ordinary range.
TASK_SHAPES: tuple[str, ...] = ("ceval:0.25:600-2000", "gsm8k:0.12:400-1800", "boolq:0.04:200-900")
# Long enough that every model keeps its 64 requests in flight, short enough for a quick run.
CLIENT_LATENCY_S = 0.1


@dataclass
class ModeResult:
    """One way of running the scenario: its wall time against its server-bound limit."""

    mode: str
    wall_s: float
    cpu_s: float
    peak_rss_mb: float
    requests: int
    busiest_s: float  # the busiest server's service time / its slots
    chain_s: float  # the longest fixed → retry chain
    exit_codes: list[int | None] = field(default_factory=list)

    @property
    def limit_s(self) -> float:
        return self.busiest_s + self.chain_s

    @property
    def ratio(self) -> float:
        return self.wall_s / self.limit_s if self.limit_s else float("inf")


def sim_flags(slots: int, per_token_s: float) -> list[str]:
    """The simulator flags of one server of the scenario."""
    flags = ["--max-num-seqs", str(slots), "--per-token-s", f"{per_token_s:g}"]
    for shape in TASK_SHAPES:
        flags += ["--task-shape", shape]
    return flags


def write_config(
    path: Path, servers: Sequence[str], tasks: list[Any], concurrency: int, data_dir: Path
) -> Path:
    """A run config: one model per server, `concurrency` each, the scenario's tasks."""
    models = [
        {"name": name, "base_url": url, "model": "sim-qwen3", "concurrency": concurrency}
        for (name, _), url in zip(MODELS, servers, strict=True)
    ]
    config = {"run": path.parent.name, "data_dir": str(data_dir), "tasks": tasks, "models": models}
    path.write_text(yaml.safe_dump(config), "utf-8")
    return path


def longest_chain_s(run_dir: Path, per_token_s: float) -> float:
    """The longest service time of a (sample, repeat)'s fixed reply plus its retry."""
    from thinkeval.store.journal import iter_attempts

    tokens: dict[tuple[str, str, str, int], int] = {}
    for attempt in iter_attempts(run_dir):
        if attempt.error is None and attempt.usage.completion_tokens is not None:
            key = (attempt.model, attempt.task, attempt.sample_id, attempt.repeat)
            tokens[key] = tokens.get(key, 0) + attempt.usage.completion_tokens
    return max(tokens.values(), default=0) * per_token_s


def thinkeval_command(config: Path, run_dir: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "thinkeval", "run", str(config), "--output", str(run_dir), *extra]


@contextlib.contextmanager
def three_servers(
    folder: Path, data_dir: Path, *, latency_s: float = 0.0, flags: Sequence[str] = SIM_FLAGS
) -> Iterator[list[Simulator]]:
    """One fresh simulator per model (its seed from `MODELS`), stopped when done."""
    sims = [
        Simulator(
            seed=seed,
            latency_s=latency_s,
            data_dir=data_dir,
            log_path=folder / f"sim-{name}.log",
            flags=flags,
        )
        for name, seed in MODELS
    ]
    try:
        for sim in sims:
            sim.start()
        yield sims
    finally:
        for sim in sims:
            sim.stop()


def run_mode(
    mode: str,
    work: Path,
    data_dir: Path,
    tasks: list[Any],
    *,
    slots: int,
    per_token_s: float,
    timeout_s: float,
) -> ModeResult:
    """Run the scenario `together` (one command) or `model-by-model` on three fresh servers."""
    folder = work / mode
    folder.mkdir(parents=True, exist_ok=True)
    with three_servers(folder, data_dir, flags=sim_flags(slots, per_token_s)) as sims:
        servers = [s.base_url for s in sims]
        config = write_config(folder / "run.yaml", servers, tasks, slots, data_dir)
        run_dir = folder / "run"
        commands = [thinkeval_command(config, run_dir)]
        if mode == "model-by-model":
            commands = [thinkeval_command(config, run_dir, "--model", name) for name, _ in MODELS]
        usages = [
            run_measured(
                command,
                env=thinkeval_env(),
                cwd=folder,
                log_path=folder / f"run-{i}.log",
                timeout_s=timeout_s,
            )
            for i, command in enumerate(commands)
        ]
        stats = [sim.stats() for sim in sims]
    return ModeResult(
        mode=mode,
        wall_s=sum(u.wall_s for u in usages),
        cpu_s=sum(u.cpu_s for u in usages),
        peak_rss_mb=max(u.peak_rss_mb for u in usages),
        requests=sum(int(s["completed"]) for s in stats),
        busiest_s=max(float(s["service_s"]) for s in stats) / slots,
        chain_s=longest_chain_s(run_dir, per_token_s),
        exit_codes=[u.exit_code for u in usages],
    )


@dataclass
class ClientResult:
    """The client alone, three models × `concurrency` in flight."""

    rows: int  # GSM8K-format rows per model
    requests: int
    max_in_flight: int  # the most one server saw at once
    cpu_s: float
    peak_rss_mb: float
    wall_s: float
    exit_code: int | None


def run_client(
    work: Path, rows: int, concurrency: int, timeout_s: float, seed: int
) -> ClientResult:
    """One run of three models on `rows` synthetic GSM8K rows each, nothing cut off."""
    from thinkeval_bench.workload import write_synthetic

    folder = work / f"client-{rows}"
    data = folder / "data"
    write_synthetic(data, rows, seed)
    with three_servers(folder, data, latency_s=CLIENT_LATENCY_S) as sims:
        servers = [s.base_url for s in sims]
        config = write_config(folder / "run.yaml", servers, ["gsm8k"], concurrency, data)
        usage = run_measured(
            thinkeval_command(config, folder / "run"),
            env=thinkeval_env(),
            cwd=folder,
            log_path=folder / "run.log",
            timeout_s=timeout_s,
        )
        stats = [sim.stats() for sim in sims]
    return ClientResult(
        rows=rows,
        requests=sum(int(s["completed"]) for s in stats),
        max_in_flight=max(int(s["max_in_flight"]) for s in stats),
        cpu_s=usage.cpu_s,
        peak_rss_mb=usage.peak_rss_mb,
        wall_s=usage.wall_s,
        exit_code=usage.exit_code,
    )


def cpu_per_request_ms(small: ClientResult, large: ClientResult) -> float:
    """(CPU of the large run − CPU of the small one) / (the requests between them), in ms."""
    return (large.cpu_s - small.cpu_s) / max(large.requests - small.requests, 1) * 1000
