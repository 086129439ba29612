"""Accuracy and cut-off rate per replica, so one misdeployed replica among N shows.

A model served by several replicas (`base_url: [...]`) records the replica of every attempt
(`Attempt.endpoint`). Per model and replica, over the fixed-phase replies that count (all tasks
together; prompts reach replicas by hash, so each replica gets the same mix in expectation):
replies, strict accuracy (the recorded strict verdict) and the cut-off rate (replies `empty` or
`unfinished` at the first budget). Each replica is compared with the rest of its fleet by a
two-proportion z-test per figure (pooled standard error, two-sided). Outliers are taken out one
at a time: the replica with the smallest p-value is flagged while that p-value is below 0.05
divided by the number of tests (Bonferroni: two figures per replica left), then the test is
repeated among the others; with thousands of replies a wrong chat template, parser,
quantization or context window moves these figures far beyond chance. Two replicas alone
cannot say which of them is off, so with two none is flagged (the p-values still show).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from statistics import NormalDist

import msgspec

from thinkeval.records import Attempt
from thinkeval.results.folds import CountedReply
from thinkeval.scoring.scorers import STRICT
from thinkeval.scoring.state import RETRY_STATES

ALPHA = 0.05


class ReplicaRow(msgspec.Struct, kw_only=True):
    """One replica of one model: its fixed-phase figures and how they compare with the rest."""

    model: str
    endpoint: str
    replies: int = 0
    correct: int = 0
    cut_off: int = 0
    accuracy: float = 0.0
    cut_off_rate: float = 0.0
    accuracy_p: float | None = None  # two-proportion z-test against the other replicas
    cut_off_p: float | None = None
    outlier: bool = False


def two_proportion_p(hits: int, n: int, other_hits: int, other_n: int) -> float | None:
    """Two-sided p-value that two proportions are equal (pooled z-test); None without data.

    >>> round(two_proportion_p(50, 100, 80, 100), 5)
    1e-05
    """
    if n == 0 or other_n == 0:
        return None
    pooled = (hits + other_hits) / (n + other_n)
    spread = math.sqrt(pooled * (1 - pooled) * (1 / n + 1 / other_n))
    if spread == 0:
        return 1.0
    z = (hits / n - other_hits / other_n) / spread
    return 2 * (1 - NormalDist().cdf(abs(z)))


class ReplicaFold:
    """Per model and replica, fed the replies that count (`results.folds`); only models with
    more than one base URL are measured."""

    def __init__(self, fleets: Iterable[str]) -> None:
        self.fleets = set(fleets)
        self.cells: dict[tuple[str, str, str], list[int]] = {}  # (model, task, url): n, ok, cut

    def add(self, reply: CountedReply) -> None:
        """A reply that counts, from the summary's counting pass (`results.folds`)."""
        self.add_attempt(reply.attempt)

    def add_attempt(self, attempt: Attempt) -> None:
        """A counted attempt read on its own (the report reads the journals itself)."""
        if attempt.model not in self.fleets or attempt.phase != "fixed":
            return
        if attempt.error is not None or attempt.refused is not None or not attempt.endpoint:
            return
        cell = self.cells.setdefault((attempt.model, attempt.task, attempt.endpoint), [0, 0, 0])
        cell[0] += 1
        strict = attempt.verdicts.get(STRICT.name)
        cell[1] += strict is not None and strict.status == "correct"
        cell[2] += attempt.state in RETRY_STATES

    def discard(self, task: str) -> None:
        for where in [where for where in self.cells if where[1] == task]:
            del self.cells[where]

    def rows(self) -> list[ReplicaRow]:
        """One row per (model, replica), models and replicas in sorted order."""
        totals: dict[tuple[str, str], list[int]] = {}
        for (model, _, url), (n, ok, cut) in self.cells.items():
            total = totals.setdefault((model, url), [0, 0, 0])
            total[0], total[1], total[2] = total[0] + n, total[1] + ok, total[2] + cut
        out = []
        for model in sorted({model for model, _ in totals}):
            fleet = {url: t for (name, url), t in totals.items() if name == model}
            out += _compare(model, fleet)
        return out


def _compare(model: str, fleet: dict[str, list[int]]) -> list[ReplicaRow]:
    rows = {url: _row(model, url, fleet) for url in sorted(fleet)}
    for url in _outliers(fleet):
        rows[url].outlier = True
    return list(rows.values())


def _row(model: str, url: str, fleet: dict[str, list[int]]) -> ReplicaRow:
    n, ok, cut = fleet[url]
    row = ReplicaRow(
        model=model,
        endpoint=url,
        replies=n,
        correct=ok,
        cut_off=cut,
        accuracy=ok / n if n else 0.0,
        cut_off_rate=cut / n if n else 0.0,
    )
    if len(fleet) > 1:
        row.accuracy_p, row.cut_off_p = _p_values(url, fleet)
    return row


def _p_values(url: str, fleet: dict[str, list[int]]) -> tuple[float | None, float | None]:
    """`url`'s p-values for accuracy and cut-off rate against the rest of `fleet`."""
    n, ok, cut = fleet[url]
    rest = [fleet[other] for other in fleet if other != url]
    rest_n, rest_ok, rest_cut = (sum(t[i] for t in rest) for i in range(3))
    return two_proportion_p(ok, n, rest_ok, rest_n), two_proportion_p(cut, n, rest_cut, rest_n)


def _outliers(fleet: dict[str, list[int]]) -> list[str]:
    """The replicas that differ from the others: the most different one while its p-value is
    below the Bonferroni threshold, then the same among the rest (one bad replica makes the
    good ones differ from "the rest" too; taking it out first keeps them unflagged). Two
    replicas that differ cannot say which one is off: neither is flagged."""
    remaining = dict(fleet)
    found = []
    while len(remaining) > 2:
        threshold = ALPHA / (2 * len(remaining))
        smallest = {
            url: min((p for p in _p_values(url, remaining) if p is not None), default=1.0)
            for url in remaining
        }
        worst = min(smallest, key=lambda url: smallest[url])
        if smallest[worst] >= threshold:
            break
        found.append(worst)
        del remaining[worst]
    return found
