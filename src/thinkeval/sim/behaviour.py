"""What the simulated model does with a prompt: a deterministic plan, then the generated tokens.

A `Plan` depends only on (seed, prompt key, the request's sampling `seed`) and the answer key,
never on the request's budget, so the fixed and the retry phase see the same model: a "long"
prompt is cut at a small budget and finishes at a large one, exactly like a real thinking model
with the same sampling seed. Requests of the same prompt with different sampling seeds (repeated
sampling) get different plans whose outcomes are correlated per prompt: some questions are hard.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any, Literal, get_args

import thinkeval.sim.maths as maths
from thinkeval.records import Sample
from thinkeval.sim.code import wrong_code
from thinkeval.sim.config import SimConfig
from thinkeval.sim.text import (
    EOS,
    OPENERS,
    POOL_TOKENS,
    answer_text,
    conclusion,
    format_slot,
    malformed_text,
    pool,
    tokenize,
)
from thinkeval.tasks.spec import SimAnswerStyle, TaskSpec

Outcome = Literal["correct", "wrong", "malformed", "empty", "never"]
# The kind of answer a prompt asks for: a task spec's `sim_flavour`, but "instructions".
Flavour = SimAnswerStyle
# What the simulator knows of a prompt: (flavour, gold, task name).
AnswerEntry = tuple[str, str, str]
FLAVOUR_NAMES: tuple[Flavour, ...] = get_args(SimAnswerStyle)
# How strongly the outcomes of one prompt's repeats agree (the correlation of their normal
# scores): some questions are hard for the model, whatever the seed.
_REPEAT_CORRELATION = 0.6
_NORMAL = NormalDist()
# Share of prompts whose reasoning restates an answer midway: with it, the last number of a cut
# think block is sometimes the gold (a lenient scorer's realistic inflation), usually not.
_MENTION_SHARE = 0.6


@dataclass(frozen=True, slots=True)
class Plan:
    """Everything the simulated model will say for one prompt, whatever the budget.

    `outcome` is the fate of the final answer; `long` marks an answered prompt whose reasoning
    overruns the first budget. `reasoning_len` counts the tokens inside `<think>...</think>`
    (None: the think block never ends). `answer` follows `</think>\\n\\n` ("" stops right after
    `</think>`); `plain_answer` is the whole reply when thinking is off.
    """

    key: str
    flavour: Flavour  # the reasoning pool and answer style
    task: str  # the task the answer key names ("" for a prompt it does not know)
    gold: str
    outcome: Outcome
    long: bool
    reasoning_len: int | None
    answer: str
    plain_answer: str
    final: str | None  # the value the reasoning concludes with
    mention: str | None  # the value restated in the reasoning's slots from `mention_at` on
    mention_at: int
    offset: int  # where the reasoning starts in the flavour's pool

    @property
    def label(self) -> str:
        """One of correct, wrong, malformed, empty, long, never."""
        return "long" if self.long else self.outcome


@dataclass(slots=True)
class Generation:
    """The tokens one request produced after the limit was applied.

    `reasoning` holds the kept tokens strictly inside the think block; `content` the kept tokens
    after `</think>` (or the whole reply when thinking is off), EOS included.
    """

    thinking: bool
    reasoning: list[str]
    content: list[str]
    closed: bool  # `</think>` was generated
    completion_tokens: int
    finish_reason: str
    tools: bool = False  # the request offered tools: its calls are parsed (sim/tool_calls.py)

    @property
    def reasoning_text(self) -> str:
        return "".join(self.reasoning)

    @property
    def content_text(self) -> str:
        return "".join(self.content)


def content_text(content: Any) -> str:
    """The text of a chat message's `content`, joining OpenAI-style text parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return "" if content is None else str(content)


def last_user_text(messages: Sequence[Any]) -> str:
    """The content of the last user message (the last message when no user spoke)."""
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "user":
            return content_text(message.get("content"))
    last = messages[-1] if messages else None
    return content_text(last.get("content")) if isinstance(last, dict) else ""


def prompt_key(text: str) -> str:
    """The key of a prompt: sha1 hex of its last user message."""
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


def prompt_tokens(messages: Sequence[Any]) -> int:
    """A deterministic token estimate: UTF-8 bytes / 4 plus 10 per message for the template.

    Bytes rather than characters so that Chinese costs about a token per character, as it does
    with Qwen's tokenizer.
    """
    total = 0
    for message in messages:
        text = content_text(message.get("content")) if isinstance(message, dict) else ""
        total += len(text.encode("utf-8")) // 4 + 10
    return total


