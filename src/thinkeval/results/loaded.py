"""A run directory read back as typed results, for notebooks and scripts.

`load_run(RUN_DIR)` gives the run's config (`config.json`), its summary (recomputed from the
journal with the current scorers, as `summary.json` is), every recorded attempt, and per
(model, task, sample, repeat) the outcomes that count; `attempts_frame()` and
`samples_frame()` give them as pandas DataFrames (pandas is optional:
`pip install 'thinkeval[pandas]'`). Reading never calls a model.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from thinkeval.records import Attempt, Sample
from thinkeval.results.summary import SampleResult, Summary, TaskResult, summarize, tally
from thinkeval.scoring.scorers import recording_scorers
from thinkeval.store.journal import iter_attempts
from thinkeval.store.protocol_rules import outcome_of
from thinkeval.store.run_record import RunRecord, read_run_record
from thinkeval.store.rundir import read_samples, recorded_tasks
from thinkeval.tasks.catalogue import Catalogue

if TYPE_CHECKING:
    import pandas


@dataclass(frozen=True, slots=True)
class SampleOutcome:
    """What counts for one (model, task, sample, repeat): each phase's status (`correct`,
    `wrong`, `no_answer`, `empty`, `unfinished`, `error`; None while not recorded)."""

    model: str
    task: str
    sample_id: str
    subset: str | None
    repeat: int
    gold: str
    fixed: str | None
    retried: bool  # the fixed reply was empty or cut off: the protocol asks once more
    retry: str | None
    adaptive: str | None  # the retry's status when retried, else the fixed one


@dataclass(frozen=True)
class RunResults:
    """One run directory, read: `config`, `summary`, `attempts()`, `samples()`."""

    run_dir: Path
    config: RunRecord

    @cached_property
    def summary(self) -> Summary:
        """The run's counts per model and task, from the journal (as in `summary.json`)."""
        return summarize(self.run_dir)

    @property
    def results(self) -> list[TaskResult]:
        return self.summary.results

    def result(self, model: str, task: str) -> TaskResult:
        """The counts of `model` on `task`; KeyError names what the run has."""
        for result in self.results:
            if (result.model, result.task) == (model, task):
                return result
        have = ", ".join(f"{r.model}/{r.task}" for r in self.results)
        raise KeyError(f"no results for {model}/{task} in {self.run_dir} (it has: {have})")

    def tasks(self) -> list[str]:
        """The tasks whose samples the run recorded."""
        started = recorded_tasks(self.run_dir)
        return [task for task in self.config.task_names if task in started]

    def questions(self, task: str) -> list[Sample]:
        """The samples the run asked for `task` (prompts included), in order."""
        return read_samples(self.run_dir, task)

    def attempts(self) -> Iterator[Attempt]:
        """Every recorded attempt, errors and resumed ones included, in write order."""
        return iter_attempts(self.run_dir)

    def samples(self) -> Iterator[SampleOutcome]:
        """The outcomes that count, per model, task, sample and repeat: the summary's own
        counting pass (`results.tally`) shows every question's outcomes."""
        found: list[SampleOutcome] = []

        def add(model: str, task: str, sample: Sample, results: list[SampleResult | None]) -> None:
            found.extend(_outcome(model, sample, r, result) for r, result in enumerate(results))

        tally(self.run_dir, self.config, self.config.model_names, self.tasks(), on_question=add)
        return iter(found)

    def attempts_frame(self) -> pandas.DataFrame:
        """One row per recorded attempt, with its verdict by the current strict scorer
        (`status`, `answer`) and whether the lenient scorer counts it correct."""
        pandas = _pandas()
        golds = {
            task: {s.id: s for s in read_samples(self.run_dir, task, messages=False)}
            for task in self.tasks()
        }
        catalogue = self.config.catalogue
        rows = [_attempt_row(attempt, golds, catalogue) for attempt in self.attempts()]
        return pandas.DataFrame(rows)

    def samples_frame(self) -> pandas.DataFrame:
        """One row per model, task, sample and repeat: the outcomes that count (`samples()`)."""
        return _pandas().DataFrame([asdict(outcome) for outcome in self.samples()])


def load_run(run_dir: str | Path) -> RunResults:
    """Read a run directory (made by `thinkeval run`, any version of this schema).

    Raises `JournalError` naming the file when it is not a run directory.
    """
    path = Path(run_dir)
    return RunResults(path, read_run_record(path))


def _outcome(model: str, sample: Sample, repeat: int, found: SampleResult | None) -> SampleOutcome:
    fixed = found.fixed.status if found is not None and found.fixed is not None else None
    retry = found.retry.status if found is not None and found.retry is not None else None
    adaptive = found.adaptive.status if found is not None and found.adaptive else None
    return SampleOutcome(
        model=model,
        task=sample.task,
        sample_id=sample.id,
        subset=sample.subset,
        repeat=repeat,
        gold=sample.gold,
        fixed=fixed,
        retried=bool(found is not None and found.candidate),
        retry=retry,
        adaptive=adaptive,
    )


def _attempt_row(
    attempt: Attempt, samples: dict[str, dict[str, Sample]], catalogue: Catalogue
) -> dict[str, Any]:
    sample = samples.get(attempt.task, {}).get(attempt.sample_id)
    gold = sample.gold if sample is not None else attempt.gold
    spec = catalogue.get(attempt.task)
    outcome = outcome_of(attempt, spec, gold) if gold is not None else None
    return {
        "model": attempt.model,
        "task": attempt.task,
        "sample_id": attempt.sample_id,
        "subset": sample.subset if sample is not None else None,
        "repeat": attempt.repeat,
        "phase": attempt.phase,
        "budget": attempt.budget,
        "max_tokens": attempt.max_tokens,
        "finish_reason": attempt.finish_reason,
        "state": attempt.state,
        "status": outcome.status if outcome is not None else None,
        "answer": outcome.answer if outcome is not None else None,
        # One column per recording scorer beside strict: `lenient_correct`, any registered one's.
        **{
            f"{scorer.name}_correct": None if outcome is None else outcome.correct_by(scorer.name)
            for scorer in recording_scorers()[1:]
        },
        "gold": gold,
        "error": attempt.error,
        "prompt_tokens": attempt.usage.prompt_tokens,
        "completion_tokens": attempt.usage.completion_tokens,
        "latency_s": attempt.latency_s,
        "started_at": attempt.started_at,
        "shard": attempt.shard,
        "content": attempt.content,
        "reasoning": attempt.reasoning,
    }


def _pandas() -> Any:
    try:
        import pandas
    except ImportError:
        raise ImportError(
            "DataFrames of a run need pandas: pip install 'thinkeval[pandas]' "
            "(or pip install pandas)"
        ) from None
    return pandas
