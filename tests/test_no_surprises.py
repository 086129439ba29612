"""No silent surprises: selections past the data are announced, empty ones refused, and writers
of one run directory that would ask samples twice are refused; `--shard auto` reads the
cluster scheduler."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from conftest import write_config
from thinkeval.cli import main
from thinkeval.errors import JournalError
from thinkeval.store.runlock import RunLock
from thinkeval.store.shard import Shard, shard_from_environment
from thinkeval.tasks import load_samples

ENV = dict(os.environ, PYTHONUNBUFFERED="1")


def ceval_config(tmp_path: Path, url: str, **selection: object) -> Path:
    return write_config(
        tmp_path / "run.yaml",
        {
            "run": "r",
            "tasks": [{"name": "ceval", **selection}],
            "models": [{"name": "m", "base_url": url}],
        },
    )


def test_a_limit_past_the_data_says_how_many_it_runs(
    tmp_path: Path, sim, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = sim(model="m")
    total = len(load_samples("ceval", data_dir))
    config = ceval_config(tmp_path, server.base_url, limit=100000)
    assert main(["run", str(config), "--output", str(tmp_path / "out")]) == 0
    err = capsys.readouterr().err
    assert f"ceval: {total} samples (limit 100000 is past the data: all {total} samples)" in err


def test_a_range_partly_past_the_data_says_where_it_ends(
    tmp_path: Path, sim, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = sim(model="m")
    total = len(load_samples("ceval", data_dir))
    start = total - 13
    config = ceval_config(tmp_path, server.base_url, range=f"{start}:{total + 67}")
    assert main(["run", str(config), "--output", str(tmp_path / "out")]) == 0
    assert (
        f"ceval: 13 samples (range {start}:{total + 67} goes past the data, which ends at"
        f" {total}: {start}:{total})" in capsys.readouterr().err
    )


def test_a_range_past_the_data_is_an_error(
    tmp_path: Path, sim, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`range: "5000:5100"` used to run 0 samples and report 0/0 = 0.00% with exit 0."""
    server = sim(model="m")
    total = len(load_samples("ceval", data_dir))
    config = ceval_config(tmp_path, server.base_url, range="5000:5100")
    run_dir = tmp_path / "out"
    assert main(["run", str(config), "--output", str(run_dir)]) == 2
    err = capsys.readouterr().err
    assert f"task ceval: range 5000:5100 selects no sample; the task has {total}" in err
    assert not (run_dir / "summary.json").exists()


# --- one shard plan per run directory -------------------------------------------------------


def test_writers_of_one_plan_share_a_run_and_other_plans_are_refused(tmp_path: Path) -> None:
    with RunLock(tmp_path, Shard(1, 2)), RunLock(tmp_path, Shard(2, 2)):
        with pytest.raises(
            JournalError,
            match=r"being run as shards of 2 \(--shard I/2\); "
            r"a full run \(no --shard\) would ask",
        ):
            RunLock(tmp_path, None).acquire()
        with pytest.raises(JournalError, match=r"shards of 3 \(--shard I/3\) would ask"):
            RunLock(tmp_path, Shard(1, 3)).acquire()
    # Once they have ended, any plan may start.
    with RunLock(tmp_path, None), pytest.raises(JournalError, match="being run as a full run"):
        RunLock(tmp_path, Shard(1, 2)).acquire()


