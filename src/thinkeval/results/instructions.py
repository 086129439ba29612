"""IFEval's four accuracies per model and task, for tasks whose answer kind is `instructions`.

They are counted from the strict verdicts the summary already reads (each records which
instructions the reply followed, strictly and loosely: `scoring.ifeval.metrics`), over every
(sample, repeat), in the fixed and the adaptive phase. A reply without a recorded reading
(empty, cut off, failed, pending) follows none of its instructions; its status says why.
"""

from __future__ import annotations

from collections import defaultdict

import msgspec

from thinkeval.records import Sample
from thinkeval.results.counts import SampleResult
from thinkeval.scoring.ifeval.metrics import count


class InstructionsPhase(msgspec.Struct, kw_only=True):
    """The IFEval paper's four numbers for one phase."""

    prompt_level_strict: float
    inst_level_strict: float
    prompt_level_loose: float
    inst_level_loose: float


class InstructionsBlock(msgspec.Struct, kw_only=True):
    prompts: int  # (sample, repeat) pairs
    instructions: int  # instructions over those pairs
    fixed: InstructionsPhase
    adaptive: InstructionsPhase


class InstructionTally:
    """A summary's question observer collecting the answers of `instructions` tasks."""

    def __init__(self, tasks: set[str]) -> None:
        self._tasks = tasks
        self._seen: dict[tuple[str, str], list[tuple[SampleResult | None, int]]] = defaultdict(list)

    def __call__(
        self, model: str, task: str, sample: Sample, results: list[SampleResult | None]
    ) -> None:
        if task in self._tasks:
            size = int(sample.meta.get("instructions") or _gold_size(sample.gold))
            self._seen[model, task].extend((result, size) for result in results)

    def block(self, model: str, task: str) -> InstructionsBlock | None:
        seen = self._seen.get((model, task))
        if not seen:
            return None
        phases = []
        for adaptive in (False, True):
            pairs = []
            for result, size in seen:
                outcome = None
                if result is not None:
                    outcome = result.adaptive if adaptive else result.fixed
                pairs.append((None if outcome is None else outcome.answer, size))
            phases.append(count(pairs))
        fixed, after = phases
        return InstructionsBlock(
            prompts=fixed.prompts,
            instructions=fixed.instructions,
            fixed=InstructionsPhase(**fixed.accuracies()),
            adaptive=InstructionsPhase(**after.accuracies()),
        )


def _gold_size(gold: str) -> int:
    # Samples read back from a run directory may lack `meta`; the gold lists the instructions.
    from thinkeval.scoring.kinds.instructions import parse_gold

    return len(parse_gold(gold))
