#!/usr/bin/env python3
"""Drive one GSM8K workload through thinkeval and the harnesses users would otherwise pick.

Every harness sends the same GSM8K prompts (AISBench's 4-shot chain-of-thought chat prompt, the
first N rows of the real test split, read from a local file) to the same simulated model
(`python -m thinkeval sim`, one fresh simulator per run, same seed), and gets the same replies.
For each run the script measures, from outside the harness:

* wall time of the harness command, from launch to exit;
* CPU seconds (user + sys) of the harness's whole process tree, per 1000 requests;
* peak RSS of the process tree (sum over its processes, sampled from /proc);
* the requests the server saw and the most it saw in flight at once (`/sim/stats`);
* at 1 s latency, the efficiency: ideal wall `ceil(N/C) * L` over the measured time.

Usage (from the repository root, inside thinkeval's virtualenv)::

    python bench/run_bench.py --setup                  # once: a virtualenv per peer harness
    python bench/run_bench.py                          # all harnesses, all scenarios
    python bench/run_bench.py --harnesses thinkeval,lm-eval --scenarios zero

Linux only (/proc, prctl). See docs/benchmarks.md for what each number means.
"""

from __future__ import annotations

import argparse
import compileall
import contextlib
import ctypes
import datetime as dt
import json
import math
import os
import platform
import re
import resource
import shlex
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent
ADAPTERS = BENCH_DIR / "adapters"

HARNESSES: tuple[str, ...] = ("thinkeval", "aisbench", "lm-eval", "inspect", "evalscope")
SCENARIOS: tuple[str, ...] = ("zero", "1s", "100k")
MODEL = "sim-qwen3"
MAX_TOKENS = 2048  # thinkeval's default first budget; every harness asks for the same
CONCURRENCY = 64
# No sample is cut off or comes back empty, so thinkeval asks no adaptive retry and every harness
# sends exactly one request per sample; the rest of the simulator's behaviour is its default.
SIM_FLAGS: tuple[str, ...] = ("--p-long", "0", "--p-never", "0", "--p-empty", "0")
SIZES_100K: tuple[int, ...] = (10_000, 50_000, 100_000)
LONG_FACTOR = 4  # the 1 s scenario's longer thinkeval run: this many times --requests
PAGE = os.sysconf("SC_PAGE_SIZE")


# --------------------------------------------------------------------------------------------
# Peer harnesses: how to install them, and how each is pointed at the simulator


@dataclass(frozen=True)
class Peer:
    """A harness installed in its own virtualenv under --envs."""

    name: str
    python: str  # interpreter the virtualenv is made from
    packages: tuple[str, ...]  # pinned pip requirements
    dists: tuple[str, ...]  # distributions whose versions go into RESULTS.md


PEERS: dict[str, Peer] = {
    "aisbench": Peer(
        "aisbench",
        "python3.11",
        # pip's picks break it: pyarrow 26 needs NumPy 2 (AISBench pins numpy<2), and mmengine
        # imports pkg_resources, which setuptools 81+ no longer has.
        ("ais-bench-benchmark==3.1.20260630", "pyarrow==21.0.0", "setuptools==80.9.0"),
        ("ais-bench-benchmark", "pyarrow", "setuptools"),
    ),
    "lm-eval": Peer("lm-eval", "python3.11", ("lm-eval[api]==0.4.13",), ("lm-eval",)),
    "inspect": Peer(
        "inspect", "python3.11", ("inspect-ai==0.3.285", "openai==3.57.0"), ("inspect-ai", "openai")
    ),
    "evalscope": Peer("evalscope", "python3.11", ("evalscope==1.14.1",), ("evalscope",)),
}


def env_dir(envs: Path, name: str) -> Path:
    return envs / name


def env_python(envs: Path, name: str) -> Path:
    return env_dir(envs, name) / "bin" / "python"


