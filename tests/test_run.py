"""End to end: the CLI against simulators over real HTTP, on the fixture datasets (and one full run
on the real datasets, marked `real_data`)."""

from __future__ import annotations

import gc
import json
import os
import shutil
import subprocess
import sys
import urllib.request
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from conftest import kill_and_resume, write_config
from thinkeval.cli import main
from thinkeval.records import RETRY_STATUSES, Attempt, Sample
from thinkeval.results.summary import write_summary
from thinkeval.scoring.scorers import LENIENT, STRICT
from thinkeval.store.journal import Journal, iter_attempts
from thinkeval.store.rundir import read_samples
from thinkeval.tasks import get_task
from thinkeval.ui.progress import RunProgress

STATUSES = ("correct", "wrong", "no_answer", "empty", "unfinished", "error")


def stats(base_url: str, detail: bool = False) -> dict[str, Any]:
    root = base_url.removesuffix("/v1")
    with urllib.request.urlopen(f"{root}/sim/stats{'?detail=1' if detail else ''}") as resp:
        return json.load(resp)


def model_entry(name: str, url: str | list[str], **extra: Any) -> dict[str, Any]:
    entry = {
        "name": name,
        "base_url": url,
        "concurrency": 16,
        "retry_backoff_s": 0.01,
        "retry_backoff_max_s": 0.05,
        "generation": {"temperature": 0.0},
    }
    entry.update(extra)
    return entry


def small_tasks(n: int = 40) -> list[dict[str, Any]]:
    return [
        {"name": "ceval", "limit": n},
        {"name": "boolq", "limit": n},
        {"name": "gsm8k", "limit": n},
    ]


def summary_of(run_dir: Path) -> dict[str, Any]:
    data = json.loads((run_dir / "summary.json").read_text())
    return {(r["model"], r["task"]): r for r in data["results"]}


def numbers(run_dir: Path) -> dict[Any, Any]:
    """The summary without timestamps: what must match between equivalent runs."""
    return {
        key: {
            k: v
            for k, v in row.items()
            if k in ("total", "fixed", "retry", "adaptive", "lenient", "subjects")
        }
        for key, row in summary_of(run_dir).items()
    }


def assert_counts_add_up(row: dict[str, Any]) -> None:
    fixed, retry, adaptive = row["fixed"], row["retry"], row["adaptive"]
    assert sum(fixed[s] for s in STATUSES) == row["total"]
    assert fixed["pending"] == retry["pending"] == 0
    assert retry["candidates"] == fixed["empty"] + fixed["unfinished"]
    assert sum(retry[s] for s in STATUSES) == retry["candidates"]
    assert retry["answered"] == retry["correct"] + retry["wrong"]
    assert adaptive["correct"] == fixed["correct"] + retry["correct"]
    assert sum(adaptive[s] for s in STATUSES) == row["total"]
    assert fixed["accuracy"] == pytest.approx(fixed["correct"] / row["total"])
    assert adaptive["accuracy"] == pytest.approx(adaptive["correct"] / row["total"])


