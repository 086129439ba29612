"""A fake Hugging Face hub on 127.0.0.1: the few endpoints `huggingface_hub` calls to list and
download the files of a dataset repo, serving repos built in memory.

Point `HF_ENDPOINT` at `FakeHub.url` (and `HF_HOME` at a temporary folder). A local data dir (the
tests use the fixture data) is served in the hub's layout (`hub_layout`): Parquet files with the
column types the hub has.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pyarrow
import pyarrow.parquet

from thinkeval.tasks import get_task
from thinkeval.tasks.builtin.ceval import SUBJECTS


@dataclass
class Repo:
    commits: dict[str, dict[str, bytes]] = field(default_factory=dict)
    refs: dict[str, str] = field(default_factory=dict)
    token: str | None = None  # gated: only requests bearing this token are served

    def commit_of(self, revision: str) -> str | None:
        if revision in self.commits:
            return revision
        return self.refs.get(revision)


@dataclass(frozen=True)
class _Located:
    repo: str
    verb: str
    commit: str
    files: dict[str, bytes]
    path: str


class FakeHub:
    """Dataset repos served over HTTP; `requests` records (method, path) of every request."""

    def __init__(self) -> None:
        self.repos: dict[str, Repo] = {}
        self.requests: list[tuple[str, str]] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def add(
        self,
        repo: str,
        files: dict[str, bytes],
        commit: str | None = None,
        branch: str = "main",
        token: str | None = None,
    ) -> str:
        """Add a commit holding `files` to `repo`, pointed to by `branch`; returns its hash.
        With `token` the repo is gated: a request without `Authorization: Bearer <token>` gets
        the hub's 401 `GatedRepo` answer."""
        digest = hashlib.sha1(repr(sorted(files.items())).encode()).hexdigest()
        commit = commit or digest
        entry = self.repos.setdefault(repo, Repo())
        entry.token = token or entry.token
        entry.commits[commit] = files
        entry.refs[branch] = commit
        return commit

    def start(self) -> FakeHub:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> FakeHub:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def downloads(self) -> list[str]:
        """Paths of the files fetched (GET on resolve URLs)."""
        return [p for m, p in self.requests if m == "GET" and "/resolve/" in p]


