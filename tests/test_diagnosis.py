"""The reply diagnosis: labels agree with the known causes of a 264-reply corpus (English and
Chinese), the loop detector agrees with vLLM's, and `finish_reason: "repetition"` retries."""

from __future__ import annotations

import importlib.util
import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from thinkeval.client.replies import parse_completion
from thinkeval.diagnosis import diagnose, reply_label
from thinkeval.diagnosis.hesitation import count_markers
from thinkeval.diagnosis.loop import LoopParams, find_loop
from thinkeval.diagnosis.pieces import cut
from thinkeval.records import Attempt
from thinkeval.scoring.kinds import make_kind
from thinkeval.scoring.state import reply_state
from thinkeval.store.protocol_rules import retry_due
from thinkeval.tasks import get_task

DATA = Path(__file__).parent / "data"
CORPUS = DATA / "diagnosis_corpus.jsonl"


def _corpus() -> list[dict[str, Any]]:
    return [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines()]


def test_the_corpus_is_what_its_generator_writes(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("make_corpus", DATA / "make_diagnosis_corpus.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    written = tmp_path / "corpus.jsonl"
    module.write(written)
    assert written.read_bytes() == CORPUS.read_bytes()


def test_labels_agree_with_the_known_cause_of_every_reply() -> None:
    lines = _corpus()
    assert len(lines) >= 200
    assert {line["lang"] for line in lines} == {"en", "zh"}
    kind = make_kind("number")
    wrong: list[str] = []
    labels: Counter[str] = Counter()
    for line in lines:
        state = reply_state(line["content"], line["finish_reason"]).state
        found = diagnose(
            line["reasoning"], line["content"], line["finish_reason"], state, kind, line["gold"]
        )
        labels[str(found.label)] += 1
        if found.label != line["label"]:
            wrong.append(f"{line['id']}: {found.label} (expected {line['label']})")
        if "found_correct" in line and found.found_correct != line["found_correct"]:
            wrong.append(f"{line['id']}: found_correct {found.found_correct}")
        if line.get("think_in_content") and not found.think_in_content:
            wrong.append(f"{line['id']}: think tags in content not seen")
        if line["cause"] == "repetition" and found.reply != "repetition":
            wrong.append(f"{line['id']}: reply {found.reply}")
    assert wrong == []
    # Every label occurs, so none of the rules is dead.
    assert set(labels) == {
        "loop",
        "hesitation",
        "found_then_lost",
        "progressing",
        "no_reasoning",
        "swallowed",
    }


def test_loops_of_several_block_lengths_are_found_with_their_block() -> None:
    blocks = set()
    for line in _corpus():
        if line["cause"].startswith("loop_"):
            found = diagnose(line["reasoning"], None, "length", "unfinished")
            assert found.loop is not None and found.loop.field == "reasoning"
            assert found.loop.repeats >= 3
            repeated = line["reasoning"][found.loop.start : found.loop.end]
            assert found.loop.block_text and found.loop.block_text in repeated
            blocks.add(found.loop.block // 10)
    assert len(blocks) >= 3  # short, medium and long blocks


def _vllm_fires(tokens: list[int], low: int, high: int, count: int) -> bool:
    """vLLM's check_sequence_repetition, written out as its source reads."""
    for length in range(low, high + 1):
        if length * count > len(tokens):
            return False
        if all(
            tokens[-n] == tokens[-(length * m + n)]
            for n in range(1, length + 1)
            for m in range(1, count)
        ):
            return True
    return False


@pytest.mark.parametrize("low", [1, 4])
def test_the_detector_fires_where_vllm_would_on_every_step(low: int) -> None:
    rng = random.Random(low)
    params = LoopParams(min_block=low, max_block=8, repeats=3, start=0, every=1)
    for _ in range(300):
        tokens = [rng.randrange(3) for _ in range(rng.randrange(5, 90))]
        expected = next(
            (p for p in range(1, len(tokens) + 1) if _vllm_fires(tokens[:p], low, 8, 3)), None
        )
        found = find_loop(tokens, params)
        assert (found.at if found else None) == expected, tokens


def test_default_detector_waits_512_and_checks_every_16() -> None:
    tokens = list(range(500)) + [1, 2, 3, 4, 5] * 3
    assert find_loop(tokens) is None  # repeated before 512 tokens, and not at a check point
    looped = list(range(600)) + [1, 2, 3, 4, 5] * 10
    found = find_loop(looped)
    assert found is not None and found.at % 16 == 0 and found.block == 5


def test_pieces_and_markers_count_chinese_and_english() -> None:
    assert len(cut("所以答案是12").ids) == 7
    assert count_markers("Wait, await. 等等，嗯") == 3


def test_a_finished_reply_gets_numbers_but_no_label() -> None:
    found = diagnose("Let me think. 2+2=4.", "The answer is 4.", "stop", "finished")
    assert found.label is None and found.reply == "finished" and found.reasoning_pieces > 5


def test_repetition_finish_is_read_kept_and_retried_like_a_cut_off() -> None:
    body = {
        "choices": [{"message": {"content": "So 4. So 4. So 4."}, "finish_reason": "repetition"}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 9},
    }
    reply, _ = parse_completion(body)
    assert reply.finish_reason == "repetition"
    read = reply_state(reply.content, reply.finish_reason)
    assert (read.state, read.rule) == ("unfinished", "finish-repetition")
    assert reply_label(read.state, reply.finish_reason) == "repetition"
    spec = get_task("gsm8k")
    attempt = Attempt(
        model="m",
        task="gsm8k",
        sample_id="gsm8k/0",
        phase="fixed",
        budget=64,
        max_tokens=64,
        content=reply.content,
        finish_reason="repetition",
        state=read.state,
    )
    assert retry_due(attempt, spec, "4")
    assert not retry_due(
        msgspec_replace(attempt, finish_reason="stop", state="finished"), spec, "4"
    )


def msgspec_replace(attempt: Attempt, **changes: Any) -> Attempt:
    import msgspec

    return msgspec.structs.replace(attempt, **changes)