def installed_versions(python: Path, dists: Sequence[str]) -> dict[str, str] | None:
    """The versions of `dists` in the interpreter `python`, or None if one is missing."""
    code = (
        "import importlib.metadata as m, json, sys\n"
        "out = {'python': sys.version.split()[0]}\n"
        f"for d in {list(dists)!r}:\n"
        "    out[d] = m.version(d)\n"
        "print(json.dumps(out))"
    )
    try:
        done = subprocess.run(
            [str(python), "-c", code], capture_output=True, text=True, timeout=60, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    try:
        versions: dict[str, str] = json.loads(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return None
    return versions


def setup_peer(peer: Peer, envs: Path, log: Callable[[str], None]) -> str | None:
    """Create the peer's virtualenv and install its pins; None when done, else why not."""
    python = env_python(envs, peer.name)
    if python.exists():
        versions = installed_versions(python, peer.dists)
        pinned = {re.split(r"[\[=]", spec)[0]: spec.rpartition("==")[2] for spec in peer.packages}
        if versions and all(versions.get(d) == v for d, v in pinned.items() if d in versions):
            log(f"setup {peer.name}: already installed ({versions})")
            return None
    log(f"setup {peer.name}: creating {env_dir(envs, peer.name)}")
    envs.mkdir(parents=True, exist_ok=True)
    logs = envs / "logs"
    logs.mkdir(exist_ok=True)
    try:
        subprocess.run([peer.python, "-m", "venv", str(env_dir(envs, peer.name))], check=True)
    except (OSError, subprocess.CalledProcessError) as exc:
        return f"cannot create a {peer.python} virtualenv: {exc}"
    command = [str(python), "-m", "pip", "install", "-q", *peer.packages]
    log(f"setup {peer.name}: {shlex.join(command)} (log: {logs / peer.name}.log)")
    with open(logs / f"{peer.name}.log", "w") as handle:
        try:
            done = subprocess.run(
                command, stdout=handle, stderr=subprocess.STDOUT, timeout=3600, check=False
            )
        except subprocess.TimeoutExpired:
            return "pip install took more than an hour"
    if done.returncode != 0:
        tail = (logs / f"{peer.name}.log").read_text(errors="replace").strip().splitlines()[-3:]
        return f"pip install failed (exit {done.returncode}): {' / '.join(tail)}"
    return None


# --------------------------------------------------------------------------------------------
# Processes: start in their own session, measure the tree, stop everything on exit

_STARTED: list[subprocess.Popen[bytes]] = []
# A copy of src/thinkeval taken when the script starts: every simulator and every thinkeval run
# imports it, so edits to the checkout during a long benchmark change nothing mid-way.
SNAPSHOT: list[Path] = []


def take_snapshot(target: Path) -> str:
    """Copy the thinkeval package to `target/thinkeval`; return a digest of what was copied."""
    import hashlib
    import shutil

    import thinkeval

    source = Path(thinkeval.__file__).resolve().parent
    shutil.copytree(
        source, target / "thinkeval", ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
    )
    digest = hashlib.sha256()
    for path in sorted((target / "thinkeval").rglob("*")):
        if path.is_file():
            digest.update(str(path.relative_to(target)).encode() + b"\0" + path.read_bytes())
    # Byte-compiled as `pip install` does for every harness (the peers' packages come compiled):
    # with PYTHONDONTWRITEBYTECODE set, each run would otherwise compile thinkeval from source.
    compileall.compile_dir(target / "thinkeval", quiet=1)
    SNAPSHOT[:] = [target]
    return digest.hexdigest()[:12]


def thinkeval_env() -> dict[str, str]:
    """The environment of a simulator or thinkeval run: the snapshot first on the path."""
    env = _base_env()
    if SNAPSHOT:
        env["PYTHONPATH"] = str(SNAPSHOT[0])
    return env


def _set_subreaper() -> None:
    """Orphaned grandchildren of a harness get re-parented to this process, so that their CPU
    time reaches RUSAGE_CHILDREN when we reap them."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER


def _stat(pid: int) -> tuple[int, int, int, int, int] | None:
    """(ppid, session, state as int, cpu ticks, rss pages) of a process, or None if gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            raw = handle.read()
    except OSError:
        return None
    rest = raw[raw.rfind(b")") + 2 :].split()
    # Fields after the name: state ppid pgrp session ... utime(11) stime(12) ... rss(21)
    try:
        return int(rest[1]), int(rest[3]), rest[0][0], int(rest[11]) + int(rest[12]), int(rest[21])
    except (IndexError, ValueError):
        return None


def session_pids(sid: int) -> list[int]:
    """Live processes of session `sid` (a harness and every descendant that kept its session)."""
    out: list[int] = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            info = _stat(int(name))
            if info is not None and info[1] == sid:
                out.append(int(name))
    return out


def stop_process(proc: subprocess.Popen[bytes], grace_s: float = 5.0) -> None:
    """SIGTERM the process group, SIGKILL what is left after `grace_s`, and reap the leader."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=grace_s)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=grace_s)


def stop_all() -> None:
    while _STARTED:
        stop_process(_STARTED.pop())


def _on_signal(signum: int, frame: object) -> None:
    stop_all()
    raise SystemExit(128 + signum)


@dataclass
class Usage:
    """What one harness process tree used."""

    wall_s: float
    cpu_s: float  # user + sys of the tree (reaped descendants included)
    peak_rss_mb: float  # max over samples of the summed RSS of the tree
    exit_code: int | None  # None: killed by the timeout
    timed_out: bool
    started: float  # time.monotonic() at launch
    ended: float  # time.monotonic() at exit


class TreeSampler(threading.Thread):
    """Samples the summed RSS of a session every `interval_s`, rediscovering its processes."""

    def __init__(self, sid: int, interval_s: float = 0.1, scan_every: int = 5) -> None:
        super().__init__(daemon=True)
        self.sid = sid
        self.interval_s = interval_s
        self.scan_every = scan_every
        self.peak_pages = 0
        self.pids: set[int] = {sid}
        self.halt = threading.Event()

    def run(self) -> None:
        tick = 0
        while not self.halt.is_set():
            if tick % self.scan_every == 0 or tick < 20:
                self.pids |= set(session_pids(self.sid))
            total = 0
            for pid in list(self.pids):
                info = _stat(pid)
                if info is None or info[1] != self.sid:
                    self.pids.discard(pid)
                    continue
                total += info[4]
            self.peak_pages = max(self.peak_pages, total)
            tick += 1
            self.halt.wait(self.interval_s)


def run_measured(
    argv: Sequence[str],
    *,
    env: dict[str, str],
    cwd: Path,
    log_path: Path,
    timeout_s: float,
    on_start: Callable[[], None] | None = None,
) -> Usage:
    """Run a harness command to completion (or the timeout) and measure its process tree."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(log_path, "wb") as log:
        log.write(f"$ {shlex.join(argv)}\n".encode())
        log.flush()
        started = time.monotonic()
        proc = subprocess.Popen(
            list(argv),
            env=env,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    _STARTED.append(proc)
    if on_start is not None:
        on_start()
    sampler = TreeSampler(proc.pid)
    sampler.start()
    timed_out = threading.Event()

    def expire() -> None:
        timed_out.set()
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)

    timer = threading.Timer(timeout_s, expire)
    timer.start()
    try:
        _, status, own = os.wait4(proc.pid, 0)
    finally:
        timer.cancel()
    wall = time.monotonic() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    sampler.halt.set()
    sampler.join()
    # Whatever the harness left running (workers, orphans) is stopped and reaped, so that the
    # CPU it used is counted too.
    leftovers = session_pids(proc.pid)
    for pid in leftovers:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    for pid in leftovers:
        with contextlib.suppress(ChildProcessError, OSError):
            os.waitpid(pid, 0)
    _STARTED.remove(proc)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    peak_mb = max(sampler.peak_pages * PAGE, own.ru_maxrss * 1024) / 2**20
    return Usage(
        started=started,
        ended=started + wall,
        wall_s=wall,
        cpu_s=cpu,
        peak_rss_mb=peak_mb,
        exit_code=None if timed_out.is_set() else proc.returncode,
        timed_out=timed_out.is_set(),
    )


# --------------------------------------------------------------------------------------------
# The simulator


class Simulator:
    """One `python -m thinkeval sim` process, on a free port, with a stats poller."""

    def __init__(self, *, seed: int, latency_s: float, data_dir: Path, log_path: Path) -> None:
        self.argv = [
            sys.executable,
            "-m",
            "thinkeval",
            "sim",
            "--port",
            "0",
            "--model",
            MODEL,
            "--seed",
            str(seed),
            "--latency-s",
            f"{latency_s:g}",
            *SIM_FLAGS,
            "--data-dir",
            str(data_dir),
        ]
        self.log_path = log_path
        self.proc: subprocess.Popen[bytes] | None = None
        self.port = 0
        # Poller state: monotonic times bracketing the first request and the last completion.
        self._poller: threading.Thread | None = None
        self._halt = threading.Event()
        self.first_request: tuple[float, float] | None = None
        self.last_completion: tuple[float, float] | None = None
        self.poll_s = 0.05

    def start(self, timeout_s: float = 120.0) -> None:
        self.proc = subprocess.Popen(
            self.argv,
            env=thinkeval_env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=open(self.log_path, "wb"),  # noqa: SIM115 - lives as long as the process
            start_new_session=True,
        )
        _STARTED.append(self.proc)
        assert self.proc.stdout is not None
        deadline = time.monotonic() + timeout_s
        line = b""
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            match = re.search(rb"http://[\d.]+:(\d+)/v1", line)
            if match:
                self.port = int(match.group(1))
                break
        if not self.port:
            self.stop()
            raise RuntimeError(
                f"the simulator did not start: {self.log_path.read_text(errors='replace')[-500:]}"
            )

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def stats(self) -> dict[str, Any]:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/sim/stats", timeout=10) as r:
            data: dict[str, Any] = json.loads(r.read())
        return data

    def watch(self) -> None:
        """Poll /sim/stats in the background to time the first request and last completion."""
        self._halt.clear()
        self.first_request = self.last_completion = None

        def poll() -> None:
            seen_requests = 0
            completed = 0
            before = time.monotonic()
            while not self._halt.is_set():
                with contextlib.suppress(OSError, ValueError):
                    stats = self.stats()
                    now = time.monotonic()
                    if seen_requests == 0 and stats["requests"] > 0:
                        self.first_request = (before, now)
                    seen_requests = stats["requests"]
                    if stats["completed"] > completed:
                        completed = stats["completed"]
                        self.last_completion = (before, now)
                    before = now
                self._halt.wait(self.poll_s)

        self._poller = threading.Thread(target=poll, daemon=True)
        self._poller.start()

    def unwatch(self) -> None:
        self._halt.set()
        if self._poller is not None:
            self._poller.join()

    def span_s(self) -> float | None:
        """Seconds from the first request to the last completion (each to ±poll_s / 2)."""
        if self.first_request is None or self.last_completion is None:
            return None
        first = sum(self.first_request) / 2
        last = sum(self.last_completion) / 2
        return max(0.0, last - first)

    def stop(self) -> None:
        self.unwatch()
        if self.proc is not None:
            stop_process(self.proc)
            with contextlib.suppress(ValueError):
                _STARTED.remove(self.proc)
            if self.proc.stdout is not None:
                self.proc.stdout.close()


# --------------------------------------------------------------------------------------------
# Data: the first N GSM8K rows, the prompt, and synthetic sets for the 100k scenario


def gsm8k_source(explicit: str | None) -> Path:
    """The real GSM8K test split: --data-dir, $THINKEVAL_DATA_DIR, or ../shared/datasets."""
    candidates = [
        explicit,
        os.environ.get("THINKEVAL_DATA_DIR"),
        str(REPO.parent / "shared" / "datasets"),
    ]
    for candidate in candidates:
        if candidate:
            path = Path(candidate).expanduser() / "gsm8k" / "test.jsonl"
            if path.is_file():
                return path.resolve()
    raise SystemExit(
        "error: GSM8K not found: pass --data-dir, set THINKEVAL_DATA_DIR, or put the datasets "
        f"in {REPO.parent / 'shared' / 'datasets'} (expects gsm8k/test.jsonl)"
    )


def write_first_rows(source: Path, target_dir: Path, n: int) -> Path:
    """`target_dir/gsm8k/test.jsonl` holding the first `n` rows of `source`."""
    rows = [line for line in source.read_text(encoding="utf-8").split("\n") if line.strip()]
    if len(rows) < n:
        raise SystemExit(f"error: {source} has {len(rows)} rows, fewer than --requests {n}")
    out = target_dir / "gsm8k" / "test.jsonl"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(rows[:n]) + "\n", encoding="utf-8")
    return out


def write_prompt(target: Path) -> Path:
    """AISBench's GSM8K 4-shot chat prompt, exactly as thinkeval packages it, for the adapters."""
    from importlib import resources

    text = resources.files("thinkeval.tasks").joinpath("aisbench_prompts.json").read_text("utf-8")
    prompt = json.loads(text)["gsm8k_4shot_cot_chat"]
    target.write_text(
        json.dumps(
            {"exemplars": prompt["exemplars"], "question_template": prompt["question_template"]},
            ensure_ascii=False,
            indent=1,
        ),
        encoding="utf-8",
    )
    return target


def write_synthetic(target_dir: Path, n: int, seed: int) -> Path:
    """`target_dir/gsm8k/test.jsonl` with `n` synthetic GSM8K-format word problems."""
    import random

    rng = random.Random(seed)
    names = ("Ava", "Ben", "Chloe", "Dev", "Elif", "Farah", "Goro", "Hana", "Ivan", "Jun")
    things = ("apples", "marbles", "stickers", "books", "coins", "shells", "pencils", "cards")
    out = target_dir / "gsm8k" / "test.jsonl"
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8") as handle:
        for i in range(n):
            name, thing = rng.choice(names), rng.choice(things)
            a, b, c = rng.randint(5, 500), rng.randint(2, 40), rng.randint(2, 9)
            question = (
                f"{name} has {a} {thing}. {name} buys {b} bags with {c} {thing} in each bag, "
                f"then gives away {i % 7} {thing}. How many {thing} does {name} have now? "
                f"(problem {i})"
            )
            total = a + b * c - i % 7
            answer = (
                f"{name} buys {b} * {c} = <<{b}*{c}={b * c}>>{b * c} {thing}.\n"
                f"{name} then has {a} + {b * c} - {i % 7} = {total} {thing}.\n#### {total}"
            )
            handle.write(json.dumps({"question": question, "answer": answer}) + "\n")
    return out


# --------------------------------------------------------------------------------------------
# One run: a harness against a fresh simulator


@dataclass
class RunSpec:
    harness: str
    scenario: str  # zero | 1s | 100k
    setting: str  # c64 | default
    requests: int  # samples in the data file
    latency_s: float
    data_dir: Path  # holds gsm8k/test.jsonl with exactly `requests` rows
    stop_after_s: float | None = None  # a probe: stop the harness after this long


@dataclass
class Context:
    """What an adapter needs to build its command."""

    spec: RunSpec
    envs: Path
    workdir: Path  # this run's own folder
    base_url: str  # http://127.0.0.1:PORT/v1
    port: int
    data_file: Path
    prompt_file: Path
    concurrency: int | None  # None: the harness's default

    @property
    def python(self) -> Path:
        return env_python(self.envs, self.spec.harness)


@dataclass
class Result:
    harness: str
    scenario: str
    setting: str
    requests_planned: int
    latency_s: float
    status: str  # ok | failed | timeout | probe | not run
    reason: str = ""
    wall_s: float | None = None
    cpu_s: float | None = None
    peak_rss_mb: float | None = None
    exit_code: int | None = None
    sim_requests: int | None = None
    sim_completed: int | None = None
    max_in_flight: int | None = None
    distinct_prompts: int | None = None
    generation_tokens: int | None = None
    prompt_tokens: int | None = None
    by_status: dict[str, int] = field(default_factory=dict)
    span_s: float | None = None
    before_first_s: float | None = None  # launch to the first request the server saw
    after_last_s: float | None = None  # the last reply sent to the harness's exit
    ideal_s: float | None = None
    loadavg: tuple[float, float, float] | None = None
    command: str = ""
    log: str = ""

    @property
    def cpu_per_1000(self) -> float | None:
        if self.cpu_s is None or not self.sim_completed:
            return None
        return self.cpu_s * 1000.0 / self.sim_completed


Adapter = Callable[[Context], tuple[list[str], dict[str, str]]]


def _base_env() -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("VIRTUAL_ENV", "PYTHONPATH", "THINKEVAL_"))
    }
    # Everything stays on this machine: no hub, no telemetry, no proxies for loopback.
    env.update(
        {
            "HF_HUB_OFFLINE": "1",
            "HF_DATASETS_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1",
            "HF_HUB_DISABLE_TELEMETRY": "1",
            "DO_NOT_TRACK": "1",
            "NO_PROXY": "127.0.0.1,localhost",
            "no_proxy": "127.0.0.1,localhost",
            "PYTHONUNBUFFERED": "1",
        }
    )
    return env


