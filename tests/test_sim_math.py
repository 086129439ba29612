"""The simulator's math flavour: boxed LaTeX answers our math kind judges as planned, long
reasoning, and repeats (sampling seeds) that differ yet agree per question."""

from __future__ import annotations

import re
import statistics
from pathlib import Path

import aiohttp
import orjson
import pytest

from thinkeval.api import score
from thinkeval.records import Sample
from thinkeval.scoring.latex import last_boxed
from thinkeval.sim import SimConfig, answer_key_from_samples, serve
from thinkeval.sim.behaviour import generate, last_user_text, plan_for, prompt_key
from thinkeval.tasks import load_samples

QUIET = {"p_long": 0.0, "p_never": 0.0, "p_malformed": 0.0, "p_empty": 0.0}


@pytest.fixture(scope="module")
def math_samples(data_dir: Path) -> list[Sample]:
    return [s for task in ("math500", "aime24", "aime25") for s in load_samples(task, data_dir)]


def replies(config: SimConfig, samples: list[Sample], seed: int | None = None) -> list[str]:
    key = answer_key_from_samples(samples)
    out = []
    for sample in samples:
        text = last_user_text(sample.messages)
        plan = plan_for(config, prompt_key(text), text, key, seed)
        generation = generate(plan, thinking=True, limit=1 << 20)
        assert generation.finish_reason == "stop"
        out.append(generation.content_text)
    return out


def test_every_planned_right_answer_is_judged_correct_some_in_another_form(
    math_samples: list[Sample],
) -> None:
    config = SimConfig(seed=3, p_wrong=0.0, **QUIET)
    contents = replies(config, math_samples)
    verdicts = [
        score(s.task, c, "stop", s.gold) for s, c in zip(math_samples, contents, strict=True)
    ]
    assert {v.status for v in verdicts} == {"correct"}
    assert {v.rule for v in verdicts} == {"boxed"}
    rewritten = [
        (s.gold, v.answer)
        for s, v in zip(math_samples, verdicts, strict=True)
        if v.answer != s.gold
    ]
    # AIME's "025" always as 25; \frac{1}{2} as 0.5 or \dfrac, 90^\circ as 90 in some replies:
    # equivalence is exercised.
    padded = [s.gold for s in math_samples if re.fullmatch(r"0\d+", s.gold)]
    assert padded
    assert all((gold, str(int(gold))) in rewritten for gold in padded)
    assert any(answer and "." in answer and "frac" in gold for gold, answer in rewritten)
    assert any(answer and answer.startswith("\\dfrac") for _, answer in rewritten)


def test_every_planned_wrong_answer_is_judged_wrong(math_samples: list[Sample]) -> None:
    config = SimConfig(seed=4, p_wrong=1.0, **QUIET)
    contents = replies(config, math_samples)
    for sample, content in zip(math_samples, contents, strict=True):
        verdict = score(sample.task, content, "stop", sample.gold)
        if "\\in" in sample.gold:
            continue  # Math-Verify 0.5.2 reads any `x \in I` as `x \in J` (test_scoring_math)
        assert verdict.status == "wrong", (sample.id, sample.gold, last_boxed(content))


def test_math_reasoning_is_several_times_longer(math_samples: list[Sample]) -> None:
    config = SimConfig(seed=5)
    number = Sample("x/0", "gsm8k", ({"role": "user", "content": "2+2?"},), "4")
    math_lengths, number_lengths = [], []
    for i, sample in enumerate(math_samples[:200]):
        text = last_user_text(sample.messages)
        key = answer_key_from_samples([sample])
        math_lengths.append(plan_for(config, prompt_key(text), text, key).reasoning_len or 0)
        other = f"{i}: " + last_user_text(number.messages)
        plan = plan_for(config, prompt_key(other), other, {prompt_key(other): ("number", "4", "")})
        number_lengths.append(plan.reasoning_len or 0)
    ratio = statistics.median(math_lengths) / statistics.median(number_lengths)
    assert 5 < ratio < 12


def test_repeats_differ_but_agree_per_question(math_samples: list[Sample]) -> None:
    config = SimConfig(seed=6, p_wrong=0.4, **QUIET)
    questions = math_samples[:300]
    by_seed = [
        [
            score(s.task, c, "stop", s.gold).is_correct
            for s, c in zip(questions, replies(config, questions, seed), strict=True)
        ]
        for seed in range(4)
    ]
    solved = [sum(run[i] for run in by_seed) for i in range(len(questions))]
    # Repeats are new samples: some questions are solved by some seeds only.
    assert any(0 < count < 4 for count in solved)
    # ...but correlated per question: more all-or-nothing questions than independent draws give.
    p = sum(solved) / (4 * len(questions))
    independent = p**4 + (1 - p) ** 4
    extremes = sum(count in (0, 4) for count in solved) / len(questions)
    assert extremes > independent + 0.1, (extremes, independent)
    # A sampling seed is deterministic: the same seed gives the same replies.
    assert replies(config, questions[:20], 2) == replies(config, questions[:20], 2)


async def test_over_http_a_seeded_request_gets_its_own_reproducible_reply(
    math_samples: list[Sample],
) -> None:
    sample = math_samples[0]
    body = {"model": "sim-qwen3", "messages": list(sample.messages), "max_tokens": 1 << 15}
    async with (
        serve(SimConfig(seed=7, p_wrong=0.5, **QUIET), answer_key_from_samples([sample])) as url,
        aiohttp.ClientSession() as session,
    ):
        contents = []
        for seed in (0, 1, 2, 3, 4, 5, 0):
            async with session.post(f"{url}/chat/completions", json={**body, "seed": seed}) as r:
                contents.append(orjson.loads(await r.read())["choices"][0]["message"]["content"])
    assert contents[0] == contents[-1]
    assert len(set(contents)) > 1
    assert all(last_boxed(content) for content in contents)
