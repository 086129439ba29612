"""Asking the models in lockstep, batch by batch, until a gate says the question is decided.

With `decide:` the scheduler runs once per batch: every model asks the questions admitted so
far (their fixed phase and their retries), then the gate looks at what is recorded and either
admits the next batch or stops. Models still run side by side and at full concurrency inside a
batch. What the gate decides is the caller's (`ops/decide.py`); here only the loop.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Protocol

from thinkeval.run.scheduler import RunOutcome

# Per task: one flag byte per sample, in samples-file order (1: ask it).
Admitted = Mapping[str, bytes]


class Gate(Protocol):
    """Decides, from what the run directory holds, which questions the next batch asks."""

    def look(self) -> Admitted | None:
        """The questions to have asked before the next look; None: stop asking."""
        ...


async def in_lockstep(
    gate: Gate, run_batch: Callable[[Admitted], Awaitable[RunOutcome]]
) -> RunOutcome:
    """Run batches until the gate stops, a signal stops the run, or a model fails."""
    outcome = RunOutcome(stopped=False, failures={})
    while (admitted := gate.look()) is not None:
        outcome = await run_batch(admitted)
        if outcome.stopped or outcome.failures:
            break
    return outcome
