"""Section: accuracy and cut-off rate per replica of a model served by several base URLs, with
the replicas whose numbers stand out from the rest's (`results.replicas`: the same numbers as
summary.json's `replicas`)."""

from __future__ import annotations

import msgspec

from thinkeval.report._cells import Collection
from thinkeval.report._format import Block, Section, percent, table
from thinkeval.report._model import Report
from thinkeval.report._section import ReportSection, SectionInputs, SectionNumbers
from thinkeval.results.replicas import ReplicaFold, ReplicaRow
from thinkeval.store.protocol_rules import first_successes

HEADERS = ("model", "replica", "replies", "accuracy", "p", "cut off", "p", "outlier")


class ReplicasNumbers(SectionNumbers, frozen=True, omit_defaults=True):
    """report.json's `replicas`, left out when no model had several replicas (so such a report
    reads as it did before replicas)."""

    replicas: list[ReplicaRow] = msgspec.field(default_factory=list)


def replica_numbers(inputs: SectionInputs) -> ReplicasNumbers:
    return ReplicasNumbers(replica_rows(inputs.data))


def replica_rows(data: Collection) -> list[ReplicaRow]:
    """A row per model with several base URLs and replica, run by run."""
    rows: list[ReplicaRow] = []
    for run in data.runs:
        fleets = [m.name for m in run.record.models if len(m.base_urls) > 1]
        if not fleets or run.journals is None:
            continue
        fold = ReplicaFold(fleets)
        for attempt in first_successes(a for a, _ in run.journals.located()):
            fold.add_attempt(attempt)
        rows += fold.rows()
    return rows


def _p(value: float | None) -> str:
    return "-" if value is None else f"{value:.2g}"


def replicas_section(report: Report) -> Section | None:
    """The section, or None when no model had several replicas."""
    rows = SECTION.numbers(report).replicas
    if not rows:
        return None
    cells = [
        (
            row.model,
            row.endpoint,
            str(row.replies),
            percent(row.accuracy),
            _p(row.accuracy_p),
            percent(row.cut_off_rate),
            _p(row.cut_off_p),
            "outlier" if row.outlier else "",
        )
        for row in rows
    ]
    warn = frozenset(i for i, row in enumerate(rows) if row.outlier)
    return Section(
        "replicas",
        "Replicas",
        "Per replica of a model served by several base URLs, over its fixed-phase replies "
        "(all tasks): strict accuracy and the share cut off at the first budget, each with the "
        "two-sided p-value of a two-proportion z-test against the other replicas. A replica is "
        "an outlier when it stays below 0.05 / (2 × replicas) after the more different ones "
        "are taken out (Bonferroni; with two replicas none can be blamed): a broken "
        "quantization, chat template or parser that the start-up fingerprint cannot see.",
        [Block(table=table(HEADERS, cells, 2, warn))],
    )


SECTION = ReportSection(key="replicas", place=115, shown=replicas_section, data=replica_numbers)
