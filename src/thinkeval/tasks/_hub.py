"""Reading the tasks from the Hugging Face hub with the optional `datasets` package."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from thinkeval.errors import DatasetError
from thinkeval.records import Sample
from thinkeval.tasks._rows import (
    CEVAL_SUBJECTS,
    boolq_sample,
    ceval_sample,
    gsm8k_sample,
    unique_samples,
)

# `datasets.load_dataset(path, name, split=...)`, or a stand-in returning rows as mappings.
LoadDataset = Callable[..., Iterable[Mapping[str, Any]]]

GSM8K_HUB = ("openai/gsm8k", "main", "test")
# The SuperGLUE layout (int label 1/0 and idx), not `google/boolq` (bool `answer`, no idx).
BOOLQ_HUB = ("super_glue", "boolq", "validation")
CEVAL_HUB = "ceval/ceval-exam"  # one config per subject
CEVAL_HUB_SPLIT = "val"


def load_hub(task: str, load_dataset: LoadDataset | None = None) -> Iterator[Sample]:
    """The samples of `task` from the hub, in the order of its split, one at a time.

    `load_dataset` defaults to `datasets.load_dataset`; tests pass in-memory rows instead.
    """
    load = load_dataset if load_dataset is not None else _import_load_dataset()
    if task == "gsm8k":
        for index, where, row in _rows(load, *GSM8K_HUB):
            yield gsm8k_sample(row, index, where)
    elif task == "boolq":
        rows = _rows(load, *BOOLQ_HUB)
        yield from unique_samples((where, boolq_sample(row, where)) for _, where, row in rows)
    else:
        for subject in CEVAL_SUBJECTS:
            rows = _rows(load, CEVAL_HUB, subject, CEVAL_HUB_SPLIT)
            yield from unique_samples(
                (where, ceval_sample(row, subject, where)) for _, where, row in rows
            )


def _import_load_dataset() -> LoadDataset:
    try:
        from datasets import load_dataset
    except ImportError as exc:
        raise DatasetError(
            "loading from the Hugging Face hub needs the `datasets` package:"
            " pip install 'thinkeval[hub]', or set data_dir (or THINKEVAL_DATA_DIR)"
            " to a local copy of the datasets"
        ) from exc
    loader: LoadDataset = load_dataset
    return loader


def _rows(
    load: LoadDataset, path: str, name: str, split: str
) -> Iterator[tuple[int, str, Mapping[str, Any]]]:
    """`(index, where, row)` for each row of one split; `index` is 0-based."""
    try:
        rows = load(path, name, split=split)
    except Exception as exc:  # network, auth, unknown config: all the user's to fix
        raise DatasetError(
            f"could not load {path} ({name}, split {split}) from the Hugging Face hub: {exc};"
            " set data_dir (or THINKEVAL_DATA_DIR) to use local files instead"
        ) from exc
    for index, row in enumerate(rows):
        yield index, f"hub {path} ({name}, {split}) row {index}", row
