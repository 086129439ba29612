"""Write tests/data/diagnosis_corpus.jsonl: replies of known causes for the diagnosis test.

Each line is one reply (reasoning, content, finish_reason) written to have exactly one cause,
in English or Chinese, with the label the diagnosis must give it. The replies are generated
from templates with a fixed seed, so the file is reproducible:
`python tests/data/make_diagnosis_corpus.py` (the corpus test is to check it is).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path

OUT = Path(__file__).with_name("diagnosis_corpus.jsonl")
PER_CAUSE = 12  # replies per (cause, language)

_STEPS = {
    "en": [
        "Next I take {a} and add {b}, which makes {c}.",
        "The remaining part is {a} items split into groups of {b}.",
        "Consider the case where the count is {a} and the price is {b}.",
        "Multiplying {a} by {b} gives {c} for this part of the problem.",
        "Then the difference between {a} and {b} matters for step {c}.",
    ],
    "zh": [
        "接下来把{a}和{b}相加，得到{c}。",
        "剩下的部分是{a}个，每组{b}个。",
        "考虑数量为{a}、单价为{b}的情况。",
        "把{a}乘以{b}，这一部分是{c}。",
        "然后{a}和{b}的差对第{c}步有影响。",
    ],
}
_LOOPS = {
    "en": [
        "So the total is {a}.",
        "Let me add {a} and {b} again to be sure that the result is still {c} here.",
        "So we have {a} apples, and then we give away {b} apples, which leaves us with {c} "
        "apples; then we recount: {a} apples at the start, minus {b} apples given away, equals "
        "{c} apples in total, so the count of apples stays {c} after the recount as before, "
        "and we go back to the beginning of the count once more to check the number of apples.",
    ],
    "zh": [
        "所以总数是{a}。",
        "我再把{a}和{b}加一遍，确认结果仍然是{c}。",
        "所以我们有{a}个苹果，送出{b}个，剩下{c}个；然后重新数一遍：开始有{a}个，减去送出的{b}个，"
        "等于{c}个，所以重新数完以后苹果还是{c}个，和之前一样，我们再回到开头重新数一次苹果。",
    ],
}
_HESITATE = {
    "en": [
        "Wait, maybe it is {a}.",
        "Hmm, actually {b} could fit.",
        "But wait, let me re-check {c}.",
        "Alternatively the count is {a}.",
        "Hold on, that's not right for {b}.",
    ],
    "zh": [
        "等等，也许是{a}。",
        "嗯，不对，{b}也行。",
        "不过再检查{c}。",
        "或者是{a}。",
        "好像不对，{b}呢？",
    ],
}
_FOUND = {"en": "So the answer is {gold}.", "zh": "所以答案是{gold}。"}
_SWALLOW = {"en": "</think>\n\nThe answer is {gold}.", "zh": "</think>\n\n答案是{gold}。"}


def _numbers(rng: random.Random) -> dict[str, int]:
    return {"a": rng.randint(2, 999), "b": rng.randint(2, 999), "c": rng.randint(2, 9999)}


def _steps(rng: random.Random, lang: str, count: int) -> str:
    return " ".join(rng.choice(_STEPS[lang]).format(**_numbers(rng)) for _ in range(count))


def _loop(rng: random.Random, lang: str, size: int) -> str:
    block = _LOOPS[lang][size].format(**_numbers(rng))
    return " " + " ".join([block] * rng.randint(8, 14))


def _hesitation(rng: random.Random, lang: str) -> str:
    return " " + " ".join(rng.choice(_HESITATE[lang]).format(**_numbers(rng)) for _ in range(120))


Reply = dict[str, object]


def _cause(name: str, lang: str, rng: random.Random, gold: str) -> Reply:
    head = _steps(rng, lang, rng.randint(60, 90))
    reply: Reply = {"reasoning": None, "content": None, "finish_reason": "length"}
    if name.startswith("loop_"):
        size = {"loop_short": 0, "loop_medium": 1, "loop_long": 2}[name]
        reply.update(reasoning=head + _loop(rng, lang, size), label="loop")
    elif name == "repetition":
        reply.update(
            reasoning=head + _loop(rng, lang, rng.randrange(3)),
            finish_reason="repetition",
            label="loop",
        )
    elif name == "hesitation":
        reply.update(reasoning=head + _hesitation(rng, lang), label="hesitation")
    elif name in ("buried_right", "buried_wrong"):
        stated = gold if name == "buried_right" else str(int(gold) + 7)
        middle = _FOUND[lang].format(gold=stated)
        tail = _steps(rng, lang, rng.randint(30, 60))
        reply.update(reasoning=f"{head} {middle} {tail}", label="found_then_lost")
        reply["found_correct"] = name == "buried_right"
    elif name == "plain_long":
        reply.update(reasoning=head + " " + _steps(rng, lang, 200), label="progressing")
    elif name == "reasoning_in_content":
        reply.update(content="<think>\n" + head, label="progressing", think_in_content=True)
    elif name == "empty_nothing":
        reply.update(finish_reason="stop", label="no_reasoning")
    elif name == "swallowed":
        reply.update(
            reasoning=head + _SWALLOW[lang].format(gold=gold),
            finish_reason="stop",
            label="swallowed",
        )
    else:
        raise ValueError(name)
    return reply


CAUSES: tuple[str, ...] = (
    "loop_short",
    "loop_medium",
    "loop_long",
    "repetition",
    "hesitation",
    "buried_right",
    "buried_wrong",
    "plain_long",
    "reasoning_in_content",
    "empty_nothing",
    "swallowed",
)


def corpus() -> list[Reply]:
    """Every reply of the corpus, in a fixed order."""
    rng = random.Random(26)
    lines: list[Reply] = []
    for name in CAUSES:
        for lang in ("en", "zh"):
            for index in range(PER_CAUSE):
                gold = str(rng.randint(10, 500))
                reply = _cause(name, lang, rng, gold)
                lines.append(
                    {"id": f"{name}/{lang}/{index}", "cause": name, "lang": lang, "gold": gold}
                    | reply
                )
    return lines


def write(path: Path = OUT, make: Callable[[], list[Reply]] = corpus) -> None:
    with path.open("w", encoding="utf-8") as handle:
        for line in make():
            handle.write(json.dumps(line, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    write()
