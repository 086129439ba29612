"""Token ids for the simulated model, and continuing a generation from them.

vLLM 0.10.2+ returns `prompt_token_ids` and the choice's `token_ids` when a request sets
`return_token_ids`; `POST /v1/completions` with those ids as the prompt continues the same
generation. The simulator's ids are deterministic, so a run resumed against a fresh simulator
continues from the ids its journal holds:

- an ordinary token's id is a hash of its text, in [1000, 151000); `<think>`, `</think>` and
  `<|im_end|>` (EOS) have Qwen3's ids;
- a prompt's ids carry what the plan depends on: the prompt key's 160 bits as eight 20-bit ids,
  the flavour, filler up to the prompt's token count, then `<|im_start|>` (the assistant turn)
  and, with thinking off, the empty think block the template appends.

A continuation's prompt is those prompt ids followed by the ids generated so far; the plan is the
chat request's (same key, same sampling seed), so the continuation is exactly the tokens a fresh
request at the larger budget generates after them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from thinkeval.sim.behaviour import FLAVOUR_NAMES, Flavour, Generation, Plan, generate
from thinkeval.sim.text import EOS, THINK_CLOSE, THINK_OPEN

THINK_OPEN_ID, THINK_CLOSE_ID, EOS_ID, IM_START_ID = 151667, 151668, 151645, 151644
_DOUBLE_NEWLINE_ID = 271
_SPECIAL = {THINK_OPEN: THINK_OPEN_ID, THINK_CLOSE: THINK_CLOSE_ID, EOS: EOS_ID}
_FIRST_ID, _VOCAB = 1000, 150_000
_KEY_IDS, _KEY_BITS = 8, 20
# Thinking off: the template's "<think>\n\n</think>\n\n" after the assistant turn (4 tokens).
_THINK_OFF = [THINK_OPEN_ID, _DOUBLE_NEWLINE_ID, THINK_CLOSE_ID, _DOUBLE_NEWLINE_ID]
# For a prompt the answer key does not know: wording `behaviour.infer_flavour` reads as the flavour.
FLAVOUR_HINTS: dict[Flavour, str] = {
    "number": "",
    "yesno": "A. Yes\nB. No",
    "choice": "answer:$letter",
    "math": "\\boxed{}",
}


@cache
def token_id(token: str) -> int:
    """The id of one simulator token."""
    special = _SPECIAL.get(token)
    if special is not None:
        return special
    digest = hashlib.blake2b(token.encode(), digest_size=4).digest()
    return _FIRST_ID + int.from_bytes(digest, "big") % _VOCAB


def raw_tokens(gen: Generation) -> list[str]:
    """Every token `gen` generated, the think tags included, as `token_ids` lists them."""
    if not gen.thinking:
        return list(gen.content)
    tokens = [THINK_OPEN, *gen.reasoning]
    if gen.closed:
        tokens += [THINK_CLOSE, *gen.content]
    return tokens


def completion_ids(gen: Generation) -> list[int]:
    """The `token_ids` of a chat reply's choice."""
    return [token_id(token) for token in raw_tokens(gen)]


def prompt_ids(key: str, flavour: Flavour, thinking: bool, count: int) -> list[int]:
    """`count` prompt ids (at least 10, 14 with thinking off) that carry the plan's inputs."""
    bits = int(key, 16)
    head = [bits >> (_KEY_BITS * i) & ((1 << _KEY_BITS) - 1) for i in range(_KEY_IDS)]
    head.append(FLAVOUR_NAMES.index(flavour))
    tail = [IM_START_ID, *([] if thinking else _THINK_OFF)]
    filler = [_FIRST_ID + i % 997 for i in range(max(0, count - len(head) - len(tail)))]
    return head + filler + tail


@dataclass(frozen=True, slots=True)
class ContinuedPrompt:
    """What a continuation's prompt ids say: the plan's inputs and the tokens already made."""

    key: str
    flavour: Flavour
    thinking: bool
    generated: list[int]  # the ids after the prompt: what the continuation carries on from


def read_prompt(ids: Sequence[int]) -> ContinuedPrompt | None:
    """The plan inputs and carried ids in a continuation prompt; None for ids the simulator
    did not hand out."""
    if len(ids) < _KEY_IDS + 2 or not 0 <= ids[_KEY_IDS] < len(FLAVOUR_NAMES):
        return None
    try:
        end = list(ids).index(IM_START_ID, _KEY_IDS + 1)
    except ValueError:
        return None
    bits = sum(ids[i] << (_KEY_BITS * i) for i in range(_KEY_IDS))
    rest = list(ids[end + 1 :])
    thinking = rest[: len(_THINK_OFF)] != _THINK_OFF
    return ContinuedPrompt(
        key=f"{bits:040x}",
        flavour=FLAVOUR_NAMES[ids[_KEY_IDS]],
        thinking=thinking,
        generated=rest if thinking else rest[len(_THINK_OFF) :],
    )


@dataclass(frozen=True, slots=True)
class Continued:
    """The tokens a continuation generates, and the whole generation they complete."""

    tokens: list[str]
    whole: Generation
    matches: bool  # the carried ids are the plan's own first tokens

    @property
    def finish_reason(self) -> str:
        return self.whole.finish_reason


def continue_plan(plan: Plan, prompt: ContinuedPrompt, limit: int) -> Continued:
    """Up to `limit` more tokens of `plan` after the `prompt.generated` ones."""
    carried = len(prompt.generated)
    whole = generate(plan, prompt.thinking, carried + limit)
    tokens = raw_tokens(whole)
    matches = [token_id(t) for t in tokens[:carried]] == prompt.generated
    return Continued(tokens[carried:], whole, matches)


def add_token_ids(
    body: dict[str, Any],
    flavour: Flavour,
    key: str,
    thinking: bool,
    prompt_tokens: int,
    gen: Generation,
) -> None:
    """Fill the ids `return_token_ids` asks for into a non-streaming chat reply."""
    body["prompt_token_ids"] = prompt_ids(key, flavour, thinking, prompt_tokens)
    body["choices"][0]["token_ids"] = completion_ids(gen)