@pytest.mark.parametrize(
    "samples_fixture", ["all_samples", pytest.param("real_samples", marks=pytest.mark.real_data)]
)
def test_two_models_three_full_tasks(
    tmp_path: Path, sim, samples_fixture: str, request: pytest.FixtureRequest
) -> None:
    all_samples: dict[str, list[Sample]] = request.getfixturevalue(samples_fixture)
    a = sim(model="sim-bf16", seed=1)
    b = sim(model="sim-w8a8", seed=2, p_wrong=0.2, p_long=0.25, profile="vllm-0.10")
    config = write_config(
        tmp_path / "run.yaml",
        {
            "run": "full",
            "budgets": [2048, 8192],
            "tasks": ["ceval", "boolq", "gsm8k"],
            "models": [
                model_entry("sim-bf16", a.base_url, concurrency=64),
                model_entry("sim-w8a8", b.base_url, concurrency=64),
            ],
        },
    )
    run_dir = tmp_path / "out"
    assert main(["run", str(config), "--output", str(run_dir)]) == 0

    rows = summary_of(run_dir)
    assert set(rows) == {
        (m, t) for m in ("sim-bf16", "sim-w8a8") for t in ("ceval", "boolq", "gsm8k")
    }
    for (_, task), row in rows.items():
        assert row["total"] == len(all_samples[task])
        assert_counts_add_up(row)
        assert row["retry"]["candidates"] > 0 and row["retry"]["correct"] > 0
    ceval = rows["sim-bf16", "ceval"]["subjects"]
    assert {k: v["total"] for k, v in ceval.items()} == Counter(
        s.subset for s in all_samples["ceval"]
    )
    assert (
        sum(v["adaptive"]["correct"] for v in ceval.values())
        == rows["sim-bf16", "ceval"]["adaptive"]["correct"]
    )

    # Exactly once per phase, retries only for empty/unfinished fixed verdicts.
    phases = Counter((x.model, x.sample_id, x.phase) for x in iter_attempts(run_dir))
    assert set(phases.values()) == {1}
    fixed_status = {
        (x.model, x.sample_id): x.recorded_status()
        for x in iter_attempts(run_dir)
        if x.phase == "fixed"
    }
    retried = {(m, s) for (m, s, p) in phases if p == "retry"}
    assert retried == {k for k, v in fixed_status.items() if v in RETRY_STATUSES}
    for server in (a, b):
        served = stats(server.base_url)
        model = server.config.model
        expected = sum(1 for (m, _, _) in phases if m == model)
        assert served["completed"] == expected

    # The run directory holds the resolved config and each model's card.
    assert json.loads((run_dir / "config.json").read_text())["budgets"] == [2048, 8192]
    card = json.loads((run_dir / "models" / "sim-w8a8.json").read_text())
    assert card["id"] == "sim-w8a8" and card["max_model_len"] == 40960
    recorded = read_samples(run_dir, "gsm8k")
    assert recorded == all_samples["gsm8k"]  # prompts kept exactly, exemplars stored once
    exemplars = len(json.dumps(recorded[0].messages[:-1]))
    assert (run_dir / "samples" / "gsm8k.jsonl").stat().st_size < len(recorded) * exemplars


def test_a_run_holds_only_the_prompts_it_is_working_on(
    tmp_path: Path, sim, monkeypatch: pytest.MonkeyPatch, all_samples: dict[str, list[Sample]]
) -> None:
    # What keeps memory flat in the run length: samples stream from the samples file, so the
    # live Sample objects stay near the number of requests in flight, not the dataset's length.
    server = sim(model="m", seed=6, p_long=0.3)
    config = write_config(
        tmp_path / "run.yaml",
        {
            "run": "stream",
            "tasks": ["gsm8k", "boolq", "ceval"],
            "models": [model_entry("m", server.base_url, concurrency=8)],
        },
    )
    total = sum(len(samples) for samples in all_samples.values())
    bound = 4 * 8
    assert total > 2 * bound  # a loaded dataset would be well over the bound
    live: list[int] = []
    record = RunProgress.record

    def samples_alive() -> int:
        gc.unfreeze()  # the run freezes what it imported; frozen objects are not listed
        gc.collect()  # count what is reachable, not garbage waiting for the collector
        return sum(isinstance(o, Sample) for o in gc.get_objects())

    before = samples_alive()  # the simulator's answer key holds its own

    def counting(self: RunProgress, attempt: Attempt) -> None:
        record(self, attempt)
        if sum(row.done for row in self.rows.values()) % 25 == 0:
            live.append(samples_alive() - before)

    monkeypatch.setattr(RunProgress, "record", counting)
    assert main(["run", str(config), "--output", str(tmp_path / "out")]) == 0
    assert len(live) >= total // 25  # the fixed requests and their retries, sampled every 25
    assert max(live) <= bound, live  # not the whole dataset a loaded run would hold