def _render(template: Path, target: Path, values: dict[str, str]) -> Path:
    text = template.read_text(encoding="utf-8")
    for key, value in values.items():
        text = text.replace("{{" + key + "}}", value)
    target.write_text(text, encoding="utf-8")
    return target


def adapter_thinkeval(ctx: Context) -> tuple[list[str], dict[str, str]]:
    concurrency = "" if ctx.concurrency is None else f"    concurrency: {ctx.concurrency}\n"
    config = ctx.workdir / "thinkeval.yaml"
    _render(
        ADAPTERS / "thinkeval" / "gsm8k.yaml",
        config,
        {
            "DATA_DIR": str(ctx.spec.data_dir),
            "BASE_URL": ctx.base_url,
            "MODEL": MODEL,
            "BUDGET": str(MAX_TOKENS),
            "CONCURRENCY": concurrency.rstrip("\n"),
        },
    )
    argv = [
        sys.executable,
        "-m",
        "thinkeval",
        "run",
        str(config),
        "--output",
        str(ctx.workdir / "run"),
    ]
    return argv, thinkeval_env()


def _exemplar_pairs(prompt_file: Path) -> list[dict[str, str]]:
    """The prompt's exemplars as (question, target) rows, for harnesses that rebuild the turns."""
    prompt = json.loads(prompt_file.read_text(encoding="utf-8"))
    head, _, tail = prompt["question_template"].partition("{question}")
    turns = prompt["exemplars"]
    pairs = []
    for user, assistant in zip(turns[::2], turns[1::2], strict=True):
        text = user["content"]
        assert text.startswith(head) and text.endswith(tail), "unexpected exemplar layout"
        pairs.append(
            {"question": text[len(head) : len(text) - len(tail)], "target": assistant["content"]}
        )
    return pairs


