"""The demo: the full protocol on the three real datasets, and AIME 2025 sampled four times per
problem, against two simulated models, the quantized one compared with its original.

Each simulated model is a `thinkeval sim` process on 127.0.0.1, started in the background and
stopped at the end, so the demo exercises the same HTTP path as a real vLLM server. The numbers
show the protocol at work, not the quality of any real LLM, and every output says so.
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console

from thinkeval.config import parse_config
from thinkeval.errors import ThinkevalError
from thinkeval.ops.evaluate import evaluate
from thinkeval.report import build_report, render_html, render_markdown
from thinkeval.results.summary import Summary
from thinkeval.run.progress import Progress
from thinkeval.run.runner import RunOptions
from thinkeval.store.rundir import write_atomic
from thinkeval.tasks import default_tasks, resolve_data_dir

BANNER = "SIMULATED MODELS: these numbers demonstrate the protocol, not any real LLM."


@dataclass(frozen=True)
class SimulatedModel:
    name: str
    profile: str
    seed: int
    p_long: float
    p_never: float
    p_wrong: float
    # Why its never-ending replies do not finish (`sim.causes`): extra `thinkeval sim` flags.
    causes: tuple[str, ...] = ()


# A BF16 original and a slightly worse, more verbose quantized copy, on two vLLM eras. The
# original's server ends loops itself (finish_reason repetition); the quantized copy loops,
# hesitates and loses answers it found, so the report's diagnosis shows every cause.
DEMO_MODELS = (
    SimulatedModel(
        "sim-qwen3-8b-bf16", "vllm-latest", 1, 0.15, 0.02, 0.10,
        ("--p-loop", "0.5", "--repetition-detection", "1"),
    ),
    SimulatedModel(
        "sim-qwen3-8b-w8a8", "vllm-0.10", 2, 0.19, 0.03, 0.12,
        ("--p-loop", "0.3", "--p-hesitate", "0.3", "--p-buried", "0.3"),
    ),
)  # fmt: skip
# The model the other is compared with (`baseline:`), at the default 1-point margin.
DEMO_BASELINE = DEMO_MODELS[0].name
# Long reasoning that sometimes ends just before a budget, so the answer itself is cut off
# (`unfinished`), not only the thinking (`empty`). The math flavour reasons 8 times longer, so
# AIME replies run 1,200-65,000 tokens against its 16384 → 32768 budgets.
DEMO_LONG_TOKENS = "1990-8160"
# AIME 2025 asked four times per problem at the sampling its spec recommends; the seed makes
# repeat r send seed + r, so each repeat is its own sample and the run is reproducible.
DEMO_REPEATED: dict[str, object] = {
    "name": "aime25",
    "repeats": 4,
    "generation": {"temperature": 0.6, "top_p": 0.95, "seed": 0},
}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_healthy(url: str, process: subprocess.Popen[bytes], timeout_s: float = 120.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise ThinkevalError(f"the simulator exited with status {process.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/health", timeout=2) as resp:
                if resp.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.2)
    raise ThinkevalError(f"the simulator at {url} did not become healthy in {timeout_s:.0f} s")


@contextmanager
def simulators(
    models: tuple[SimulatedModel, ...], data_dir: Path, tasks: tuple[str, ...] | None = None
) -> Iterator[dict[str, str]]:
    """Start one simulator process per model; yield {model name: base_url}. With `tasks`,
    each builds its answer key from those tasks only (`--tasks`: a start-up in a fraction of
    the CPU that every task's samples take)."""
    processes: list[subprocess.Popen[bytes]] = []
    urls: dict[str, str] = {}
    try:
        for model in models:
            port = free_port()
            command = [
                sys.executable, "-m", "thinkeval", "sim",
                "--port", str(port),
                "--model", model.name,
                "--profile", model.profile,
                "--seed", str(model.seed),
                "--p-long", str(model.p_long),
                "--p-never", str(model.p_never),
                "--p-wrong", str(model.p_wrong),
                "--long-tokens", DEMO_LONG_TOKENS,
                "--data-dir", str(data_dir),
                *(("--tasks", ",".join(tasks)) if tasks else ()),
                *model.causes,
            ]  # fmt: skip
            process = subprocess.Popen(
                command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=os.environ
            )
            processes.append(process)
            urls[model.name] = f"http://127.0.0.1:{port}"
        for model in models:
            wait_healthy(urls[model.name], processes[models.index(model)])
        yield {name: f"{url}/v1" for name, url in urls.items()}
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()


def run_demo(
    output: Path,
    data_dir_given: str | None = None,
    limit: int | None = None,
    *,
    progress: Callable[[Console], Progress] = lambda _: Progress(),
    show: Callable[[Summary, str], None] = lambda summary, title: None,
) -> int:
    """Run the full protocol against the simulated models into `output`; 0 when finished.

    `progress` gives the run's observer for the demo's console; `show` shows the summary's
    tables under a title (the terminal's, given by `cli/demo.py`)."""
    console = Console(stderr=True, highlight=False)
    data_dir = resolve_data_dir(data_dir_given)
    if data_dir is None:
        raise ThinkevalError(
            "the demo reads the real datasets from a data directory: pass --data-dir DIR or set "
            "THINKEVAL_DATA_DIR (the layout of shared/datasets)"
        )
    run_dir = Path(output)
    console.print(f"[bold yellow]{BANNER}[/]")
    console.print(f"starting {len(DEMO_MODELS)} simulated vLLM servers on 127.0.0.1 …")
    tasks: list[dict[str, object]] = [{"name": spec.name} for spec in default_tasks()]
    tasks.append(DEMO_REPEATED)
    names = tuple(dict.fromkeys(str(task["name"]) for task in tasks))
    with simulators(DEMO_MODELS, data_dir, names) as urls:
        if limit:
            tasks = [{**task, "limit": limit} for task in tasks]
        config = parse_config(
            {
                "run": run_dir.name or "demo",
                "data_dir": str(data_dir),
                "tasks": tasks,
                # The quantized copy against its original: the report's comparison section.
                "baseline": DEMO_BASELINE,
                "models": [
                    {
                        "name": model.name,
                        "base_url": urls[model.name],
                        "concurrency": 64,
                        "retry_backoff_s": 0.2,
                        "generation": {
                            "temperature": 0.0,
                            "chat_template_kwargs": {"enable_thinking": True},
                        },
                    }
                    for model in DEMO_MODELS
                ],
            },
            source="demo config",
        )
        # `thinkeval demo`'s run: Ctrl-C stops it cleanly, as it does `thinkeval run`.
        options = RunOptions(stop_on_signals=True)
        summary = asyncio.run(evaluate(config, run_dir, options, progress(console)))
    show(summary, f"thinkeval demo · {BANNER}")
    console.print(f"run directory: {run_dir} (journal, samples, summary.json)")
    report = build_report([run_dir])
    write_atomic(run_dir / "report.md", render_markdown(report).encode("utf-8"))
    write_atomic(run_dir / "report.html", render_html(report).encode("utf-8"))
    console.print(f"report: {run_dir / 'report.html'} (open in a browser), {run_dir / 'report.md'}")
    console.print(f"every sample, searchable: thinkeval view {run_dir}")
    return 0
