"""The benchmark's moving parts without any peer harness: measuring a process tree, building each
harness's command, and the command line (`bench/run_bench.py`)."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import yaml

from thinkeval_bench.cli import main, results_path
from thinkeval_bench.peers import HARNESSES
from thinkeval_bench.peers.base import Context
from thinkeval_bench.peers.install import find_installed, pinned_versions
from thinkeval_bench.peers.lm_eval import INSTALL as LM_EVAL
from thinkeval_bench.peers.lm_eval import exemplar_pairs
from thinkeval_bench.render import render_report
from thinkeval_bench.results import BenchRecord, Machine, Result, load_record, save_record
from thinkeval_bench.workload import write_prompt

ROOT = Path(__file__).parent.parent
BENCH = ROOT / "bench"

# A harness that leaves a worker behind: the worker holds 150 MiB and burns 0.3 s of CPU, then
# waits; the leader exits as soon as the worker is done, without waiting for it.
_LEADER = """
import os, subprocess, sys, time
marker = sys.argv[1]
subprocess.Popen([sys.executable, "-c", sys.argv[2], marker])
while not os.path.exists(marker):
    time.sleep(0.01)
"""
_WORKER = """
import sys, time
block = b"x" * (150 * 2**20)
start = time.process_time()
while time.process_time() - start < 0.3:
    pass
