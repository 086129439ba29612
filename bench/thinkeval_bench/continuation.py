"""`retry: reask` against `retry: continue` on the continuous-batching simulator, greedy.

Two shapes: the seed's GSM8K run (1319 questions, 2048 → 8192, about a fifth cut off) and a
MATH-500-like one (500 questions, 16384 → 32768, about a third cut off). Each shape runs twice
against a fresh simulator with the same seed, once per retry mode, and reads: the decode
(generated) and prefill tokens the server counted, the run's wall time, the floor (what one run
at B2 would have generated for the same replies, from the report) and whether every verdict is
the same in both runs.
"""

from __future__ import annotations

import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from thinkeval_bench.runenv import thinkeval_env
from thinkeval_bench.simulator import Simulator
from thinkeval_bench.workload import MODEL

MODES = ("reask", "continue")


@dataclass(frozen=True)
class Shape:
    """One workload: a task, its budgets, and the simulator flags that shape its replies."""

    name: str
    task: str
    flags: tuple[str, ...]


SHAPES = (
    Shape("GSM8K (seed)", "gsm8k", ("--task-shape", "gsm8k:0.17:300-1800")),
    Shape(
        "MATH-500-like",
        "math500",
        # The simulator scales math reasoning by 8: 2000-15000 short, 17200-31200 long tokens.
        ("--task-shape", "math500:0.3:250-1900", "--long-tokens", "2150-3900"),
    ),
)


@dataclass(frozen=True)
class Measured:
    """One run of one shape in one retry mode."""

    shape: str
    mode: str
    requests: int
    continuations: int
    decode: int  # tokens the server generated (the probe's two included)
    prefill: int
    floor: int
    busy_s: float  # simulated seconds replies held a slot (`service_s`): the GPU time
    wall_s: float
    statuses: dict[tuple[str, int, str], str | None]

    @property
    def ratio(self) -> float:
        return self.decode / self.floor if self.floor else float("inf")


def _config(
    path: Path, url: str, shape: Shape, mode: str, data_dir: Path, slots: int, limit: int | None
) -> Path:
    model = {
        "name": "m",
        "base_url": url,
        "model": MODEL,
        "concurrency": slots,
        "retry": mode,
        "generation": {"temperature": 0.0, "top_p": 1.0},
    }
    config = {
        "run": f"{shape.task}-{mode}",
        "data_dir": str(data_dir),
        "tasks": [{"name": shape.task, **({"limit": limit} if limit else {})}],
        "models": [model],
    }
    path.write_text(yaml.safe_dump(config), "utf-8")
    return path


def measure(
    shape: Shape,
    mode: str,
    work: Path,
    data_dir: Path,
    *,
    seed: int,
    slots: int,
    per_token_s: float,
    prefill_token_s: float,
    limit: int | None = None,
) -> Measured:
    """Run `shape` once in `mode` against a fresh simulator."""
    from thinkeval.report import build_report
    from thinkeval.report.sections.tokens import SECTION as TOKENS
    from thinkeval.store.journal import iter_attempts

    folder = work / f"{shape.task}-{mode}"
    folder.mkdir(parents=True, exist_ok=True)
    flags = [
        "--max-num-seqs",
        str(slots),
        "--per-token-s",
        f"{per_token_s:g}",
        "--prefill-token-s",
        f"{prefill_token_s:g}",
        *shape.flags,
    ]
    sim = Simulator(
        seed=seed, latency_s=0.0, data_dir=data_dir, log_path=folder / "sim.log", flags=flags
    )
    sim.start()
    try:
        config = _config(folder / "run.yaml", sim.base_url, shape, mode, data_dir, slots, limit)
        run_dir = folder / "run"
        started = time.monotonic()
        with open(folder / "run.log", "wb") as log:
            code = subprocess.call(
                [sys.executable, "-m", "thinkeval", "run", str(config), "--output", str(run_dir)],
                env=thinkeval_env(),
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        wall = time.monotonic() - started
        if code != 0:
            raise RuntimeError(f"{shape.task} {mode}: thinkeval run exited {code} ({folder})")
        stats: dict[str, Any] = sim.stats()
    finally:
        sim.stop()
    floor = sum(
        row.floor
        for row in TOKENS.numbers(build_report([run_dir])).tokens
        if row.task == shape.task
    )
    statuses: dict[tuple[str, int, str], str | None] = {
        (x.sample_id, x.repeat, x.phase): x.recorded_status()
        for x in iter_attempts(run_dir)
        if x.error is None
    }
    return Measured(
        shape=shape.name,
        mode=mode,
        requests=stats["requests"],
        continuations=stats["continuations"],
        decode=stats["generation_tokens"],
        prefill=stats["prompt_tokens"],
        floor=floor,
        busy_s=stats["service_s"],
        wall_s=wall,
        statuses=statuses,
    )


def agreement(a: Measured, b: Measured) -> tuple[int, int]:
    """(same, compared) verdicts over the units and phases both runs recorded."""
    keys = set(a.statuses) | set(b.statuses)
    same = sum(1 for k in keys if a.statuses.get(k) == b.statuses.get(k))
    return same, len(keys)


def render(results: list[Measured], *, command: str, when: str, settings: str) -> str:
    """The `continue` section of RESULTS.md."""
    lines = [
        "<!-- continue:start -->",
        "## Retry: re-ask against continue (server tokens at the floor)",
        "",
        f"Measured {when} with `{command}`. {settings}",
        "",
        "Greedy decoding. Decode = tokens the simulator generated, prefill = prompt tokens it "
        "processed (a continuation prefills its carried tokens again); floor = what one run at "
        "B2 would have generated for the same replies (each sample's last reply, once; the "
        "report's Server tokens section). Server busy s = the simulated seconds replies held a "
        "slot (prefill and decode, queueing excluded): the GPU time; wall time also holds this "
        "machine's CPU contention. Verdicts compared per (sample, phase).",
        "",
        "| shape | retry | requests | continuations | decode tokens | prefill tokens | floor | "
        "decode / floor | server busy s | wall s | verdicts identical |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    verdicts: list[str] = []
    for shape in dict.fromkeys(r.shape for r in results):
        pair = {r.mode: r for r in results if r.shape == shape}
        same, compared = agreement(pair["reask"], pair["continue"])
        for mode in MODES:
            r = pair[mode]
            lines.append(
                f"| {shape} | {mode} | {r.requests} | {r.continuations} | {r.decode} | "
                f"{r.prefill} | {r.floor} | **{r.ratio:.3f}** | {r.busy_s:.0f} | {r.wall_s:.1f} | "
                f"{same}/{compared} |"
            )
        reask, cont = pair["reask"], pair["continue"]
        verdicts.append(
            f"- {shape}: continue decodes {cont.ratio:.3f} × the floor (target ≤ 1.05: "
            f"{'met' if cont.ratio <= 1.05 else 'missed'}), re-ask {reask.ratio:.3f} × "
            f"(expected ≥ 1.2); server busy time {cont.busy_s / reask.busy_s:.2f} × re-ask's, "
            f"wall time {cont.wall_s / reask.wall_s:.2f} × (decode {cont.decode / reask.decode:.2f}"
            f" ×); verdicts identical "
            f"{same}/{compared} ({'met' if same == compared else 'missed'})."
        )
    lines += ["", *verdicts, "<!-- continue:end -->", ""]
    return "\n".join(lines)
