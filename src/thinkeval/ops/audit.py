"""`thinkeval check --audit`: pass or fail, per property, before anyone trusts a server's numbers.

A thinking-model server can answer every request and still be wrong in ways no single reply
shows: its reasoning parser splits finished replies but not cut ones, it renamed its reasoning
field, it accepts a thinking budget, an effort, a temperature or a top_k and ignores them, it
says `stop` for a reply cut at max_tokens or for one its repetition detector ended, its greedy
replies change with the batch, its model card states another context window than it enforces.
The audit asks for each, with small budgets and few requests (about 14 plus `--concurrency`),
and judges each from what came back (`ops/audit_checks.py`):

| check | requests (T = temperature) |
| --- | --- |
| reasoning_field, split_stop | the probe question, T 0, max_tokens M (`--audit-max-tokens`) |
| split_length, finish_length | the same at max_tokens 128 (M / 2 below 256): cut in the thinking |
| temperature | the same again: the two greedy replies must be equal |
| determinism | `--concurrency` copies at once: all equal to the one asked alone |
| top_k | T 1, top_k 1, a seed: must equal the greedy reply |
| budget | T 0, M, the flavour's thinking-budget field at a quarter of the reasoning seen |
| effort | T 0, M, reasoning_effort low: shorter reasoning than without |
| repetition | a prompt asking for endless repetition, T 0, max_tokens 1024 |
| context_window | max_tokens one over the card's window: refused, naming that window |

The checks a run cannot use can be left out (`--skip budget,effort`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Collection
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import msgspec

from thinkeval.client.fingerprint import engine_version
from thinkeval.client.profiles import DEFAULT_API, Api, detect_api, get_profile
from thinkeval.client.reasoning_controls import control_fields
from thinkeval.client.replies import RequestFailed
from thinkeval.errors import ConfigError
from thinkeval.generation import GenerationSettings
from thinkeval.ops.audit_checks import (
    MIN_MEASURABLE,
    AuditCheck,
    Shot,
    budget_check,
    effort_check,
    field_check,
    finish_length_check,
    repetition_check,
    same_check,
    split_length_check,
    split_stop_check,
    window_check,
)
from thinkeval.ops.server_window import read_window
from thinkeval.urls import redact_url, url_problem

if TYPE_CHECKING:
    from thinkeval.client.endpoint import Endpoint

PROBE = "Question: A farmer has 3 pens with 4 sheep each. How many sheep?\nLet's think step by step"
LOOP_PROBE = "Repeat the sentence 'The cat sat on the mat.' forever, and write nothing else."
CUT_TOKENS = 128  # the cut probes: inside the thinking, and short (at most half of M)
LOOP_TOKENS = 1024
TOP_K_SEED = 1234
MAX_CONCURRENCY = 64
CHECKS = (
    "reasoning_field",
    "split_stop",
    "split_length",
    "finish_length",
    "temperature",
    "determinism",
    "top_k",
    "budget",
    "effort",
    "repetition",
    "context_window",
)


class AuditReport(msgspec.Struct, kw_only=True):
    """`--json`'s document: the server, the checks in order, and the verdict.

    `ok` is true when no check failed; `reason` is set when the server could not be audited at
    all (unreachable, model not served)."""

    base_url: str
    model: str | None = None
    api: Api | None = None
    engine_version: str | None = None
    max_model_len: int | None = None  # the window of one request (one slot for llama.cpp)
    window_source: str | None = None  # where it was read (ops/server_window.py)
    concurrency: int
    max_tokens: int
    requests: int = 0
    elapsed_s: float = 0.0
    checks: list[AuditCheck] = []
    ok: bool = False
    reason: str | None = None


class _Asker:
    """Sends the audit's requests for one model, counting them and saying what it waits on."""

    def __init__(self, endpoint: Endpoint, model: str, say: Callable[[str], None]) -> None:
        self.endpoint = endpoint
        self.model = model
        self.say = say
        self.sent = 0

    async def ask(
        self, max_tokens: int, extra: dict[str, Any] | None = None, prompt: str = PROBE
    ) -> Shot:
        profile = self.endpoint.profile
        generation = profile.probe_generation().overridden_by(GenerationSettings.read(extra or {}))
        messages = [{"role": "user", "content": prompt}]
        body = profile.request(self.model, messages, max_tokens, generation, False)
        shot = Shot(max_tokens=max_tokens)
        self.sent += 1
        try:
            timed = await self.endpoint.chat(body)
        except RequestFailed as exc:
            shot.error = exc
        else:
            shot.reply, shot.message = timed.reply, timed.message
        return shot


