#!/usr/bin/env python3
"""Prompt affinity against least-loaded routing over replicas with a prefix cache, for avg@k.

    python bench/affinity_bench.py              # both shapes, printed and put in bench/RESULTS.md
    python bench/affinity_bench.py --prompts 16 # a quick look, nothing written

Four simulated vLLM replicas (`thinkeval sim` in this process, each with its own prefix cache
of `--cache-tokens` and `--slots` running slots) serve avg@k (k = 8) over `--prompts` prompts,
asked as a run asks them: repeat by repeat over the task, `--concurrency` requests in flight,
through thinkeval's own `Dispatcher`. Each shape runs once with `route: affinity` (every repeat
of a prompt on the replica its rendezvous hash picks, with bounded loads) and once with
`route: least_loaded` (the routing before), side by side in one process, same seed; the script
prints wall time, engine busy time, prefill tokens computed and the prefix-cache hit rate of
each, and their ratios.

Each replica is the simulator's stepped engine (`--max-num-batched-tokens`, sim/steps.py): as in
vLLM's continuous batching with chunked prefill, every step serves all the sequences on the
replica, decode tokens first, then prompt tokens up to the budget, and takes
`step + token × tokens scheduled`. So a prompt prefilled on a replica slows every reply decoding
there, and a prefix-cache hit saves that time for all of them. The costs are an H100-class
replica's (`--step-ms` 30 ms a decode step, `--prefill-tps` 15,000 prompt tokens/s), every time
divided by `--time-scale` (10) so a run takes minutes; the engine's clock is virtual and exact,
so the ratios do not depend on the scale, only the client's own CPU time does.
`--batched-tokens 0` measures the simulator's older per-request model instead (each reply sleeps
its own prefill and decode, so a prefill slows nobody else).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import shlex
import sys
import time
from contextlib import AsyncExitStack
from dataclasses import dataclass
from pathlib import Path

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent))

from thinkeval.client.dispatch import Dispatcher
from thinkeval.client.profiles import get_profile
from thinkeval.client.replicas import Route
from thinkeval.config import ModelConfig
from thinkeval.sim.app import serve
from thinkeval.sim.config import SimConfig
from thinkeval_bench import BENCH_DIR
from thinkeval_bench.sections import put_section

REPLICAS = 4
COST_MODEL = (
    "Each replica is the simulator's stepped engine (`--max-num-batched-tokens`, as vLLM V1's "
    "chunked prefill: decode tokens first, then prompt chunks within the budget, 2048 being "
    "vLLM's default): a step takes `--per-token-s + --prefill-token-s × tokens scheduled`, so a "
    "prompt prefilled on a replica slows every reply decoding there. The costs are those of one "
    "H100 serving a 14B bf16 model, run 10× faster: a decode step of 30 ms (its 28 GB of "
    "weights read once per step at 3.35 TB/s take ~9 ms; with attention and overheads vLLM's "
    "inter-token latency at batch 8-64 is ~15-30 ms) and 15,000 prompt tokens/s (28 GFLOP a "
    "token at ~40% of 989 bf16 TFLOP/s). An 8,000-token prefill is then 18 steps' time; a 14B "
    "model's real ratio (~25) or a 32B model's (~35) is larger, so this understates what a "
    "cache hit saves. Wall time is the client's, first request to last reply; engine busy is "
    "the replicas' stepping seconds (GPU time); the wait is for a place among `--max-num-seqs`."
)
REPEATS = 8
ROUTES: tuple[Route, ...] = ("affinity", "least_loaded")


@dataclass(frozen=True)
class Shape:
    """A workload: prompt length and reasoning length of the simulated replies."""

    name: str
    prompt_tokens: int
    reasoning: tuple[int, int]
    max_tokens: int


SHAPES = (
    Shape("GSM8K-like (200-token prompt, 150-1500 reasoning tokens)", 200, (150, 1500), 2048),
    Shape("long prompt (8000-token document, 50-200 reasoning tokens)", 8000, (50, 200), 512),
)


@dataclass
class Measured:
    shape: str
    slots: int
    route: str
    wall_s: float
    prefill_tokens: int
    prompt_tokens: int
    hits: int
    busy_s: float  # the replicas' engine seconds (per-request model: slot seconds): GPU time
    queued_s: float  # seconds requests waited for a place in a replica's batch, in all
    failed: int


def _prompt(index: int, tokens: int) -> str:
    # The simulator counts UTF-8 bytes / 4 as tokens.
    head = f"Question {index}: a farmer has {index + 3} pens with 4 sheep each. How many sheep?\n"
    filler = "Context line that the model reads before answering. " * (tokens * 4 // 52 + 1)
    return (filler[: max(0, tokens * 4 - len(head))] + head).strip()


def _sim_config(shape: Shape, slots: int, args: argparse.Namespace) -> SimConfig:
    return SimConfig(
        port=0,
        seed=args.seed,
        p_long=0.0,
        p_never=0.0,
        short_tokens=shape.reasoning,
        per_token_s=args.step_ms / 1000 / args.time_scale,
        prefill_token_s=1 / args.prefill_tps / args.time_scale,
        max_num_seqs=slots,
        max_num_batched_tokens=max(args.batched_tokens, slots) if args.batched_tokens else 0,
        prefix_cache_tokens=args.cache_tokens,
    )


async def _measure(shape: Shape, slots: int, route: Route, args: argparse.Namespace) -> Measured:
    config = _sim_config(shape, slots, args)
    async with AsyncExitStack() as stack:
        urls = [await stack.enter_async_context(serve(config)) for _ in range(REPLICAS)]
        model = ModelConfig(
            name="bench",
            model=config.model,
            base_url=urls,
            concurrency=args.concurrency,
            route=route,
            probe_interval_s=None,
            deadline_factor=None,
        )
        profile = get_profile("vllm")
        queue: asyncio.Queue[tuple[int, int]] = asyncio.Queue()
        for repeat in range(REPEATS):  # repeat by repeat over the task, as a run orders them
            for index in range(args.prompts):
                queue.put_nowait((index, repeat))
        failed = 0
        async with Dispatcher(model) as dispatcher:

            async def worker() -> None:
                nonlocal failed
                while not queue.empty():
                    index, repeat = queue.get_nowait()
                    messages = [{"role": "user", "content": _prompt(index, shape.prompt_tokens)}]
                    generation = {"seed": repeat, "temperature": 0.6}
                    body = profile.request(
                        config.model, messages, shape.max_tokens, generation, False
                    )
                    outcome = await dispatcher.chat(body, affinity=f"bench\x1f{index}")
                    failed += outcome.failure is not None

            started = time.perf_counter()
            await asyncio.gather(*(worker() for _ in range(args.concurrency)))
            wall = time.perf_counter() - started
        prompt = hits = 0
        busy = queued = 0.0
        async with aiohttp.ClientSession() as session:
            for url in urls:
                async with session.get(f"{url.removesuffix('/v1')}/sim/stats") as reply:
                    stats = await reply.json()
                prompt += stats["prompt_tokens"]
                hits += stats["prefix_cache_hits"]
                busy += stats["busy_s"] if config.max_num_batched_tokens else stats["service_s"]
                queued += stats["queued_s"]
    return Measured(
        shape.name, slots, route, wall, prompt - hits, prompt, hits, busy, queued, failed
    )


def _render(results: list[Measured], command: str, settings: str, requests: int) -> str:
    lines = [
        "<!-- affinity:start -->",
        "## Replica routing: prompt affinity against least-loaded (avg@8)",
        "",
        f"`{command}`, {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC. {settings}",
        "",
        *((COST_MODEL, "") if "--max-num-batched-tokens 0 " not in settings else ()),
        "| workload | slots/replica | route | wall s | engine busy s | prefill tokens computed "
        "| cache hits | mean wait for a place, ms |",
        "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for m in results:
        rate = m.hits / m.prompt_tokens if m.prompt_tokens else 0.0
        lines.append(
            f"| {m.shape} | {m.slots} | {m.route} | {m.wall_s:.2f} | {m.busy_s:.1f} "
            f"| {m.prefill_tokens:,} | {rate:.1%} | {1000 * m.queued_s / requests:.0f} |"
        )
    lines += [
        "",
        "| workload | slots/replica | wall affinity / least-loaded "
        "| engine busy affinity / least-loaded | prefill affinity / least-loaded |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    pairs: dict[tuple[str, int], dict[str, Measured]] = {}
    for m in results:
        pairs.setdefault((m.shape, m.slots), {})[m.route] = m
    for (shape, slots), pair in pairs.items():
        a, b = pair["affinity"], pair["least_loaded"]
        lines.append(
            f"| {shape} | {slots} | {a.wall_s / b.wall_s:.2f}x | {a.busy_s / b.busy_s:.2f}x | "
            f"{a.prefill_tokens / max(1, b.prefill_tokens):.2f}x |"
        )
    lines.append("<!-- affinity:end -->")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(prog="affinity_bench.py", description=__doc__.split("\n")[0])
    parser.add_argument("--prompts", type=int, default=64, help="distinct prompts (default: 64)")
    parser.add_argument("--concurrency", type=int, default=32, help="requests in flight")
    parser.add_argument(
        "--slots",
        default="8,10,64",
        help="slots per replica (max_num_seqs), each measured: 8 = the concurrency exactly, "
        "so any imbalance queues; 10 = the most the bounded load (1.25 x the mean of 8) sends "
        "to one replica; 64 = room to spare, as a real vLLM batch (default: 8,10,64)",
    )
    parser.add_argument("--cache-tokens", type=int, default=200_000, help="prefix cache/replica")
    parser.add_argument("--step-ms", type=float, default=30.0, help="decode step, ms (30)")
    parser.add_argument(
        "--prefill-tps", type=float, default=15_000.0, help="prompt tokens/s per replica (15000)"
    )
    parser.add_argument(
        "--batched-tokens",
        type=int,
        default=2048,
        help="max_num_batched_tokens per step (vLLM's default 2048); 0: the per-request model",
    )
    parser.add_argument("--time-scale", type=float, default=10.0, help="times divided by this")
    parser.add_argument("--seed", type=int, default=7, help="the simulators' seed")
    parser.add_argument("--out", type=Path, default=BENCH_DIR / "RESULTS.md")
    args = parser.parse_args()
    slots = [int(n) for n in args.slots.split(",")]
    results = [
        asyncio.run(_measure(shape, n, route, args))
        for shape in SHAPES
        for n in slots
        for route in ROUTES
    ]
    if any(m.failed for m in results):
        raise SystemExit(
            f"error: failed requests: {[(m.shape, m.route, m.failed) for m in results]}"
        )
    sample = _sim_config(SHAPES[0], slots[0], args)
    settings = (
        f"{REPLICAS} simulated replicas, each `--max-num-seqs {args.slots} "
        f"--max-num-batched-tokens {args.batched_tokens} "
        f"--prefix-cache-tokens {args.cache_tokens} --per-token-s {sample.per_token_s:g} "
        f"--prefill-token-s {sample.prefill_token_s:g}` (a {args.step_ms:g} ms decode step and "
        f"{args.prefill_tps:,.0f} prefill tokens/s, {args.time_scale:g}× faster); "
        f"{args.prompts} prompts × {REPEATS} repeats asked repeat by repeat, concurrency "
        f"{args.concurrency}, seed {args.seed}."
    )
    command = shlex.join(["python", "bench/affinity_bench.py", *sys.argv[1:]])
    section = _render(results, command, settings, args.prompts * REPEATS)
    print(section)
    defaults = (args.step_ms, args.prefill_tps, args.batched_tokens, args.time_scale)
    if args.prompts != 64 or args.slots != "8,10,64" or defaults != (30.0, 15_000.0, 2048, 10.0):
        return 0
    put_section(args.out, section, "affinity")
    print(f"wrote the affinity section of {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
