"""What a hostile newcomer feeds the tool (issue #33): YAML that silently means something else
(a key given twice, an anchor bomb), files that are not files (`/dev/zero`, a FIFO, a symlink
loop), a prompt whose placeholder is never closed, a base URL with a query string, a port that
does not exist, and a start that fails half way. Each is one clear error before anything runs,
or works as the user meant."""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from aiohttp import web

from conftest import ThreadedSim
from thinkeval.cli import main
from thinkeval.config import load_config
from thinkeval.errors import ConfigError, DatasetError
from thinkeval.inputs import MAX_CONFIG_BYTES
from thinkeval.sections import MAX_NODES, load_yaml
from thinkeval.sim.app import build_app, make_runner
from thinkeval.sim.config import SimConfig
from thinkeval.tasks.user import load_task_file

MODEL = "models:\n  - name: m\n    base_url: http://127.0.0.1:9/v1\n"
TASK = (
    "name: quiz\ndata:\n  file: q.csv\nfields:\n  question: question\n  answer: answer\n"
    "answer:\n  kind: number\n"
)


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


# --- a key given twice ---------------------------------------------------------------------


def test_two_tasks_blocks_are_refused_naming_both_lines(tmp_path: Path) -> None:
    # YAML keeps the last: this ran boolq, rc 0, while the user meant gsm8k.
    config = _write(tmp_path / "c.yaml", f"run: x\ntasks: [gsm8k]\n{MODEL}tasks: [boolq]\n")
    with pytest.raises(ConfigError) as raised:
        load_config(config)
    assert str(raised.value) == (
        f"{config}: line 6: key 'tasks' is given twice (first on line 2); "
        "YAML would keep only the last, so remove one"
    )


@pytest.mark.parametrize(
    ("body", "line", "key"),
    [
        (f"run: x\n{MODEL}    generation: {{seed: 1, seed: 2}}\n", 5, "seed"),
        (f"run: x\n{MODEL}    concurrency: 4\n    concurrency: 8\n", 6, "concurrency"),
        (f"run: x\nbaseline:\n  model: m\n  model: n\n{MODEL}", 4, "model"),
        (f"run: x\n{MODEL}sweep:\n  grid: {{seed: [1]}}\n  grid: {{seed: [2]}}\n", 7, "grid"),
        (f"run: x\nprompts:\n  a: {{system: s, system: t}}\n{MODEL}", 3, "system"),
    ],
    ids=["flow-mapping", "model", "baseline", "sweep", "prompt"],
)
def test_a_key_twice_at_any_depth_is_refused(
    tmp_path: Path, body: str, line: int, key: str
) -> None:
    with pytest.raises(ConfigError, match=f"line {line}: key '{key}' is given twice"):
        load_config(_write(tmp_path / "c.yaml", body))


def test_a_task_file_with_a_key_twice_is_refused(tmp_path: Path) -> None:
    _write(tmp_path / "q.csv", "question,answer\n2+2?,4\n")
    task = _write(tmp_path / "t.yaml", TASK + "prompt: 'Q: {question}'\nprompt: '{question}'\n")
    with pytest.raises(ConfigError, match=r"t\.yaml: line 10: key 'prompt' is given twice"):
        load_task_file(task)


def test_a_merge_key_is_not_a_duplicate() -> None:
    text = "base: &b {seed: 1, temperature: 0.6}\nmine:\n  <<: *b\n  seed: 2\n"
    assert load_yaml(text, "x")["mine"] == {"seed": 2, "temperature": 0.6}


def test_a_gen_flag_with_a_key_twice_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["run", "--base-url", "http://127.0.0.1:9/v1", "--gen", "stop={a: 1, a: 2}"]
    assert main(argv) == 2
    assert "--gen 'stop={a: 1, a: 2}': the value: line 1: key 'a' is given twice" in (
        capsys.readouterr().err
    )


# --- what would exhaust memory or hang --------------------------------------------------------


def _bomb(levels: int) -> str:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    for level in range(1, levels):
        lines.append(f"a{level}: &a{level} [{', '.join([f'*a{level - 1}'] * 9)}]")
    return "\n".join(lines) + "\n"


def test_an_anchor_bomb_is_refused_before_it_is_expanded(tmp_path: Path) -> None:
    config = _write(tmp_path / "bomb.yaml", _bomb(9))  # 9**9 values once expanded
    with pytest.raises(ConfigError, match=f"bomb.yaml: line 6: expands to more than {MAX_NODES}"):
        load_config(config)
    assert load_yaml(_bomb(3), "x")["a2"][0][0] == ["x"] * 9  # aliases within bounds still work


