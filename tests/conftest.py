"""Shared fixtures: the datasets (the made-up fixture data, or the real data for the tests marked
`real_data`), and simulators served over real HTTP on 127.0.0.1."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml

from fakehub import FakeHub, hub_layout
from thinkeval.records import Sample
from thinkeval.sim.app import serve
from thinkeval.sim.behaviour import AnswerEntry, answer_key_from_samples
from thinkeval.sim.config import SimConfig
from thinkeval.tasks import DATA_DIR_ENV, default_tasks, load_samples

CHECKOUT = Path(__file__).parent.parent
FIXTURE_DATA = CHECKOUT / "tests" / "fixtures" / "datasets"
REAL_DATA = "real_data"  # the marker of the tests about the real datasets


def _locate_real_data() -> Path | str:
    """The real datasets (`THINKEVAL_DATA_DIR`, else `../shared/datasets` beside this checkout),
    or why they are not there. Read once, before any test sets the variable."""
    configured = os.environ.get(DATA_DIR_ENV, "")
    where = Path(configured) if configured else CHECKOUT.parent / "shared" / "datasets"
    if not (where / "gsm8k" / "test.jsonl").is_file():
        return (
            f"the real datasets are not at {where}: the tests marked {REAL_DATA} need them; put "
            f"../shared/datasets beside the checkout or set {DATA_DIR_ENV}, or deselect those "
            f"tests with -m 'not {REAL_DATA}'"
        )
    if where.resolve() == FIXTURE_DATA.resolve():
        return f"{DATA_DIR_ENV} names the test fixture data, not the real datasets"
    return where.resolve()


_REAL_DATA = _locate_real_data()
_ENVIRONMENT = pytest.StashKey[str | None]()


@pytest.fixture(scope="session")
def real_data_dir() -> Path:
    """The real datasets; missing, a test that needs them fails, never skips."""
    if isinstance(_REAL_DATA, str):
        pytest.fail(_REAL_DATA, pytrace=False)
    return _REAL_DATA


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The small made-up datasets in tests/fixtures/datasets, in the layout of the real ones."""
    return FIXTURE_DATA