def adapter_lm_eval(ctx: Context) -> tuple[list[str], dict[str, str]]:
    tasks = ctx.workdir / "lm_eval_tasks"
    tasks.mkdir(exist_ok=True)
    _render(
        ADAPTERS / "lm-eval" / "bench_gsm8k.yaml",
        tasks / "bench_gsm8k.yaml",
        {
            "DATA_FILE": json.dumps(str(ctx.data_file)),
            "FEWSHOT_SAMPLES": json.dumps(_exemplar_pairs(ctx.prompt_file), ensure_ascii=False),
            "MAX_TOKENS": str(MAX_TOKENS),
        },
    )
    model_args = [
        f"model={MODEL}",
        f"base_url={ctx.base_url}/chat/completions",
        "tokenizer_backend=none",
        "tokenized_requests=False",
    ]
    if ctx.concurrency is not None:
        model_args.append(f"num_concurrent={ctx.concurrency}")
    argv = [
        str(ctx.python.parent / "lm-eval"),
        "run",
        "--model",
        "local-chat-completions",
        "--model_args",
        ",".join(model_args),
        "--tasks",
        "bench_gsm8k_4shot_chat",
        "--include_path",
        str(tasks),
        "--apply_chat_template",
        "--fewshot_as_multiturn",
        "--output_path",
        str(ctx.workdir / "results"),
        "--log_samples",
    ]
    env = _base_env()
    env["OPENAI_API_KEY"] = "EMPTY"
    return argv, env


def adapter_inspect(ctx: Context) -> tuple[list[str], dict[str, str]]:
    # inspect resolves task files relative to the working directory.
    task_file = ctx.workdir / "gsm8k_bench.py"
    task_file.write_bytes((ADAPTERS / "inspect" / "gsm8k_bench.py").read_bytes())
    argv = [
        str(ctx.python.parent / "inspect"),
        "eval",
        task_file.name,
        "--model",
        f"openai-api/sim/{MODEL}",
        "--max-tokens",
        str(MAX_TOKENS),
        "--temperature",
        "0",
        "--log-dir",
        str(ctx.workdir / "logs"),
        # Its default full-screen display needs a terminal; the bench has none.
        "--display",
        "plain",
    ]
    if ctx.concurrency is not None:
        argv += ["--max-connections", str(ctx.concurrency)]
    env = _base_env()
    env.update(
        {
            "SIM_BASE_URL": ctx.base_url,
            "SIM_API_KEY": "EMPTY",
            "BENCH_DATA": str(ctx.data_file),
            "BENCH_PROMPT": str(ctx.prompt_file),
            "INSPECT_LOG_DIR": str(ctx.workdir / "logs"),
        }
    )
    return argv, env


def adapter_evalscope(ctx: Context) -> tuple[list[str], dict[str, str]]:
    argv = [
        str(ctx.python),
        str(ADAPTERS / "evalscope" / "run_gsm8k.py"),
        "--base-url",
        ctx.base_url,
        "--model",
        MODEL,
        "--data",
        str(ctx.data_file),
        "--prompt",
        str(ctx.prompt_file),
        "--work-dir",
        str(ctx.workdir / "outputs"),
        "--max-tokens",
        str(MAX_TOKENS),
    ]
    if ctx.concurrency is not None:
        argv += ["--concurrency", str(ctx.concurrency)]
    env = _base_env()
    env["MODELSCOPE_CACHE"] = str(ctx.workdir / "modelscope-cache")
    return argv, env


def adapter_aisbench(ctx: Context) -> tuple[list[str], dict[str, str]]:
    # GSM8KDataset loads DIR/test.jsonl and DIR/train.jsonl; the 4-shot prompt has its exemplars
    # inline and never reads train, so train is a link to the same rows.
    data = ctx.workdir / "aisbench_gsm8k"
    data.mkdir(exist_ok=True)
    for split in ("test", "train"):
        link = data / f"{split}.jsonl"
        if not link.exists():
            link.symlink_to(ctx.data_file)
    config = ctx.workdir / "aisbench_gsm8k_bench.py"
    batch = "" if ctx.concurrency is None else str(ctx.concurrency)
    _render(
        ADAPTERS / "aisbench" / "gsm8k_bench.py",
        config,
        {
            "DATA_DIR": str(data),
            "MODEL": MODEL,
            "PORT": str(ctx.port),
            "MAX_TOKENS": str(MAX_TOKENS),
            "BATCH_SIZE": batch,
        },
    )
    argv = [
        str(ctx.python.parent / "ais_bench"),
        str(config),
        "--work-dir",
        str(ctx.workdir / "outputs"),
    ]
    return argv, _base_env()


ADAPTERS_BY_NAME: dict[str, Adapter] = {
    "aisbench": adapter_aisbench,
    "evalscope": adapter_evalscope,
    "thinkeval": adapter_thinkeval,
    "lm-eval": adapter_lm_eval,
    "inspect": adapter_inspect,
}


