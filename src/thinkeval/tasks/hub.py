"""Reading task data from the Hugging Face hub with the optional `datasets` package."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from thinkeval.errors import DatasetError
from thinkeval.tasks.spec import DataFile, Row

# `datasets.load_dataset(path, name, split=...)`, or a stand-in returning rows as mappings.
LoadDataset = Callable[..., Iterable[Mapping[str, Any]]]


def hub_rows(file: DataFile, load_dataset: LoadDataset | None = None) -> Iterator[Row]:
    """The rows of `file`'s hub split, in the split's order, one at a time.

    `load_dataset` defaults to `datasets.load_dataset`; tests pass in-memory rows instead.
    """
    hub = file.hub
    if hub is None:
        raise DatasetError(
            f"{file.local} has no copy on the Hugging Face hub; set data_dir (or "
            "THINKEVAL_DATA_DIR) to a folder holding it"
        )
    load = load_dataset if load_dataset is not None else _import_load_dataset()
    where = f"hub {hub.path} ({hub.name}, {hub.split})"
    try:
        kwargs: dict[str, Any] = {"split": hub.split}
        if hub.revision is not None:
            kwargs["revision"] = hub.revision
        rows = load(hub.path, hub.name, **kwargs)
    except Exception as exc:  # network, auth, unknown config: all the user's to fix
        raise DatasetError(
            f"could not load {where[4:]} from the Hugging Face hub: {exc}; set data_dir (or "
            "THINKEVAL_DATA_DIR) to use local files instead"
        ) from exc
    for index, fields in enumerate(rows):
        yield Row(fields, index, f"{where} row {index}", file.subset)


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