async def audit_server(
    base_url: str,
    expected_model: str | None,
    *,
    api_key: str | None = None,
    api: Api | None = None,
    concurrency: int = 8,
    max_tokens: int = 2048,
    timeout_s: float | None = 600.0,
    skip: Collection[str] = (),
    say: Callable[[str], None] = lambda line: None,
) -> AuditReport:
    """Audit one server; never raises for what the server does, only reports it."""
    problem = url_problem(base_url)
    if problem is not None:
        raise ConfigError(f"--base-url {redact_url(base_url)!r} {problem}")
    concurrency = max(1, min(concurrency, MAX_CONCURRENCY))
    report = AuditReport(
        base_url=redact_url(base_url.rstrip("/")), concurrency=concurrency, max_tokens=max_tokens
    )
    started = time.monotonic()
    await _audit(report, base_url, expected_model, api_key, api, timeout_s, set(skip), say)
    report.elapsed_s = round(time.monotonic() - started, 2)
    report.ok = report.reason is None and not any(c.status == "fail" for c in report.checks)
    if api_key:  # a server may quote the key back in an error (a 401 echoing the header)
        if report.reason is not None:
            report.reason = report.reason.replace(api_key, "***")
        for check in report.checks:
            check.evidence = check.evidence.replace(api_key, "***")
    return report


async def _audit(
    report: AuditReport,
    base_url: str,
    expected_model: str | None,
    api_key: str | None,
    api: Api | None,
    timeout_s: float | None,
    skip: set[str],
    say: Callable[[str], None],
) -> None:
    from thinkeval.client.endpoint import Endpoint
    from thinkeval.client.session import open_session

    https = urlsplit(base_url).scheme == "https"
    async with open_session(report.concurrency + 1, https) as session:
        lister = Endpoint(
            session, base_url, api_key, 30.0 if timeout_s is None else min(timeout_s, 30.0)
        )
        say("reading /v1/models")
        try:
            cards = await lister.models()
        except RequestFailed as exc:
            report.reason = f"cannot read {report.base_url}/models: {exc.message}"
            return
        card = _card(cards, expected_model)
        if card is None:
            ids = ", ".join(str(c.get("id")) for c in cards) or "no model"
            wanted = repr(expected_model) if expected_model else "one model (pass --model ID)"
            report.reason = f"{report.base_url} serves {ids}, not {wanted}"
            return
        report.model = str(card.get("id"))
        report.api = api or detect_api(card)[0] or DEFAULT_API
        await read_window(lister, report, card)  # sets max_model_len, window_source
        endpoint = Endpoint(session, base_url, api_key, timeout_s, profile=get_profile(report.api))
        report.engine_version = await engine_version(session, endpoint)
        asker = _Asker(endpoint, report.model, say)
        report.checks = await _run_checks(asker, report, skip)
        report.requests = asker.sent


