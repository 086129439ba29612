"""`thinkeval check --audit` on the terminal: one line per check with its evidence, the verdict."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape

from thinkeval.ops.audit import AuditReport

_MARKS = {
    "pass": "[green]pass[/]   ",
    "fail": "[red]FAIL[/]   ",
    "warn": "[yellow]warn[/]   ",
    "skipped": "[dim]skipped[/]",
}


def render_audit(report: AuditReport, out: Console, err: Console) -> None:
    """The header, one line per check, and the last line: ok, or what failed."""
    if report.reason is not None:
        err.print(f"[red]check failed:[/] {escape(report.reason)}", soft_wrap=True)
        return
    version = report.engine_version or "version unknown"
    out.print(
        f"thinkeval check --audit · {escape(report.base_url)} · {escape(report.model or '')} · "
        f"api {report.api} ({escape(version)}) · {report.requests} requests in "
        f"{report.elapsed_s:.1f} s",
        soft_wrap=True,
    )
    width = max((len(check.id) for check in report.checks), default=0)
    for check in report.checks:
        out.print(
            f"{_MARKS[check.status]} {check.id:<{width}}  {escape(check.evidence)}",
            soft_wrap=True,
        )
    failed = [check.id for check in report.checks if check.status == "fail"]
    if failed:
        err.print(f"[red]check failed:[/] the audit failed {', '.join(failed)}", soft_wrap=True)
    else:
        out.print("[green]ok:[/] no check failed", soft_wrap=True)
