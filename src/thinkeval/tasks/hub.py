"""Reading task data from the Hugging Face hub with `huggingface_hub`.

A split (`HubSplit`: dataset repo, config, split, revision) is resolved to concrete files of the
repo at that revision, downloaded once into huggingface_hub's cache, and read as Parquet, JSON
Lines or CSV. The usual variables apply, read when the data is loaded: `HF_ENDPOINT` (a mirror),
`HF_HOME` / `HF_HUB_CACHE` (the cache), `HF_TOKEN`, `HF_HUB_OFFLINE=1` (only the cache).
No loading script is ever run: a repo that holds only a script is read from the Parquet
conversion the hub keeps on its `refs/convert/parquet` branch.
"""

from __future__ import annotations

import contextlib
import fnmatch
import logging
import os
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from thinkeval.errors import DatasetError
from thinkeval.tasks.files import read_rows
from thinkeval.tasks.spec import DataFile, HubSplit, Row

CONVERTED_BRANCH = "refs/convert/parquet"
# File suffixes a split may be stored in, and how to read them.
FORMATS = {".parquet": "parquet", ".jsonl": "jsonl", ".csv": "csv"}


@dataclass(frozen=True)
class HubFiles:
    """A split resolved to files: the repo, the commit they were read at, their paths in the
    repo (in reading order) and the local snapshot folder holding them."""

    repo: str
    commit: str
    paths: tuple[str, ...]
    folder: Path


def split_patterns(hub: HubSplit) -> list[str]:
    """The repo paths (glob patterns) that hold `hub`'s split, by the hub's conventions.

    `files` when the spec names them; else `<config>/<split>-*` (what `push_to_hub` writes),
    `<config>/<split>/*` (the Parquet conversion branch), and for a dataset without configs
    `data/<split>-*` and `<split>-*` / `<split>.*` at the top.

    >>> split_patterns(HubSplit("ceval/ceval-exam", "law", "val"))
    ['law/val-*', 'law/val/*']
    >>> split_patterns(HubSplit("HuggingFaceH4/aime_2024", None, "train"))[:2]
    ['default/train-*', 'default/train/*']
    """
    if hub.files:
        return list(hub.files)
    config = hub.name or "default"
    patterns = [f"{config}/{hub.split}-*", f"{config}/{hub.split}/*"]
    if hub.name in (None, "default"):
        split = hub.split
        patterns += [f"data/{split}-*", f"data/{split}.*", f"{split}-*", f"{split}.*"]
    return patterns


def resolve_split(hub: HubSplit) -> HubFiles:
    """Download `hub`'s files (or find them in the cache) and say which they are.

    Raises `DatasetError` naming the repo, revision and split when the hub cannot be reached,
    the revision does not exist, or no file of the split is there.
    """
    revision = hub.revision or "main"
    found = _download(hub, revision)
    if found is None and not hub.files and revision != CONVERTED_BRANCH:
        # A repo holding only a loading script: read the hub's Parquet conversion instead.
        found = _download(hub, CONVERTED_BRANCH, missing_ok=True)
    if found is None:
        wanted = ", ".join(split_patterns(hub))
        raise DatasetError(
            f"hub {hub.path}@{revision}: no data file of config {hub.name or 'default'!r}, "
            f"split {hub.split!r} (looked for {wanted}, as .parquet, .jsonl or .csv)"
        )
    return found


def hub_rows(file: DataFile, resolved: HubFiles | None = None) -> Iterator[Row]:
    """The rows of `file`'s hub split, in the split's order, one at a time.

    Rows are counted from 0 across all files of the split (a split in several Parquet shards
    reads as one file). `resolved` skips the download (already done).
    """
    if file.hub is None:
        raise DatasetError(
            f"{file.local} has no copy on the Hugging Face hub; set data_dir (or "
            "THINKEVAL_DATA_DIR) to a folder holding it"
        )
    resolved = resolved or resolve_split(file.hub)
    index = 0
    for path in resolved.paths:
        local = resolved.folder / path
        file_format = FORMATS[Path(path).suffix.lower()]
        for _, where, fields in read_rows(local, resolved.folder, file_format, file.columns):
            where = where.replace(str(local), f"hub {resolved.repo}@{resolved.commit[:12]} {path}")
            yield Row(fields, index, where, file.subset)
            index += 1


