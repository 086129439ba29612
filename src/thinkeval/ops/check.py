"""`thinkeval check`: is this server ready for a thinking-model evaluation?

One look at `/v1/models` and a short GSM8K-style probe answer what a run would otherwise find out
an hour in: which API the server speaks (`api:` for the config), is the expected model served,
is thinking on, in which field the reasoning arrives (read from the raw reply message, before
normalisation hides the difference), whether `content` comes back null, "" or as text, what
usage reports, and the smallest budget at which the probe finishes with a legal answer (256,
1024, 4096, ... up to the largest budget). The probes go through the same server profile and
endpoint code as a run's requests.

>>> report = asyncio.run(check_server("http://127.0.0.1:8000/v1", None, (2048, 8192)))
>>> report.ok, report.api, report.reasoning_field, report.smallest_budget
(True, 'vllm', 'reasoning', 1024)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import msgspec
from msgspec import UNSET

from thinkeval.client.fingerprint import (
    ContentField,
    ReasoningField,
    content_field,
    reasoning_field,
)
from thinkeval.client.profiles import DEFAULT_API, Api, card_window, detect_api, get_profile
from thinkeval.client.replies import RequestFailed
from thinkeval.errors import ConfigError
from thinkeval.failures import FailureKind
from thinkeval.generation import GenerationSettings
from thinkeval.ops.patience import Say, budget_ladder, probe_timeout_s, waited
from thinkeval.ops.server_window import fit_warnings, read_window
from thinkeval.scoring.kinds.number import NumberKind
from thinkeval.scoring.strict import strict_verdict
from thinkeval.urls import redact_url, url_problem

if TYPE_CHECKING:
    from thinkeval.client.endpoint import Endpoint
    from thinkeval.records import Sample

PROBE_PROMPT = (
    "Question: A farmer has 3 pens with 4 sheep each. How many sheep?\n"
    "Let's think step by step\n"
    "Answer:"
)
PROBE_GOLD = "12"
# A probe verdict that shows the model can end with a legal final answer.
LEGAL = frozenset({"correct", "wrong"})
CONTENT_HEAD = 120
MODELS_TIMEOUT_S = 30.0


class Probe(msgspec.Struct, kw_only=True):
    """One probe request at one budget, as seen on the wire."""

    max_tokens: int
    rung: int  # the ladder's budget; larger than max_tokens when the context window clamped it
    finish_reason: str | None = None
    reasoning_field: ReasoningField = "none"
    content_field: ContentField = "absent"
    content_chars: int = 0
    content_head: str | None = None  # the normalised content's start, to see what came back
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    reasoning_tokens: int | None = None
    reasoning_tokens_reported: bool = False
    verdict: str | None = None
    answer: str | None = None
    latency_s: float = 0.0
    error: str | None = None
    error_kind: FailureKind | None = None  # RequestFailed.kind (thinkeval/failures.py)


class CheckReport(msgspec.Struct, kw_only=True):
    """Everything `thinkeval check` found out; `ok` and `reason` give the verdict."""

    ok: bool = False
    reason: str | None = None
    base_url: str
    api: Api | None = None  # the flavour the probes spoke: `api:` for the model's config
    api_evidence: str | None = None  # what told: `owned_by: vllm`, an error, `--api`
    expected_model: str | None = None
    served_models: list[str] = []
    model: str | None = None
    root: str | None = None
    max_model_len: int | None = None  # the context window of one request (one slot)
    window_source: str | None = None  # where it was read (ops/server_window.py)
    thinking: bool | None = None
    reasoning_field: ReasoningField | None = None
    content_field: ContentField | None = None
    finish_reason: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    reasoning_tokens: int | None = None
    reasoning_tokens_reported: bool | None = None
    latency_s: float | None = None
    budgets: tuple[int, int]
    smallest_budget: int | None = None
    warnings: list[str] = []
    probes: list[Probe] = []
    # `retry: continue` (token ids and /v1/completions): None when it works, else why not.
    continue_ok: bool | None = None
    continue_problem: str | None = None

    @property
    def smallest_budget_text(self) -> str:
        """`1024`, or `none within 8192` when no probe finished with a legal answer."""
        if self.smallest_budget is None:
            return f"none within {self.budgets[1]}"
        return str(self.smallest_budget)


async def check_server(
    base_url: str,
    expected_model: str | None,
    budgets: tuple[int, int],
    api_key: str | None = None,
    timeout_s: float | None = None,
    api: Api | None = None,
    tasks: dict[str, Sample] | None = None,  # task -> its longest prompt (`--tasks`)
    say: Say | None = None,
) -> CheckReport:
    """Check one server, speaking `api` when given, else the flavour the server shows.

    `timeout_s` limits each request; None gives each probe a limit that fits its budget
    (`ops/patience.py`). `say` is told what a request still in flight waits on, every 10 s.

    Raises `ConfigError` for a URL that cannot be asked at all; never raises for what the server
    does, only reports it.
    """
    problem = url_problem(base_url)
    if problem is not None:
        raise ConfigError(f"--base-url {redact_url(base_url)!r} {problem}")
    from thinkeval.client.endpoint import Endpoint
    from thinkeval.client.session import open_session
    from thinkeval.run.continuation import probe_continuation

    report = CheckReport(
        base_url=redact_url(base_url.rstrip("/")), expected_model=expected_model, budgets=budgets
    )
    async with open_session(1, urlsplit(base_url).scheme == "https") as session:
        # /v1/models answers at once when the server is up; a black-holed address should not
        # take the whole request timeout to say so.
        listing = min(timeout_s or MODELS_TIMEOUT_S, MODELS_TIMEOUT_S)
        lister = Endpoint(session, base_url, api_key, listing)
        try:
            what = f"GET {report.base_url}/models"
            cards = await waited(lister.models(), what, listing + 1, say)
        except RequestFailed as exc:
            report.reason = _unreachable(report.base_url, exc)
        else:
            card = _served_card(report, cards)
            if card is not None:
                _choose_api(report, card, api)
                assert report.api is not None
                await read_window(lister, report, card)  # sets max_model_len, window_source

                longest = probe_timeout_s(budgets[1], timeout_s)

                def asker(flavour: Api) -> Endpoint:
                    profile = get_profile(flavour)
                    return Endpoint(session, base_url, api_key, longest, profile=profile)

                await _climb(asker(report.api), report, timeout_s, say)
                hung = any(p.error_kind == "timeout" for p in report.probes)
                if tasks and report.max_model_len and not hung:  # longest prompts + B2 fit?
                    report.warnings += await fit_warnings(asker(report.api), report, tasks)
                if api is None and any(p.error_kind == "wrong_api" for p in report.probes):
                    # Refused as the OpenAI API refuses max_tokens: ask as its profile does.
                    report.api = "openai"
                    report.api_evidence = "HTTP 400 unsupported_parameter for max_tokens"
                    report.probes = []
                    await _climb(asker("openai"), report, timeout_s, say)
                if not get_profile(report.api).returns_token_ids:
                    why: str | None = f"the {report.api} API returns no token ids"
                    report.continue_ok, report.continue_problem = False, why
                elif report.probes and report.probes[-1].error is None:
                    why = await probe_continuation(asker(report.api), report.model or "")
                    report.continue_ok, report.continue_problem = why is None, why
    if report.reason is None:
        _conclude(report)
    _redact(report, api_key)
    return report


def _choose_api(report: CheckReport, card: dict[str, Any], forced: Api | None) -> None:
    """The flavour to speak: `--api`, else what the model card shows, else vLLM's."""
    detected, evidence = detect_api(card)
    if forced is not None:
        report.api, report.api_evidence = forced, "--api"
        if detected is not None and detected != forced:
            report.warnings.append(
                f"the model card says {evidence}, which looks like api: {detected}, "
                f"but --api {forced} was given"
            )
        return
    report.api = detected or DEFAULT_API
    report.api_evidence = evidence if detected else f"{evidence}: assumed {DEFAULT_API}"