def test_an_alias_inside_itself_is_refused() -> None:
    with pytest.raises(ConfigError, match="line 1: an alias refers to itself"):
        load_yaml("a: &a [1, *a]\n", "x")


def test_a_config_nested_too_deeply_is_one_error() -> None:
    with pytest.raises(ConfigError, match="nested too deeply"):
        load_yaml("[" * 100_000 + "]" * 100_000, "x")


def test_dev_zero_as_the_config_is_refused_without_reading_it() -> None:
    with pytest.raises(ConfigError, match="/dev/zero: cannot read the config: a character device"):
        load_config("/dev/zero")


def test_a_fifo_as_the_config_is_refused_without_waiting(tmp_path: Path) -> None:
    fifo = tmp_path / "c.yaml"
    os.mkfifo(fifo)
    done: list[str] = []
    # A blocking open would wait for a writer for ever; the thread shows it returned.
    worker = threading.Thread(target=lambda: done.append(_config_error(fifo)), daemon=True)
    worker.start()
    worker.join(10)
    assert done == [f"{fifo}: cannot read the config: a FIFO, not a regular file"]


def _config_error(path: Path) -> str:
    try:
        load_config(path)
    except ConfigError as exc:
        return str(exc)
    return "loaded"


def test_a_config_larger_than_the_bound_is_refused(tmp_path: Path) -> None:
    config = tmp_path / "big.yaml"
    with config.open("wb") as handle:
        handle.truncate(MAX_CONFIG_BYTES + 1)  # sparse: nothing written
    with pytest.raises(ConfigError, match=r"big\.yaml: cannot read the config: larger than 8 MiB"):
        load_config(config)


def _loop(folder: Path, name: str) -> Path:
    (folder / f"{name}.other").symlink_to(name)
    (folder / name).symlink_to(f"{name}.other")
    return folder / name


def test_a_symlink_loop_as_the_config_is_one_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read the config: Too many levels of symbolic"):
        load_config(_loop(tmp_path, "c.yaml"))


def test_a_symlink_loop_as_a_task_files_data_is_named(tmp_path: Path) -> None:
    # It was an internal error (RuntimeError from Path.resolve).
    _loop(tmp_path, "q.csv")
    task = _write(tmp_path / "t.yaml", TASK)
    with pytest.raises(ConfigError) as raised:
        load_task_file(task)
    assert str(raised.value) == (
        f"{task}: data.file: cannot read {tmp_path / 'q.csv'} (Too many levels of symbolic links)"
    )


def test_a_fifo_as_a_data_file_is_refused(tmp_path: Path) -> None:
    from thinkeval.tasks.files import read_jsonl

    os.mkfifo(tmp_path / "rows.jsonl")
    with pytest.raises(
        DatasetError, match=r"rows\.jsonl: cannot read \(a FIFO, not a regular file\)"
    ):
        list(read_jsonl(tmp_path / "rows.jsonl", tmp_path))


def test_a_symlink_loop_in_the_data_dir_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "gsm8k").mkdir()
    data = _loop(tmp_path / "gsm8k", "test.jsonl")
    assert main(["tasks", "show", "gsm8k", "--data-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err == f"error: {data}: cannot read (Too many levels of symbolic links)\n"


# --- a prompt template that would send its placeholder as text ------------------------------


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            "prompt: 'Q: {question'\n",
            "prompt: the '{' at character 4 ('{question') is never closed; placeholders are "
            "written {name}, e.g. {question}",
        ),
        (
            "prompt: 'Q: question}'\n",
            "prompt: the '}' at character 12 ('Q: question}') closes no '{'",
        ),
        (
            "few_shot:\n  rows: [{question: '1+1?', answer: '2'}]\n  reply: 'A: {answer'\n",
            "few_shot.reply: the '{' at character 4 ('{answer') is never closed",
        ),
    ],
    ids=["unclosed", "stray-close", "reply"],
)
def test_a_template_with_unpaired_braces_is_refused_at_load(
    tmp_path: Path, extra: str, message: str
) -> None:
    _write(tmp_path / "q.csv", "question,answer\n2+2?,4\n")
    task = _write(tmp_path / "t.yaml", TASK + extra)
    with pytest.raises(ConfigError) as raised:
        load_task_file(task)
    assert str(raised.value).startswith(f"{task}: {message}")


