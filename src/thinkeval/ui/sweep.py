"""How `thinkeval sweep` shows its study: one row per variant, then each against the first."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from thinkeval.ops.sweep import Paired, Variant


def render(variants: list[Variant], pairs: list[Paired], console: Console) -> None:
    """Print the per-variant table and the paired comparisons against the first variant."""
    table = Table(title="sweep: one row per variant (strict, after the retry)")
    checked = any(row.reasoning is not None for row in variants)
    columns = ["variant", "samples", "completed", "loops", "accuracy", "reasoning p50"]
    for column in columns + (["reasoning budget check"] if checked else []):
        table.add_column(column, justify="right" if column in columns[1:] else "left")
    for row in variants:
        cells = [
            escape(row.name),
            str(row.samples),
            f"{row.completed:.1%}",
            f"{row.loops:.1%}",
            f"{row.accuracy:.1%}",
            "-" if row.reasoning_p50 is None else f"{row.reasoning_p50:.0f}",
        ]
        if checked:
            cells.append(escape(row.reasoning or "-"))
        table.add_row(*cells)
    console.print(table)
    if not pairs:
        return
    first = escape(variants[0].name)
    paired = Table(title=f"against {first}, on the samples both have")
    for column in (
        "variant",
        "samples",
        "accuracy Δ",
        "gains",
        "losses",
        "McNemar p",
        "more loops",
    ):
        paired.add_column(column, justify="left" if column == "variant" else "right")
    for pair in pairs:
        paired.add_row(
            escape(pair.name),
            str(pair.samples),
            f"{pair.accuracy_pp:+.2f} pp",
            str(pair.gains),
            str(pair.losses),
            f"{pair.p_value:.3g}",
            f"{pair.more_loops:+d}",
        )
    console.print(paired)
