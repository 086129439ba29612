"""The per-replica table at the end of a run whose model has several base URLs."""

from __future__ import annotations

from rich.table import Table

from thinkeval.results.summary import Summary


def _p(value: float | None) -> str:
    return "-" if value is None else f"{value:.2g}"


def replicas_table(summary: Summary) -> Table | None:
    """Replies, accuracy and cut-off rate per replica, outliers marked; None for one server."""
    if not summary.replicas:
        return None
    table = Table(title="per replica (fixed phase; p: two-proportion test against the rest)")
    for name in ("model", "replica", "replies", "accuracy", "p", "cut off", "p", "outlier"):
        table.add_column(name, justify="left" if name in ("model", "replica") else "right")
    for row in summary.replicas:
        table.add_row(
            row.model,
            row.endpoint,
            str(row.replies),
            f"{row.accuracy:.1%}",
            _p(row.accuracy_p),
            f"{row.cut_off_rate:.1%}",
            _p(row.cut_off_p),
            "[red]OUTLIER[/]" if row.outlier else "",
        )
    return table