def _unreachable(shown_url: str, failure: RequestFailed) -> str:
    if failure.kind in ("wrong_base_url", "tls"):
        return failure.message
    if failure.http_status in (401, 403):
        return f"{shown_url}/models answered {failure.message}: pass the key with --api-key-env VAR"
    if failure.http_status is not None:
        return f"{shown_url}/models answered {failure.message}; is this an OpenAI-compatible /v1?"
    return f"cannot reach {shown_url}: {failure.message}. Is the server up?"


def _redact(report: CheckReport, api_key: str | None) -> None:
    """Keep the API key out of messages that quote the server (a 401 may echo it)."""
    if not api_key:
        return

    def clean(text: str) -> str:
        return text.replace(api_key, "***")

    if report.reason is not None:
        report.reason = clean(report.reason)
    report.warnings = [clean(w) for w in report.warnings]
    for probe in report.probes:
        if probe.error is not None:
            probe.error = clean(probe.error)


def _served_card(report: CheckReport, cards: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The card of the model to check, with its fields copied into the report; None if absent."""
    report.served_models = [str(card.get("id")) for card in cards]
    ids = ", ".join(report.served_models) or "no model"
    found: dict[str, Any] | None = None
    if report.expected_model is None:
        if len(cards) == 1:
            found = cards[0]
        else:
            report.reason = (
                f"{report.base_url} serves {ids}; pass --model ID to say which one to check"
            )
    else:
        found = next((c for c in cards if c.get("id") == report.expected_model), None)
        if found is None:
            report.reason = (
                f"{report.base_url} serves {ids}, not {report.expected_model!r} (the usual "
                "mistake when models are switched on one port)"
            )
    if found is not None:
        report.model = str(found.get("id"))
        report.root = str(found["root"]) if found.get("root") is not None else None
        report.max_model_len = card_window(found)
    return found


async def _probe(
    endpoint: Endpoint, model: str, max_tokens: int, rung: int, limit_s: float, say: Say | None
) -> Probe:
    """One probe request, sent and read as a run's requests are, given up after `limit_s`."""
    profile = endpoint.profile
    thinking = {"enable_thinking": True} if profile.takes_template_kwargs else UNSET
    generation = GenerationSettings(chat_template_kwargs=thinking)
    messages = [{"role": "user", "content": PROBE_PROMPT}]
    probe = Probe(max_tokens=max_tokens, rung=rung)
    body = profile.request(model, messages, max_tokens, generation, False)
    what = f"the probe at max_tokens={max_tokens} (POST {endpoint.base_url}/chat/completions)"
    try:
        timed = await waited(endpoint.chat(body), what, limit_s, say)
    except RequestFailed as exc:
        probe.error, probe.error_kind = exc.message, exc.kind
        if exc.kind == "timeout":
            probe.error = f"no reply within {limit_s:g} s (raise --timeout-s?)"
        return probe
    reply, message = timed.reply, timed.message or {}
    probe.latency_s = round(timed.latency_s, 3)
    probe.finish_reason = reply.finish_reason
    probe.reasoning_field = reasoning_field(message)
    probe.content_field = content_field(message)
    probe.content_chars = len(reply.content or "")
    probe.content_head = reply.content[:CONTENT_HEAD] if reply.content else None
    probe.prompt_tokens = reply.usage.prompt_tokens
    probe.completion_tokens = reply.usage.completion_tokens
    probe.reasoning_tokens = reply.usage.reasoning_tokens
    probe.reasoning_tokens_reported = probe.reasoning_tokens is not None
    verdict = strict_verdict(NumberKind(), reply.content, reply.finish_reason, PROBE_GOLD)
    probe.verdict, probe.answer = verdict.status, verdict.answer
    return probe


async def _climb(
    endpoint: Endpoint, report: CheckReport, timeout_s: float | None, say: Say | None
) -> None:
    """Probe at each rung until one finishes with a legal answer, or the ladder ends."""
    assert report.model is not None
    prompt_tokens: int | None = None
    for rung in budget_ladder(report.budgets[1]):
        max_tokens = rung
        if report.max_model_len is not None and prompt_tokens is not None:
            # Older vLLM rejects prompt + max_tokens > max_model_len: clamp as a run would.
            max_tokens = min(rung, report.max_model_len - prompt_tokens)
            if max_tokens <= 0:
                break
        limit = probe_timeout_s(max_tokens, timeout_s)
        probe = await _probe(endpoint, report.model, max_tokens, rung, limit, say)
        report.probes.append(probe)
        if probe.error is not None:
            return
        prompt_tokens = probe.prompt_tokens or prompt_tokens
        if probe.finish_reason == "stop" and probe.verdict in LEGAL:
            report.smallest_budget = probe.max_tokens
            return
        if max_tokens < rung:
            return  # clamped by the context window: no larger rung can fit either


def _conclude(report: CheckReport) -> None:
    """Fill the summary fields from the decisive probe and decide `ok`."""
    answered = [p for p in report.probes if p.error is None]
    if answered:
        # The finishing probe shows the steady-state shape; a cut-off one may differ (vLLM
        # 0.9-0.16 puts a cut-off think block in content), so prefer the last probe.
        last = answered[-1]
        report.reasoning_field = last.reasoning_field
        report.content_field = last.content_field
        report.finish_reason = last.finish_reason
        report.prompt_tokens = last.prompt_tokens
        report.completion_tokens = last.completion_tokens
        report.reasoning_tokens = last.reasoning_tokens
        report.reasoning_tokens_reported = last.reasoning_tokens_reported
        report.latency_s = last.latency_s
        report.thinking = any(
            p.reasoning_field != "none" or (p.reasoning_tokens or 0) > 0 for p in answered
        )
        if not report.thinking:
            report.warnings.append(
                "no reasoning seen in any reply: thinking looks off (does the chat template "
                "honour enable_thinking, is this a thinking model?)"
            )
        elif all(p.reasoning_field == "none" for p in answered):
            report.warnings.append(
                "the reasoning is hidden (only usage.reasoning_tokens tells it exists); it "
                "cannot be audited"
            )
    if report.max_model_len is not None and report.prompt_tokens is not None:
        room = report.max_model_len - report.prompt_tokens
        if room < report.budgets[1]:
            report.warnings.append(
                f"max_model_len {report.max_model_len} leaves {room} tokens after this prompt, "
                f"less than the retry budget {report.budgets[1]}: longer prompts get even less, "
                "and runs clamp max_tokens (recorded as clamped_from)"
            )
    if report.reason is not None:
        return
    failed = next((p for p in report.probes if p.error is not None), None)
    if failed is not None:
        report.reason = f"the probe at max_tokens={failed.max_tokens} failed: {failed.error}"
    elif report.smallest_budget is None:
        finished = next((p for p in report.probes if p.finish_reason == "stop"), None)
        if finished is not None:
            # More room does not fix a reply that ended without an answer: say what it said.
            report.reason = (
                f"the probe finished at max_tokens={finished.max_tokens} but without a legal "
                f"final answer (verdict {finished.verdict}, content "
                f"{finished.content_head!r}); check the chat template and reasoning parser"
            )
        else:
            final = report.probes[-1] if report.probes else None
            detail = f" (last finish_reason: {final.finish_reason})" if final else ""
            report.reason = (
                f"the probe did not finish with a legal answer within {report.budgets[1]} "
                f"tokens{detail}"
            )
    else:
        report.ok = True