def _handler(hub: FakeHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass  # quiet: tests read hub.requests

        def do_HEAD(self) -> None:
            self._answer(body=False)

        def do_GET(self) -> None:
            self._answer(body=True)

        def _answer(self, body: bool) -> None:
            hub.requests.append((self.command, self.path))
            path = urlsplit(self.path).path
            for prefix, serve in (
                ("/api/datasets/", self._api),
                ("/datasets/", self._resolve),
            ):
                if path.startswith(prefix):
                    serve(path.removeprefix(prefix), body)
                    return
            self._error(404, "NotFound")

        def _locate(self, rest: str, verbs: tuple[str, ...]) -> _Located | None:
            """`REPO/VERB/REVISION/PATH...` → the repo, verb, commit and path; or an error sent."""
            for name, repo in hub.repos.items():
                if rest.startswith(name + "/"):
                    if repo.token and self.headers.get("Authorization") != f"Bearer {repo.token}":
                        self._error(401, "GatedRepo")
                        return None
                    verb, _, tail = rest.removeprefix(name + "/").partition("/")
                    revision, _, path = tail.partition("/")
                    commit = repo.commit_of(unquote(revision))
                    if verb not in verbs:
                        self._error(404, "NotFound")
                    elif commit is None:
                        self._error(404, "RevisionNotFound")
                    else:
                        return _Located(name, verb, commit, repo.commits[commit], unquote(path))
                    return None
            self._error(404, "RepoNotFound")
            return None

        def _api(self, rest: str, body: bool) -> None:
            found = self._locate(rest, ("revision", "tree"))
            if found is None:
                return
            if found.verb == "revision":
                info = {
                    "id": found.repo,
                    "sha": found.commit,
                    "private": False,
                    "siblings": [{"rfilename": p} for p in sorted(found.files)],
                }
                self._json(info, body)
            else:
                self._json(list(_tree(found.files, found.path)), body)

        def _resolve(self, rest: str, body: bool) -> None:
            found = self._locate(rest, ("resolve",))
            if found is None:
                return
            data = found.files.get(found.path)
            if data is None:
                self._error(404, "EntryNotFound")
                return
            commit = found.commit
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("ETag", f'"{hashlib.sha256(data).hexdigest()}"')
            self.send_header("X-Repo-Commit", commit)
            self.end_headers()
            if body:
                self.wfile.write(data)

        def _json(self, value: Any, body: bool) -> None:
            data = json.dumps(value).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if body:
                self.wfile.write(data)

        def _error(self, status: int, code: str) -> None:
            data = json.dumps({"error": code}).encode()
            self.send_response(status)
            self.send_header("X-Error-Code", code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)

    return Handler


def _tree(files: dict[str, bytes], under: str) -> Iterator[dict[str, Any]]:
    """Every file and folder below `under`, as the tree API lists them recursively."""
    folders: set[str] = set()
    for path in sorted(files):
        if under and not path.startswith(under.rstrip("/") + "/"):
            continue
        parents = path.split("/")[:-1]
        for depth in range(1, len(parents) + 1):
            folders.add("/".join(parents[:depth]))
        data = files[path]
        yield {
            "type": "file",
            "oid": hashlib.sha1(data).hexdigest(),
            "size": len(data),
            "path": path,
        }
    for folder in sorted(folders):
        yield {
            "type": "directory",
            "oid": hashlib.sha1(folder.encode()).hexdigest(),
            "path": folder,
        }


# --- a local data dir in the hub's layout ------------------------------------------------------


def parquet(rows: list[dict[str, Any]], schema: pyarrow.Schema) -> bytes:
    buffer = io.BytesIO()
    pyarrow.parquet.write_table(pyarrow.Table.from_pylist(rows, schema=schema), buffer)
    return buffer.getvalue()


def _jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as file:
        return [json.loads(line) for line in file if line.strip()]


def hub_layout(data_dir: Path) -> dict[str, tuple[str | None, dict[str, bytes]]]:
    """repo -> (pinned revision, files): gsm8k, boolq and C-Eval as the hub holds them."""
    text = pyarrow.string()
    gsm8k = parquet(
        _jsonl(data_dir / "gsm8k/test.jsonl"),
        pyarrow.schema([("question", text), ("answer", text)]),
    )
    boolq_rows = [
        {**row, "label": int(row["label"] == "true")}
        for row in _jsonl(data_dir / "boolq/validation.jsonl")
    ]
    boolq = parquet(
        boolq_rows,
        pyarrow.schema(
            [
                ("question", text),
                ("passage", text),
                ("idx", pyarrow.int32()),
                ("label", pyarrow.int64()),
            ]
        ),
    )
    ceval_schema = pyarrow.schema(
        [("id", pyarrow.int32())]
        + [(n, text) for n in ("question", "A", "B", "C", "D", "answer", "explanation")]
    )
    ceval: dict[str, bytes] = {"README.md": b"C-Eval", "ceval-exam.py": b"# a loading script"}
    for subject in SUBJECTS:
        path = data_dir / f"ceval/val/{subject}_val.csv"
        with path.open(encoding="utf-8", newline="") as file:
            rows = [
                {**row, "id": int(row["id"]), "explanation": ""} for row in csv.DictReader(file)
            ]
        ceval[f"{subject}/val-00000-of-00001.parquet"] = parquet(rows, ceval_schema)
        ceval[f"{subject}/dev-00000-of-00001.parquet"] = parquet(rows[:1], ceval_schema)
    layout: dict[str, tuple[str | None, dict[str, bytes]]] = {}
    for task, files in (
        ("gsm8k", {"main/test-00000-of-00001.parquet": gsm8k, "README.md": b"GSM8K"}),
        ("boolq", {"boolq/validation-00000-of-00001.parquet": boolq}),
        ("ceval", ceval),
    ):
        hub = get_task(task).files[0].hub
        assert hub is not None
        layout[hub.path] = (hub.revision, files)
    return layout


def serve_real_datasets(hub: FakeHub, data_dir: Path) -> None:
    """Add gsm8k, boolq and C-Eval to `hub` at the revisions the built-in specs pin."""
    for repo, (revision, files) in hub_layout(data_dir).items():
        hub.add(repo, files, commit=revision)
