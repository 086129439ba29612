"""Reading fields of a data row, for spec authors: each error names the row's file and line."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from thinkeval.errors import DatasetError
from thinkeval.records import Sample
from thinkeval.tasks.spec import Row


def text_field(row: Row, name: str) -> str:
    """The string field `name`; a missing or non-string field is a `DatasetError`."""
    if name not in row.fields:
        raise DatasetError(f"{row.where}: missing field {name!r}")
    value = row.fields[name]
    if not isinstance(value, str):
        raise DatasetError(
            f"{row.where}: field {name!r} must be a string, got {type(value).__name__} {value!r}"
        )
    return value


def nonempty_field(row: Row, name: str) -> str:
    """A string field that must hold more than whitespace (a question, a passage)."""
    value = text_field(row, name)
    if not value.strip():
        raise DatasetError(f"{row.where}: empty {name}")
    return value


def key_field(row: Row, name: str) -> str:
    """The row's own id field: an integer (JSON, hub) or a non-empty string (CSV)."""
    if name not in row.fields:
        raise DatasetError(f"{row.where}: missing field {name!r}")
    value = row.fields[name]
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, str) and value.strip():
        return value.strip()
    raise DatasetError(
        f"{row.where}: field {name!r} must be an integer or a non-empty string, got {value!r}"
    )


def unique_samples(located: Iterable[tuple[str, Sample]]) -> Iterator[Sample]:
    """The samples of `(where, sample)` pairs in order, refusing a repeated id."""
    first_seen: dict[str, str] = {}
    for where, sample in located:
        if sample.id in first_seen:
            raise DatasetError(
                f"{where}: duplicate id {sample.id!r}, first seen at {first_seen[sample.id]}"
            )
        first_seen[sample.id] = where
        yield sample
