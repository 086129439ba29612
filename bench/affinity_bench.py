#!/usr/bin/env python3
"""Prompt affinity against least-loaded routing over replicas with a prefix cache, for avg@k.

    python bench/affinity_bench.py              # both shapes, printed and put in bench/RESULTS.md
    python bench/affinity_bench.py --prompts 16 # a quick look, nothing written

Four simulated vLLM replicas (`thinkeval sim` in this process, each with its own prefix cache
of `--cache-tokens` and `--slots` running slots) serve avg@k (k = 8) over `--prompts` prompts,
asked as a run asks them: repeat by repeat over the task, `--concurrency` requests in flight,
through thinkeval's own `Dispatcher`. Each shape runs once with `route: affinity` (every repeat
of a prompt on the replica its rendezvous hash picks, with bounded loads) and once with
`route: least_loaded` (the routing before), side by side in one process; the script prints
wall time, prefill tokens computed and the prefix-cache hit rate of each, and their ratios.
Times are the simulator's (asyncio sleeps for prefill and decode), scaled down 10× from an
H100-like 10,000 prefill tokens/s and 50 decode tokens/s per sequence.
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
    busy_s: float  # seconds the replicas' slots were held (prefill + decode): the GPU time
    failed: int


def _prompt(index: int, tokens: int) -> str:
    # The simulator counts UTF-8 bytes / 4 as tokens.
    head = f"Question {index}: a farmer has {index + 3} pens with 4 sheep each. How many sheep?\n"
    filler = "Context line that the model reads before answering. " * (tokens * 4 // 52 + 1)
    return (filler[: max(0, tokens * 4 - len(head))] + head).strip()


async def _measure(shape: Shape, slots: int, route: Route, args: argparse.Namespace) -> Measured:
    config = SimConfig(
        port=0,
        seed=args.seed,
        p_long=0.0,
        p_never=0.0,
        short_tokens=shape.reasoning,
        per_token_s=args.per_token_s,
        prefill_token_s=args.prefill_token_s,
        max_num_seqs=slots,
        prefix_cache_tokens=args.cache_tokens,
    )
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
        busy = 0.0
        async with aiohttp.ClientSession() as session:
            for url in urls:
                async with session.get(f"{url.removesuffix('/v1')}/sim/stats") as reply:
                    stats = await reply.json()
                prompt += stats["prompt_tokens"]
                hits += stats["prefix_cache_hits"]
                busy += stats["service_s"]
    return Measured(shape.name, slots, route, wall, prompt - hits, prompt, hits, busy, failed)


def _render(results: list[Measured], command: str, settings: str) -> str:
    lines = [
        "<!-- affinity:start -->",
        "## Replica routing: prompt affinity against least-loaded (avg@8)",
        "",
        f"`{command}`, {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC. {settings}",
        "",
        "| workload | slots/replica | route | wall s | server busy s | prefill tokens computed "
        "| cache hits |",
        "| --- | ---: | --- | ---: | ---: | ---: | ---: |",
    ]
    for m in results:
        rate = m.hits / m.prompt_tokens if m.prompt_tokens else 0.0
        lines.append(
            f"| {m.shape} | {m.slots} | {m.route} | {m.wall_s:.2f} | {m.busy_s:.1f} "
            f"| {m.prefill_tokens:,} "
            f"| {rate:.1%} |"
        )
    lines += [
        "",
        "| workload | slots/replica | wall affinity / least-loaded "
        "| busy affinity / least-loaded | prefill affinity / least-loaded |",
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
        default="8,64",
        help="slots per replica (max_num_seqs), each measured: 8 = the concurrency exactly, "
        "so an uneven load queues; 64 = room to spare, as a real vLLM batch (default: 8,64)",
    )
    parser.add_argument("--cache-tokens", type=int, default=200_000, help="prefix cache/replica")
    parser.add_argument("--per-token-s", type=float, default=0.002, help="decode s per token")
    parser.add_argument("--prefill-token-s", type=float, default=0.00001, help="prefill s/token")
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
    settings = (
        f"{REPLICAS} simulated replicas, each `--max-num-seqs {args.slots} "
        f"--prefix-cache-tokens {args.cache_tokens} --per-token-s {args.per_token_s:g} "
        f"--prefill-token-s {args.prefill_token_s:g}`; {args.prompts} prompts × {REPEATS} "
        f"repeats asked repeat by repeat, concurrency {args.concurrency}, seed {args.seed}."
    )
    command = shlex.join(["python", "bench/affinity_bench.py", *sys.argv[1:]])
    section = _render(results, command, settings)
    print(section)
    if args.prompts != 64 or args.slots != "8,64":
        return 0
    put_section(args.out, section, "affinity")
    print(f"wrote the affinity section of {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
