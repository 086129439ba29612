"""The cluster examples as the clusters run them: a real Slurm job array, and the Kubernetes
Indexed Job's environment contract.

`examples/slurm.sbatch` is submitted unchanged to a real one-node Slurm (tests/slurm_cluster.py:
slurmctld, slurmd and munge on 127.0.0.1) as an array of 4; `examples/k8s-job.yaml`'s container
command and environment are run as its 4 pods would run them (a real cluster cannot run here).
Either way the shards' run directory must equal one process running the whole config: `verify`
clean, the same summary.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import write_config
from test_operations import ENV, model_entry, numbers, small_tasks, thinkeval
from thinkeval.cli import main
from thinkeval.results.summary import write_summary

EXAMPLES = Path(__file__).parent.parent / "examples"
SHARDS = 4


def _config(tmp_path: Path, url: str) -> Path:
    document = {"run": "cluster", "tasks": small_tasks(40), "models": [model_entry("m", url)]}
    return write_config(tmp_path / "run.yaml", document)


def _assert_equal_to_one_process(shared: Path, single: Path) -> None:
    journals = sorted(path.name for path in (shared / "journal").iterdir())
    assert journals == [f"shard-{i}-of-{SHARDS}.jsonl" for i in range(1, SHARDS + 1)]
    done = thinkeval("verify", str(shared))
    assert done.returncode == 0, done.stdout
    write_summary(shared)  # each shard wrote a snapshot when it ended; refresh after the last
    assert numbers(shared) == numbers(single)


@pytest.mark.slurm
def test_the_sbatch_example_runs_as_a_real_slurm_array_equal_to_one_process(
    tmp_path: Path, sim
) -> None:
    from slurm_cluster import Cluster

    server = sim(model="m", seed=41, p_long=0.25)
    config = _config(tmp_path, server.base_url)
    single, shared = tmp_path / "single", tmp_path / "shared"
    assert main(["run", str(config), "--output", str(single)]) == 0
    with Cluster() as cluster:
        environment = cluster.environment() | {
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
            "THINKEVAL_CONFIG": str(config),
            "THINKEVAL_OUTPUT": str(shared),
            "PYTHONUNBUFFERED": "1",
        }
        done = subprocess.run(
            ["sbatch", "--wait", str(EXAMPLES / "slurm.sbatch")],
            cwd=tmp_path,
            env=environment,
            capture_output=True,
            text=True,
            timeout=600,
        )
        logs = {p.name: p.read_text() for p in tmp_path.glob("thinkeval-*.out")}
        assert done.returncode == 0, (done.stdout, done.stderr, logs)
    assert len(logs) == SHARDS
    taken = sorted(line for text in logs.values() for line in text.splitlines() if "shard " in line)
    for index in range(SHARDS):
        assert any(
            f"shard {index + 1}/{SHARDS} (Slurm array task {index} of 0-3)" in line
            for line in taken
        ), taken
    _assert_equal_to_one_process(shared, single)


def test_the_indexed_job_example_s_pods_equal_one_process(tmp_path: Path, sim) -> None:
    """Each pod as Kubernetes starts it: the manifest's command and env, plus the
    JOB_COMPLETION_INDEX Kubernetes sets; the manifest's paths point into tmp_path."""
    job = yaml.safe_load((EXAMPLES / "k8s-job.yaml").read_text())
    spec = job["spec"]
    assert (spec["completionMode"], spec["completions"]) == ("Indexed", SHARDS)
    (container,) = spec["template"]["spec"]["containers"]
    server = sim(model="m", seed=43, p_long=0.25)
    config = _config(tmp_path, server.base_url)
    single, shared = tmp_path / "single", tmp_path / "shared"
    assert main(["run", str(config), "--output", str(single)]) == 0

    mounted = {"/config/compare.yaml": str(config), "/runs/qwen3-compare": str(shared)}
    command = [mounted.get(word, word) for word in container["command"]]
    assert command[:2] == ["thinkeval", "run"] and command[-2:] == ["--shard", "auto"]
    plain = {item["name"]: item["value"] for item in container["env"] if "value" in item}
    plain["HF_HOME"] = str(tmp_path / "hf-cache")  # the manifest's shared volume, here
    pods = [
        subprocess.Popen(
            [sys.executable, "-m", "thinkeval", *command[1:]],
            env=ENV | plain | {"JOB_COMPLETION_INDEX": str(index)},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for index in range(spec["completions"])
    ]
    for index, pod in enumerate(pods):
        _, err = pod.communicate(timeout=300)
        assert pod.returncode == 0, err
        assert f"shard {index + 1}/{SHARDS}" in err
    _assert_equal_to_one_process(shared, single)
