"""The data model: samples, attempts, verdicts.

Data flows one way: a `Sample` is sent as a request, the normalised reply becomes an `Attempt`
(immutable once journalled), and a scorer turns an attempt into a `Verdict`. Verdicts are always
derivable from attempts, so re-scoring a run never calls the model again.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal

import msgspec

from thinkeval.failures import FailureKind, legacy_kind

# 2: attempts carry `repeat`, the reply `state` and `verdicts` per scorer; summaries carry
# budgets and repeats per task. 3: attempts may carry `tool_calls`. Version-1 journals are still
# read (their verdicts re-scored).
SCHEMA_VERSION = 3

Status = Literal["correct", "wrong", "no_answer", "empty", "unfinished"]
STATUSES: tuple[Status, ...] = ("correct", "wrong", "no_answer", "empty", "unfinished")
# Samples with these fixed verdicts get the single adaptive retry at the larger budget.
RETRY_STATUSES: frozenset[str] = frozenset({"empty", "unfinished"})
ReplyState = Literal["empty", "unfinished", "finished"]

# A gold longer than this is journalled by digest (`Attempt.gold_digest`), not inline: a
# LiveCodeBench problem's tests can be megabytes, and every attempt of it would repeat them.
# The gold itself is kept once, in the run's samples/<task>.jsonl.
GOLD_INLINE_MAX = 1024

Phase = Literal["fixed", "retry"]
PHASES: tuple[Phase, ...] = ("fixed", "retry")


@dataclass(frozen=True)
class Sample:
    """One benchmark question: a stable id, the chat messages to send and the gold answer.

    `id` is stable across filtering (`gsm8k/17`, `boolq/42`, `ceval/law/3`), never a list position.
    """

    id: str
    task: str
    messages: tuple[dict[str, str], ...]
    gold: str
    subset: str | None = None  # C-Eval subject; None for single-subset tasks
    meta: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    # The tools offered with the prompt (OpenAI `tools`: function schemas); empty for tasks
    # that ask for text.
    tools: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True)
class Verdict:
    """What a scorer concluded from one reply.

    `status` is one of `correct`, `wrong`, `no_answer`, `empty`, `unfinished`; `answer` is the
    extracted final answer as a string (None when none was found); `rule` names the pattern that
    matched, for auditing (e.g. `"the answer is"`, `"boxed"`, `"last-number"`).
    """

    status: Status
    answer: str | None = None
    rule: str | None = None

    @property
    def is_correct(self) -> bool:
        return self.status == "correct"


class Record(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """A typed record read from and written to JSON: unknown keys are refused on decoding."""


def decode_error_parts(error: msgspec.MsgspecError) -> tuple[str, str]:
    """`(key.path, what is wrong)` from msgspec's `... - at `$.key.path`` ("": the top)."""
    message, found, where = str(error).rpartition(" - at `")
    if not found:
        return "", str(error)
    return where.rstrip("`").removeprefix("$").lstrip("."), message


def describe_decode_error(error: msgspec.MsgspecError) -> str:
    """`key.path: what is wrong`, or just what is wrong when it is about the whole document."""
    path, message = decode_error_parts(error)
    return f"{path}: {message}" if path else message


class Usage(Record, kw_only=True, forbid_unknown_fields=True):
    """Token counts as reported by the server (None where it reported nothing)."""

    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    reasoning_tokens: int | None = None


class ToolCall(Record, kw_only=True, forbid_unknown_fields=True):
    """One function call the server's tool parser found in a reply: the function's name and its
    arguments as the server sent them (a JSON string, kept unparsed: a malformed one is the
    model's and is judged so)."""

    name: str
    arguments: str
    id: str | None = None


class Reply(Record, kw_only=True, forbid_unknown_fields=True):
    """A normalised chat-completion reply, the same across vLLM eras, SGLang and OpenAI."""

    content: str | None = None
    reasoning: str | None = None
    finish_reason: str | None = None
    usage: Usage = msgspec.field(default_factory=Usage)
    http_status: int | None = None
    served_model: str | None = None
    reasoning_in_content: bool = False  # the think block came inside `content` (split here)
    # Only when asked for (`return_token_ids`, vLLM 0.10.2+): what a continuation resends.
    prompt_token_ids: list[int] | None = None
    token_ids: list[int] | None = None
    # The calls the server's tool parser put in `message.tool_calls`; None when it sent none.
    tool_calls: list[ToolCall] | None = None


class Continuation(Record, kw_only=True, forbid_unknown_fields=True):
    """How a `retry: continue` attempt was made: the fixed reply's `from_tokens` generated tokens
    carried over, then one `/v1/completions` request that prefilled `prompt_tokens` (the prompt
    and the carried tokens) and generated `completion_tokens` more, as the server reported.
    `requested` is False when the fixed reply had stopped on its own: it is its own B2 reply."""

    from_tokens: int
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    requested: bool = True


class StoredVerdict(Record, kw_only=True, forbid_unknown_fields=True):
    """A scorer's verdict as recorded with an attempt; `version` is the scorer's version for the
    task (`Scorer.version_for`). It is a cache: readers re-score when the version or gold differ."""

    status: Status
    answer: str | None = None
    rule: str | None = None
    version: str


class Abandoned(Record, kw_only=True, forbid_unknown_fields=True):
    """A try of a request that a watchdog gave up on (client/watchdog.py): never an answer."""

    reason: str  # server_restarted | past_deadline | stream_idle
    at: float  # unix time