def test_a_shard_beside_a_running_full_run_is_refused(tmp_path: Path, sim) -> None:
    """A plain run and a --shard 1/2 run on one directory used to ask samples twice."""
    # Long enough for the shard to start while the full run is still asking.
    server = sim(model="m", latency_s=0.5)
    config = write_config(
        tmp_path / "run.yaml",
        {
            "run": "r",
            "tasks": [{"name": "gsm8k"}],
            "models": [{"name": "m", "base_url": server.base_url, "concurrency": 2}],
        },
    )
    run_dir = tmp_path / "out"
    full = subprocess.Popen(
        [sys.executable, "-m", "thinkeval", "run", str(config), "--output", str(run_dir)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=ENV,
    )
    try:
        journal = run_dir / "journal" / "main.jsonl"
        deadline = time.monotonic() + 60
        while not (journal.exists() and journal.stat().st_size > 0):
            assert time.monotonic() < deadline and full.poll() is None, "the full run is not up"
            time.sleep(0.1)
        shard = subprocess.run(
            [
                sys.executable,
                "-m",
                "thinkeval",
                "run",
                str(config),
                "--output",
                str(run_dir),
                "--shard",
                "1/2",
            ],
            capture_output=True,
            text=True,
            env=ENV,
            timeout=60,
        )
        assert shard.returncode == 2, shard.stderr
        assert "Traceback" not in shard.stderr
        (line,) = [x for x in shard.stderr.splitlines() if x.startswith("error:")]
        assert "is being run as a full run (no --shard); shards of 2" in line
        assert not (run_dir / "journal" / "shard-1-of-2.jsonl").exists()
    finally:
        full.terminate()
        full.communicate(timeout=60)


# --- --shard auto ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("environ", "shard"),
    [
        (
            {
                "SLURM_ARRAY_TASK_ID": "0",
                "SLURM_ARRAY_TASK_MIN": "0",
                "SLURM_ARRAY_TASK_MAX": "3",
                "SLURM_ARRAY_TASK_COUNT": "4",
            },
            Shard(1, 4),
        ),
        (
            {
                "SLURM_ARRAY_TASK_ID": "12",
                "SLURM_ARRAY_TASK_MIN": "5",
                "SLURM_ARRAY_TASK_MAX": "12",
                "SLURM_ARRAY_TASK_COUNT": "8",
            },
            Shard(8, 8),
        ),
        (
            {
                "SLURM_ARRAY_TASK_ID": "4",
                "SLURM_ARRAY_TASK_MIN": "0",
                "SLURM_ARRAY_TASK_MAX": "6",
                "SLURM_ARRAY_TASK_STEP": "2",
                "SLURM_ARRAY_TASK_COUNT": "4",
            },
            Shard(3, 4),
        ),
        ({"JOB_COMPLETION_INDEX": "2", "THINKEVAL_SHARD_COUNT": "3"}, Shard(3, 3)),
    ],
    ids=["slurm-from-0", "slurm-from-5", "slurm-step-2", "k8s"],
)
def test_shard_auto_reads_the_scheduler(environ: dict[str, str], shard: Shard) -> None:
    assert shard_from_environment(environ)[0] == shard


@pytest.mark.parametrize(
    ("environ", "words"),
    [
        ({}, "no Slurm job array"),
        ({"JOB_COMPLETION_INDEX": "0"}, "THINKEVAL_SHARD_COUNT is not"),
        ({"JOB_COMPLETION_INDEX": "3", "THINKEVAL_SHARD_COUNT": "3"}, "is not below"),
        (
            {
                "SLURM_ARRAY_TASK_ID": "7",
                "SLURM_ARRAY_TASK_MIN": "1",
                "SLURM_ARRAY_TASK_MAX": "7",
                "SLURM_ARRAY_TASK_COUNT": "3",
            },
            "evenly spaced",
        ),
        (
            {
                "SLURM_ARRAY_TASK_ID": "x",
                "SLURM_ARRAY_TASK_MIN": "1",
                "SLURM_ARRAY_TASK_COUNT": "3",
            },
            "whole number",
        ),
    ],
)
def test_shard_auto_explains_what_is_missing(environ: dict[str, str], words: str) -> None:
    with pytest.raises(ValueError, match=words):
        shard_from_environment(environ)


def test_a_slurm_array_task_runs_its_shard(
    tmp_path: Path, sim, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    server = sim(model="m")
    for name, value in (
        ("SLURM_ARRAY_TASK_ID", "6"),
        ("SLURM_ARRAY_TASK_MIN", "5"),
        ("SLURM_ARRAY_TASK_MAX", "7"),
        ("SLURM_ARRAY_TASK_COUNT", "3"),
    ):
        monkeypatch.setenv(name, value)
    run_dir = tmp_path / "out"
    config = ceval_config(tmp_path, server.base_url, limit=30)
    assert main(["run", str(config), "--output", str(run_dir), "--shard", "auto"]) == 0
    assert "shard 2/3 (Slurm array task 6 of 5-7)" in capsys.readouterr().err
    assert [p.name for p in (run_dir / "journal").iterdir()] == ["shard-2-of-3.jsonl"]
    lines = (run_dir / "journal" / "shard-2-of-3.jsonl").read_text().splitlines()
    ids = {json.loads(line)["sample_id"] for line in lines}
    assert ids and all(Shard(2, 3).owns(sample) for sample in ids)


def test_the_cluster_examples_use_shard_auto_consistently() -> None:
    examples = Path(__file__).parent.parent / "examples"
    job = yaml.safe_load((examples / "k8s-job.yaml").read_text())
    spec = job["spec"]
    assert spec["completionMode"] == "Indexed"
    (container,) = spec["template"]["spec"]["containers"]
    env = {item["name"]: item.get("value") for item in container["env"]}
    assert env["THINKEVAL_SHARD_COUNT"] == str(spec["completions"])
    assert container["command"][-2:] == ["--shard", "auto"]
    sbatch = (examples / "slurm.sbatch").read_text()
    assert "#SBATCH --array=0-3" in sbatch and "--shard auto" in sbatch
