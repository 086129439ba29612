"""Reading data files (JSON Lines, CSV, Parquet) as rows, one at a time.

Every row carries `where` (file and line), so a bad row is reported where it is.
"""

from __future__ import annotations

import csv
import gzip
import io
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import orjson

from thinkeval.errors import DatasetError
from thinkeval.inputs import open_regular, reason
from thinkeval.tasks.spec import DataFile, Row


def local_rows(file: DataFile, data_dir: Path) -> Iterator[Row]:
    """The rows of `file` under `data_dir`, in file order, one at a time."""
    if not data_dir.is_dir():
        raise DatasetError(f"data dir {data_dir} does not exist or is not a directory")
    path = data_dir / file.local
    if file.member is not None:
        from thinkeval.tasks.archive import zip_member_text

        text = zip_member_text(path, data_dir, file.member, file.password)
        rows = read_csv(path, data_dir, file.columns, text=text)
    else:
        rows = read_rows(path, data_dir, file.file_format, file.columns)
    for index, (_, where, fields) in enumerate(rows):
        yield Row(fields, index, where, file.subset)


def read_rows(
    path: Path, data_dir: Path, file_format: str, columns: Sequence[str] = ()
) -> Iterator[tuple[int, str, dict[str, Any]]]:
    """`(line or row, where, record)` for each record of a `jsonl`, `csv` or `parquet` file."""
    if file_format == "jsonl":
        return read_jsonl(path, data_dir)
    if file_format == "csv":
        return read_csv(path, data_dir, columns)
    if file_format == "parquet":
        return read_parquet(path, data_dir)
    raise DatasetError(f"{path}: cannot read {file_format!r} files (jsonl, csv or parquet)")


def read_jsonl(path: Path, data_dir: Path) -> Iterator[tuple[int, str, dict[str, Any]]]:
    """`(line, where, object)` for each JSON object of a JSON Lines file; blank lines skipped.

    `line` is 1-based and `where` names the file and line for error messages.
    """
    # Binary lines split on "\n" only (str.splitlines would also break at U+2028 inside a JSON
    # string), and are read one at a time so a large file never sits in memory whole.
    for number, raw in enumerate(_open_binary(path, data_dir), start=1):
        try:
            text = raw.decode("utf-8-sig" if number == 1 else "utf-8")
        except UnicodeDecodeError as exc:
            raise DatasetError(f"{path} line {number}: not valid UTF-8 ({exc.reason})") from exc
        if not text.strip():
            continue
        where = f"{path} line {number}"
        try:
            row = orjson.loads(text)
        except orjson.JSONDecodeError as exc:
            raise DatasetError(
                f"{where}: invalid JSON ({exc.msg} at column {exc.colno});"
                " the line may be torn or truncated"
            ) from exc
        if not isinstance(row, dict):
            raise DatasetError(f"{where}: expected a JSON object, got {type(row).__name__}")
        yield number, where, row


def read_csv(
    path: Path, data_dir: Path, columns: Sequence[str], text: str | None = None
) -> Iterator[tuple[int, str, dict[str, str]]]:
    """`(line, where, record)` for each record of a CSV file with a header naming `columns`.

    `line` is the 1-based line the record starts on; quoted fields may span lines. `text`, when
    given, is the file's content already read (a zip member).
    """
    # newline="" lets the csv module parse CRLF and quoted multi-line fields itself.
    if text is None:
        text = _read_text(path, data_dir)
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        header = next(reader, None)
        if header is None:
            raise DatasetError(f"{path} line 1: empty file, expected a header row")
        missing = [name for name in columns if name not in header]
        if missing:
            raise DatasetError(
                f"{path} line 1: missing column {', '.join(map(repr, missing))}"
                f" (header: {', '.join(header)})"
            )
        end = reader.line_num
        for record in reader:
            start, end = end + 1, reader.line_num
            if not record:
                continue
            where = f"{path} line {start}"
            if len(record) != len(header):
                raise DatasetError(f"{where}: {len(record)} fields, the header has {len(header)}")
            yield (
                start,
                where,
                {
                    name: _universal_newlines(value)
                    for name, value in zip(header, record, strict=True)
                },
            )
    except csv.Error as exc:
        raise DatasetError(f"{path} line {reader.line_num}: malformed CSV ({exc})") from exc


def read_parquet(path: Path, data_dir: Path) -> Iterator[tuple[int, str, dict[str, Any]]]:
    """`(row, where, record)` for each row of a Parquet file (row counted from 0), read one
    batch at a time."""
    import pyarrow  # imported here: only the hub's files and Parquet data dirs need it
    import pyarrow.parquet

    try:
        handle = open_regular(path)
    except OSError as exc:
        raise unreadable(path, data_dir, exc) from exc
    try:
        reader = pyarrow.parquet.ParquetFile(handle)
    except (OSError, pyarrow.ArrowException) as exc:
        handle.close()
        raise DatasetError(f"{path}: not a readable Parquet file ({exc})") from exc
    number = 0
    with handle, reader:
        try:
            for batch in reader.iter_batches(batch_size=1024):
                for record in batch.to_pylist():
                    yield number, f"{path} row {number}", record
                    number += 1
        except (OSError, pyarrow.ArrowException) as exc:
            raise DatasetError(
                f"{path} row {number}: cannot read the Parquet data ({exc})"
            ) from exc


def _universal_newlines(value: str) -> str:
    # AISBench opens the CSVs without newline="", so line breaks inside quoted fields reach the
    # prompt as "\n"; do the same to stay byte-exact.
    return value.replace("\r\n", "\n").replace("\r", "\n")


def _open_binary(path: Path, data_dir: Path) -> Iterator[bytes]:
    """The file's lines; a `.gz` file (HumanEval's, kept as published) decompressed."""
    try:
        with open_regular(path) as raw:
            if path.suffix != ".gz":
                yield from raw
                return
            with gzip.open(raw, "rb") as unzipped:
                yield from unzipped
    except (OSError, EOFError) as exc:
        if isinstance(exc, OSError) and exc.strerror is not None:
            raise unreadable(path, data_dir, exc) from exc
        raise DatasetError(f"{path}: not a readable gzip file ({exc})") from exc


def _read_text(path: Path, data_dir: Path) -> str:
    """The whole file decoded as UTF-8 without a BOM (the files are a few MB at most)."""
    try:
        with open_regular(path) as handle:
            data = handle.read()
    except OSError as exc:
        raise unreadable(path, data_dir, exc) from exc
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise DatasetError(f"{path} line {line}: not valid UTF-8 ({exc.reason})") from exc


def unreadable(path: Path, data_dir: Path, exc: OSError) -> DatasetError:
    """The error for a data file that cannot be opened, naming it and why."""
    if isinstance(exc, FileNotFoundError):
        return DatasetError(
            f"{path}: file not found (data dir {data_dir}; expected"
            f" {path.relative_to(data_dir)} inside it)"
        )
    return DatasetError(f"{path}: cannot read ({reason(exc)})")