def test_rerun_asks_nothing_and_gives_the_same_numbers(tmp_path: Path, sim) -> None:
    server = sim(model="m", seed=3)
    config = write_config(
        tmp_path / "run.yaml",
        {"run": "again", "tasks": small_tasks(), "models": [model_entry("m", server.base_url)]},
    )
    run_dir = tmp_path / "out"
    assert main(["run", str(config), "--output", str(run_dir)]) == 0
    first = numbers(run_dir)
    asked = stats(server.base_url)["requests"]
    assert main(["run", str(config), "--output", str(run_dir)]) == 0
    assert stats(server.base_url)["requests"] == asked
    assert numbers(run_dir) == first


@dataclass
class Done:
    """A finished run of one simulated model: where it is and what it counted."""

    base_url: str
    config: Path
    run_dir: Path
    numbers: dict[Any, Any]


def run_small(tmp_path: Path, sim, n: int, **knobs: Any) -> Done:
    server = sim(model="m", **knobs)
    config = write_config(
        tmp_path / "run.yaml",
        {"run": "small", "tasks": small_tasks(n), "models": [model_entry("m", server.base_url)]},
    )
    run_dir = tmp_path / "out"
    assert main(["run", str(config), "--output", str(run_dir)]) == 0
    return Done(server.base_url, config, run_dir, numbers(run_dir))


def test_summary_reuses_recorded_verdicts_only_when_they_are_current(tmp_path: Path, sim) -> None:
    done = run_small(tmp_path, sim, 30, seed=4, p_long=0.3, p_wrong=0.3)
    run_dir, first, journal = done.run_dir, done.numbers, done.run_dir / "journal" / "main.jsonl"
    rows = [json.loads(line) for line in journal.read_text().splitlines()]
    for row in rows:
        spec = get_task(row["task"])
        assert row["verdicts"]["strict"]["version"] == STRICT.version_for(spec)
        assert row["verdicts"]["lenient"]["version"] == LENIENT.version_for(spec)

    def rewrite(change) -> dict[Any, Any]:
        journal.write_text("".join(json.dumps(change(dict(row))) + "\n" for row in rows))
        write_summary(run_dir)
        return numbers(run_dir)

    def lie(row: dict[str, Any], version: str | None = None) -> dict[str, Any]:
        # Recorded verdicts that re-scoring would not give: every reply "correct".
        verdicts = {
            name: {**verdict, "status": "correct", "version": version or verdict["version"]}
            for name, verdict in row["verdicts"].items()
        }
        return {**row, "verdicts": verdicts}

    # Scored by another scorer version, or against another gold: scored again, same numbers.
    assert rewrite(lambda row: lie(row, version="0")) == first
    assert rewrite(lambda row: {**lie(row), "gold": "not the gold"}) == first
    assert rewrite(lambda row: {**row, "verdicts": {}}) == first
    # Current version and gold: the recorded verdicts are what the summary counts.
    lied = rewrite(lie)
    assert all(row["fixed"]["correct"] == row["total"] for row in lied.values())


def test_resume_asks_the_retries_the_journal_calls_for(tmp_path: Path, sim) -> None:
    done = run_small(tmp_path, sim, 50, seed=8, p_long=0.4, p_empty=0.1)
    journal = done.run_dir / "journal" / "main.jsonl"
    lines = journal.read_text().splitlines(keepends=True)
    fixed_only = [line for line in lines if json.loads(line)["phase"] == "fixed"]
    retries = len(lines) - len(fixed_only)
    assert retries > 10
    journal.write_text("".join(fixed_only))  # as if killed right after the fixed phase
    asked = stats(done.base_url)["requests"]

    assert main(["run", str(done.config), "--output", str(done.run_dir)]) == 0
    assert stats(done.base_url)["requests"] - asked == retries
    assert numbers(done.run_dir) == done.numbers  # same prompts (read back by offset), same replies


