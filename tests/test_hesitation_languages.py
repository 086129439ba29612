"""Hesitation is found alike in Chinese and English cut replies (the diagnosis's `hesitation`).

The replies are written as Qwen3 and DeepSeek-R1 reason when cut off: a stretch of ordinary
progress, then a tail that either keeps turning back ("等等，我是不是把…弄反了？", "Wait, did
I mix up…") with a short recomputation between turns, or keeps progressing, using the ordinary
connectives ("不过", "或者", "but", "or") and the odd "嗯" / "Hmm" that every reasoning has.
Each turn is written in both languages, so the same behaviour must read about as dense in both.
"""

from __future__ import annotations

import random
from statistics import median

import pytest

from thinkeval.diagnosis.reply import diagnose

STEPS = {
    "zh": [
        "首先，题目给出的条件是总共有{a}个学生，其中{b}人参加了数学竞赛。",
        "根据这个条件，我们可以列出方程：{a}x + {b} = {c}。",
        "把两边同时减去{b}，得到{a}x = {c}，于是x等于{c}除以{a}。",
        "接下来计算第二部分，每组有{b}个，一共{a}组，所以是{c}个。",
        "这样一来，剩下的数量就是{c}减去{b}，我们继续往下算。",
        "不过这里要注意单位的换算，{a}厘米等于{b}毫米的十分之一。",
        "或者也可以画一个表格，把每一步的结果列出来：{a}、{b}、{c}。",
        "嗯，接下来看第三个条件：{a}和{b}的和是{c}。",
    ],
    "en": [
        "First, the problem says there are {a} students in total, and {b} of them joined.",
        "From this we can write the equation {a}x + {b} = {c}.",
        "Subtracting {b} from both sides gives {a}x = {c}, so x is {c} divided by {a}.",
        "Next, each group has {b} items and there are {a} groups, so that is {c} items.",
        "Then the remaining amount is {c} minus {b}, and we keep going.",
        "But we should be careful with units here: {a} cm is {b} mm over ten.",
        "Or we could list every step's result in a table: {a}, {b}, {c}.",
        "Hmm, next consider the third condition: {a} plus {b} is {c}.",
    ],
}
TURNS = {
    "zh": [
        "等等，我是不是把{a}和{b}弄反了？",
        "嗯，让我再想想，这里的{a}到底指的是什么。",
        "不对，{b}乘以{a}应该不是{c}，我再算一遍。",
        "等一下，题目说的是至少{a}个，还是恰好{a}个？",
        "嗯……好像哪里有问题。",
        "再想想，如果是{c}的话，前面的结论就不成立了。",
        "哦，不对，我刚才算错了，应该是{b}。",
        "可是这样的话，总数又对不上{c}了。",
        "让我重新检查一下前面的步骤。",
        "慢着，{a}是不是应该先减去{b}？",
    ],
    "en": [
        "Wait, did I mix up {a} and {b}?",
        "Hmm, let me think again about what {a} refers to here.",
        "No, {b} times {a} is not {c}; let me redo it.",
        "Hold on, does the problem say at least {a}, or exactly {a}?",
        "Hmm... something seems off.",
        "But wait, if it were {c}, the earlier conclusion would fail.",
        "Oh wait, I made an error, it should be {b}.",
        "But then the total doesn't match {c} anymore.",
        "Let me re-check the earlier steps.",
        "Hold on, should {a} come off {b} first?",
    ],
}
RECOMPUTE = {
    "zh": ["{a}加{b}等于{c}。", "所以是{c}吗？", "{a}乘以{b}，得{c}。"],
    "en": ["{a} plus {b} is {c}.", "So is it {c}?", "{a} times {b} gives {c}."],
}
REPLIES = 24


def _numbers(rng: random.Random) -> dict[str, int]:
    return {"a": rng.randint(2, 999), "b": rng.randint(2, 999), "c": rng.randint(2, 9999)}


def _join(lang: str, sentences: list[str]) -> str:
    return ("" if lang == "zh" else " ").join(sentences)


def _reply(lang: str, hesitating: bool, rng: random.Random) -> str:
    def say(templates: list[str]) -> str:
        return rng.choice(templates).format(**_numbers(rng))

    head = [say(STEPS[lang]) for _ in range(rng.randint(40, 70))]
    if hesitating:
        tail = [
            _join(lang, [say(TURNS[lang])] + [say(RECOMPUTE[lang])] * rng.randint(0, 1))
            for _ in range(60)
        ]
    else:
        tail = [say(STEPS[lang]) for _ in range(120)]
    return _join(lang, head + tail)


def _labelled(lang: str, hesitating: bool) -> list[tuple[str, float]]:
    rng = random.Random(f"{lang}-{hesitating}")
    out = []
    for _ in range(REPLIES):
        diagnosis = diagnose(_reply(lang, hesitating, rng), None, "length", "unfinished")
        out.append((diagnosis.label or "", diagnosis.hesitation))
    return out


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_hesitating_reply_is_found(lang: str) -> None:
    labels = [label for label, _ in _labelled(lang, hesitating=True)]
    assert labels.count("hesitation") == REPLIES, labels


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_progressing_replies_with_ordinary_connectives_stay_progressing(lang: str) -> None:
    labels = [label for label, _ in _labelled(lang, hesitating=False)]
    assert labels == ["progressing"] * REPLIES


def test_the_same_turning_back_reads_about_as_dense_in_both_languages() -> None:
    chinese = median(density for _, density in _labelled("zh", hesitating=True))
    english = median(density for _, density in _labelled("en", hesitating=True))
    assert 0.67 <= chinese / english <= 1.5, (chinese, english)
