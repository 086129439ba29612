"""The simulator's stepped engine (`--max-num-batched-tokens`): a replica's sequences share each
step, so a prefill slows every decode there and a prefix-cache hit saves time for all; chunked
prefill within the token budget; admission by max_num_seqs; exact virtual times however late the
engine is woken; over HTTP, streamed and not."""

from __future__ import annotations

import random

import aiohttp
import orjson
import pytest

from test_sim import ALWAYS_RIGHT, get_json, gsm8k_sample, request_body, root_of
from thinkeval.sim import SimConfig, serve
from thinkeval.sim.steps import Sequence, StepModel

STEP_S = 0.03  # a decode step of a large model
TOKEN_S = 1 / 15_000  # an H100-class prefill rate


def _engine(max_tokens: int = 2048, max_seqs: int = 8) -> StepModel:
    return StepModel(STEP_S, TOKEN_S, max_tokens, max_seqs)


def _run(model: StepModel, arrivals: list[tuple[float, Sequence]], until: float = 1e6) -> None:
    for at, seq in arrivals:
        model.advance(at)
        model.add(seq)
    model.advance(until)


def test_a_lone_sequence_takes_its_prefill_step_then_one_step_per_token() -> None:
    model = _engine()
    seq = Sequence(prefill=100, tokens=10, arrived=0.0)
    _run(model, [(0.0, seq)])
    prefill_step = STEP_S + TOKEN_S * 100
    assert seq.first_token_at == pytest.approx(prefill_step)
    # 9 more tokens, each a decode step with one sequence scheduled
    assert seq.done_at == pytest.approx(prefill_step + 9 * (STEP_S + TOKEN_S))
    assert model.busy_s == pytest.approx(seq.done_at)
    assert model.tokens_out(seq) == 10


def test_a_long_prefill_slows_the_sequences_decoding_beside_it() -> None:
    def finish_of_decoder(prompt: int | None) -> float:
        model = _engine()
        decoder = Sequence(prefill=10, tokens=200, arrived=0.0)
        arrivals = [(0.0, decoder)]
        if prompt is not None:
            arrivals.append((1.0, Sequence(prefill=prompt, tokens=5, arrived=1.0)))
        _run(model, arrivals)
        assert decoder.done_at is not None
        return decoder.done_at

    alone = finish_of_decoder(None)
    missed = finish_of_decoder(8000) - alone  # the document's prefill shares the steps
    hit = finish_of_decoder(1) - alone  # its prefix cached: one token to compute
    # 8000 tokens in chunks of at most 2047 (one token of the budget is the decoder's): 4 steps
    # that also compute the prefill, then the newcomer's 4 more tokens beside the decoder's.
    assert missed == pytest.approx(8000 * TOKEN_S + 4 * TOKEN_S)
    assert hit < TOKEN_S * 10  # one more token per step: a few tenths of a millisecond
    assert missed > 0.5


def test_a_prompt_over_the_budget_is_chunked() -> None:
    model = _engine(max_tokens=2048)
    seq = Sequence(prefill=5000, tokens=1, arrived=0.0)
    _run(model, [(0.0, seq)])
    assert model.steps == 3  # 2048 + 2048 + 904
    assert seq.done_at == pytest.approx(3 * STEP_S + 5000 * TOKEN_S)


def test_beyond_max_num_seqs_a_request_waits_for_a_place() -> None:
    model = _engine(max_seqs=2)
    seqs = [Sequence(prefill=10, tokens=20 + i, arrived=0.0) for i in range(3)]
    _run(model, [(0.0, s) for s in seqs])
    first, second, third = seqs
    assert first.admitted_at == second.admitted_at == 0.0
    assert third.admitted_at == first.done_at  # took the first place freed
    assert third.done_at is not None and second.done_at is not None
    assert third.done_at > second.done_at


def test_virtual_times_do_not_depend_on_when_the_engine_is_woken() -> None:
    """The event loop may wake the engine late (a busy machine): the steps it missed are applied
    as they would have been, so the simulated times are the same."""
    rng = random.Random(3)
    plan = [(0.05 * i, rng.choice([10, 8000]), rng.randint(1, 300)) for i in range(40)]

    def finishes(wakes: int) -> list[float | None]:
        model = _engine(max_seqs=6)
        seqs = [Sequence(prefill=p, tokens=t, arrived=at) for at, p, t in plan]
        for at, seq in zip((at for at, _, _ in plan), seqs, strict=True):
            for _ in range(wakes):  # early, spurious wake-ups
                model.advance(at - rng.random() * 0.05)
            model.advance(at)
            model.add(seq)
        model.advance(1e6)
        return [s.done_at for s in seqs]

    once = finishes(0)
    assert all(done is not None for done in once)
    assert finishes(3) == pytest.approx(once)


