"""Why a simulated reply does not finish, on request: loops, hesitation, a buried answer, a
server without a reasoning parser, vLLM's repetition detector.

The simulator's never-ending prompts (`p_never`) ramble by default ("progressing"). With
`p_loop`, `p_hesitate` and `p_buried` (shares of those prompts, decided per prompt) their
reasoning instead falls into an exact loop after a while, turns back on itself every few words,
or states the gold answer midway and goes on; `p_greedy_loop` more of them loop at
temperature 0. `repetition_detection=1` ends a looping reply as vLLM 0.20+ does with
`repetition_detection` set (`finish_reason: "repetition"`), and `parser_off=1` serves every
reply as a server without `--reasoning-parser`: the think block inside `content`. The demo
and `thinkeval sweep` show each cause in the diagnosis.
"""

from __future__ import annotations

from dataclasses import replace

from thinkeval.sim.behaviour import Generation, Plan, unit
from thinkeval.sim.config import SimConfig
from thinkeval.sim.text import tokenize

_LOOP_AFTER = 600  # tokens of ordinary reasoning before a loop starts
_ASKED_LOOP_AFTER = 16  # a prompt that asks for endless repetition loops at once
_BLOCKS = (
    " So the total is {a}.",
    " Let me add {a} and {b} again to be sure the result is still the same here.",
    " So we have {a} items, we give away {b} of them, and we count the rest once more from"
    " the beginning, the same way as before, to make sure that nothing has been missed.",
)
_HESITATIONS = (
    " Wait, maybe it is {a}.",
    " Hmm, actually {b} could fit.",
    " But wait, let me re-check {a}.",
    " Alternatively, it is {b}.",
)


def cause_of(config: SimConfig, plan: Plan, greedy: bool = False) -> str:
    """`loop`, `hesitation`, `buried` or `progressing` for a never-ending plan ("" otherwise);
    greedy decoding (temperature 0) loops `p_greedy_loop` more often, as Qwen3's card warns."""
    if plan.outcome != "never":
        return ""
    draw = unit(config.seed, "cause", plan.key)
    for name, share in (
        ("loop", config.p_loop + (config.p_greedy_loop if greedy else 0.0)),
        ("hesitation", config.p_hesitate),
        ("buried", config.p_buried),
    ):
        if draw < share:
            return name
        draw -= share
    return "progressing"


def shape(
    config: SimConfig, plan: Plan, gen: Generation, greedy: bool = False, cause: str = ""
) -> Generation:
    """`gen` with the plan's cause (or `cause`, which loops at once) applied, then the
    server's parser setting, then a normal end sent as another finish reason
    (`finish_stop_as`: abort, content_filter, ...)."""
    loop_after = _ASKED_LOOP_AFTER if cause else _LOOP_AFTER
    cause = cause or cause_of(config, plan, greedy)
    if cause and gen.thinking and not gen.closed:
        gen = _rewrite(config, plan, gen, cause, loop_after)
    if config.parser_off and gen.thinking:
        body = ["<think>", *gen.reasoning, *(["</think>"] if gen.closed else []), *gen.content]
        gen = replace(gen, thinking=False, reasoning=[], content=body)
    if config.finish_stop_as and gen.finish_reason == "stop":
        gen = replace(gen, finish_reason=config.finish_stop_as)
    return gen


def _rewrite(
    config: SimConfig, plan: Plan, gen: Generation, cause: str, loop_after: int
) -> Generation:
    used = len(gen.reasoning)
    numbers = {"a": 3 + int(unit(config.seed, "a", plan.key) * 900), "b": 7}
    if cause == "loop":
        size = int(unit(config.seed, "block", plan.key) * len(_BLOCKS))
        block = tokenize(_BLOCKS[size].format(**numbers))
        head = gen.reasoning[: min(used, loop_after)]
        tokens = head + block * ((used - len(head)) // len(block) + 1)
        if config.repetition_detection:
            return _detected(gen, tokens[:used])
        return replace(gen, reasoning=tokens[:used])
    if cause == "hesitation":
        tokens = list(gen.reasoning[: min(used, 200)])
        step = 0
        while len(tokens) < used:
            numbers["a"] += 13
            numbers["b"] += 5
            tokens += tokenize(_HESITATIONS[step % len(_HESITATIONS)].format(**numbers))
            step += 1
        return replace(gen, reasoning=tokens[:used])
    if cause == "buried":
        stated = tokenize(f" So the answer is {plan.gold}.")
        middle = min(used // 2, 400)
        tokens = gen.reasoning[:middle] + stated + gen.reasoning[middle:]
        return replace(gen, reasoning=tokens[:used])
    return gen


def _detected(gen: Generation, tokens: list[str]) -> Generation:
    """The reply as vLLM's detector ends it: at the first check point where it fires."""
    from thinkeval.diagnosis.loop import find_loop

    ids: dict[str, int] = {}
    found = find_loop([ids.setdefault(token, len(ids)) for token in tokens])
    if found is None:
        return replace(gen, reasoning=tokens)
    kept = tokens[: found.at]
    return replace(gen, reasoning=kept, completion_tokens=found.at + 1, finish_reason="repetition")
