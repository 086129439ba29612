"""`thinkeval check` on the terminal: the findings, the probes, the warnings and the verdict."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from thinkeval.ops.check import CheckReport


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
    api = f"api: {report.api}  ({report.api_evidence})" if report.api else "-"
    rows = [
        ("served models", served),
        ("model", model),
        ("server API (config key)", api),
        ("root", report.root or "-"),
        (
            "context window",
            f"{report.max_model_len} tokens ({report.window_source})"
            if report.max_model_len
            else f"- ({report.window_source or 'not stated'})",
        ),
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
        ("retry: continue", _continue_text(report)),
    ]
    for key, value in rows:
        table.add_row(key, escape(value))
    console.print(table)
    if report.probes:
        console.print(_probes(report))
    for warning in report.warnings:
        console.print(f"[yellow]warning:[/] {escape(warning)}", soft_wrap=True)


def _continue_text(report: CheckReport) -> str:
    """Whether the server can continue a cut-off reply from its token ids."""
    if report.continue_ok is None:
        return "-"
    if report.continue_ok:
        return "supported (token ids and /v1/completions)"
    return f"not supported: {report.continue_problem}; use retry: reask"


def _probes(report: CheckReport) -> Table:
    probes = Table(title="probes", title_justify="left")
    for name in ("max_tokens", "finish", "reasoning in", "content", "tokens p/c/r", "verdict"):
        probes.add_column(name, justify="right" if name == "max_tokens" else "left")
    probes.add_column("latency", justify="right")
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
    return probes


def print_verdict(report: CheckReport, out: Console, err: Console) -> None:
    """The last line: what is well, with the `api:` to configure; or why the check failed."""
    if report.ok:
        thinking = "thinks" if report.thinking else "does not think"
        out.print(
            f"[green]ok:[/] {escape(report.model or '')} is served, {thinking}, and finishes the "
            f"probe at max_tokens={report.smallest_budget}; in the config: api: {report.api}",
            soft_wrap=True,
        )
        return
    err.print(f"[red]check failed:[/] {escape(report.reason or 'unknown')}", soft_wrap=True)