def pytest_configure(config: pytest.Config) -> None:
    """Whatever a test starts (a run, a simulator, a command in a subprocess, a module-level copy
    of the environment) reads the fixture data unless the test is marked `real_data`."""
    config.stash[_ENVIRONMENT] = os.environ.get(DATA_DIR_ENV)
    os.environ[DATA_DIR_ENV] = str(FIXTURE_DATA)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Browser tests selected without Debian's chromium: stop before running anything, in one
    line, instead of one error per test (`tests/run.py`, the README's test command, installs it)."""
    if shutil.which("chromium") is None and any(
        "browser" in getattr(item, "fixturenames", ()) for item in session.items
    ):
        pytest.exit(
            "chromium is not installed and the browser tests need it: run "
            "`.venv/bin/python tests/run.py` (installs it as root) or "
            "`sudo apt-get install -y chromium bubblewrap`",
            returncode=4,
        )


def pytest_unconfigure(config: pytest.Config) -> None:
    previous = config.stash.get(_ENVIRONMENT, None)
    if previous is None:
        os.environ.pop(DATA_DIR_ENV, None)
    else:
        os.environ[DATA_DIR_ENV] = previous


@pytest.fixture(autouse=True)
def _real_data_for_real_data_tests(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A test marked `real_data` finds the real datasets through THINKEVAL_DATA_DIR, and fails
    without them."""
    if request.node.get_closest_marker(REAL_DATA) is not None:
        monkeypatch.setenv(DATA_DIR_ENV, str(request.getfixturevalue("real_data_dir")))


def _samples(directory: Path) -> dict[str, list[Sample]]:
    return {spec.name: load_samples(spec, directory) for spec in default_tasks()}


@pytest.fixture(scope="session")
def all_samples(data_dir: Path) -> dict[str, list[Sample]]:
    """The default tasks' samples of the fixture data."""
    return _samples(data_dir)


@pytest.fixture(scope="session")
def real_samples(real_data_dir: Path) -> dict[str, list[Sample]]:
    """The default tasks' samples of the real data."""
    return _samples(real_data_dir)


@pytest.fixture(scope="session")
def answer_key(all_samples: dict[str, list[Sample]]) -> dict[str, AnswerEntry]:
    """The simulator's answer key for the fixture data's default tasks."""
    return answer_key_from_samples(s for items in all_samples.values() for s in items)


@pytest.fixture(scope="session")
def real_answer_key(real_samples: dict[str, list[Sample]]) -> dict[str, AnswerEntry]:
    """The simulator's answer key for the real data's default tasks."""
    return answer_key_from_samples(s for items in real_samples.values() for s in items)


class ThreadedSim:
    """A simulator running in its own thread and event loop, reachable over real HTTP."""

    def __init__(
        self, config: SimConfig, answer_key: dict[str, AnswerEntry], port: int = 0
    ) -> None:
        self.config = config
        self.port = port
        self.answer_key = answer_key
        self.base_url = ""
        self._ready = threading.Event()
        self._loop = asyncio.new_event_loop()
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._main, daemon=True)
        self._error: BaseException | None = None

    def _main(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_until_complete(self._serve())
        except BaseException as exc:  # surfaced by start()
            self._error = exc
            self._ready.set()

    async def _serve(self) -> None:
        self._stop = asyncio.Event()
        async with serve(self.config, self.answer_key, port=self.port) as url:
            self.base_url = url
            self._ready.set()
            await self._stop.wait()

    def start(self) -> ThreadedSim:
        self._thread.start()
        self._ready.wait(30)
        if self._error is not None:
            raise self._error
        return self

    def stop(self) -> None:
        if self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(10)


@pytest.fixture
def sim(request: pytest.FixtureRequest) -> Iterator[Callable[..., ThreadedSim]]:
    """Start simulators: `sim(model="m", seed=1, ...)` → a running `ThreadedSim` that knows the
    answers of the fixture data (of the real data in a test marked `real_data`)."""
    real = request.node.get_closest_marker(REAL_DATA) is not None
    answer_key = request.getfixturevalue("real_answer_key" if real else "answer_key")
    started: list[ThreadedSim] = []

    def start(**knobs: Any) -> ThreadedSim:
        server = ThreadedSim(SimConfig(port=0, **knobs), answer_key).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@contextmanager
def running_sim(config: SimConfig, answer_key: dict[str, AnswerEntry]) -> Iterator[str]:
    server = ThreadedSim(config, answer_key).start()
    try:
        yield server.base_url
    finally:
        server.stop()


def kill_and_resume(config: Path, run_dir: Path, kills: int, every: int = 25) -> None:
    """Run `thinkeval run` in a subprocess and SIGKILL it once `every` more journal lines are
    written, `kills` times; then run it to the end, which must succeed."""
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    command = [sys.executable, "-m", "thinkeval", "run", str(config), "--output", str(run_dir)]
    journal = run_dir / "journal" / "main.jsonl"
    for i in range(kills):
        proc = subprocess.Popen(
            command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            lines = journal.read_bytes().count(b"\n") if journal.exists() else 0
            if lines >= (i + 1) * every or proc.poll() is not None:
                break
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    finished = subprocess.run(command, env=env, capture_output=True, text=True)
    assert finished.returncode == 0, finished.stderr


def write_config(path: Path, data: dict[str, Any]) -> Path:
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def hub_files(data_dir: Path) -> dict[str, tuple[str | None, dict[str, bytes]]]:
    """The fixture datasets in the Hugging Face hub's layout, built once."""
    return hub_layout(data_dir)


@pytest.fixture
def fake_hub(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    hub_files: dict[str, tuple[str | None, dict[str, bytes]]],
) -> Iterator[FakeHub]:
    """A fake hub on 127.0.0.1 serving the fixture datasets at the revisions the specs pin, with
    HF_ENDPOINT pointing at it and an empty huggingface_hub cache."""
    with FakeHub() as hub:
        for repo, (revision, files) in hub_files.items():
            hub.add(repo, files, commit=revision)
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))
        monkeypatch.delenv("HF_HUB_CACHE", raising=False)
        monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
        yield hub
