"""Every knob of the simulator in one frozen dataclass, with the defaults the demo uses."""

from __future__ import annotations

import math
from dataclasses import dataclass

PROFILES: tuple[str, ...] = ("vllm-0.10", "vllm-0.13", "vllm-latest", "sglang", "openai")

# `reasoning_field`: the profile's own (""), or one of these names, or both.
REASONING_FIELDS: dict[str, tuple[str, ...]] = {
    "": (),
    "reasoning": ("reasoning",),
    "reasoning_content": ("reasoning_content",),
    "both": ("reasoning", "reasoning_content"),
}

# The smallest reasoning we plan: room for "\n", an opener, a closing sentence and "\n".
_MIN_REASONING_TOKENS = 16


@dataclass(frozen=True)
class TaskShape:
    """How the simulated model's replies to one task differ from the defaults: the share of
    its prompts that run past the first budget, and its ordinary reasoning lengths (thinking
    models reason longer on exam questions than on yes/no reading questions)."""

    task: str
    p_long: float
    short_tokens: tuple[int, int]


@dataclass(frozen=True)
class SimConfig:
    """How the simulated server looks on the wire and how its simulated model behaves.

    Shares (`p_*`) are fractions of distinct prompts; the rest of the prompts are answered
    correctly after a short think. `p_wrong` counts the answered prompts (short or long) whose
    final answer is wrong. Faults (`fault_*`) are fractions of requests; their sum must stay below
    1 so that a retried prompt eventually succeeds.

    >>> SimConfig(profile="vllm-0.10", seed=7).served_root
    'sim-qwen3'
    """

    host: str = "127.0.0.1"
    port: int = 8000  # 0 picks any free port
    model: str = "sim-qwen3"
    root: str | None = None  # the `root` of the model card; defaults to `model`
    max_model_len: int = 40960
    profile: str = "vllm-latest"
    seed: int = 0
    # Behaviour shares, decided once per prompt.
    p_long: float = 0.15
    p_never: float = 0.03
    p_wrong: float = 0.12
    p_malformed: float = 0.03
    p_empty: float = 0.01
    # Why never-ending prompts do not finish (shares of them; the rest ramble): `sim.causes`.
    p_loop: float = 0.0
    p_hesitate: float = 0.0
    p_buried: float = 0.0
    p_greedy_loop: float = 0.0  # more loops at temperature 0
    repetition_detection: int = 0  # 1: a loop ends with finish_reason "repetition" (vLLM 0.20+)
    parser_off: int = 0  # 1: no reasoning parser, the think block stays in content
    tool_parser_off: int = 0  # 1: no tool-call parser; a request with tools gets vLLM's 400
    # Accept a thinking budget and drop it, as servers are known to (sim/reasoning_budget.py).
    ignore_reasoning_budget: bool = False
    # Misbehaviours `thinkeval check --audit` must catch (sim/sampling.py).
    ignore_reasoning_effort: bool = False
    ignore_temperature: bool = False
    ignore_top_k: bool = False
    batch_nondeterminism: bool = False
    wrong_finish_at_limit: bool = False
    drop_repetition: bool = False
    # The reasoning field(s) sent instead of the profile's: reasoning, reasoning_content, both.
    reasoning_field: str = ""
    # The context window the model card states, when it is not the one enforced.
    card_max_model_len: int | None = None
    # As a judge (`thinkeval judge` prompts): share of replies it reads differently from strict.
    p_judge_disagree: float = 0.1
    # Reasoning lengths in tokens (inside <think>...</think>), drawn log-uniformly in the range.
    short_tokens: tuple[int, int] = (150, 1500)
    long_tokens: tuple[int, int] = (2100, 7500)
    # Per-task p_long and short_tokens instead of the two above, by the answer key's task names.
    task_shapes: tuple[TaskShape, ...] = ()
    # Latency model.
    ttft_s: float = 0.0
    per_token_s: float = 0.0
    # Prefill: seconds per prompt token a reply holds its slot before decoding (a continuation
    # prefills its prompt and the tokens it carries, as a server without a prefix cache hit does).
    prefill_token_s: float = 0.0
    # Prompts kept prefilled, in tokens (sim/prefix_cache.py); 0: no prefix cache.
    prefix_cache_tokens: int = 0
    latency_s: float = 0.0
    max_num_seqs: int = 1024
    # >0: the replica is one engine stepping its batch (sim/steps.py, vLLM's chunked prefill): a
    # step takes per_token_s + prefill_token_s x the tokens scheduled in it, at most this many.
    # 0: each reply sleeps its own latency + ttft + prefill + decode, as before.
    max_num_batched_tokens: int = 0
    # Faults, decided per request.
    fault_500: float = 0.0
    fault_429: float = 0.0
    fault_reset: float = 0.0
    fault_timeout: float = 0.0
    fault_malformed: float = 0.0
    retry_after_s: float = 1.0
    stall_s: float = 3600.0
    # Redeployment: after this many chat requests the served model id changes.
    switch_model_after: int | None = None
    switch_to: str | None = None  # defaults to "<model>-switched"
    # A finish_reason sent instead of "stop" (abort, content_filter, ...): a reply that did not
    # end normally, whatever its text, for tests of what a client makes of one.
    finish_stop_as: str | None = None
    # Tokens per SSE chunk; 0 picks one per token when there is a per-token delay, else batches.
    stream_chunk_tokens: int = 0

    def __post_init__(self) -> None:
        problems = list(self._problems())
        if problems:
            raise ValueError("invalid simulator config: " + "; ".join(problems))

    def _problems(self) -> list[str]:
        out: list[str] = []
        if self.profile not in PROFILES:
            out.append(f"profile {self.profile!r} is not one of {', '.join(PROFILES)}")
        if not 0 <= self.port <= 65535:
            out.append(f"port must be between 0 and 65535, got {self.port}")
        shares = {
            "p_long": self.p_long,
            "p_never": self.p_never,
            "p_wrong": self.p_wrong,
            "p_malformed": self.p_malformed,
            "p_empty": self.p_empty,
            "p_judge_disagree": self.p_judge_disagree,
            "p_loop": self.p_loop,
            "p_hesitate": self.p_hesitate,
            "p_buried": self.p_buried,
            "p_greedy_loop": self.p_greedy_loop,
        }
        faults = {
            "fault_500": self.fault_500,
            "fault_429": self.fault_429,
            "fault_reset": self.fault_reset,
            "fault_timeout": self.fault_timeout,
            "fault_malformed": self.fault_malformed,
        }
        for name, value in {**shares, **faults}.items():
            if not 0.0 <= value <= 1.0 or math.isnan(value):
                out.append(f"{name}={value} must be between 0 and 1")
        for p_long, where in (
            (self.p_long, ""),
            *((t.p_long, f" (task {t.task})") for t in self.task_shapes),
        ):
            planned = self.p_never + p_long + self.p_malformed + self.p_empty
            if not 0.0 <= p_long <= 1.0 or planned > 1.0 + 1e-9:
                out.append(
                    f"p_never + p_long + p_malformed + p_empty = {planned:.3f} exceeds 1{where}"
                )
        if self.p_wrong > self.answered_share + 1e-9:
            out.append(
                f"p_wrong={self.p_wrong} exceeds the share of answered prompts "
                f"({self.answered_share:.3f})"
            )
        causes = self.p_loop + self.p_greedy_loop + self.p_hesitate + self.p_buried
        if causes > 1.0 + 1e-9:
            out.append("p_loop + p_greedy_loop + p_hesitate + p_buried must not exceed 1")
        if self.fault_share >= 1.0:
            out.append("the fault_* shares must sum to less than 1 so a retry can succeed")
        for name, (lo, hi) in (
            ("short_tokens", self.short_tokens),
            ("long_tokens", self.long_tokens),
            *((f"short_tokens of task {t.task}", t.short_tokens) for t in self.task_shapes),
        ):
            if not _MIN_REASONING_TOKENS <= lo <= hi:
                out.append(f"{name}={lo}-{hi} must satisfy {_MIN_REASONING_TOKENS} <= low <= high")
        if self.max_model_len < 1:
            out.append("max_model_len must be positive")
        if self.max_num_seqs < 1:
            out.append("max_num_seqs must be positive")
        if self.max_num_batched_tokens < 0:
            out.append("max_num_batched_tokens must not be negative")
        elif 0 < self.max_num_batched_tokens < self.max_num_seqs:
            out.append(
                f"max_num_batched_tokens ({self.max_num_batched_tokens}) must be at least "
                f"max_num_seqs ({self.max_num_seqs}), as vLLM requires"
            )
        timings = ("ttft_s", "per_token_s", "prefill_token_s", "latency_s", "retry_after_s")
        for name in (*timings, "stall_s"):
            if getattr(self, name) < 0:
                out.append(f"{name} must not be negative")
        if self.switch_model_after is not None and self.switch_model_after < 0:
            out.append("switch_model_after must not be negative")
        if self.reasoning_field not in REASONING_FIELDS:
            out.append(f"reasoning_field must be one of {', '.join(REASONING_FIELDS)}")
        if self.prefix_cache_tokens < 0:
            out.append("prefix_cache_tokens must not be negative")
        if self.stream_chunk_tokens < 0:
            out.append("stream_chunk_tokens must not be negative")
        return out

    @property
    def answered_share(self) -> float:
        """Share of prompts that end with a legal final answer (correct or wrong)."""
        return max(0.0, 1.0 - self.p_never - self.p_malformed - self.p_empty)

    @property
    def fault_share(self) -> float:
        """Share of requests answered with some fault."""
        return (
            self.fault_500
            + self.fault_429
            + self.fault_reset
            + self.fault_timeout
            + self.fault_malformed
        )

    def shape(self, task: str) -> tuple[float, tuple[int, int]]:
        """`(p_long, short_tokens)` of prompts of `task`."""
        for shape in self.task_shapes:
            if shape.task == task:
                return shape.p_long, shape.short_tokens
        return self.p_long, self.short_tokens

    @property
    def served_root(self) -> str:
        """The `root` shown on the model card."""
        return self.root or self.model

    @property
    def switched_model(self) -> str:
        """The model id served after the switch."""
        return self.switch_to or f"{self.model}-switched"


def parse_task_shape(text: str) -> TaskShape:
    """Parse `TASK:P_LONG:LOW-HIGH` (the short reasoning range as in `parse_token_range`).

    >>> parse_task_shape("ceval:0.25:600-2000")
    TaskShape(task='ceval', p_long=0.25, short_tokens=(600, 2000))
    """
    task, _, rest = text.strip().partition(":")
    p_long, _, tokens = rest.partition(":")
    if not task or not p_long or not tokens:
        raise ValueError(f"expected TASK:P_LONG:LOW-HIGH, got {text!r}")
    return TaskShape(task, float(p_long), parse_token_range(tokens))


def parse_token_range(text: str) -> tuple[int, int]:
    """Parse `LOW-HIGH`, or a single median `M` meaning a decade around it (M/√10 to M·√10).

    >>> parse_token_range("150-1500"), parse_token_range("474")
    ((150, 1500), (150, 1499))
    """
    text = text.strip()
    if "-" in text:
        low, _, high = text.partition("-")
        return int(low), int(high)
    median = float(text)
    spread = math.sqrt(10.0)
    return round(median / spread), round(median * spread)
