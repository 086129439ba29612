"""How `thinkeval verify` shows what it found."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape

from thinkeval.ops.verify import Verification
from thinkeval.store.rundir import SAMPLES_DIR

# Ids listed per problem in the readable output; --json lists all of them.
SHOWN_IDS = 10


def _ids(ids: list[str]) -> str:
    shown = ", ".join(ids[:SHOWN_IDS])
    more = len(ids) - SHOWN_IDS
    return shown + (f" … and {more} more" if more > 0 else "")


def render(found: Verification, console: Console) -> None:
    """Print the verification: one line per model and task, then every problem."""
    console.print(f"[bold]{escape(found.run)}[/] · {escape(found.run_dir)}")
    if found.live_writers:
        console.print(
            f"[yellow]the run is still in progress ({escape(', '.join(found.live_writers))}); "
            "this is a snapshot[/]"
        )
    for check in found.tasks:
        mark = "[green]✓[/]" if check.complete and check.clean else "[red]✗[/]"
        b1, b2 = check.budgets
        repeats = f" × {check.repeats} repeats" if check.repeats > 1 else ""
        console.print(
            f"{mark} {escape(check.model)} · {escape(check.task)}{repeats} ({b1} → {b2}): fixed "
            f"{check.fixed_recorded}/{check.samples}, retry {check.retry_recorded}/"
            f"{check.candidates} candidates"
        )
        problems: list[tuple[str, list[str]]] = [
            ("missing fixed", check.missing_fixed),
            ("missing retry", check.missing_retry),
            ("error-only fixed (run again to re-ask)", check.error_only_fixed),
            ("error-only retry (run again to re-ask)", check.error_only_retry),
            (
                "unexpected retry (fixed verdict not empty/unfinished, or no fixed answer)",
                check.unexpected_retries,
            ),
            (
                "duplicated",
                [f"{d.sample_id} {d.phase} ({', '.join(d.lines)})" for d in check.duplicated],
            ),
            (
                "wrong budget",
                [
                    f"{w.sample_id} {w.phase} budget {w.budget} ({w.where})"
                    for w in check.wrong_budget
                ],
            ),
        ]
        for name, ids in problems:
            if ids:
                console.print(f"    {name}: {len(ids)}: {escape(_ids(ids))}")
    for task in found.missing_samples:
        console.print(
            f"[red]✗[/] task {escape(task)}: no {SAMPLES_DIR}/{escape(task)}.jsonl (never started)"
        )
    for line in found.edited_samples:
        console.print(f"[red]✗[/] {escape(line)}")
    for line in found.notes:
        console.print(f"note: {escape(line)}")
    if found.unknown:
        items = [
            f"{u.model}/{u.task}/{u.sample_id}"
            + (f"#{u.repeat}" if u.repeat else "")
            + f" ({u.where})"
            for u in found.unknown
        ]
        console.print(
            f"[red]✗[/] attempts for unknown samples: {len(items)}: {escape(_ids(items))}"
        )
    if found.invalid_lines:
        console.print(
            f"[red]✗[/] invalid journal lines: {len(found.invalid_lines)}: "
            f"{escape(_ids(found.invalid_lines))}"
        )
    if found.torn_tails:
        console.print(
            f"note: torn last line (a write cut by a crash; never counted, cut when "
            f"the journal is next opened): {escape(', '.join(found.torn_tails))}"
        )
    if found.ok:
        console.print("[green]complete and clean[/]")
    else:
        failures = [
            name
            for name, bad in (("incomplete", not found.complete), ("not clean", not found.clean))
            if bad
        ]
        console.print(f"[red]{' and '.join(failures)}[/]")