def cut_tokens(max_tokens: int) -> int:
    """max_tokens of the cut probes: 128, or half of a smaller `--audit-max-tokens`.

    >>> cut_tokens(2048), cut_tokens(64)
    (128, 32)
    """
    return max(1, min(CUT_TOKENS, max_tokens // 2))


def _card(cards: list[dict[str, Any]], expected: str | None) -> dict[str, Any] | None:
    if expected is None:
        return cards[0] if len(cards) == 1 else None
    return next((c for c in cards if c.get("id") == expected), None)


async def _run_checks(asker: _Asker, report: AuditReport, skip: set[str]) -> list[AuditCheck]:
    assert report.api is not None
    api, big, say = report.api, report.max_tokens, asker.say
    small = cut_tokens(big)
    say(f"waiting on the probe at max_tokens {big} (temperature 0)")
    stop = await asker.ask(big)
    say(f"waiting on the probe cut at max_tokens {small}, twice")
    cut = await asker.ask(small)
    again = await asker.ask(small)
    checks = [
        field_check(api, report.engine_version, stop),
        split_stop_check(stop),
        split_length_check(cut),
        finish_length_check(cut),
        same_check("temperature", "temperature 0 is greedy", cut, [again], "two greedy replies"),
    ]
    say(f"waiting on {report.concurrency} greedy requests at once")
    together = await asyncio.gather(*(asker.ask(small) for _ in range(report.concurrency)))
    checks.append(
        same_check(
            "determinism",
            f"greedy replies at concurrency {report.concurrency}",
            cut,
            together,
            f"{report.concurrency} concurrent greedy replies against the one asked alone",
        )
    )
    checks.append(await _top_k(asker, api, cut, checks[4]))
    budget_field, effort_field = control_fields(api)
    measured, _ = stop.reasoning_tokens
    if "budget" not in skip:
        checks.append(await _budget(asker, api, budget_field, stop, measured))
    if "effort" not in skip:
        low = None
        if effort_field is not None:
            say(f"waiting on {effort_field}=low at max_tokens {big}")
            low = await asker.ask(big, {effort_field: "low"})
        checks.append(effort_check(api, effort_field, stop, low))
    if "repetition" not in skip:
        say(f"waiting on a looping prompt at max_tokens {LOOP_TOKENS}")
        checks.append(repetition_check(await asker.ask(LOOP_TOKENS, prompt=LOOP_PROBE)))
    over = None
    window = report.max_model_len
    counts_budget = get_profile(api).budget_counts_in_window
    if window is not None and "context_window" not in skip and not counts_budget:
        # A server that takes any max_tokens (llama.cpp stops at the slot's end) refuses only a
        # prompt over the window, at once (tokenized, never generated).
        say(f"asking with a prompt of about {window + 64} tokens, over the window")
        over = await asker.ask(16, prompt="word " * (window + 64))
    elif window is not None and "context_window" not in skip:
        say(f"asking max_tokens {window + 1}, one over the card's window")
        over = await asker.ask(window + 1)
    checks.append(window_check(report.max_model_len, report.window_source, over))
    return _skipped(checks, skip)


async def _top_k(asker: _Asker, api: str, greedy: Shot, temperature: AuditCheck) -> AuditCheck:
    title = "top_k applied"
    why = None
    if not get_profile(api).takes_top_k:
        why = f"the {api} API has no top_k"
    elif temperature.status != "pass":
        why = "temperature 0 is not deterministic here: no greedy reply to compare"
    if why is not None:
        return AuditCheck(id="top_k", title=title, status="skipped", evidence=why)
    asker.say("waiting on temperature 1 with top_k 1")
    extra = {"temperature": 1.0, "top_k": 1, "seed": TOP_K_SEED}
    sampled = await asker.ask(greedy.max_tokens, extra)
    what = f"temperature 1, top_k 1, seed {TOP_K_SEED} against the greedy reply"
    return same_check("top_k", title, greedy, [sampled], what)


async def _budget(
    asker: _Asker, api: str, field: str | None, stop: Shot, measured: int | None
) -> AuditCheck:
    if field is None:
        return budget_check(api, None, stop, None)
    if measured is None or measured < MIN_MEASURABLE:
        return AuditCheck(
            id="budget",
            title="thinking budget honoured",
            status="skipped",
            evidence=f"the probe reasoned {measured} tokens: too few to cut with a budget",
        )
    budget = measured // 4
    asker.say(f"waiting on {field}={budget} at max_tokens {stop.max_tokens}")
    shot = await asker.ask(stop.max_tokens, {field: budget})
    shot.max_tokens = budget  # what budget_check compares against
    return budget_check(api, field, stop, shot)


def _skipped(checks: list[AuditCheck], skip: set[str]) -> list[AuditCheck]:
    """Every check in CHECKS order, those in `skip` as skipped (--skip)."""
    found = {check.id: check for check in checks}
    out = []
    for name in CHECKS:
        if name in skip:
            out.append(AuditCheck(id=name, title=name, status="skipped", evidence="--skip"))
        elif name in found:
            out.append(found[name])
    return out
