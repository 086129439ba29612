"""The simulator's counters: `/sim/stats` for tests and benchmarks, `/metrics` as vLLM has them."""

from __future__ import annotations

import bisect
from collections import Counter
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from thinkeval.sim.prefix_cache import PrefixCache

FAULT_KINDS: tuple[str, ...] = ("500", "429", "reset", "timeout", "malformed")
_TTFT_BUCKETS = (
    0.001,
    0.005,
    0.01,
    0.02,
    0.04,
    0.06,
    0.08,
    0.1,
    0.25,
    0.5,
    0.75,
    1.0,
    2.5,
    5.0,
    7.5,
    10.0,
    20.0,
    40.0,
    80.0,
    160.0,
    640.0,
    2560.0,
)


class Stats:
    """Counters behind `/sim/stats` and `/metrics`."""

    def __init__(self) -> None:
        self.requests = 0  # chat requests received
        self.completed = 0  # chat replies fully sent with a well-formed body
        self.in_flight = 0
        self.max_in_flight = 0
        self.running = 0  # holding one of the max_num_seqs slots
        self.max_running = 0
        self.waiting = 0  # queued for a slot
        self.max_waiting = 0
        self.stalled = 0
        self.by_status: Counter[int] = Counter()
        self.faults: Counter[str] = Counter({kind: 0 for kind in FAULT_KINDS})
        self.finished: Counter[str] = Counter()
        self.prompts_asked: dict[str, int] = {}
        self.prompt_tokens = 0
        self.generation_tokens = 0
        self.continuations = 0  # /v1/completions requests that continued a generation
        self.continued_tokens = 0  # generated tokens they carried (prefilled again)
        self.continuations_diverged = 0  # carried ids that were not the plan's own tokens
        self.service_s = 0.0  # simulated seconds the replies held a slot (queueing excluded)
        self.busy_s = 0.0  # seconds the stepped engine computed (max_num_batched_tokens > 0)
        self.queued_s = 0.0  # seconds requests waited for a slot (a place in the batch)
        self.ttft_counts = [0] * (len(_TTFT_BUCKETS) + 1)
        self.ttft_sum = 0.0

    def observe_ttft(self, seconds: float) -> None:
        self.ttft_counts[bisect.bisect_left(_TTFT_BUCKETS, seconds)] += 1
        self.ttft_sum += seconds

    def as_json(self, detail: bool) -> dict[str, Any]:
        out: dict[str, Any] = {
            "requests": self.requests,
            "completed": self.completed,
            "in_flight": self.in_flight,
            "max_in_flight": self.max_in_flight,
            "running": self.running,
            "max_running": self.max_running,
            "waiting": self.waiting,
            "max_waiting": self.max_waiting,
            "stalled": self.stalled,
            "by_status": {str(status): n for status, n in sorted(self.by_status.items())},
            "faults": dict(self.faults),
            "finish_reasons": dict(self.finished),
            "distinct_prompts": len(self.prompts_asked),
            "max_asks_per_prompt": max(self.prompts_asked.values(), default=0),
            "prompt_tokens": self.prompt_tokens,
            "generation_tokens": self.generation_tokens,
            "service_s": self.service_s,
            "busy_s": self.busy_s,
            "queued_s": self.queued_s,
            "continuations": self.continuations,
            "continued_tokens": self.continued_tokens,
            "continuations_diverged": self.continuations_diverged,
        }
        if detail:
            out["prompts_asked"] = dict(self.prompts_asked)
        return out


def metrics_text(stats: Stats, model: str, max_num_seqs: int, cache: PrefixCache) -> str:
    """The Prometheus exposition of the counters, labelled with the served `model`."""
    labels = f'engine="0",model_name="{model}"'
    lines: list[str] = []

    def metric(name: str, kind: str, help_: str, samples: list[tuple[str, float]]) -> None:
        lines.append(f"# HELP {name} {help_}")
        lines.append(f"# TYPE {name} {kind}")
        for suffix_labels, value in samples:
            lines.append(f"{name}{suffix_labels} {float(value)}")

    metric(
        "vllm:num_requests_running",
        "gauge",
        "Number of requests in model execution batches.",
        [(f"{{{labels}}}", stats.running)],
    )
    metric(
        "vllm:num_requests_waiting",
        "gauge",
        "Number of requests waiting to be processed.",
        [(f"{{{labels}}}", stats.waiting)],
    )
    metric(
        "vllm:kv_cache_usage_perc",
        "gauge",
        "KV-cache usage. 1 means 100 percent usage.",
        [(f"{{{labels}}}", min(1.0, stats.running / max_num_seqs))],
    )
    metric(
        "vllm:prompt_tokens_total",
        "counter",
        "Number of prefill tokens processed.",
        [(f"{{{labels}}}", stats.prompt_tokens)],
    )
    metric(
        "vllm:generation_tokens_total",
        "counter",
        "Number of generation tokens processed.",
        [(f"{{{labels}}}", stats.generation_tokens)],
    )
    reasons = sorted(set(stats.finished) | {"stop", "length", "abort"})
    metric(
        "vllm:request_success_total",
        "counter",
        "Count of successfully processed requests.",
        [
            (
                f'{{engine="0",finished_reason="{reason}",model_name="{model}"}}',
                stats.finished[reason],
            )
            for reason in reasons
        ],
    )
    metric(
        "vllm:prefix_cache_queries_total",
        "counter",
        "Prefix cache queries, in terms of number of queried tokens.",
        [(f"{{{labels}}}", stats.prompt_tokens)],
    )
    metric(
        "vllm:prefix_cache_hits_total",
        "counter",
        "Prefix cache hits, in terms of number of cached tokens.",
        [(f"{{{labels}}}", cache.hits)],
    )
    buckets: list[tuple[str, float]] = []
    running_total = 0
    for bound, count in zip((*_TTFT_BUCKETS, float("inf")), stats.ttft_counts, strict=True):
        running_total += count
        le = "+Inf" if bound == float("inf") else repr(bound)
        buckets.append(
            (
                f'_bucket{{engine="0",le="{le}",model_name="{model}"}}',
                running_total,
            )
        )
    buckets.append((f"_count{{{labels}}}", running_total))
    buckets.append((f"_sum{{{labels}}}", stats.ttft_sum))
    metric(
        "vllm:time_to_first_token_seconds",
        "histogram",
        "Histogram of time to first token in seconds.",
        buckets,
    )
    return "\n".join(lines) + "\n"
