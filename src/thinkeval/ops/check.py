"""`thinkeval check`: is this server ready for a thinking-model evaluation?

One look at `/v1/models` and a short GSM8K-style probe answer what a run would otherwise find out
an hour in: is the expected model served, is thinking on, in which field the reasoning arrives
(read from the raw reply body, before `endpoint.normalise` hides the difference), whether
`content` comes back null, "" or as text, what usage reports, and the smallest budget at which
the probe finishes with a legal answer (256, 1024, 4096, ... up to the largest budget).

>>> report = asyncio.run(check_server("http://127.0.0.1:8000/v1", None, (2048, 8192)))
>>> report.ok, report.reasoning_field, report.smallest_budget
(True, 'reasoning', 1024)
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
import textwrap
import time
from typing import Any, Literal

import msgspec
import orjson
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from thinkeval import __version__
from thinkeval.client.endpoint import (
    MAX_REPLY_BYTES,
    Endpoint,
    RequestFailed,
    error_message,
    parse_completion,
)
from thinkeval.client.http import HttpClient, HttpError
from thinkeval.config import read_api_key, redact_url
from thinkeval.scoring.kinds.number import NumberKind
from thinkeval.scoring.strict import strict_verdict

DESCRIPTION = textwrap.dedent(
    """\
    Read /v1/models and send one short thinking request (a GSM8K-style question with
    chat_template_kwargs.enable_thinking=true) at growing budgets: 256, 1024, 4096, ... up to
    the largest of --budgets. Reports the served model, whether thinking is on and in which
    field the reasoning arrives (reasoning, reasoning_content, raw <think> in content, or none),
    the content field (null, "" or text), finish_reason, usage, latency and the smallest budget
    at which the probe finishes with a legal answer."""
)
EPILOG = textwrap.dedent(
    """\
    example:
      thinkeval check --base-url http://127.0.0.1:8006/v1 --model qwen3-8b-w8a8
      thinkeval check --base-url https://api.example.com/v1 --api-key-env OPENAI_API_KEY --json

    exit status: 0 all well (server reachable, expected model served, probe finished within
    the largest budget with a legal answer); 1 a problem, named on the last line; 2 bad input."""
)

PROBE_PROMPT = (
    "Question: A farmer has 3 pens with 4 sheep each. How many sheep?\n"
    "Let's think step by step\n"
    "Answer:"
)
PROBE_GOLD = "12"
FIRST_RUNG = 256
RUNG_FACTOR = 4
# A probe verdict that shows the model can end with a legal final answer.
LEGAL = frozenset({"correct", "wrong"})
CONTENT_HEAD = 120
MODELS_TIMEOUT_S = 30.0
_USERINFO = re.compile(r"//[^/@\s]+@")

ReasoningField = Literal[
    "reasoning", "reasoning_content", "reasoning+reasoning_content", "content <think>", "none"
]
ContentField = Literal["null", "empty", "text", "absent"]


class Probe(msgspec.Struct, kw_only=True):
    """One probe request at one `max_tokens`, as seen on the wire."""

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


class CheckReport(msgspec.Struct, kw_only=True):
    """Everything `thinkeval check` found out; `ok` and `reason` give the verdict."""

    ok: bool = False
    reason: str | None = None
    base_url: str
    expected_model: str | None = None
    served_models: list[str] = []
    model: str | None = None
    root: str | None = None
    max_model_len: int | None = None
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

    @property
    def smallest_budget_text(self) -> str:
        """`1024`, or `none within 8192` when no probe finished with a legal answer."""
        if self.smallest_budget is None:
            return f"none within {self.budgets[1]}"
        return str(self.smallest_budget)


def parse_budgets(text: str) -> tuple[int, int]:
    """`"2048,8192"` → `(2048, 8192)`: the fixed budget, then the larger retry budget.

    >>> parse_budgets("2048,8192")
    (2048, 8192)
    """
    try:
        fixed, retry = (int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"budgets must look like B1,B2 (e.g. 2048,8192), got {text!r}"
        ) from None
    if fixed <= 0 or retry <= fixed:
        raise argparse.ArgumentTypeError(
            f"budgets {text!r}: B1 must be positive and B2 larger than B1"
        )
    return fixed, retry


def budget_ladder(largest: int) -> list[int]:
    """The probe budgets: 256, then ×4, capped at (and always ending with) `largest`.

    >>> budget_ladder(8192)
    [256, 1024, 4096, 8192]
    """
    rungs = []
    rung = FIRST_RUNG
    while rung < largest:
        rungs.append(rung)
        rung *= RUNG_FACTOR
    return [*rungs, largest]


def reasoning_field(message: dict[str, Any]) -> ReasoningField:
    """Where a raw reply message carries its reasoning (§7.3 of vllm-api.md: it moved per era)."""
    names = [n for n in ("reasoning", "reasoning_content") if _text(message.get(n))]
    if names:
        return "reasoning+reasoning_content" if len(names) == 2 else names[0]  # type: ignore[return-value]
    content = message.get("content")
    if isinstance(content, str) and ("<think>" in content or "</think>" in content):
        # No reasoning parser, or vLLM 0.9-0.16 cut inside the think block.
        return "content <think>"
    return "none"


def content_field(message: dict[str, Any]) -> ContentField:
    """How a raw reply message carries `content`: null, "" (SGLang, OpenAI), text, or absent."""
    if "content" not in message:
        return "absent"
    content = message["content"]
    if content is None:
        return "null"
    return "text" if isinstance(content, str) and content else "empty"


def _text(value: Any) -> bool:
    return isinstance(value, str) and bool(value)


def _raw_reasoning_tokens(usage: Any) -> int | None:
    if not isinstance(usage, dict):
        return None
    details = usage.get("completion_tokens_details")
    if isinstance(details, dict) and details.get("reasoning_tokens") is not None:
        return int(details["reasoning_tokens"])
    value = usage.get("reasoning_tokens")  # SGLang reports it at the top level
    return int(value) if isinstance(value, int) else None


class _Client:
    """The two requests `check` makes, with the raw chat body kept for inspection."""

    def __init__(
        self, client: HttpClient, base_url: str, api_key: str | None, timeout_s: float
    ) -> None:
        # /v1/models answers at once when the server is up; a black-holed address should not
        # take the whole request timeout to say so.
        self.endpoint = Endpoint(client, base_url, api_key, min(timeout_s, MODELS_TIMEOUT_S))
        self.client = client
        self.url = f"{base_url.rstrip('/')}/chat/completions"
        self.headers = {"Content-Type": "application/json"}
        if api_key:
            self.headers["Authorization"] = f"Bearer {api_key}"
        self.timeout_s = timeout_s

    async def probe(self, model: str, max_tokens: int, rung: int) -> Probe:
        body = {
            "model": model,
            "messages": [{"role": "user", "content": PROBE_PROMPT}],
            "max_tokens": max_tokens,
            "chat_template_kwargs": {"enable_thinking": True},
        }
        started = time.perf_counter()
        probe = Probe(max_tokens=max_tokens, rung=rung)
        try:
            async with (
                asyncio.timeout(self.timeout_s),
                self.client.request("POST", self.url, self.headers, orjson.dumps(body)) as resp,
            ):
                raw = await resp.read(MAX_REPLY_BYTES)
                status = resp.status
        except HttpError as exc:
            probe.error = f"POST /chat/completions failed: {exc}"
            return probe
        except TimeoutError:
            probe.error = f"no reply within {self.timeout_s:g} s (raise --timeout-s?)"
            return probe
        probe.latency_s = round(time.perf_counter() - started, 3)
        try:
            parsed = orjson.loads(raw)
        except orjson.JSONDecodeError:
            snippet = raw[:120].decode("utf-8", "replace")
            probe.error = f"HTTP {status}, reply is not JSON: {snippet!r}"
            return probe
        if status != 200:
            probe.error = f"HTTP {status}: {error_message(parsed) or raw[:200]!r}"
            return probe
        try:
            reply = parse_completion(parsed)
        except RequestFailed as exc:
            probe.error = exc.message
            return probe
        message = parsed["choices"][0]["message"]
        usage = parsed.get("usage")
        probe.finish_reason = reply.finish_reason
        probe.reasoning_field = reasoning_field(message)
        probe.content_field = content_field(message)
        probe.content_chars = len(reply.content or "")
        probe.content_head = reply.content[:CONTENT_HEAD] if reply.content else None
        probe.prompt_tokens = reply.usage.prompt_tokens
        probe.completion_tokens = reply.usage.completion_tokens
        probe.reasoning_tokens = _raw_reasoning_tokens(usage)
        probe.reasoning_tokens_reported = probe.reasoning_tokens is not None
        verdict = strict_verdict(NumberKind(), reply.content, reply.finish_reason, PROBE_GOLD)
        probe.verdict, probe.answer = verdict.status, verdict.answer
        return probe


async def check_server(
    base_url: str,
    expected_model: str | None,
    budgets: tuple[int, int],
    api_key: str | None = None,
    timeout_s: float = 600.0,
) -> CheckReport:
    """Check one server; never raises for what the server does, only reports it."""
    report = CheckReport(
        base_url=redact_url(base_url), expected_model=expected_model, budgets=budgets
    )
    async with HttpClient(user_agent=f"thinkeval/{__version__}") as http:
        client = _Client(http, base_url, api_key, timeout_s)
        try:
            cards = await client.endpoint.models()
        except RequestFailed as exc:
            report.reason = _unreachable(report.base_url, exc)
            _redact(report, base_url, api_key)
            return report
        report.served_models = [str(card.get("id")) for card in cards]
        card = _served_card(report, cards)
        if card is None:
            return report
        report.model = str(card.get("id"))
        report.root = str(card["root"]) if card.get("root") is not None else None
        max_len = card.get("max_model_len")
        report.max_model_len = max_len if isinstance(max_len, int) else None
        await _climb(client, report)
    _conclude(report)
    _redact(report, base_url, api_key)
    return report


def _unreachable(shown_url: str, failure: RequestFailed) -> str:
    if failure.http_status in (401, 403):
        return f"{shown_url}/models answered {failure.message}: pass the key with --api-key-env VAR"
    if failure.http_status is not None:
        return f"{shown_url}/models answered {failure.message}; is this an OpenAI-compatible /v1?"
    return f"cannot reach {shown_url}: {failure.message}. Is the server up?"


def _redact(report: CheckReport, base_url: str, api_key: str | None) -> None:
    """Keep secrets out of messages that quote the client library or the server."""

    def clean(text: str) -> str:
        text = text.replace(base_url, report.base_url)
        text = _USERINFO.sub("//***@", text)
        return text.replace(api_key, "***") if api_key else text

    if report.reason is not None:
        report.reason = clean(report.reason)
    report.warnings = [clean(w) for w in report.warnings]
    for probe in report.probes:
        if probe.error is not None:
            probe.error = clean(probe.error)


def _served_card(report: CheckReport, cards: list[dict[str, Any]]) -> dict[str, Any] | None:
    ids = ", ".join(report.served_models) or "no model"
    if report.expected_model is None:
        if len(cards) == 1:
            return cards[0]
        report.reason = f"{report.base_url} serves {ids}; pass --model ID to say which one to check"
        return None
    for card in cards:
        if card.get("id") == report.expected_model:
            return card
    report.reason = (
        f"{report.base_url} serves {ids}, not {report.expected_model!r} (the usual mistake "
        "when models are switched on one port)"
    )
    return None


async def _climb(client: _Client, report: CheckReport) -> None:
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
        probe = await client.probe(report.model, max_tokens, rung)
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
            last = report.probes[-1] if report.probes else None
            detail = f" (last finish_reason: {last.finish_reason})" if last else ""
            report.reason = (
                f"the probe did not finish with a legal answer within {report.budgets[1]} "
                f"tokens{detail}"
            )
    else:
        report.ok = True


def _tokens(prompt: int | None, completion: int | None, reasoning: int | None) -> str:
    def show(value: int | None) -> str:
        return "?" if value is None else str(value)

    return f"{show(prompt)} / {show(completion)} / {show(reasoning)}"


def render(report: CheckReport, console: Console) -> None:
    """The report as a readable key/value table, the probes, and the warnings."""
    table = Table(
        title=f"thinkeval check · {report.base_url}", title_justify="left", show_header=False
    )
    table.add_column("what", style="bold")
    table.add_column("found")
    served = ", ".join(report.served_models) or "-"
    if report.expected_model is None:
        model = f"{report.model} (the only one served)" if report.model else "-"
    else:
        model = f"{report.expected_model} " + ("✓ served" if report.model else "✗ not served")
    rows = [
        ("served models", served),
        ("model", model),
        ("root", report.root or "-"),
        ("max_model_len", str(report.max_model_len or "-")),
        ("thinking", {True: "on", False: "off", None: "?"}[report.thinking]),
        ("reasoning arrives in", report.reasoning_field or "-"),
        ("content", report.content_field or "-"),
        ("finish_reason", str(report.finish_reason)),
        (
            "usage prompt / completion / reasoning",
            _tokens(report.prompt_tokens, report.completion_tokens, report.reasoning_tokens)
            + ("" if report.reasoning_tokens_reported else "  (reasoning_tokens not reported)"),
        ),
        ("latency", f"{report.latency_s:.2f} s" if report.latency_s is not None else "-"),
        ("smallest budget that finishes", report.smallest_budget_text),
    ]
    for key, value in rows:
        table.add_row(key, escape(value))
    console.print(table)
    if report.probes:
        probes = Table(title="probes", title_justify="left")
        for name in (
            "max_tokens",
            "finish",
            "reasoning in",
            "content",
            "tokens p/c/r",
            "verdict",
            "latency",
        ):
            probes.add_column(
                name, justify="right" if name in ("max_tokens", "latency") else "left"
            )
        for p in report.probes:
            size = f"{p.max_tokens}" + (f" (of {p.rung})" if p.max_tokens < p.rung else "")
            if p.error is not None:
                probes.add_row(size, "error", "", "", "", escape(p.error), f"{p.latency_s:.2f} s")
                continue
            probes.add_row(
                size,
                str(p.finish_reason),
                p.reasoning_field,
                p.content_field + (f" ({p.content_chars} chars)" if p.content_chars else ""),
                _tokens(p.prompt_tokens, p.completion_tokens, p.reasoning_tokens),
                f"{p.verdict}" + (f" ({p.answer})" if p.answer else ""),
                f"{p.latency_s:.2f} s",
            )
        console.print(probes)
    for warning in report.warnings:
        console.print(f"[yellow]warning:[/] {escape(warning)}", soft_wrap=True)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add `thinkeval check`'s options to `parser`."""
    parser.add_argument(
        "--base-url",
        required=True,
        metavar="URL",
        help="server root, e.g. http://127.0.0.1:8000/v1",
    )
    parser.add_argument(
        "--model", metavar="ID", help="the model id expected in /v1/models (default: the only one)"
    )
    parser.add_argument(
        "--budgets",
        type=parse_budgets,
        default=(2048, 8192),
        metavar="B1,B2",
        help="the run's budgets; probes go up to B2 (default: 2048,8192)",
    )
    parser.add_argument(
        "--api-key-env", metavar="VAR", help="environment variable holding the API key"
    )
    parser.add_argument(
        "--timeout-s",
        type=float,
        default=600.0,
        metavar="S",
        help="limit per request in seconds (default: 600)",
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON on stdout")


def run(args: argparse.Namespace) -> int:
    """Run the check; 0 when all is well, 1 with the reason on the last line otherwise."""
    api_key = None
    if args.api_key_env:
        api_key = read_api_key(args.api_key_env, f"--api-key-env {args.api_key_env}: the variable")
    report = asyncio.run(
        check_server(args.base_url, args.model, args.budgets, api_key, args.timeout_s)
    )
    if args.json:
        text = msgspec.json.format(msgspec.json.encode(report), indent=2).decode()
        sys.stdout.write(text + "\n")
    else:
        # terminal.py reads results.py, which reads aisbench.py, which reads this module: a
        # module-level import would close that circle.
        from thinkeval.ui.tables import stdout_console

        render(report, stdout_console())
    if report.ok:
        if not args.json:
            thinking = "thinks" if report.thinking else "does not think"
            Console(highlight=False).print(
                f"[green]ok:[/] {escape(report.model or '')} is served, {thinking}, and "
                f"finishes the probe at max_tokens={report.smallest_budget}"
            )
        return 0
    Console(stderr=True, highlight=False).print(
        f"[red]check failed:[/] {escape(report.reason or 'unknown')}", soft_wrap=True
    )
    return 1