def test_a_template_with_paired_braces_still_loads(tmp_path: Path) -> None:
    from thinkeval.tasks.files import local_rows

    _write(tmp_path / "q.csv", "question,answer\n2+2?,4\n")
    extra = "prompt: 'Q: {question} Put it in \\boxed{} as {\"x\": {answer}}'\n"
    spec = load_task_file(_write(tmp_path / "t.yaml", TASK + extra))
    row = next(local_rows(spec.files[0], tmp_path))
    assert spec.sample(row).messages[-1]["content"] == 'Q: 2+2? Put it in \\boxed{} as {"x": 4}'


# --- a base URL with a query string -----------------------------------------------------------


class QueryServer:
    """The simulator behind a check that every request keeps the base URL's query string,
    recording each request's path and query."""

    def __init__(self, answer_key: dict[str, object]) -> None:
        self.seen: list[tuple[str, str]] = []
        self.app = build_app(SimConfig(port=0, model="m", seed=1), answer_key)  # type: ignore[arg-type]
        self.app.middlewares.append(self._record)
        self.base_url = ""
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)

    @web.middleware
    async def _record(self, request: web.Request, handler: web.Handler) -> web.StreamResponse:
        self.seen.append((request.path, request.query_string))
        if request.query.get("api-version") != "2024-06-01":
            raise web.HTTPBadRequest(text="api-version is required")
        return await handler(request)

    def __enter__(self) -> QueryServer:
        self._thread.start()
        runner = make_runner(self.app)

        async def start() -> None:
            await runner.setup()
            site = web.TCPSite(runner, "127.0.0.1", 0)
            await site.start()
            self.base_url = f"http://127.0.0.1:{runner.addresses[0][1]}/v1"

        asyncio.run_coroutine_threadsafe(start(), self._loop).result(30)
        self._runner = runner
        return self

    def __exit__(self, *exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(30)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)


@pytest.fixture
def query_server(answer_key: dict[str, object]) -> Iterator[QueryServer]:
    with QueryServer(answer_key) as server:
        yield server


