"""`thinkeval sim`: serve the simulator until SIGINT/SIGTERM.

Every `SimConfig` field is a `--kebab-case` flag with the same default, plus `--data-dir` for the
answer key (the golds the simulated model answers from).
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from collections.abc import Mapping
from dataclasses import fields

from aiohttp import web

from thinkeval.sim.app import build_app, make_runner
from thinkeval.sim.behaviour import AnswerEntry, answer_key_from_samples
from thinkeval.sim.config import PROFILES, SimConfig, parse_task_shape, parse_token_range

_HELP: dict[str, str] = {
    "host": "interface to listen on",
    "port": "port to listen on; 0 picks a free one",
    "model": "served model name",
    "root": "model card `root` (default: the model name)",
    "max_model_len": "context length in tokens",
    "profile": "wire format to mimic",
    "seed": "seed of every per-prompt and per-request decision",
    "p_long": "share of prompts whose reasoning overruns the first budget but fits the second",
    "p_never": "share of prompts whose reasoning never ends within any budget",
    "p_wrong": "share of prompts answered wrongly",
    "p_malformed": "share of prompts that finish without a legal final answer",
    "p_empty": "share of prompts that stop right after </think> (content null)",
    "p_loop": "share of never-ending prompts whose reasoning falls into an exact loop",
    "p_hesitate": "share of never-ending prompts whose reasoning keeps turning back (wait, hmm)",
    "p_buried": "share of never-ending prompts whose reasoning states the answer, then goes on",
    "p_greedy_loop": "extra share of never-ending prompts that loop at temperature 0",
    "repetition_detection": "1: end a looping reply with finish_reason repetition (vLLM 0.20+)",
    "parser_off": "1: serve without a reasoning parser (the think block stays in content)",
    "tool_parser_off": "1: serve without --enable-auto-tool-choice (tools get vLLM's 400)",
    "ignore_reasoning_budget": "accept a thinking budget (thinking_token_budget, thinking_budget) "
    "and ignore it, as servers are known to; by default the think block ends at the budget",
    "ignore_reasoning_effort": "accept reasoning_effort and ignore it (by default low, medium "
    "and minimal shorten the reasoning)",
    "ignore_temperature": "sample temperature-0 requests as if the temperature were not 0",
    "ignore_top_k": "accept top_k and ignore it (by default top_k 1 is greedy)",
    "batch_nondeterminism": "greedy replies vary while other requests are in flight (not "
    "batch-invariant)",
    "wrong_finish_at_limit": "say finish_reason stop for a reply cut at max_tokens",
    "drop_repetition": "say finish_reason stop where the repetition detector ended a reply",
    "reasoning_field": "send the reasoning in this field instead of the profile's: reasoning, "
    "reasoning_content or both",
    "card_max_model_len": "the context window the model card states, when not the enforced one",
    "prefix_cache_tokens": "prompt tokens kept prefilled (prefix cache, least recently used out); "
    "a hit skips their prefill time. 0: no cache",
    "p_judge_disagree": "as a judge (thinkeval judge prompts): share of replies read otherwise",
    "short_tokens": "reasoning length range LOW-HIGH, or a median, of ordinary prompts",
    "long_tokens": "reasoning length range LOW-HIGH, or a median, of long prompts",
    "task_shapes": "TASK:P_LONG:LOW-HIGH: --p-long and --short-tokens for one task's prompts "
    "(repeat the flag per task; e.g. ceval:0.25:600-2000)",
    "ttft_s": "time to first token, seconds",
    "per_token_s": "seconds per generated token (with --max-num-batched-tokens: the fixed time "
    "of one engine step)",
    "prefill_token_s": "seconds per prompt token (prefill; a continuation's carried tokens too; "
    "with --max-num-batched-tokens: per token scheduled in a step, prompt or decode)",
    "latency_s": "fixed extra seconds per request",
    "max_num_seqs": "requests generated at once; the rest queue",
    "max_num_batched_tokens": "N > 0: model the replica as one engine stepping its whole batch "
    "(vLLM continuous batching, chunked prefill): each step schedules one token per decoding "
    "request, then prompt tokens of admitted requests up to N, and takes --per-token-s + "
    "--prefill-token-s x the tokens scheduled, so a prefill slows every request on the replica "
    "and a prefix-cache hit saves time for all; 0: each request sleeps its own prefill and decode",
    "fault_500": "share of requests answered 500",
    "fault_429": "share of requests answered 429 with Retry-After",
    "fault_reset": "share of requests whose connection is closed without a response",
    "fault_timeout": "share of requests held without an answer for --stall-s",
    "fault_malformed": "share of requests answered 200 with truncated JSON",
    "retry_after_s": "Retry-After of a 429, seconds (may be fractional)",
    "stall_s": "how long a stalled request is held, seconds",
    "switch_model_after": "after N chat requests serve --switch-to instead (a redeployment)",
    "switch_to": "model id after the switch (default: <model>-switched)",
    "finish_stop_as": "send this finish_reason instead of stop (abort, content_filter, ...): "
    "replies that did not end normally",
    "stream_chunk_tokens": "tokens per SSE chunk; 0: one per token with a per-token delay, else 16",
}


DESCRIPTION = "Serve a simulated thinking model with vLLM's wire format. Not a real LLM."
EPILOG = "example:\n  thinkeval sim --port 8006 --profile vllm-0.10 --p-long 0.2 --seed 7"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the simulator's options to `parser` (one flag per `SimConfig` field, plus --data-dir)."""
    for field in fields(SimConfig):
        flag = "--" + field.name.replace("_", "-")
        default = field.default
        help_text = f"{_HELP[field.name]} (default: %(default)s)"
        if field.name == "profile":
            parser.add_argument(flag, choices=PROFILES, default=default, help=help_text)
        elif field.name in ("short_tokens", "long_tokens"):
            assert isinstance(default, tuple)
            parser.add_argument(
                flag,
                type=parse_token_range,
                default=default,
                metavar="LOW-HIGH",
                help=f"{_HELP[field.name]} (default: {default[0]}-{default[1]})",
            )
        elif field.name == "task_shapes":
            parser.add_argument(
                "--task-shape",
                dest="task_shapes",
                type=parse_task_shape,
                action="append",
                default=[],
                metavar="TASK:P_LONG:LOW-HIGH",
                help=_HELP[field.name],
            )
        elif field.name in ("root", "switch_to", "finish_stop_as"):
            parser.add_argument(flag, default=None, help=_HELP[field.name])
        elif isinstance(default, bool):
            parser.add_argument(flag, action="store_true", help=_HELP[field.name])
        elif field.name in ("switch_model_after", "card_max_model_len"):
            parser.add_argument(flag, type=int, default=None, metavar="N", help=_HELP[field.name])
        else:
            parser.add_argument(flag, type=type(default), default=default, help=help_text)
    parser.add_argument(
        "--data-dir",
        default=None,
        help="dataset directory to build the answer key from (default: the tasks' usual lookup)",
    )
    parser.add_argument(
        "--tasks",
        default=None,
        metavar="NAME,...",
        help="build the answer key from these tasks only (default: every task; loading them "
        "all costs several seconds of CPU, GPQA's encrypted archive most)",
    )