def _download(hub: HubSplit, revision: str, missing_ok: bool = False) -> HubFiles | None:
    """The split's files at `revision`, downloaded; None when the revision has none (or, with
    `missing_ok`, does not exist)."""
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import (
        HfHubHTTPError,
        LocalEntryNotFoundError,
        RepositoryNotFoundError,
        RevisionNotFoundError,
    )

    patterns = split_patterns(hub)
    where = f"{hub.path}@{revision}"
    try:
        with _quiet_hub():
            folder = Path(
                snapshot_download(
                    repo_id=hub.path,
                    repo_type="dataset",
                    revision=revision,
                    allow_patterns=patterns,
                    # A hub nobody can reach: the cache alone, at once, instead of
                    # huggingface_hub's retries (about 25 s before the same answer).
                    local_files_only=not _hub_reachable(),
                    **_settings(),
                )
            )
    except RevisionNotFoundError:
        if missing_ok:
            return None
        raise DatasetError(
            f"the Hugging Face dataset {hub.path} has no revision {revision!r}"
        ) from None
    except RepositoryNotFoundError:
        raise DatasetError(
            f"no Hugging Face dataset {hub.path!r} (a private or gated one needs HF_TOKEN); "
            "set data_dir (or THINKEVAL_DATA_DIR) to use local files instead"
        ) from None
    except LocalEntryNotFoundError as exc:
        raise DatasetError(
            f"cannot download {where} from the Hugging Face hub and it is not in the cache "
            f"({_first_line(exc)}); check the network or HF_ENDPOINT, or set data_dir "
            "(or THINKEVAL_DATA_DIR) to local files"
        ) from None
    except (HfHubHTTPError, OSError, ValueError) as exc:
        raise DatasetError(
            f"cannot load {where} from the Hugging Face hub: {_first_line(exc)}; set data_dir "
            "(or THINKEVAL_DATA_DIR) to use local files instead"
        ) from None
    paths = sorted(
        str(path.relative_to(folder))
        for path in folder.rglob("*")
        if path.is_file()
        and path.suffix.lower() in FORMATS
        and any(fnmatch.fnmatchcase(str(path.relative_to(folder)), p) for p in patterns)
    )
    missing = [name for name in hub.files if name not in paths]
    if missing:
        raise DatasetError(f"hub {where}: the repo has no file {', '.join(missing)}")
    if not paths:
        return None
    return HubFiles(hub.path, folder.name, tuple(paths), folder)


def _hub_reachable(timeout_s: float = 3.0) -> bool:
    """Whether a TCP connection to the hub (`HF_ENDPOINT`, else huggingface.co) opens. With a
    proxy configured the direct connection says nothing, so the hub counts as reachable."""
    if any(os.environ.get(name) for name in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY",
                                             "http_proxy", "ALL_PROXY", "all_proxy")):  # fmt: skip
        return True
    url = urlsplit(os.environ.get("HF_ENDPOINT") or "https://huggingface.co")
    if url.hostname is None:
        return True  # huggingface_hub will say what is wrong with it
    port = url.port or (443 if url.scheme == "https" else 80)
    try:
        socket.create_connection((url.hostname, port), timeout=timeout_s).close()
    except OSError:
        return False
    return True


def _settings() -> dict[str, Any]:
    """Endpoint and cache from the environment as it is now (huggingface_hub reads them once,
    when it is imported; a notebook may set them later)."""
    settings: dict[str, Any] = {}
    if os.environ.get("HF_ENDPOINT"):
        settings["endpoint"] = os.environ["HF_ENDPOINT"].rstrip("/")
    cache = os.environ.get("HF_HUB_CACHE") or (
        os.path.join(os.environ["HF_HOME"], "hub") if os.environ.get("HF_HOME") else None
    )
    if cache:
        settings["cache_dir"] = cache
    return settings


@contextlib.contextmanager
def _quiet_hub() -> Iterator[None]:
    """No progress bars or warnings from huggingface_hub: a run prints its own source line."""
    from huggingface_hub.utils import (
        are_progress_bars_disabled,
        disable_progress_bars,
        enable_progress_bars,
    )

    hub_logger = logging.getLogger("huggingface_hub")
    level = hub_logger.level
    was_disabled = are_progress_bars_disabled()
    disable_progress_bars()
    hub_logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        hub_logger.setLevel(level)
        if not was_disabled:
            enable_progress_bars()


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]