def answer_key_from_samples(
    samples: Iterable[Sample], specs: Iterable[TaskSpec] = ()
) -> dict[str, AnswerEntry]:
    """Map each sample's prompt key to (flavour, gold, task), so the simulator knows the right
    answers. The flavour is the sample's task spec's `sim_flavour` (from `specs`, else the
    built-in task's; `number` for an unknown task); the task name only selects a
    `--task-shape` the user gave.

    >>> s = Sample("unknown/0", "unknown", ({"role": "user", "content": "2+2?"},), "4")
    >>> answer_key_from_samples([s])[prompt_key("2+2?")]
    ('number', '4', 'unknown')
    """
    from thinkeval.tasks.registry import find_task

    flavours: dict[str, str] = {spec.name: spec.sim_flavour for spec in specs}
    key = {}
    for sample in samples:
        flavour = flavours.get(sample.task)
        if flavour is None:
            spec = find_task(sample.task)
            flavour = flavours[sample.task] = spec.sim_flavour if spec else "number"
        key[prompt_key(last_user_text(sample.messages))] = (flavour, sample.gold, sample.task)
    return key


def infer_flavour(text: str) -> Flavour:
    """Guess the flavour from the prompt wording, for prompts missing from the answer key."""
    if "A. Yes\nB. No" in text:
        return "yesno"
    lowered = text.lower()
    # C-Eval's prompt, and the one a task file of kind `choice` gets by default.
    if "answer:$letter" in lowered or "letter of the correct option" in lowered:
        return "choice"
    if "\\boxed{}" in text:
        return "math"
    return "number"


def _rng(seed: int, purpose: str, key: str) -> random.Random:
    digest = hashlib.blake2b(f"{seed}\x1f{purpose}\x1f{key}".encode(), digest_size=8).digest()
    return random.Random(int.from_bytes(digest, "big"))