def execute(
    spec: RunSpec,
    *,
    envs: Path,
    out_dir: Path,
    prompt_file: Path,
    answer_dir: Path,
    seed: int,
    timeout_s: float,
    log: Callable[[str], None],
) -> Result:
    """Start a simulator, run one harness against it, measure, stop everything."""
    result = Result(spec.harness, spec.scenario, spec.setting, spec.requests, spec.latency_s, "ok")
    name = f"{spec.scenario}-{spec.harness}-{spec.setting}-{spec.requests}"
    workdir = out_dir / name
    workdir.mkdir(parents=True, exist_ok=True)
    result.log = str(workdir / "harness.log")
    sim = Simulator(
        seed=seed, latency_s=spec.latency_s, data_dir=answer_dir, log_path=workdir / "sim.log"
    )
    try:
        sim.start()
        ctx = Context(
            spec,
            envs,
            workdir,
            sim.base_url,
            sim.port,
            spec.data_dir / "gsm8k" / "test.jsonl",
            prompt_file,
            None if spec.setting == "default" else CONCURRENCY,
        )
        argv, env = ADAPTERS_BY_NAME[spec.harness](ctx)
        result.command = shlex.join(argv)
        limit = spec.stop_after_s if spec.stop_after_s is not None else timeout_s
        log(f"run {name}: {result.command}")
        usage = run_measured(
            argv,
            env=env,
            cwd=workdir,
            log_path=workdir / "harness.log",
            timeout_s=limit,
            on_start=sim.watch,
        )
        sim.unwatch()
        stats = sim.stats()
    except Exception as exc:
        result.status, result.reason = "failed", f"{type(exc).__name__}: {exc}"
        log(f"run {name}: {result.reason}")
        return result
    finally:
        sim.stop()
    result.wall_s, result.cpu_s, result.peak_rss_mb = usage.wall_s, usage.cpu_s, usage.peak_rss_mb
    result.exit_code = usage.exit_code
    result.sim_requests = stats["requests"]
    result.sim_completed = stats["completed"]
    result.max_in_flight = stats["max_in_flight"]
    result.distinct_prompts = stats["distinct_prompts"]
    result.generation_tokens = stats["generation_tokens"]
    result.prompt_tokens = stats["prompt_tokens"]
    result.by_status = stats["by_status"]
    result.span_s = sim.span_s()
    if sim.first_request is not None and sim.last_completion is not None:
        result.before_first_s = sum(sim.first_request) / 2 - usage.started
        result.after_last_s = usage.ended - sum(sim.last_completion) / 2
    result.loadavg = os.getloadavg()
    if spec.latency_s > 0 and result.sim_requests:
        # At the harness's defaults, C is the concurrency it actually reached.
        concurrency = CONCURRENCY if spec.setting == "c64" else result.max_in_flight
        if concurrency:
            result.ideal_s = ideal_wall(result.sim_requests, concurrency, spec.latency_s)
    if usage.timed_out:
        if spec.stop_after_s is not None:
            result.status = "probe"
            result.reason = f"stopped after {spec.stop_after_s:g} s (a probe of the defaults)"
        else:
            result.status = "timeout"
            result.reason = f"killed after {timeout_s:g} s"
    elif usage.exit_code != 0:
        result.status = "failed"
        tail = _tail(workdir / "harness.log")
        result.reason = f"exit {usage.exit_code}: {tail}"
    elif result.sim_completed < spec.requests:
        result.status = "failed"
        result.reason = (
            f"only {result.sim_completed} of {spec.requests} requests completed: "
            f"{_tail(workdir / 'harness.log')}"
        )
    log(
        f"run {name}: {result.status} wall {usage.wall_s:.1f}s cpu {usage.cpu_s:.2f}s "
        f"rss {usage.peak_rss_mb:.0f}MB requests {result.sim_requests} "
        f"max_in_flight {result.max_in_flight} span {result.span_s}"
    )
    return result


def ideal_wall(requests: int, concurrency: int, latency_s: float) -> float:
    """The shortest wall time for `requests` requests, `concurrency` at a time, each taking
    `latency_s`: full waves of `concurrency` requests, one after another."""
    return math.ceil(requests / concurrency) * latency_s


def _tail(path: Path, lines: int = 3) -> str:
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return ""
    kept = [line.strip() for line in text.strip().splitlines() if line.strip()][-lines:]
    return " / ".join(kept)[-400:]


# --------------------------------------------------------------------------------------------
# The plan: which runs make up each scenario


def plan_runs(
    harnesses: Sequence[str],
    scenarios: Sequence[str],
    requests: int,
    data_dirs: dict[str, Path],
    probe_s: float,
    sizes_100k: Sequence[int],
) -> Iterator[RunSpec]:
    first = data_dirs["first"]
    if "zero" in scenarios:
        for harness in harnesses:
            yield RunSpec(harness, "zero", "c64", requests, 0.0, first)
            yield RunSpec(harness, "zero", "default", requests, 0.0, first)
            if "baseline" in data_dirs:
                small = int(data_dirs["baseline"].name.rpartition("-")[2])
                yield RunSpec(harness, "zero", "baseline", small, 0.0, data_dirs["baseline"])
    if "1s" in scenarios:
        for harness in harnesses:
            yield RunSpec(harness, "1s", "c64", requests, 1.0, first)
        if "long" in data_dirs and "thinkeval" in harnesses:
            # The same at LONG_FACTOR times the length: start-up is a fixed cost, so the
            # whole-command efficiency approaches the span's as the run grows.
            long = data_dirs["long"]
            yield RunSpec("thinkeval", "1s", "c64-long", requests * LONG_FACTOR, 1.0, long)
        for harness in harnesses:
            yield RunSpec(harness, "1s", "default", requests, 1.0, first, stop_after_s=probe_s)
    if "100k" in scenarios and "thinkeval" in harnesses:
        for size in sizes_100k:
            yield RunSpec("thinkeval", "100k", "c64", size, 0.0, data_dirs[f"synthetic-{size}"])