def test_a_base_url_with_a_query_keeps_it_on_every_request(
    query_server: QueryServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Azure-style: the query must follow the joined path, never sit inside it.
    base = f"{query_server.base_url}/?api-version=2024-06-01&api_key=SECRET-1234"
    out = tmp_path / "out"
    argv = ["run", "--base-url", base, "--tasks", "gsm8k", "--limit", "2", "--output", str(out)]
    assert main(argv) == 0
    shown = capsys.readouterr()
    assert "SECRET-1234" not in shown.out + shown.err
    paths = {path for path, _ in query_server.seen}
    assert {"/v1/models", "/v1/chat/completions"} <= paths
    assert all(
        q.startswith("api-version=2024-06-01&api_key=SECRET-1234") for _, q in query_server.seen
    )
    # The key-like parameter never reaches the run directory.
    for path in out.rglob("*"):
        if path.is_file():
            assert b"SECRET-1234" not in path.read_bytes(), path


def test_the_query_is_kept_on_probes_at_the_servers_root() -> None:
    from thinkeval.urls import api_url

    base = "https://h.example/openai/v1/?api-version=2024-06-01"
    assert api_url(base, "completions") == (
        "https://h.example/openai/v1/completions?api-version=2024-06-01"
    )
    assert api_url(base, "metrics", origin=True) == (
        "https://h.example/openai/metrics?api-version=2024-06-01"
    )
    assert api_url("http://h:8000/v1#frag", "models") == "http://h:8000/v1/models"


# --- internal errors that were a user's mistake -----------------------------------------------


def test_sim_on_a_port_that_does_not_exist_is_one_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["sim", "--port", "99999", "--tasks", "gsm8k"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "internal error" not in err
    assert err.strip().endswith("port must be between 0 and 65535, got 99999")


# --- a failed start leaves nothing, an existing run keeps everything ---------------------------


@pytest.mark.parametrize("fault", [RuntimeError, KeyboardInterrupt], ids=["internal", "ctrl-c"])
def test_a_start_that_fails_unexpectedly_leaves_nothing_and_an_existing_run_keeps_all(
    fault: type[BaseException],
    sim: Callable[..., ThreadedSim],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import thinkeval.run.runner as runner

    server = sim(model="m", seed=1)
    argv = ["run", "--base-url", server.base_url, "--tasks", "gsm8k", "--limit", "2"]
    done = tmp_path / "done"
    assert main([*argv, "--output", str(done)]) == 0
    before = {p: p.read_bytes() for p in done.rglob("*") if p.is_file() and "journal" in p.parts}

    def broken(*args: object, **kwargs: object) -> None:
        raise fault("while the samples are written")

    # The run directory and its journal exist by then: this is a start that failed half way.
    monkeypatch.setattr(runner, "write_selected_samples", broken)
    for out in (tmp_path / "runs" / "new", done):
        try:
            code = main([*argv, "--output", str(out)])
        except KeyboardInterrupt:
            code = 130
        assert code != 0
    assert not (tmp_path / "runs").exists(), "a failed start left its directory"
    after = {p: p.read_bytes() for p in done.rglob("*") if p.is_file() and "journal" in p.parts}
    assert after == before and before


# --- a full disk while writing what the user asked for ----------------------------------------


def _limited(limit: int) -> Callable[[], None]:
    """A child's file size limit: a write past `limit` bytes fails with EFBIG, as on a full disk
    (Python ignores SIGXFSZ, so the write returns the error instead of killing the process)."""
    import resource

    return lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


def test_export_on_a_full_disk_names_the_file_and_leaves_no_truncated_one(
    sim: Callable[..., ThreadedSim], tmp_path: Path
) -> None:
    import subprocess
    import sys

    server = sim(model="m", seed=1)
    run = tmp_path / "run"
    argv = ["run", "--base-url", server.base_url, "--tasks", "gsm8k", "--limit", "4"]
    assert main([*argv, "--output", str(run)]) == 0
    out = tmp_path / "eee"
    export = [sys.executable, "-m", "thinkeval", "export", str(run), "--out", str(out)]
    assert subprocess.run(export, capture_output=True, timeout=120).returncode == 0
    before = {path.name: path.read_bytes() for path in out.iterdir()}
    assert len(before["m.samples.jsonl"]) > 4096 > len(before["m.json"]) // 4
    failed = subprocess.run(
        export, capture_output=True, text=True, timeout=120, preexec_fn=_limited(4096)
    )
    assert failed.returncode == 2, failed.stderr
    assert "Traceback" not in failed.stderr
    assert failed.stderr == f"error: {out / 'm.samples.jsonl'}: cannot write (File too large)\n"
    # The earlier export is intact and no temp file is left beside it.
    assert {path.name: path.read_bytes() for path in out.iterdir()} == before
    fresh = tmp_path / "fresh"
    failed = subprocess.run(
        [*export[:-1], str(fresh)], capture_output=True, timeout=120, preexec_fn=_limited(4096)
    )
    assert failed.returncode == 2 and list(fresh.iterdir()) == []
    # The report writes the same way.
    html = tmp_path / "r.html"
    report = [sys.executable, "-m", "thinkeval", "report", str(run), "--format", "html"]
    failed = subprocess.run(
        [*report, "--out", str(html)],
        capture_output=True, text=True, timeout=120, preexec_fn=_limited(4096),
    )  # fmt: skip
    assert failed.returncode == 2 and failed.stderr.startswith(f"error: {html}: cannot write")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["eee", "fresh", "run"]


# --- a corrupt journal line in the middle -----------------------------------------------------


def test_status_shows_a_run_with_a_corrupt_middle_line_and_names_it(
    sim: Callable[..., ThreadedSim], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    server = sim(model="m", seed=1)
    run = tmp_path / "run"
    argv = ["run", "--base-url", server.base_url, "--tasks", "gsm8k", "--limit", "3"]
    assert main([*argv, "--output", str(run)]) == 0
    journal = run / "journal" / "main.jsonl"
    lines = journal.read_bytes().splitlines(keepends=True)
    assert len(lines) == 3
    # A corrupt line in the middle, and a torn last line (a write cut short by a crash).
    journal.write_bytes(
        lines[0] + b'{"sample_id": 7, "torn\n' + b"".join(lines[1:]) + b'{"sample_id": "gs'
    )
    capsys.readouterr()
    assert main(["status", str(run), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert [note for note in shown["notes"] if f"{journal}:2: not a valid attempt" in note]
    assert [note for note in shown["notes"] if f"{journal}:5: torn last line" in note]
    fixed = next(p for p in shown["phases"] if p["phase"] == "fixed")
    assert fixed["done"] == 3  # the valid lines after the broken one still count
    assert main(["status", str(run)]) == 0
    assert f"{journal}:2" in capsys.readouterr().out.replace("\n", "")
    assert main(["verify", str(run)]) == 1  # verify says the run is not clean