def unit(seed: int, *parts: object) -> float:
    """A deterministic uniform number in [0, 1) for (seed, parts)."""
    text = "\x1f".join(str(part) for part in (seed, *parts))
    digest = hashlib.blake2b(text.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") / 2.0**64


def _flavour_of(name: str) -> Flavour:
    return name if name in FLAVOUR_NAMES else "number"


def _normalise_gold(flavour: Flavour, gold: str) -> str:
    gold = str(gold).strip()
    if flavour == "yesno":
        lowered = gold.lower()
        if lowered in ("true", "yes"):
            return "A"
        if lowered in ("false", "no"):
            return "B"
        return gold.upper()
    return gold.upper() if flavour == "choice" else gold


def _invented_gold(flavour: Flavour, rng: random.Random) -> str:
    if flavour == "yesno":
        return rng.choice("AB")
    if flavour == "choice":
        return rng.choice("ABCD")
    if flavour == "math":
        return maths.invented_gold(rng)
    return str(rng.randint(2, 500))


def _wrong_value(flavour: Flavour, gold: str, rng: random.Random) -> str:
    if flavour == "yesno":
        return "B" if gold == "A" else "A"
    if flavour == "choice":
        return rng.choice([letter for letter in "ABCD" if letter != gold])
    if flavour == "math":
        return maths.wrong_value(gold, rng)
    if flavour == "code":
        return wrong_code(gold, rng)
    try:
        value = round(float(gold.replace(",", "")))
    except ValueError:
        value = 0
    wrong = value + rng.choice((1, 2, 3, 5, 10, -1, -2, -5, value, -(value // 2)))
    if wrong < 0 or str(wrong) == gold:
        wrong = value + 7
    return str(wrong)


def _log_uniform(bounds: tuple[int, int], u: float, scale: int = 1) -> int:
    low, high = bounds
    return round(scale * low * math.pow(high / low, u))


def _repeat_draw(question: float, repeat: float) -> float:
    """A uniform draw for one repeat of a prompt, correlated with the prompt's own draw."""
    tiny = 1e-12
    z = math.sqrt(_REPEAT_CORRELATION) * _NORMAL.inv_cdf(min(max(question, tiny), 1 - tiny))
    z += math.sqrt(1 - _REPEAT_CORRELATION) * _NORMAL.inv_cdf(min(max(repeat, tiny), 1 - tiny))
    return _NORMAL.cdf(z)


def plan_for(
    config: SimConfig,
    key: str,
    prompt_text: str,
    answer_key: Mapping[str, AnswerEntry] | None = None,
    seed: int | None = None,
) -> Plan:
    """The plan for a prompt; deterministic for (config.seed, key, seed) and the key's answer
    entry. `seed` is the request's sampling seed: None plans the prompt's one reply."""
    entry = answer_key.get(key) if answer_key else None
    if entry is not None:
        flavour = _flavour_of(entry[0])
        gold = _normalise_gold(flavour, entry[1])
        task = entry[2]
    else:
        flavour = infer_flavour(prompt_text)
        gold = _invented_gold(flavour, _rng(config.seed, "gold", key))
        task = ""

    rng = _rng(config.seed, "plan", key)
    # Draw every number up front, in a fixed order, so that one knob never shifts another's draw.
    u_outcome, u_wrong = rng.random(), rng.random()
    if seed is not None:
        # Another sample of the same question: its own draws, its fate tied to the question's.
        rng = _rng(config.seed, "plan", f"{key}\x1f{seed}")
        u_outcome = _repeat_draw(u_outcome, rng.random())
        u_wrong = _repeat_draw(u_wrong, rng.random())
    u_length = rng.random()
    form = rng.randrange(12)
    offset = rng.randrange(POOL_TOKENS)
    u_mention, mention_frac = rng.random(), rng.uniform(0.2, 0.6)
    numbers = (rng.randint(2, 60), rng.randint(2, 30))
    wrong_value = _wrong_value(flavour, gold, rng)
    scale = maths.LENGTH_SCALE if flavour == "math" else 1
    p_long, short_tokens = config.shape(task)

    malformed_edge = config.p_never + config.p_malformed
    empty_edge = malformed_edge + config.p_empty
    long = False
    if u_outcome < config.p_never:
        outcome: Outcome = "never"
    elif u_outcome < malformed_edge:
        outcome = "malformed"
    elif u_outcome < empty_edge:
        outcome = "empty"
    else:
        long = u_outcome < empty_edge + p_long
        share = config.answered_share
        outcome = "wrong" if share > 0 and u_wrong < config.p_wrong / share else "correct"

    final = {"correct": gold, "wrong": wrong_value, "empty": gold}.get(outcome)
    if outcome == "never":
        reasoning_len = None
        # Early enough that a first-budget cut often falls after the first restatement.
        mention_at = round(mention_frac * short_tokens[1] * scale)
    else:
        bounds = config.long_tokens if long else short_tokens
        reasoning_len = _log_uniform(bounds, u_length, scale)
        mention_at = round(mention_frac * reasoning_len)
    malformed = malformed_text(flavour, form, numbers)
    # IFEval's prompts (task flavour "instructions"): replies built to follow the instructions,
    # over the number flavour's reasoning, which never restates the gold.
    instructed = entry is not None and entry[0] == "instructions"
    # A tool-calling task's (BFCL's): `<tool_call>` blocks, or prose that names the call after
    # the reasoning wrote it (a call only in the reasoning), over the number flavour's pool.
    mention: str | None = None
    if entry is not None and entry[0] == "tool_calls":
        from thinkeval.sim.tool_calls import tool_reply

        answer, plain, mention = tool_reply(gold, outcome, malformed)
        instructed = True  # its final value is no number to conclude with or restate
    elif instructed and outcome in ("correct", "wrong"):
        from thinkeval.sim.instructions import ifeval_reply

        answer = plain = ifeval_reply(gold, outcome == "correct")
    elif outcome in ("correct", "wrong"):
        value = final or gold
        written = maths.written_as(value, form) if flavour == "math" else value
        answer = answer_text(flavour, written, form)
        plain = answer
    elif outcome == "malformed":
        answer = plain = malformed
    elif outcome == "empty":
        answer = plain = ""
    else:  # never: the think block never ends; without thinking it rambles without an answer
        answer, plain = "", malformed
    return Plan(
        key=key,
        flavour=flavour,
        task=task,
        gold=gold,
        outcome=outcome,
        long=long,
        reasoning_len=reasoning_len,
        answer=answer,
        plain_answer=plain,
        final=None if instructed else final,
        mention=(final or gold)
        if u_mention < _MENTION_SHARE and not instructed and flavour != "code"
        else mention,
        mention_at=mention_at,
        offset=offset,
    )


def reasoning_tokens(plan: Plan, count: int) -> list[str]:
    """The first `count` tokens inside the think block of `plan`."""
    if count <= 0:
        return []
    flavour = plan.flavour
    head = ["\n", OPENERS[flavour]]
    n = plan.reasoning_len
    closing = conclusion(flavour, plan.final) if plan.final is not None else []
    body_len = count if n is None else n - len(head) - len(closing) - 1
    mention = format_slot(flavour, plan.mention) if plan.mention is not None else ""
    body = pool(flavour).take(
        plan.offset,
        max(0, min(body_len, count - len(head))),
        plan.mention_at - len(head) if plan.mention is not None else None,
        mention,
    )
    tokens = head + body
    if n is not None and count > len(tokens):
        tokens += [*closing, "\n"]
    del tokens[count:]
    return tokens


def generate(plan: Plan, thinking: bool, limit: int) -> Generation:
    """Apply a generation limit to the plan: cut the token list, as the engine would.

    With thinking the list is `<think>`, reasoning, `</think>`, `\\n\\n`, answer, EOS (no `\\n\\n`
    and no answer for an empty reply); without thinking it is the answer and EOS.
    """
    if not thinking:
        tokens = [*tokenize(plan.plain_answer), EOS]
        kept = tokens[:limit]
        finish = "length" if len(tokens) > limit else "stop"
        return Generation(False, [], kept, False, len(kept), finish)
    n = plan.reasoning_len
    tail = ["\n\n", *tokenize(plan.answer), EOS] if plan.answer else [EOS]
    total = None if n is None else n + 2 + len(tail)
    used = limit if total is None else min(limit, total)
    reasoning = reasoning_tokens(plan, used - 1 if n is None else min(n, used - 1))
    closed = n is not None and used >= n + 2
    content = tail[: used - n - 2] if closed and n is not None else []
    finish = "stop" if used == total else "length"
    return Generation(True, reasoning, content, closed, used, finish)
