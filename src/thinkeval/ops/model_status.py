"""The model rows of `thinkeval status`: each model over all its tasks and phases, with the
state its live processes report (running, unreachable since …, failed and why)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING

from thinkeval.ops.processes import WriterProcess
from thinkeval.store.heartbeat import ModelBeat

if TYPE_CHECKING:
    from thinkeval.ops.status import PhaseStatus


def eta(remaining: float, rate_per_s: float) -> float | None:
    """Seconds left at `rate_per_s`; 0 when nothing is left, None when there is no rate."""
    if remaining <= 0:
        return 0.0
    return remaining / rate_per_s if rate_per_s > 0 else None


@dataclass(frozen=True)
class ModelStatus:
    """One model over all its tasks and phases, with what its live processes say of it.

    `state`: `unreachable` (every request to its server fails; `unreachable_since` and
    `last_error` say since when and how), `running`, `checking` (reading /v1/models), `waiting`,
    `failed` (`error` says why), `stopped`, `finished`; without a live process `complete` or
    `incomplete`. `rate_per_min` sums its phases' rates, `eta_s` is the requests it still
    expects at that rate.
    """

    model: str
    state: str
    done: int
    total: int
    in_flight: int = 0
    rate_per_min: float | None = None
    eta_s: float | None = None
    unreachable_since: float | None = None
    last_error: str | None = None
    error: str | None = None


# When one process reports a model in several states, the one to show.
_MODEL_STATES = ("unreachable", "running", "checking", "waiting", "failed", "stopped", "finished")


def model_rows(
    models: list[str], phases: list[PhaseStatus], writers: list[WriterProcess]
) -> list[ModelStatus]:
    """Per model: its phases summed up, and the state its live processes report."""
    beats: dict[str, list[ModelBeat]] = defaultdict(list)
    for writer in writers:
        for beat in writer.models:
            beats[beat.name].append(beat)
    rows = []
    for model in models:
        mine = [p for p in phases if p.model == model]
        seen = beats.get(model, [])
        states = ["unreachable" if b.unreachable_since is not None else b.state for b in seen]
        complete = all(p.pending == 0 for p in mine)
        state = (
            min(states, key=_state_rank) if states else ("complete" if complete else "incomplete")
        )
        rates = [p.rate_per_min for p in mine if p.rate_per_min is not None]
        rate = sum(rates) if rates else None
        left = [p.expected_left for p in mine]
        eta_s = None
        if state != "unreachable" and rate is not None and None not in left:
            eta_s = eta(sum(x for x in left if x is not None), rate / 60.0)
        since = [b.unreachable_since for b in seen if b.unreachable_since is not None]
        rows.append(
            ModelStatus(
                model=model,
                state=state,
                done=sum(p.done for p in mine),
                total=sum(p.total for p in mine),
                in_flight=sum(b.in_flight for b in seen),
                rate_per_min=rate,
                eta_s=eta_s,
                unreachable_since=min(since) if since else None,
                last_error=next((b.last_error for b in seen if b.last_error), None),
                error=next((b.error for b in seen if b.error), None),
            )
        )
    return rows


def _state_rank(state: str) -> int:
    return _MODEL_STATES.index(state) if state in _MODEL_STATES else len(_MODEL_STATES)
