"""Which of our tasks an AISBench dataset is, and which of our samples each record answers.

A record is matched by its position within the dataset (within the subset for tasks of several
parts, e.g. a C-Eval subject), then checked against our sample's gold and prompt, so predictions
of another split, order or prompt are refused rather than scored against the wrong questions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from thinkeval.ops.aisbench.files import (
    AisbenchError,
    Record,
    dataset_files,
    read_records,
)
from thinkeval.records import Sample
from thinkeval.tasks import all_tasks, get_task, load_samples
from thinkeval.tasks.spec import TaskSpec

# Literal "\n" escapes (a prompt stored as a Python repr) and every non-word character are
# dropped before comparing prompts, so layout differences never hide a real match.
_ESCAPES = re.compile(r"\\[nrt]")
_NON_WORD = re.compile(r"\W+")


def task_of(dataset: str) -> str | None:
    """Our task for an AISBench dataset abbreviation, by the specs' AISBench names (prefixes);
    None when it is none of ours.

    >>> task_of("gsm8k"), task_of("SuperGLUE_BoolQ"), task_of("ceval-law"), task_of("mmlu")
    ('gsm8k', 'boolq', 'ceval', None)
    """
    lowered = dataset.lower()
    best: tuple[int, str] | None = None
    for spec in all_tasks():
        for name in spec.aisbench_names:
            if lowered.startswith(name.lower()) and (best is None or len(name) > best[0]):
                best = (len(name), spec.name)
    return best[1] if best is not None else None


def subset_of(dataset: str, spec: TaskSpec) -> str | None:
    """The subset named after the task's AISBench name (`ceval-law` -> `law`), or None.

    >>> subset_of("ceval-legal_professional", get_task("ceval"))
    'legal_professional'
    """
    lowered = dataset.lower()
    prefix = max((n for n in spec.aisbench_names if lowered.startswith(n.lower())), key=len)
    rest = dataset[len(prefix) :].lstrip("-_")
    matches = [
        s for s in spec.subsets if rest == s or (rest.startswith(s) and not rest[len(s)].isalnum())
    ]
    return max(matches, key=len) if matches else None


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for item in value.values() for text in _strings(item)]
    if isinstance(value, list):
        return [text for item in value for text in _strings(item)]
    return []


def _fingerprint(text: str) -> str:
    return _NON_WORD.sub("", _ESCAPES.sub(" ", text))


def _same_gold(spec: TaskSpec, theirs: Any, ours: str) -> bool:
    """Whether AISBench's gold is ours, read as the task's answer kind reads an answer
    (`#### 18` and `18`, `true` and `A`, `b` and `B` are the same gold)."""
    if isinstance(theirs, list) and len(theirs) == 1:
        theirs = theirs[0]
    text = str(theirs).strip()
    found = spec.answer.find(text) or spec.answer.find(text.upper())
    return spec.answer.matches(found.answer if found else text, ours)


def verify(record: Record, sample: Sample) -> None:
    """Refuse a record that is not about `sample`: a different gold, or another question."""
    spec = get_task(sample.task)
    if record.gold not in (None, "") and not _same_gold(spec, record.gold, sample.gold):
        raise AisbenchError(
            f"{record.where}: gold {record.gold!r} is not {sample.id}'s gold {sample.gold!r}: "
            "the predictions do not follow the dataset order thinkeval uses (another split, "
            "a shuffled or partitioned dataset?)"
        )
    prompt = "".join(_strings(record.prompt))
    question = sample.messages[-1]["content"]
    if prompt and _fingerprint(question) not in _fingerprint(prompt):
        raise AisbenchError(
            f"{record.where}: origin_prompt does not contain the question of {sample.id}: the "
            "predictions do not follow the dataset order thinkeval uses, or used another prompt"
        )


@dataclass
class Collected:
    """Records matched to samples, per task."""

    successes: dict[str, tuple[Sample, Record]] = field(default_factory=dict)
    failures: dict[str, tuple[Sample, Record]] = field(default_factory=dict)
    tasks: set[str] = field(default_factory=set)


def collect(
    model_dir: Path, output_dir: Path, data_dir: Path | None
) -> tuple[Collected, dict[str, list[Sample]]]:
    files = list(dataset_files(model_dir))
    if not files:
        raise AisbenchError(f"{model_dir}: no prediction files (<dataset>.jsonl or .json)")
    named = []
    for path, dataset, failed in files:
        task = task_of(dataset)
        if task is None:
            known = ", ".join(f"{n}*" for spec in all_tasks() for n in spec.aisbench_names)
            raise AisbenchError(
                f"{path}: unknown dataset {dataset!r}; thinkeval imports {known}. Move other "
                "datasets' files aside"
            )
        named.append((path, dataset, failed, get_task(task)))
    wanted = {spec.name for *_, spec in named}
    samples = {s.name: load_samples(s, data_dir) for s in all_tasks() if s.name in wanted}
    collected = Collected()
    for path, dataset, failed, spec in named:
        items = samples[spec.name]
        if spec.subsets:
            subset = subset_of(dataset, spec)
            if subset is None:
                raise AisbenchError(
                    f"{path}: unknown {spec.name} subset in {dataset!r}; thinkeval has "
                    f"{', '.join(spec.subsets)}"
                )
            items = [s for s in items if s.subset == subset]
        for record in read_records(path, output_dir, failed):
            if record.index >= len(items):
                raise AisbenchError(
                    f"{record.where}: index {record.index} is beyond the dataset ({dataset} "
                    f"maps to {spec.name}, which has {len(items)} samples there)"
                )
            sample = items[record.index]
            verify(record, sample)
            _add(collected, sample, record)
            collected.tasks.add(spec.name)
    if not collected.tasks:
        raise AisbenchError(f"{model_dir}: the prediction files hold no records")
    return collected, samples


def _add(collected: Collected, sample: Sample, record: Record) -> None:
    if record.error is None:
        earlier = collected.successes.get(sample.id)
        if earlier is not None:
            raise AisbenchError(
                f"{record.where}: a second prediction for {sample.id} (the first is at "
                f"{earlier[1].where}); import one AISBench run at a time"
            )
        collected.successes[sample.id] = (sample, record)
        collected.failures.pop(sample.id, None)
    elif sample.id not in collected.successes:
        collected.failures.setdefault(sample.id, (sample, record))
