"""Read run directories into the report's columns (`_cells`), and check they can be combined.

Which attempt counts, whether a retry was due and the outcome are the protocol's rules'
(`store/protocol_rules.py`), and the columns are the read model the summary's own counting pass
folds (`results.readmodel`), so the counts built from them equal `summary.json`'s. Each task keeps
its own budgets and repeats.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from thinkeval.diagnosis.counts import DiagnosisFold
from thinkeval.errors import JournalError, ThinkevalError
from thinkeval.report._cells import Collection, ModelTask, RunData, TaskSamples
from thinkeval.report._diagnosis import stored_diagnosis
from thinkeval.report._golds import Golds
from thinkeval.results.columns import ReplyColumns
from thinkeval.results.folds import ReplyFold
from thinkeval.results.questions import QuestionsFold
from thinkeval.results.readmodel import read_model
from thinkeval.results.reasoning_check import ReasoningFold
from thinkeval.store.counted import IdIndex, Journals
from thinkeval.store.run_record import read_run_record
from thinkeval.store.rundir import CONFIG_FILE, SamplesFile


def _read_samples(run_dir: Path, task: str) -> TaskSamples:
    with SamplesFile(run_dir, task, messages=False) as samples:
        found = TaskSamples(Golds(samples.path, task))
        for offset, sample in samples:
            found.ids.append(sample.id)
            found.golds.append(sample.gold, offset)
            found.subsets.append(sample.subset)
            found.offsets.append(offset)
    return found


def read_run(run_dir: Path) -> RunData:
    """A run directory's record and samples; `JournalError` if it is not a run directory."""
    if not (run_dir / CONFIG_FILE).is_file():
        raise JournalError(
            f"{run_dir}: not a thinkeval run directory (no {CONFIG_FILE}); pass the folder "
            "that `thinkeval run` wrote, e.g. runs/<run>"
        )
    record = read_run_record(run_dir)
    tasks = tuple(record.task_names)
    budgets = {task: record.task(task).budgets for task in tasks}
    repeats = {task: record.task(task).repeats for task in tasks}
    samples = {task: _read_samples(run_dir, task) for task in tasks}
    return RunData(
        run_dir, record.run, budgets, repeats, tuple(record.model_names), tasks, samples, record
    )


def _check_combinable(runs: Sequence[RunData], like_for_like: bool = True) -> None:
    """Refuse runs whose numbers would mean different things side by side (`like_for_like`
    False: only a run given twice or a model in two runs; `thinkeval compare` checks the rest
    itself and names every difference)."""
    first = runs[0]
    given: dict[Path, Path] = {}
    for run in runs:
        key = run.path.resolve()
        if key in given:
            raise ThinkevalError(
                f"run directory {run.path} is given twice (also as {given[key]}); give each once"
            )
        given[key] = run.path
    for run in runs[1:] if like_for_like else ():
        if set(run.tasks) != set(first.tasks):
            raise ThinkevalError(
                f"cannot combine {first.path} (tasks {', '.join(first.tasks)}) with {run.path} "
                f"(tasks {', '.join(run.tasks)}): combined runs must cover the same tasks; "
                "report them separately"
            )
        for task in first.tasks:
            if run.budgets[task] != first.budgets[task]:
                raise ThinkevalError(
                    f"cannot combine {first.path} ({task} at budgets "
                    f"{list(first.budgets[task])}) with {run.path} ({task} at budgets "
                    f"{list(run.budgets[task])}): fixed and adaptive accuracy are only "
                    "comparable at the same budgets; report them separately"
                )
            if run.repeats[task] != first.repeats[task]:
                raise ThinkevalError(
                    f"cannot combine {first.path} ({task} asked {first.repeats[task]} times "
                    f"per question) with {run.path} ({run.repeats[task]} times): avg@k, pass@k "
                    "and maj@k are only comparable at the same k; report them separately"
                )
    owner: dict[str, Path] = {}
    for run in runs:
        for model in run.models:
            if model in owner:
                raise ThinkevalError(
                    f"model {model!r} appears in both {owner[model]} and {run.path}; a combined "
                    "report needs each model from one run only (drop one of the run directories)"
                )
            owner[model] = run.path
    if len(runs) == 1 or not like_for_like:
        return
    for task in first.tasks:
        gold: dict[str, tuple[str, Path]] = {}
        for run in runs:
            items = run.samples[task]
            for sample_id, sample_gold in zip(items.ids, items.golds.keys(), strict=True):
                seen = gold.setdefault(sample_id, (sample_gold, run.path))
                if seen[0] != sample_gold:
                    raise ThinkevalError(
                        f"sample {sample_id} has gold {seen[0]!r} in {seen[1]} but "
                        f"{sample_gold!r} in {run.path}: the runs asked different questions "
                        "under the same id and cannot be compared"
                    )


def _read(run: RunData, cells: dict[tuple[str, str], ModelTask], finishes: list[str]) -> None:
    """Fill the run's cells from its journal: the read model, in the one counting pass."""
    indexes = {
        task: IdIndex.from_ids(
            run.samples[task].ids, f"{run.path}/samples/{task}.jsonl", run.repeats[task]
        )
        for task in run.tasks
    }
    mine = {key: cell for key, cell in cells.items() if cell.run is run}
    questions = QuestionsFold(run.record, run.tasks)
    reasoning = ReasoningFold(run.record.models)
    folds: list[ReplyFold] = [reasoning]
    stored = stored_diagnosis(run.path)
    if stored is None:  # folded in the same pass
        kinds = {task: run.record.task(task).spec.answer for task in run.tasks}
        diagnosed = DiagnosisFold(kinds, run.diagnosed)
        folds.append(diagnosed)
    model, counts = read_model(
        run.path, run.record, dict(mine), indexes, finishes, folds, questions, run.sample_source
    )
    run.diagnosis = diagnosed.blocks() if stored is None else stored
    run.reasoning = reasoning.blocks()
    questions.finish(counts)
    run.questions = questions.details
    run.first_start, run.last_end = model.first_start, model.last_end
    run.scorer_versions = model.scorer_versions
    run.judged = model.judged
    run.agreement = {} if model.agreement is None else model.agreement.found
    run.judge_models = list(model.judge_models)


def collect(run_dirs: Sequence[Path], like_for_like: bool = True) -> Collection:
    """Read and combine run directories; raise `ThinkevalError` if they cannot be combined.

    The returned collection keeps the journals open (to read texts back): close it, or use it
    in a `with` block.
    """
    if not run_dirs:
        raise ThinkevalError("no run directory given")
    runs = [read_run(Path(d)) for d in run_dirs]
    _check_combinable(runs, like_for_like)
    models = [model for run in runs for model in run.models]
    tasks = list(runs[0].tasks)
    cells: dict[tuple[str, str], ModelTask] = {}
    for run in runs:
        for model in run.models:
            for task in run.tasks:
                size = len(run.samples[task]) * run.repeats[task]
                cells[(model, task)] = ModelTask(
                    model=model,
                    task=task,
                    run=run,
                    fixed=ReplyColumns(size),
                    retry=ReplyColumns(size),
                )
    finishes: list[str] = []
    first = runs[0]
    data = Collection(runs, first.budgets, first.repeats, models, tasks, cells, finishes)
    try:
        for run in runs:
            run.journals = data.resources.enter_context(Journals(run.path))
            _read(run, cells, finishes)
    except BaseException:
        data.close()
        raise
    return data