open(sys.argv[1], "w").close()
time.sleep(60)
"""
# Runs in its own process, because it makes that process a child subreaper.
_MEASURE = """
import json, sys
from dataclasses import asdict
from pathlib import Path
from thinkeval_bench.measure import run_measured, set_subreaper
set_subreaper()
out = Path(sys.argv[1])
kept = run_measured(
    [sys.executable, "-c", sys.argv[2], str(out / "done"), sys.argv[3]],
    env={"PATH": "/usr/bin:/bin"}, cwd=out, log_path=out / "kept.log", timeout_s=60,
)
killed = run_measured(["sleep", "30"], env={}, cwd=out, log_path=out / "killed.log", timeout_s=0.3)
print(json.dumps({"kept": asdict(kept), "killed": asdict(killed)}))
"""


def test_run_measured_counts_what_a_harness_leaves_behind(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, str(tmp_path), _LEADER, _WORKER],
        env={**os.environ, "PYTHONPATH": str(BENCH)},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    report = json.loads(done.stdout)
    kept, killed = report["kept"], report["killed"]
    # The worker's CPU reaches RUSAGE_CHILDREN only if it was killed and reaped as an orphan.
    assert kept["cpu_s"] >= 0.3
    assert kept["peak_rss_mb"] >= 150
    assert (kept["exit_code"], kept["timed_out"]) == (0, False)
    assert (tmp_path / "kept.log").read_text().startswith(f"$ {sys.executable} -c")
    assert (killed["exit_code"], killed["timed_out"]) == (None, True)
    assert killed["wall_s"] < 30


def _context(tmp_path: Path, harness: str, concurrency: int | None) -> Context:
    data_dir = tmp_path / "data"
    (data_dir / "gsm8k").mkdir(parents=True, exist_ok=True)
    (data_dir / "gsm8k" / "test.jsonl").write_text('{"question": "q", "answer": "#### 1"}\n')
    workdir = tmp_path / f"{harness}-{concurrency}"
    workdir.mkdir()
    return Context(
        harness=harness,
        envs=tmp_path / "envs",
        workdir=workdir,
        base_url="http://127.0.0.1:8123/v1",
        port=8123,
        data_dir=data_dir,
        prompt_file=write_prompt(tmp_path / "prompt.json"),
        concurrency=concurrency,
    )


# What says "64 in flight" to each harness; at its defaults the setting is left out.
_CONCURRENCY_MARK = {
    "thinkeval": "concurrency: 64",
    "aisbench": 'BATCH_SIZE = "64"',
    "lm-eval": "num_concurrent=64",
    "inspect": "--max-connections 64",
    "evalscope": "--concurrency 64",
}


@pytest.mark.parametrize("harness", list(HARNESSES))
def test_each_harness_command_sets_concurrency_only_when_asked(
    tmp_path: Path, harness: str
) -> None:
    seen = {}
    for concurrency in (64, None):
        ctx = _context(tmp_path, harness, concurrency)
        argv, env = HARNESSES[harness].command(ctx)
        written = [p.read_text() for p in ctx.workdir.rglob("*") if p.is_file()]
        text = "\n".join([" ".join(argv), *env.values(), *written])
        # Every placeholder is filled in (the templates' comments name them `{{KEY}}`).
        assert not re.search(r"\{\{(?!KEY\}\})[A-Z_]+\}\}", "".join(written))
        assert "127.0.0.1" in text and "8123" in text  # pointed at the simulator
        assert env["HF_HUB_OFFLINE"] == "1"
        assert not any(key.startswith("THINKEVAL_") for key in env)
        seen[concurrency] = _CONCURRENCY_MARK[harness] in text
    assert seen == {64: True, None: False}


def test_lm_eval_task_carries_the_exemplars_of_the_prompt(tmp_path: Path) -> None:
    ctx = _context(tmp_path, "lm-eval", 64)
    HARNESSES["lm-eval"].command(ctx)
    task = yaml.safe_load((ctx.workdir / "lm_eval_tasks" / "bench_gsm8k.yaml").read_text())
    prompt = json.loads(ctx.prompt_file.read_text())
    pairs = exemplar_pairs(ctx.prompt_file)
    assert task["fewshot_config"]["samples"] == pairs
    assert task["dataset_kwargs"]["data_files"]["test"] == str(ctx.data_file)
    rebuilt = []
    for pair in pairs:
        question = prompt["question_template"].replace("{question}", pair["question"])
        rebuilt += [{"role": "user", "content": question}, pair["target"]]
    assert rebuilt[::2] == prompt["exemplars"][::2]
    assert rebuilt[1::2] == [turn["content"] for turn in prompt["exemplars"][1::2]]


def test_a_peer_not_installed_says_how_to_install_it(tmp_path: Path) -> None:
    assert pinned_versions(LM_EVAL) == {"lm-eval": "0.4.13"}
    found, why = find_installed("lm-eval", LM_EVAL, tmp_path)
    assert found is None
    assert why == f"not installed in {tmp_path / 'lm-eval'} (run with --setup)"


def _record() -> BenchRecord:
    started = dt.datetime(2026, 1, 2, 3, 4, tzinfo=dt.UTC)
    return BenchRecord(
        command="run_bench.py",
        started=started,
        finished=started + dt.timedelta(minutes=5),
        machine=Machine("2 CPUs", 2),
        harnesses=["thinkeval", "lm-eval"],
        scenarios=["zero"],
        requests=1000,
        seed=1,
        versions={"thinkeval": {"python": "3.11.7"}, "lm-eval": {"python": "3.11.7"}},
        not_run={},
        work_dir="bench/out/x",
        results=[
            Result("thinkeval", "zero", "c64", 1000, 0.0, "ok", wall_s=2.0, sim_completed=1000),
            Result("lm-eval", "zero", "c64", 1000, 0.0, "ok", wall_s=30.0, sim_requests=1000),
        ],
    )


def test_render_only_writes_the_page_of_a_saved_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    saved = tmp_path / "RESULTS.json"
    save_record(_record(), saved)
    out = tmp_path / "RESULTS.md"
    assert main(["--render-only", str(saved), "--out", str(out)]) == 0
    assert out.read_text() == render_report(load_record(saved), str(saved))
    assert results_path(out) == saved
    assert results_path(tmp_path / "x.json") == tmp_path / "x.json.json"
    with pytest.raises(SystemExit):
        main(["--render-only", str(saved), "--out", str(saved)])
    assert "reads the file that --out would overwrite" in capsys.readouterr().err


def test_the_entry_script_runs_from_the_repository_root(tmp_path: Path) -> None:
    saved = tmp_path / "r.json"
    save_record(_record(), saved)
    out = tmp_path / "r.md"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    script = ["bench/run_bench.py"]
    done = subprocess.run(
        [sys.executable, *script, "--render-only", str(saved), "--out", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, f"wrote {out} from {saved}\n")
    assert "| lm-eval | c64 | 1000 | 30.0 | 15.00× | – | – | – | – | ok |" in out.read_text()
    bad = subprocess.run(
        [sys.executable, *script, "--harnesses", "thinkeval,nope", "--sizes-100k", "10"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert bad.returncode == 2
    assert bad.stderr.strip().splitlines()[-1].endswith("unknown harness or scenario: nope")
    sizes = subprocess.run(
        [sys.executable, *script, "--sizes-100k", "10,x"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert sizes.returncode == 2
    assert "not comma-separated whole numbers: '10,x'" in sizes.stderr


def test_the_http_layer_alone_sends_every_request_to_the_server(sim: Any, tmp_path: Path) -> None:
    # compare_revisions.py subtracts this script's CPU from a whole run's: it must really send
    # and read back every request, through the revision on PYTHONPATH.
    server = sim(model="sim-qwen3")
    rows = tmp_path / "test.jsonl"
    rows.write_text("".join(json.dumps({"question": f"What is {i} + 1?"}) + "\n" for i in range(7)))
    script = Path(__file__).resolve().parents[1] / "bench" / "thinkeval_bench" / "http_layer.py"
    argv = [
        sys.executable,
        str(script),
        "--url",
        server.base_url,
        "--rows",
        str(rows),
        "--requests",
        "5",
        "--model",
        "sim-qwen3",
    ]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    with urllib.request.urlopen(f"{server.base_url.removesuffix('/v1')}/sim/stats") as resp:
        assert json.load(resp)["requests"] == 5
    too_many = subprocess.run(
        [*argv[:-4], "--requests", "9", "--model", "sim-qwen3"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert too_many.returncode != 0 and "has 7 rows, fewer than 9" in too_many.stderr