def run(args: argparse.Namespace) -> int:
    """Serve until SIGINT/SIGTERM; returns the exit code."""
    try:
        knobs = {field.name: getattr(args, field.name) for field in fields(SimConfig)}
        config = SimConfig(**{**knobs, "task_shapes": tuple(knobs["task_shapes"])})
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    tasks = getattr(args, "tasks", None)
    names = None if tasks is None else {name.strip() for name in tasks.split(",") if name.strip()}
    answer_key = _load_answer_key(getattr(args, "data_dir", None), names)
    try:
        asyncio.run(_serve_until_signal(config, answer_key))
    except OSError as exc:
        print(f"error: cannot listen on {config.host}:{config.port}: {exc}", file=sys.stderr)
        return 1
    return 0


def _load_answer_key(data_dir: str | None, names: set[str] | None = None) -> dict[str, AnswerEntry]:
    """Golds for every local sample of the tasks called `names` (None: every task); empty
    (golds invented per prompt) when unavailable."""
    try:
        from thinkeval.tasks import all_tasks, load_samples, resolve_data_dir

        directory = resolve_data_dir(data_dir)
    except Exception as exc:  # the simulator still serves without golds, so never fail here
        print(f"note: no answer key ({exc}); golds are invented per prompt", file=sys.stderr)
        return {}
    if directory is None:
        print("note: no local data dir; golds are invented per prompt", file=sys.stderr)
        return {}
    key: dict[str, AnswerEntry] = {}
    specs = all_tasks()
    if names is not None:
        unknown = sorted(names - {spec.name for spec in specs})
        if unknown:
            print(f"note: no task called {', '.join(unknown)}", file=sys.stderr)
        specs = [spec for spec in specs if spec.name in names]
    for spec in specs:  # in the registry's order, as without --tasks: a later task's wins
        try:
            key.update(answer_key_from_samples(load_samples(spec, directory)))
        except Exception as exc:  # one broken task should not take the others' golds away
            print(f"note: no golds for {spec.name} ({exc})", file=sys.stderr)
    return key


async def _serve_until_signal(config: SimConfig, answer_key: Mapping[str, AnswerEntry]) -> None:
    runner = make_runner(build_app(config, answer_key))
    await runner.setup()
    site = web.TCPSite(runner, config.host, config.port, backlog=4096)
    await site.start()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    port = runner.addresses[0][1]
    print(
        "thinkeval simulator (simulated model, not a real LLM) listening on "
        f"http://{config.host}:{port}/v1",
        flush=True,
    )
    try:
        await stop.wait()
    finally:
        await runner.cleanup()