def test_an_aborted_sequence_frees_its_place() -> None:
    model = _engine(max_seqs=1)
    first = Sequence(prefill=10, tokens=1000, arrived=0.0)
    second = Sequence(prefill=10, tokens=2, arrived=0.0)
    model.add(first)
    model.add(second)
    model.advance(0.5)
    assert second.admitted_at is None
    model.abort(first)
    model.advance(0.5 + 2 * STEP_S + 0.01)
    assert second.admitted_at is not None and second.done_at is not None
    assert first.done_at is None


def test_the_budget_must_hold_every_running_sequence() -> None:
    with pytest.raises(ValueError, match="max_num_batched_tokens"):
        StepModel(STEP_S, TOKEN_S, 64, 128)
    with pytest.raises(ValueError, match=r"max_num_batched_tokens \(64\) must be at least"):
        SimConfig(max_num_batched_tokens=64, max_num_seqs=128)
    with pytest.raises(ValueError, match="max_num_batched_tokens must not be negative"):
        SimConfig(max_num_batched_tokens=-1)


FAST = {"per_token_s": 0.001, "prefill_token_s": 0.0001, "max_num_seqs": 8, **ALWAYS_RIGHT}


async def _ask(session: aiohttp.ClientSession, url: str, stream: bool) -> tuple[str, int]:
    body = request_body(gsm8k_sample(1), 64, stream=stream, seed=0)
    async with session.post(f"{url}/chat/completions", json=body) as response:
        assert response.status == 200
        raw = await response.read()
    if not stream:
        reply = orjson.loads(raw)
        return reply["choices"][0]["message"]["content"], reply["usage"]["prompt_tokens"]
    chunks = [line[6:] for line in raw.decode().splitlines() if line.startswith("data: {")]
    deltas = [orjson.loads(c)["choices"] for c in chunks]
    text = "".join(d[0]["delta"].get("content") or "" for d in deltas if d)
    return text, 0


@pytest.mark.parametrize("stream", [False, True])
async def test_over_http_the_engine_answers_as_before_and_a_cache_hit_saves_busy_time(
    stream: bool,
) -> None:
    answers = {}
    for batched in (0, 2048):
        config = SimConfig(max_num_batched_tokens=batched, prefix_cache_tokens=100_000, **FAST)
        async with serve(config) as url, aiohttp.ClientSession() as session:
            first = await _ask(session, url, stream)
            after_first = await get_json(session, root_of(url) + "/sim/stats")
            second = await _ask(session, url, stream)
            stats = await get_json(session, root_of(url) + "/sim/stats")
        answers[batched] = (first[0], second[0])
        if not batched:
            assert stats["busy_s"] == 0.0  # per-request model: no engine
            continue
        assert stats["running"] == stats["waiting"] == 0
        assert stats["completed"] == 2 and stats["prefix_cache_hits"] > 0
        prompt = stats["prefix_cache_queries"] // 2
        one = after_first["busy_s"]
        two = stats["busy_s"] - one  # the same reply, its prompt cached but one token
        assert one - two == pytest.approx((prompt - 1) * config.prefill_token_s)
        assert stats["service_s"] >= stats["busy_s"] - 1e-9  # each held the whole batch time
    assert answers[0] == answers[2048]


async def test_a_stream_whose_client_leaves_frees_its_place_in_the_batch() -> None:
    """One place in the batch: a long stream holds it; its client goes after the first chunk,
    and the next request is admitted at once instead of waiting for the stream's last token."""
    knobs = {**FAST, "max_num_seqs": 1, "short_tokens": (1200, 1500)}
    config = SimConfig(max_num_batched_tokens=2048, **knobs)
    async with serve(config) as url, aiohttp.ClientSession() as session:
        body = request_body(gsm8k_sample(2), 4096, stream=True, seed=0)
        async with session.post(f"{url}/chat/completions", json=body) as response:
            await response.content.readline()  # the first event: the stream is in the batch
        after = request_body(gsm8k_sample(3), 8, seed=0)
        async with session.post(f"{url}/chat/completions", json=after) as response:
            assert response.status == 200
        stats = await get_json(session, root_of(url) + "/sim/stats")
    # The stream's 1200+ tokens would have held the place for 1.2 s or more.
    assert stats["queued_s"] < 0.3
    assert stats["running"] == 0 and stats["completed"] == 1
