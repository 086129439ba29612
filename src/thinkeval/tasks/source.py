"""Where a task's rows were read from, as a run records and prints it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DataSource:
    """One file a task read: `local` under a data dir, or `hub` in a repo at a commit."""

    kind: str  # "local" or "hub"
    origin: str  # the data dir, or REPO@COMMIT
    file: str  # the path under the data dir or in the repo


def describe_sources(sources: list[DataSource], files_shown: int | None = None) -> str:
    """`kind origin (file, ...)` per origin, in reading order; more than `files_shown` files
    are counted instead of listed.

    >>> gsm8k = DataSource("hub", "openai/gsm8k@740312a", "main/test.parquet")
    >>> describe_sources([gsm8k])
    'hub openai/gsm8k@740312a (main/test.parquet)'
    >>> law = [DataSource("local", "/data", f"ceval/val/{s}_val.csv") for s in "abc"]
    >>> describe_sources(law, files_shown=2)
    'local /data (3 files)'
    """
    grouped: dict[tuple[str, str], list[str]] = {}
    for source in sources:
        grouped.setdefault((source.kind, source.origin), []).append(source.file)
    parts = []
    for (kind, origin), files in grouped.items():
        shown = (
            f"{len(files)} files"
            if files_shown is not None and len(files) > files_shown
            else ", ".join(files)
        )
        parts.append(f"{kind} {origin} ({shown})")
    return "; ".join(parts) or "no file read"