def thinkeval_version() -> dict[str, str]:
    import thinkeval

    out = {"thinkeval": thinkeval.__version__, "python": sys.version.split()[0]}
    with contextlib.suppress(OSError, subprocess.CalledProcessError):
        commit = subprocess.run(
            ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(REPO), "status", "--porcelain", "src"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        out["commit"] = commit + ("+local changes in src/" if dirty else "")
    return out


def _fmt(value: float | None, digits: int = 1) -> str:
    return "–" if value is None else f"{value:,.{digits}f}"


def _int(value: int | None) -> str:
    return "–" if value is None else str(value)


def _row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _ratio(value: float | None, base: float | None) -> str:
    if value is None or base is None or base <= 0:
        return "–"
    return f"{value / base:.2f}×"


def machine_info() -> str:
    model = ""
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    memory = ""
    with contextlib.suppress(OSError, ValueError, IndexError):
        kib = int(Path("/proc/meminfo").read_text().split()[1])
        memory = f", {kib / 2**20:.0f} GiB RAM"
    return (
        f"{os.cpu_count()} CPUs ({model or platform.machine()}){memory}, Linux {platform.release()}"
    )


def render_report(
    results: list[Result],
    *,
    not_run: dict[str, str],
    versions: dict[str, dict[str, str]],
    harnesses: Sequence[str],
    scenarios: Sequence[str],
    requests: int,
    seed: int,
    started: dt.datetime,
    finished: dt.datetime,
    command: str,
    out_dir: Path,
) -> str:
    lines: list[str] = []
    add = lines.append
    add("# Benchmark results: thinkeval and peer harnesses on one GSM8K workload")
    add("")
    add(
        f"Measured {started:%Y-%m-%d %H:%M}–{finished:%H:%M} UTC on {machine_info()} with "
        f"`{command}`. What each number means and how it is taken: "
        "[docs/benchmarks.md](../docs/benchmarks.md)."
    )
    add("")
    add(
        f"Workload: the first {requests} rows of the GSM8K test split, read from a local file, as "
        "AISBench's 4-shot chain-of-thought chat prompt (8 exemplar turns, then the question), "
        f"`max_tokens` {MAX_TOKENS}, against `thinkeval sim` (model `{MODEL}`, profile "
        f"vllm-latest, seed {seed}, `{' '.join(SIM_FLAGS)}`: no reply is cut off or empty, so "
        "every harness sends exactly one request per sample and gets the same replies). One fresh "
        "simulator per run, on 127.0.0.1."
    )
    add("")
    add("## Versions")
    add("")
    add("| harness | python | packages |")
    add("| --- | --- | --- |")
    for name in harnesses:
        if name in versions:
            found = dict(versions[name])
            python = found.pop("python", "?")
            add(f"| {name} | {python} | {', '.join(f'{k} {v}' for k, v in found.items())} |")
    for name, reason in not_run.items():
        add(f"| {name} | – | not run: {reason} |")
    add("")
    if not_run:
        add("## Not run")
        add("")
        for name, reason in not_run.items():
            add(f"- **{name}**: not run: {reason}")
        add("")

    def base(scenario: str, setting: str) -> Result | None:
        for r in results:
            if r.harness == "thinkeval" and r.scenario == scenario and r.setting == setting:
                return r
        return None

    def status(r: Result) -> str:
        return "ok" if r.status == "ok" else f"{r.status}: {r.reason}".replace("|", "/")

    if "zero" in scenarios:
        add("## Zero latency: client overhead")
        add("")
        add(
            "The simulator answers at once, so the harness's own cost dominates. `c64`: 64 "
            "requests in flight requested; `default`: the harness's own defaults. At zero latency "
            "the simulator answers most requests before it reads the next one, so in-flight "
            "counts say little here (see the 1 s table for concurrency)."
        )
        add("")
        add(
            "| harness | setting | requests | wall s | × te | CPU s / 1000 req | × te | "
            "peak RSS MiB | × te | status |"
        )
        add(_row(["---"] * 2 + ["---:"] * 7 + ["---"]))
        for r in results:
            if r.scenario != "zero":
                continue
            b = base("zero", r.setting)
            add(
                _row(
                    [
                        r.harness,
                        r.setting,
                        _int(r.sim_requests),
                        _fmt(r.wall_s),
                        _ratio(r.wall_s, b.wall_s if b else None),
                        _fmt(r.cpu_per_1000, 2),
                        _ratio(r.cpu_per_1000, b.cpu_per_1000 if b else None),
                        _fmt(r.peak_rss_mb, 0),
                        _ratio(r.peak_rss_mb, b.peak_rss_mb if b else None),
                        status(r),
                    ]
                )
            )
        add("")
    splits = cpu_splits(results)
    if splits:
        add(
            "CPU split from the `baseline` run (same harness, 64 in flight, fewer rows): "
            "per-request CPU = (CPU at N − CPU at the baseline's n) / (N − n) requests; "
            "start-up = what is left at zero requests (interpreter, imports, data loading, "
            "reports)."
        )
        add("")
        add(
            _row(
                [
                    "harness",
                    "CPU s, baseline",
                    "CPU s, full",
                    "per-request CPU ms",
                    "× te",
                    "start-up CPU s",
                    "× te",
                ]
            )
        )
        add(_row(["---"] + ["---:"] * 6))
        te_split = splits.get("thinkeval")
        for name, (small, full, per_ms, fixed) in splits.items():
            add(
                _row(
                    [
                        name,
                        _fmt(small, 2),
                        _fmt(full, 2),
                        _fmt(per_ms, 2),
                        _ratio(per_ms, te_split[2] if te_split else None),
                        _fmt(fixed, 2),
                        _ratio(fixed, te_split[3] if te_split else None),
                    ]
                )
            )
        add("")
    if "1s" in scenarios:
        add("## 1 s latency: scheduling efficiency")
        add("")
        add(
            f"Every request takes 1 s at the server. Ideal wall for N requests at C in flight and "
            f"latency L: `ceil(N/C)·L` ({math.ceil(requests / CONCURRENCY)} s for N={requests}, "
            f"C={CONCURRENCY}, L=1 s). Efficiency = ideal / measured: over the whole command "
            "(wall, start-up included) and over the server-side span (first request received to "
            "last reply sent); wall = before 1st + span + after last. `default` rows are "
            "probes of each harness's default settings, "
            "stopped after the probe time when they take longer (projected wall: "
            "N × span / completed); their ideal uses the concurrency the server saw as C."
        )
        add("")
        add(
            "| harness | setting | requests | max in flight | wall s | before 1st s | span s | "
            "after last s | ideal s | eff. (wall) | eff. (span) | CPU s / 1000 req | × te | "
            "peak RSS MiB | × te | status |"
        )
        add(_row(["---"] * 2 + ["---:"] * 13 + ["---"]))
        for r in results:
            if r.scenario != "1s":
                continue
            b = base("1s", "c64")
            eff_wall = r.ideal_s / r.wall_s if r.ideal_s and r.wall_s else None
            eff_span = r.ideal_s / r.span_s if r.ideal_s and r.span_s else None
            wall = _fmt(r.wall_s)
            if r.status == "probe" and r.sim_completed and r.span_s:
                projected = r.requests_planned * r.span_s / r.sim_completed
                wall = f"{_fmt(r.wall_s)} (≈{projected:,.0f} projected)"
            done = (
                f"{r.sim_completed}/{r.requests_planned}"
                if r.status == "probe"
                else (str(r.sim_requests) if r.sim_requests is not None else "–")
            )
            add(
                _row(
                    [
                        r.harness,
                        r.setting,
                        done,
                        _int(r.max_in_flight),
                        wall,
                        _fmt(r.before_first_s),
                        _fmt(r.span_s),
                        _fmt(r.after_last_s),
                        _fmt(r.ideal_s, 0),
                        _fmt(eff_wall, 3),
                        _fmt(eff_span, 3),
                        _fmt(r.cpu_per_1000, 2),
                        _ratio(r.cpu_per_1000, b.cpu_per_1000 if b else None),
                        _fmt(r.peak_rss_mb, 0),
                        _ratio(r.peak_rss_mb, b.peak_rss_mb if b else None),
                        status(r),
                    ]
                )
            )
        add("")
    big = [r for r in results if r.scenario == "100k"]
    if big:
        add("## 100,000 samples: memory against run length (thinkeval alone, zero latency)")
        add("")
        add(
            "Synthetic GSM8K-format questions (same fields, same 4-shot prompt), one data dir per "
            "length; the simulator's answer key is built from the same file."
        )
        add("")
        add(
            _row(
                [
                    "samples",
                    "requests",
                    "wall s",
                    "req/s",
                    "CPU s / 1000 req",
                    "peak RSS MiB",
                    "× first",
                    "status",
                ]
            )
        )
        add(_row(["---:"] * 7 + ["---"]))
        first = big[0].peak_rss_mb
        for r in big:
            rate = r.sim_completed / r.wall_s if r.sim_completed and r.wall_s else None
            add(
                _row(
                    [
                        f"{r.requests_planned:,}",
                        _int(r.sim_requests),
                        _fmt(r.wall_s),
                        _fmt(rate, 0),
                        _fmt(r.cpu_per_1000, 2),
                        _fmt(r.peak_rss_mb, 0),
                        _ratio(r.peak_rss_mb, first),
                        status(r),
                    ]
                )
            )
        add("")
    add("## Targets")
    add("")
    for line in _targets(results):
        add(line)
    add("")
    add("## Checks")
    add("")
    for line in _checks(results):
        add(line)
    add("")
    shown = out_dir.relative_to(REPO) if out_dir.is_relative_to(REPO) else out_dir
    add(f"Raw numbers and every harness's log: `{shown}/` (not committed).")
    add("")
    return "\n".join(lines)


def cpu_splits(results: list[Result]) -> dict[str, tuple[float, float, float, float]]:
    """Per harness, from its zero-latency baseline and c64 runs: (CPU s of the baseline run,
    CPU s of the full run, marginal CPU ms per request, start-up CPU s)."""
    out: dict[str, tuple[float, float, float, float]] = {}
    for full in results:
        if full.scenario != "zero" or full.setting != "c64" or full.status != "ok":
            continue
        small = next(
            (
                r
                for r in results
                if r.harness == full.harness
                and r.scenario == "zero"
                and r.setting == "baseline"
                and r.status == "ok"
            ),
            None,
        )
        if small is None or full.cpu_s is None or small.cpu_s is None:
            continue
        n_full, n_small = full.sim_completed or 0, small.sim_completed or 0
        if n_full <= n_small:
            continue
        per_request = (full.cpu_s - small.cpu_s) / (n_full - n_small)
        out[full.harness] = (
            small.cpu_s,
            full.cpu_s,
            per_request * 1000,
            small.cpu_s - per_request * n_small,
        )
    return out


def _targets(results: list[Result]) -> list[str]:
    out: list[str] = []
    ok = [r for r in results if r.status == "ok" and r.cpu_per_1000 is not None]
    for scenario in ("zero", "1s"):
        rows = [r for r in ok if r.scenario == scenario and r.setting == "c64"]
        te = next((r for r in rows if r.harness == "thinkeval"), None)
        if te is None or len(rows) < 2:
            continue
        best = min(rows, key=lambda r: r.cpu_per_1000 or 0.0)
        met = best.harness == "thinkeval"
        others = ", ".join(
            f"{r.harness} {r.cpu_per_1000:.2f}" for r in rows if r.harness != "thinkeval"
        )
        out.append(
            f"- Least CPU per request ({scenario} latency, c64): **{'met' if met else 'NOT met'}**"
            f": thinkeval {te.cpu_per_1000:.2f} CPU s / 1000 requests; {others}."
        )
    splits = cpu_splits(results)
    if "thinkeval" in splits and len(splits) > 1:
        best = min(splits, key=lambda name: splits[name][2])
        others = ", ".join(f"{n} {v[2]:.2f}" for n, v in splits.items() if n != "thinkeval")
        out.append(
            f"- Least CPU per request, start-up excluded (marginal, zero latency): "
            f"**{'met' if best == 'thinkeval' else 'NOT met'}**: thinkeval "
            f"{splits['thinkeval'][2]:.2f} ms per request; {others}."
        )
    te1 = next(
        (
            r
            for r in results
            if r.harness == "thinkeval" and r.scenario == "1s" and r.setting == "c64"
        ),
        None,
    )
    if te1 is not None and te1.ideal_s and te1.wall_s:
        eff_wall = te1.ideal_s / te1.wall_s
        eff_span = te1.ideal_s / te1.span_s if te1.span_s else None
        out.append(
            f"- ≥ 0.95 of ideal throughput at 1 s latency: over the whole command "
            f"{eff_wall:.3f} (**{'met' if eff_wall >= 0.95 else 'NOT met'}**); over the "
            f"server-side span {_fmt(eff_span, 3)} "
            f"(**{'met' if eff_span is not None and eff_span >= 0.95 else 'NOT met'}**)."
        )
    long = next(
        (r for r in results if r.harness == "thinkeval" and r.setting == "c64-long"), None
    )
    if te1 is not None and long is not None and long.ideal_s and long.wall_s and te1.wall_s:
        fixed = (te1.before_first_s or 0.0) + (te1.after_last_s or 0.0)
        out.append(
            f"  Start-up and wrap-up are a fixed {fixed:.1f} s ({te1.before_first_s or 0:.1f} s "
            f"before the first request, {te1.after_last_s or 0:.1f} s after the last), not a "
            f"per-request cost: at {long.requests_planned:,} requests the whole command reaches "
            f"{long.ideal_s / long.wall_s:.3f} of ideal."
        )
    big = [r for r in results if r.scenario == "100k" and r.peak_rss_mb]
    if len(big) >= 2:
        first, last = big[0], big[-1]
        growth = (last.peak_rss_mb or 0) / (first.peak_rss_mb or 1)
        per_k = ((last.peak_rss_mb or 0) - (first.peak_rss_mb or 0)) / max(
            1, (last.requests_planned - first.requests_planned) / 1000
        )
        out.append(
            f"- Memory flat in the run length (peak RSS at {last.requests_planned:,} within 10 % "
            f"of {first.requests_planned:,}): **{'met' if growth <= 1.10 else 'NOT met'}**: "
            f"{first.peak_rss_mb:.0f} → {last.peak_rss_mb:.0f} MiB ({growth:.2f}×, "
            f"{per_k:.2f} MiB per 1000 more samples)."
        )
    return out or ["(no target could be evaluated from this run)"]


_CHECK_FIELDS = {
    "distinct prompts": "distinct_prompts",
    "prompt tokens (all messages, as the simulator counts them)": "prompt_tokens",
    "generated tokens": "generation_tokens",
}


def _checks(results: list[Result]) -> list[str]:
    out: list[str] = []
    full = [
        r
        for r in results
        if r.status == "ok" and r.scenario in ("zero", "1s") and r.generation_tokens
    ]
    for size in sorted({r.requests_planned for r in full}, reverse=True):
        group = [r for r in full if r.requests_planned == size]
        exact = [r for r in group if r.sim_requests == size]
        extra = [r for r in group if r.sim_requests != size]
        if len(exact) < 2:
            continue
        out.append(f"- Runs on {size} rows ({len(exact)} with exactly one request per row):")
        for label, field_name in _CHECK_FIELDS.items():
            values = sorted({getattr(r, field_name) for r in exact})
            verdict = (
                f"yes, {values[0]}"
                if len(values) == 1
                else "NO: "
                + ", ".join(
                    f"{r.harness}/{r.scenario}/{r.setting} {getattr(r, field_name)}" for r in exact
                )
            )
            out.append(f"  - same {label}: {verdict}")
        for r in extra:
            out.append(
                f"  - {r.harness}/{r.scenario}/{r.setting} sent {r.sim_requests} requests for "
                f"{size} rows (AISBench: its warm-up request); its totals include them: "
                f"{r.distinct_prompts} distinct prompts, {r.prompt_tokens} prompt tokens, "
                f"{r.generation_tokens} generated tokens"
            )
    out.append(
        "- The simulator's reply depends only on the last user message and max_tokens, so equal "
        "generated-token totals mean equal replies."
    )
    loads = [r.loadavg[0] for r in results if r.loadavg]
    if loads:
        out.append(
            f"- 1-minute load average after the runs: {min(loads):.1f}–{max(loads):.1f} on "
            f"{os.cpu_count()} CPUs (other work on the machine inflates wall times, not CPU s)."
        )
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="See docs/benchmarks.md.",
    )
    parser.add_argument(
        "--harnesses",
        default=",".join(HARNESSES),
        help=f"comma-separated, from {','.join(HARNESSES)} (default: all)",
    )
    parser.add_argument(
        "--requests", type=int, default=1000, help="GSM8K rows asked (default 1000)"
    )
    parser.add_argument(
        "--scenarios",
        default=",".join(SCENARIOS),
        help="comma-separated, from zero,1s,100k (default: all)",
    )
    parser.add_argument("--envs", default=str(BENCH_DIR / ".envs"), help="virtualenvs folder")
    parser.add_argument("--setup", action="store_true", help="create the peers' virtualenvs first")
    parser.add_argument("--out", default=str(BENCH_DIR / "RESULTS.md"), help="results file")
    parser.add_argument("--work", default=str(BENCH_DIR / "out"), help="scratch folder for runs")
    parser.add_argument("--data-dir", help="datasets folder holding gsm8k/test.jsonl")
    parser.add_argument("--seed", type=int, default=20240601, help="simulator seed")
    parser.add_argument(
        "--timeout-s", type=float, default=900.0, help="per-run limit (default 900 s)"
    )
    parser.add_argument(
        "--probe-s",
        type=float,
        default=45.0,
        help="at 1 s latency, stop a run at default settings after this long (default 45 s)",
    )
    parser.add_argument(
        "--baseline-requests",
        type=int,
        default=20,
        help="zero latency: also run each harness (c64) on this many rows, to split its CPU into "
        "start-up and per-request parts (default 20; 0: skip)",
    )
    parser.add_argument(
        "--sizes-100k",
        default=",".join(str(n) for n in SIZES_100K),
        help="run lengths of the memory scenario (default 10000,50000,100000)",
    )
    args = parser.parse_args(argv)

    harnesses = [h.strip() for h in args.harnesses.split(",") if h.strip()]
    scenarios = [s.strip() for s in args.scenarios.split(",") if s.strip()]
    unknown = [h for h in harnesses if h not in HARNESSES] + [
        s for s in scenarios if s not in SCENARIOS
    ]
    if unknown:
        parser.error(f"unknown harness or scenario: {', '.join(unknown)}")
    sizes = [int(n) for n in args.sizes_100k.split(",") if n.strip()]
    envs = Path(args.envs).resolve()
    work_root = Path(args.work).resolve()
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    out_dir = work_root / stamp
    out_dir.mkdir(parents=True, exist_ok=True)
    log_file = open(out_dir / "bench.log", "a")  # noqa: SIM115 - the whole run

    def log(message: str) -> None:
        line = f"[{dt.datetime.now().strftime('%H:%M:%S')}] {message}"
        print(line, file=sys.stderr, flush=True)
        log_file.write(line + "\n")
        log_file.flush()

    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, _on_signal)
    _set_subreaper()
    results: list[Result] = []
    not_run: dict[str, str] = {}
    versions: dict[str, dict[str, str]] = {"thinkeval": thinkeval_version()}
    versions["thinkeval"]["snapshot"] = take_snapshot(out_dir / "snapshot")
    check = subprocess.run(
        [sys.executable, "-c", "import thinkeval; print(thinkeval.__file__)"],
        env=thinkeval_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    log(f"thinkeval and the simulator run from {check.stdout.strip() or check.stderr.strip()}")
    started = dt.datetime.now(dt.UTC)
    try:
        for name in harnesses:
            peer = PEERS.get(name)
            if peer is None:
                continue
            if args.setup:
                problem = setup_peer(peer, envs, log)
                if problem:
                    not_run[name] = problem
                    continue
            if name not in ADAPTERS_BY_NAME:
                not_run[name] = "no adapter"
                continue
            found = installed_versions(env_python(envs, name), peer.dists)
            if found is None:
                not_run[name] = (
                    f"not installed in {env_dir(envs, name)} (run with --setup)"
                    if not env_python(envs, name).exists()
                    else f"{', '.join(peer.dists)} missing from {env_dir(envs, name)}"
                )
                continue
            versions[name] = found

        source = gsm8k_source(args.data_dir)
        answers = source.parent.parent
        data_dirs = {"first": out_dir / "data" / f"gsm8k-first-{args.requests}"}
        write_first_rows(source, data_dirs["first"], args.requests)
        if args.baseline_requests and args.baseline_requests < args.requests:
            small = args.baseline_requests
            data_dirs["baseline"] = out_dir / "data" / f"gsm8k-first-{small}"
            write_first_rows(source, data_dirs["baseline"], small)
        prompt_file = write_prompt(out_dir / "data" / "gsm8k_4shot_chat_prompt.json")
        if "1s" in scenarios and "thinkeval" in harnesses:
            data_dirs["long"] = out_dir / "data" / f"synthetic-{args.requests * LONG_FACTOR}"
            write_synthetic(data_dirs["long"], args.requests * LONG_FACTOR, args.seed)
        if "100k" in scenarios and "thinkeval" in harnesses:
            for size in sizes:
                data_dirs[f"synthetic-{size}"] = out_dir / "data" / f"synthetic-{size}"
                write_synthetic(data_dirs[f"synthetic-{size}"], size, args.seed)

        runnable = [h for h in harnesses if h not in not_run]
        for spec in plan_runs(runnable, scenarios, args.requests, data_dirs, args.probe_s, sizes):
            synthetic = spec.scenario == "100k" or spec.setting == "c64-long"
            answer_dir = spec.data_dir if synthetic else answers
            timeout = (
                args.timeout_s
                if spec.scenario != "100k"
                else max(args.timeout_s, spec.requests * 0.03)
            )
            results.append(
                execute(
                    spec,
                    envs=envs,
                    out_dir=out_dir,
                    prompt_file=prompt_file,
                    answer_dir=answer_dir,
                    seed=args.seed,
                    timeout_s=timeout,
                    log=log,
                )
            )
            (out_dir / "results.json").write_text(
                json.dumps([asdict(r) for r in results], indent=1, default=str)
            )
    finally:
        stop_all()
    finished = dt.datetime.now(dt.UTC)
    report = render_report(
        results,
        not_run=not_run,
        versions=versions,
        harnesses=harnesses,
        scenarios=scenarios,
        requests=args.requests,
        seed=args.seed,
        started=started,
        finished=finished,
        command=shlex.join([Path(sys.argv[0]).name, *(argv if argv is not None else sys.argv[1:])]),
        out_dir=out_dir,
    )
    Path(args.out).write_text(report, encoding="utf-8")
    log(f"wrote {args.out} (raw: {out_dir / 'results.json'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