def test_a_second_process_on_a_running_run_changes_nothing(tmp_path: Path, sim, capsys) -> None:
    done = run_small(tmp_path, sim, 20, seed=9)
    samples = {p.name: p.read_bytes() for p in (done.run_dir / "samples").iterdir()}
    config = (done.run_dir / "config.json").read_bytes()
    bigger = write_config(
        tmp_path / "bigger.yaml",
        {"run": "small", "tasks": small_tasks(40), "models": [model_entry("m", done.base_url)]},
    )
    with Journal(done.run_dir, "main"):  # the first process, still running
        code = main(["run", str(bigger), "--output", str(done.run_dir)])
    assert code == 2
    assert "another thinkeval process is writing this run" in capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in (done.run_dir / "samples").iterdir()} == samples
    assert (done.run_dir / "config.json").read_bytes() == config


def test_lenient_inflates_truncated_replies(tmp_path: Path, sim) -> None:
    server = sim(model="m", seed=5, p_long=0.4)
    config = write_config(
        tmp_path / "run.yaml",
        {"run": "lenient", "tasks": ["gsm8k"], "models": [model_entry("m", server.base_url)]},
    )
    run_dir = tmp_path / "out"
    assert main(["run", str(config), "--output", str(run_dir)]) == 0
    row = summary_of(run_dir)["m", "gsm8k"]
    assert row["lenient"]["fixed_accuracy"] > row["fixed"]["accuracy"]


def test_sigkill_at_random_moments_then_resume_gives_identical_numbers(tmp_path: Path, sim) -> None:
    knobs = {"model": "m", "seed": 11, "per_token_s": 0.00002, "latency_s": 0.01}
    clean_sim, killed_sim = sim(**knobs), sim(**knobs)
    tasks = small_tasks(60)
    clean = write_config(
        tmp_path / "clean.yaml",
        {"run": "clean", "tasks": tasks, "models": [model_entry("m", clean_sim.base_url)]},
    )
    killed = write_config(
        tmp_path / "killed.yaml",
        {"run": "killed", "tasks": tasks, "models": [model_entry("m", killed_sim.base_url)]},
    )
    assert main(["run", str(clean), "--output", str(tmp_path / "clean")]) == 0
    kill_and_resume(killed, tmp_path / "killed", kills=5)

    assert numbers(tmp_path / "killed") == numbers(tmp_path / "clean")
    phases = Counter(
        (x.sample_id, x.phase) for x in iter_attempts(tmp_path / "killed") if x.error is None
    )
    assert set(phases.values()) == {1}


def test_faults_end_with_the_verdicts_of_a_clean_run(tmp_path: Path, sim) -> None:
    clean_sim = sim(model="m", seed=23)
    faulty_sim = sim(
        model="m",
        seed=23,
        fault_500=0.10,
        fault_429=0.05,
        retry_after_s=0.02,
        fault_reset=0.02,
        fault_timeout=0.01,
        stall_s=30,
        fault_malformed=0.01,
    )
    tasks = small_tasks(80)
    runs = {}
    for name, server in (("clean", clean_sim), ("faulty", faulty_sim)):
        config = write_config(
            tmp_path / f"{name}.yaml",
            {
                "run": name,
                "tasks": tasks,
                "models": [model_entry("m", server.base_url, timeout_s=1.0, max_retries=12)],
            },
        )
        assert main(["run", str(config), "--output", str(tmp_path / name)]) == 0
        runs[name] = {
            (x.sample_id, x.phase): x.recorded_status() for x in iter_attempts(tmp_path / name)
        }
    assert runs["faulty"] == runs["clean"]
    faults = stats(faulty_sim.base_url)["faults"]
    assert all(faults.get(kind, 0) > 0 for kind in ("500", "429", "reset", "malformed")), faults