class Attempt(Record, kw_only=True, forbid_unknown_fields=True):
    """One journalled request for one sample (one repeat of it) at one budget, and its reply.

    `error` is set for transport or HTTP failures left after the client's retries; such an attempt
    is never scored as the model's answer and the sample is asked again when the run is resumed.
    `state` is the reply state that decides the protocol (`scoring.state`); imported replies
    record the state judged at import, since their finish_reason is unknown.
    """

    schema_version: int = SCHEMA_VERSION
    model: str
    task: str
    sample_id: str
    repeat: int = 0
    phase: Phase
    budget: int
    max_tokens: int
    clamped_from: int | None = None  # the budget, when max_model_len forced a smaller max_tokens
    request: dict[str, Any] = msgspec.field(default_factory=dict)
    content: str | None = None
    reasoning: str | None = None
    finish_reason: str | None = None
    usage: Usage = msgspec.field(default_factory=Usage)
    http_status: int | None = None
    error: str | None = None
    error_kind: FailureKind | None = None  # set with `error` (thinkeval/failures.py)
    # A refusal asking again cannot change (client/refusals.py): prompt_over_window or
    # invalid_parameter. The attempt is final: counted as `refused`, never asked again.
    refused: str | None = None
    window: int | None = None  # the context window a prompt_over_window refusal named
    abandoned: list[Abandoned] = msgspec.field(default_factory=list)
    endpoint: str | None = None
    tries: int = 1
    started_at: float = 0.0  # unix time the first try was sent
    latency_s: float | None = None  # last try, send to last byte
    ttft_s: float | None = None  # streaming only: send to first output token
    shard: str | None = None
    imported_from: str | None = None  # e.g. "aisbench": finish_reason unknown, judged from text
    reasoning_in_content: bool = False  # the server sent the think block inside `content`
    state: ReplyState | None = None  # None for an error attempt (and in version-1 journals)
    gold: str | None = None  # what the verdicts were judged against (up to GOLD_INLINE_MAX)
    gold_digest: str | None = None  # instead of `gold`, for a longer one (`journal_gold`)
    verdicts: dict[str, StoredVerdict] = msgspec.field(default_factory=dict)
    # `retry: continue`: a cut-off fixed reply keeps its token ids (what the continuation
    # resends); its retry says how it continued, its usage then counts the whole joined reply.
    prompt_token_ids: list[int] | None = None
    token_ids: list[int] | None = None
    continuation: Continuation | None = None
    # The reply's tool calls (`message.tool_calls`, as the server's parser read them), written
    # only when it made some (UNSET is left out of the line: journals without tool calls keep
    # their bytes). A call written only in the reasoning is never here.
    tool_calls: list[ToolCall] | msgspec.UnsetType = msgspec.UNSET
    # The server's words when it could not deliver the model's finished output in its format
    # (failure kind `unparsed_output`, llama.cpp's HTTP 500): recorded as a reply, not an
    # error, since the model did finish; no content, state `finished`, every verdict
    # `no_answer` by rule `server-unparsed`. Left out of every other line (UNSET).
    unparsed: str | msgspec.UnsetType = msgspec.UNSET
    # Version-1 journals recorded these; they are read, never written, and always re-scored.
    verdict: Status | None = None
    answer: str | None = None
    lenient_verdict: Status | None = None
    scorer_version: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def calls(self) -> list[ToolCall] | None:
        """The reply's tool calls, or None when it made none."""
        return self.tool_calls if isinstance(self.tool_calls, list) and self.tool_calls else None

    def judged_against(self, gold: str) -> bool:
        """Whether the recorded verdicts were judged against `gold`: the gold recorded inline
        (every journal before `gold_digest`), or a long one's digest."""
        if self.gold is not None:
            return self.gold == gold
        return self.gold_digest is not None and self.gold_digest == gold_digest(gold)

    @property
    def final(self) -> bool:
        """A reply, or a refusal: nothing the protocol asks again."""
        return self.error is None or self.refused is not None

    def recorded_status(self, scorer: str = "strict") -> str | None:
        """The status `scorer` gave when the attempt was recorded: "error" for a transport
        error, None when it recorded none (summaries re-score; this is what the journal says)."""
        if self.refused is not None:
            return "refused"
        if self.error is not None:
            return "error"
        stored = self.verdicts.get(scorer)
        return stored.status if stored is not None else None


_DECODE_ATTEMPT = msgspec.json.Decoder(Attempt)


def decode_attempt(line: bytes) -> Attempt:
    """One journal line as an `Attempt`; an `error_kind` written before the kinds were typed
    (`http_500`) is read as its kind. Raises `msgspec.MsgspecError` for anything else."""
    try:
        return _DECODE_ATTEMPT.decode(line)
    except msgspec.ValidationError as exc:
        if decode_error_parts(exc)[0] != "error_kind":
            raise
    raw = msgspec.json.decode(line)
    raw["error_kind"] = legacy_kind(str(raw["error_kind"]), raw.get("http_status"))
    return msgspec.convert(raw, Attempt)


# Readers meet the attempts of one sample together, so a few entries spare hashing its
# megabytes again; few, since each holds its gold alive.
@lru_cache(maxsize=4)
def gold_digest(gold: str) -> str:
    """The digest a long gold is journalled as: `blake2b:` and 32 hex digits."""
    return "blake2b:" + hashlib.blake2b(gold.encode(), digest_size=16).hexdigest()


def journal_gold(gold: str) -> tuple[str | None, str | None]:
    """(`Attempt.gold`, `Attempt.gold_digest`) for an attempt judged against `gold`: the gold
    itself up to GOLD_INLINE_MAX characters, its digest past that."""
    if len(gold) <= GOLD_INLINE_MAX:
        return gold, None
    return None, gold_digest(gold)