def test_errors_are_counted_apart_and_rerun_retries_only_them(tmp_path: Path, sim) -> None:
    down = sim(model="m", seed=4, fault_500=0.999)
    config_data = {
        "run": "errs",
        "tasks": [{"name": "boolq", "limit": 20}],
        "models": [model_entry("m", down.base_url, max_retries=1)],
    }
    config = write_config(tmp_path / "run.yaml", config_data)
    run_dir = tmp_path / "out"
    assert main(["run", str(config), "--output", str(run_dir)]) == 1
    row = summary_of(run_dir)["m", "boolq"]
    assert row["fixed"]["error"] == 20 and row["fixed"]["correct"] == 0
    assert row["fixed"]["accuracy"] == 0.0

    up = sim(model="m", seed=4)
    config_data["models"] = [model_entry("m", up.base_url)]
    write_config(tmp_path / "run.yaml", config_data)
    assert main(["run", str(config), "--output", str(run_dir)]) == 0
    row = summary_of(run_dir)["m", "boolq"]
    assert row["fixed"]["error"] == 0
    assert_counts_add_up(row)
    fixed_asked = stats(up.base_url)["requests"] - row["retry"]["candidates"]
    assert fixed_asked == 20


def test_served_model_mismatch_is_refused(tmp_path: Path, sim, capsys) -> None:
    server = sim(model="other-model")
    config = write_config(
        tmp_path / "run.yaml",
        {
            "run": "mismatch",
            "tasks": small_tasks(5),
            "models": [model_entry("expected-model", server.base_url)],
        },
    )
    assert main(["run", str(config), "--output", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "serves other-model, not 'expected-model'" in err
    assert stats(server.base_url)["requests"] == 0


def test_server_redeployed_mid_run_stops_cleanly(tmp_path: Path, sim, capsys) -> None:
    server = sim(model="m", seed=8, switch_model_after=30)
    config = write_config(
        tmp_path / "run.yaml",
        {
            "run": "switch",
            "tasks": small_tasks(40),
            "models": [model_entry("m", server.base_url, concurrency=4)],
        },
    )
    run_dir = tmp_path / "out"
    assert main(["run", str(config), "--output", str(run_dir)]) == 2
    assert "no longer serves 'm'" in capsys.readouterr().err
    recorded = list(iter_attempts(run_dir))
    assert 0 < len(recorded) <= 30
    assert all(x.error is None for x in recorded)  # the 404s were not recorded as answers


@pytest.mark.parametrize("profile", ["vllm-0.10", "vllm-0.13", "sglang", "openai"])
def test_every_server_era_gives_the_same_verdicts(tmp_path: Path, sim, profile: str) -> None:
    reference, other = sim(model="m", seed=9), sim(model="m", seed=9, profile=profile)
    verdicts = []
    # OpenAI's API wants max_completion_tokens: the model says `api: openai`.
    api = {"api": "openai"} if profile == "openai" else {}
    for name, server, extra in (("ref", reference, {}), ("era", other, api)):
        config = write_config(
            tmp_path / f"{name}.yaml",
            {
                "run": name,
                "tasks": small_tasks(40),
                "models": [model_entry("m", server.base_url, **extra)],
            },
        )
        assert main(["run", str(config), "--output", str(tmp_path / name)]) == 0
        verdicts.append(
            {(x.sample_id, x.phase): x.recorded_status() for x in iter_attempts(tmp_path / name)}
        )
    assert verdicts[0] == verdicts[1]


def test_streaming_gives_the_same_verdicts_and_records_ttft(tmp_path: Path, sim) -> None:
    server = sim(model="m", seed=12)
    verdicts = []
    for stream in (False, True):
        name = f"s{int(stream)}"
        config = write_config(
            tmp_path / f"{name}.yaml",
            {
                "run": name,
                "tasks": small_tasks(30),
                "models": [model_entry("m", server.base_url, stream=stream)],
            },
        )
        assert main(["run", str(config), "--output", str(tmp_path / name)]) == 0
        attempts = list(iter_attempts(tmp_path / name))
        verdicts.append(
            {
                (x.sample_id, x.phase): (x.recorded_status(), x.content, x.reasoning)
                for x in attempts
            }
        )
        assert all((x.ttft_s is not None) == stream for x in attempts)
    assert verdicts[0] == verdicts[1]


@pytest.mark.parametrize("profile", ["vllm-0.10", "vllm-latest"])
def test_retry_budget_is_clamped_to_the_context(tmp_path: Path, sim, profile: str) -> None:
    server = sim(model="m", seed=13, max_model_len=6000, p_long=0.5, profile=profile)
    config = write_config(
        tmp_path / "run.yaml",
        {
            "run": "clamp",
            "tasks": [{"name": "gsm8k", "limit": 30}],
            "models": [model_entry("m", server.base_url)],
        },
    )
    assert main(["run", str(config), "--output", str(tmp_path / "out")]) == 0
    retries = [x for x in iter_attempts(tmp_path / "out") if x.phase == "retry"]
    assert retries and all(x.error is None for x in retries)
    for x in retries:
        assert x.clamped_from == 8192
        assert x.max_tokens + x.usage.prompt_tokens <= 6000


def test_replicas_share_the_work_and_a_dead_one_is_avoided(tmp_path: Path, sim) -> None:
    one, two = sim(model="m", seed=14), sim(model="m", seed=14)
    dead = "http://127.0.0.1:9/v1"  # discard port: connection refused
    config = write_config(
        tmp_path / "run.yaml",
        {
            "run": "replicas",
            "tasks": small_tasks(30),
            "models": [model_entry("m", [one.base_url, two.base_url, dead], max_retries=20)],
        },
    )
    assert main(["run", str(config), "--output", str(tmp_path / "out")]) == 0
    endpoints = Counter(x.endpoint for x in iter_attempts(tmp_path / "out"))
    assert endpoints[one.base_url] > 10 and endpoints[two.base_url] > 10
    assert dead not in endpoints


def test_api_key_and_url_credentials_never_reach_the_run_directory(
    tmp_path: Path, sim, monkeypatch, capsys
) -> None:
    server = sim(model="m", seed=15)
    monkeypatch.setenv("TE_TEST_KEY", "sk-very-secret-key-0123")
    url = server.base_url.replace("http://", "http://alice:pa55word@")
    config = write_config(
        tmp_path / "run.yaml",
        {
            "run": "secret",
            "tasks": small_tasks(5),
            "models": [
                model_entry("m", server.base_url, api_key_env="TE_TEST_KEY"),
                model_entry("m2", url, model="m"),
            ],
        },
    )
    run_dir = tmp_path / "out"
    assert main(["run", str(config), "--output", str(run_dir)]) == 0
    output = capsys.readouterr()
    for path in run_dir.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert b"sk-very-secret-key-0123" not in data, path
            assert b"pa55word" not in data, path
    assert "sk-very-secret" not in output.out + output.err
    assert "pa55word" not in output.out + output.err


def test_model_and_task_filters_run_only_that_part(tmp_path: Path, sim) -> None:
    a, b = sim(model="a", seed=16), sim(model="b", seed=17)
    config = write_config(
        tmp_path / "run.yaml",
        {
            "run": "parts",
            "tasks": small_tasks(10),
            "models": [model_entry("a", a.base_url), model_entry("b", b.base_url)],
        },
    )
    run_dir = tmp_path / "out"
    assert (
        main(["run", str(config), "--output", str(run_dir), "--model", "b", "--task", "boolq"]) == 0
    )
    assert stats(a.base_url)["requests"] == 0
    assert {(x.model, x.task) for x in iter_attempts(run_dir)} == {("b", "boolq")}
    assert set(summary_of(run_dir)) == {("a", "boolq"), ("b", "boolq")}
    assert summary_of(run_dir)["a", "boolq"]["fixed"]["pending"] == 10
    assert main(["run", str(config), "--output", str(run_dir)]) == 0  # then the rest
    rows = summary_of(run_dir)
    assert len(rows) == 6
    for row in rows.values():
        assert_counts_add_up(row)


def test_changed_prompts_refuse_to_resume_and_can_keep_the_recorded_ones(
    tmp_path: Path, sim, data_dir: Path
) -> None:
    done = run_small(tmp_path, sim, 4, seed=3)
    recorded = (done.run_dir / "samples" / "gsm8k.jsonl").read_bytes()
    # Another data dir whose first GSM8K question differs: the prompts no longer match.
    other = tmp_path / "data"
    shutil.copytree(data_dir / "gsm8k", other / "gsm8k")
    shutil.copytree(data_dir / "ceval", other / "ceval")
    shutil.copytree(data_dir / "boolq", other / "boolq")
    test_file = other / "gsm8k" / "test.jsonl"
    lines = test_file.read_text(encoding="utf-8").splitlines(keepends=True)
    first = json.loads(lines[0])
    lines[0] = json.dumps({**first, "question": first["question"] + " Be quick."}) + "\n"
    test_file.write_text("".join(lines), encoding="utf-8")
    argv = ["run", str(done.config), "--output", str(done.run_dir)]
    env = {"THINKEVAL_DATA_DIR": str(other)}
    proc = subprocess.run(
        [sys.executable, "-m", "thinkeval", *argv],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=120,
    )
    assert proc.returncode == 2
    assert "gsm8k/0: its prompt changed" in proc.stderr
    assert "--keep-recorded-samples" in proc.stderr and "Traceback" not in proc.stderr
    assert (done.run_dir / "samples" / "gsm8k.jsonl").read_bytes() == recorded
    kept = subprocess.run(
        [sys.executable, "-m", "thinkeval", *argv, "--keep-recorded-samples"],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=120,
    )
    assert kept.returncode == 0, kept.stderr
    assert (done.run_dir / "samples" / "gsm8k.jsonl").read_bytes() == recorded
    assert numbers(done.run_dir) == done.numbers


def test_rescore_shows_what_an_upgrade_changes_and_keeps_the_numbers(
    tmp_path: Path, sim, capsys
) -> None:
    done = run_small(tmp_path, sim, 20, seed=6, p_long=0.3, p_wrong=0.3)
    journal = done.run_dir / "journal" / "main.jsonl"
    rows = [json.loads(line) for line in journal.read_text().splitlines()]
    # As an older thinkeval would have recorded them: another version, every reply "correct".
    aged = []
    for row in rows:
        if row["verdicts"]:
            row["verdicts"] = {
                name: {**verdict, "status": "correct", "version": "0"}
                for name, verdict in row["verdicts"].items()
            }
        aged.append(json.dumps(row) + "\n")
    journal.write_text("".join(aged))
    capsys.readouterr()
    assert main(["rescore", str(done.run_dir), "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    strict = {r["task"]: r for r in found["scorers"] if r["scorer"] == "strict"}
    counted = {t: sum(1 for r in rows if r["task"] == t and r["verdicts"]) for t in strict}
    for task, row in strict.items():
        assert row["stale"] == row["replies"]  # every recorded verdict was of another version
        not_correct = sum(t["count"] for t in row["transitions"] if t["recorded"] == "correct")
        assert row["changed"] == not_correct > 0
        assert row["replies"] <= counted[task]
    assert numbers(done.run_dir) == done.numbers  # the rewritten summary is the true one
    assert main(["rescore", str(done.run_dir)]) == 0
    shown = capsys.readouterr().out
    assert "correct→wrong" in shown and "summary.json rewritten" in shown
