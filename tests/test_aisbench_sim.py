"""Importing a real AISBench output folder: AISBench 3.1 run against the simulator.

tests/fixtures/aisbench_sim/ was written by AISBench itself (tests/fixtures/make_aisbench_sim.py:
its GSM8K, BoolQ and C-Eval law configs, its vLLM chat model config, max_out_len 2048) against
`thinkeval sim --profile vllm-latest --seed 11 --p-empty 0.15`. A thinking reply whose content
was null reached AISBench as reasoning alone, and AISBench stored that reasoning alone, without
`</think>`. The import must read those as empty, the adaptive run must retry them, and `verify`
must agree with `summary.json` before and after.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import write_config
from thinkeval.cli import main
from thinkeval.ops.aisbench import AisbenchError, import_aisbench
from thinkeval.ops.verify import verify_run
from thinkeval.records import RETRY_STATUSES
from thinkeval.store.journal import iter_attempts

# The predictions answer real samples: every test here needs the real datasets.
pytestmark = pytest.mark.real_data

FIXTURE = Path(__file__).parent / "fixtures" / "aisbench_sim" / "20261201_043810"
PREDICTIONS = FIXTURE / "predictions" / "sim"
TASKS = {"gsm8k.jsonl": "gsm8k", "BoolQ.jsonl": "boolq", "ceval-law.jsonl": "ceval"}
SIM_KNOBS: dict[str, Any] = {
    "model": "sim-qwen3", "profile": "vllm-latest", "seed": 11, "p_empty": 0.15,
}  # fmt: skip


def null_content_ids() -> dict[str, set[str]]:
    """Per task, the samples whose prediction AISBench stored without `</think>`."""
    out: dict[str, set[str]] = {}
    for name, task in TASKS.items():
        prefix = "ceval/law" if task == "ceval" else task
        rows = [json.loads(line) for line in (PREDICTIONS / name).read_text().splitlines()]
        out[task] = {f"{prefix}/{row['id']}" for row in rows if "</think>" not in row["prediction"]}
    return out


def agrees(run_dir: Path) -> bool:
    """Whether `verify` and summary.json say the same: complete, candidates, retries pending."""
    found = verify_run(run_dir)
    summary = json.loads((run_dir / "summary.json").read_text())
    rows = {row["task"]: row for row in summary["results"]}
    assert found.complete == summary["complete"]
    for check in found.tasks:
        row = rows[check.task]
        assert check.candidates == row["retry"]["candidates"]
        assert len(check.missing_retry) == row["retry"]["pending"]
        assert check.fixed_recorded == row["total"] - row["fixed"]["pending"]
    return found.ok


def test_null_content_replies_import_as_empty_and_are_retried(
    tmp_path: Path, real_data_dir: Path, sim
) -> None:
    nulls = null_content_ids()
    assert all(nulls.values()), "the fixture holds null-content replies for every dataset"
    server = sim(**SIM_KNOBS)
    source = tmp_path / "outputs" / FIXTURE.name
    shutil.copytree(FIXTURE, source)
    run_dir = tmp_path / "run"
    result = import_aisbench(
        source, output=run_dir, data_dir=str(real_data_dir), base_url=server.base_url
    )
    assert result.thinking and "enable_thinking" in result.thinking_source
    imported = {a.sample_id: a for a in iter_attempts(run_dir)}
    for task, ids in nulls.items():
        assert result.counts[task]["empty"] == len(ids)
        for sample_id in ids:
            attempt = imported[sample_id]
            assert attempt.content is None and attempt.reasoning
            assert attempt.verdicts["strict"].status == "empty"
    assert not agrees(run_dir)  # the retries are still to be asked: incomplete, and both say so

    assert main(["run", str(result.config_path), "--output", str(run_dir)]) == 0
    retried = {a.sample_id for a in iter_attempts(run_dir) if a.phase == "retry"}
    candidates = {k for k, a in imported.items() if a.verdicts["strict"].status in RETRY_STATUSES}
    assert retried == candidates and set().union(*nulls.values()) <= retried
    assert agrees(run_dir)
    assert main(["verify", str(run_dir)]) == 0


def test_import_equals_a_live_run_of_the_same_model(
    tmp_path: Path, real_data_dir: Path, sim
) -> None:
    """The simulator is deterministic per prompt: a live thinkeval run's fixed phase is the
    truth the import must reproduce (a live `no_answer` is `unfinished` when imported, since
    AISBench keeps no finish_reason)."""
    server = sim(**SIM_KNOBS)
    source = tmp_path / "outputs" / FIXTURE.name
    shutil.copytree(FIXTURE, source)
    result = import_aisbench(source, output=tmp_path / "imported", data_dir=str(real_data_dir))
    written = yaml.safe_load(result.config_path.read_text())
    config = {
        "run": "live",
        "budgets": [2048, 8192],
        "data_dir": str(real_data_dir),
        "tasks": written["tasks"],  # the imported samples: 30 GSM8K, 30 BoolQ, 24 C-Eval law
        "models": [{"name": "sim", "base_url": server.base_url, "model": "sim-qwen3"}],
    }
    path = write_config(tmp_path / "live.yaml", config)
    assert main(["run", str(path), "--output", str(tmp_path / "live")]) == 0
    live = {
        a.sample_id: a.verdicts["strict"]
        for a in iter_attempts(tmp_path / "live")
        if a.phase == "fixed"
    }
    imported = {a.sample_id: a.verdicts["strict"] for a in iter_attempts(result.run_dir)}
    assert set(imported) == set(live)
    for sample_id, verdict in imported.items():
        truth = live[sample_id]
        expected = "unfinished" if truth.status == "no_answer" else truth.status
        assert (verdict.status, verdict.answer) == (expected, truth.answer), sample_id


def test_thinking_mode_from_flag_dump_or_predictions(tmp_path: Path, real_data_dir: Path) -> None:
    data = str(real_data_dir)
    source = tmp_path / "outputs" / FIXTURE.name
    shutil.copytree(FIXTURE, source)
    shutil.rmtree(source / "configs")  # no dump: the predictions holding </think> decide
    result = import_aisbench(source, output=tmp_path / "a", data_dir=data)
    assert result.thinking and result.thinking_source == "a prediction holds </think>"

    # A non-thinking model's predictions: content only, never a </think>.
    folder = source / "predictions" / "sim"
    for name in ("BoolQ.jsonl", "ceval-law.jsonl"):
        (folder / name).unlink()
    rows = [json.loads(line) for line in (folder / "gsm8k.jsonl").read_text().splitlines()]
    kept = [dict(r, prediction=r["prediction"].split("</think>")[-1]) for r in rows]
    kept = [r for r in kept if "</think>" in rows[r["id"]]["prediction"]]
    (folder / "gsm8k.jsonl").write_text("".join(json.dumps(r) + "\n" for r in kept))
    with pytest.raises(AisbenchError, match=r"pass --thinking .* or --no-thinking"):
        import_aisbench(source, output=tmp_path / "b", data_dir=data)
    result = import_aisbench(source, output=tmp_path / "c", data_dir=data, thinking=False)
    assert not result.thinking and result.thinking_source == "--no-thinking"
    assert result.counts["gsm8k"]["empty"] == 0
    assert result.counts["gsm8k"]["correct"] + result.counts["gsm8k"]["wrong"] > 0
    # The same predictions read as a thinking model's: every one is its reasoning alone.
    result = import_aisbench(source, output=tmp_path / "d", data_dir=data, thinking=True)
    assert result.counts["gsm8k"]["empty"] == len(kept)


def test_lenient_accuracy_is_the_accuracy_aisbench_reported(
    tmp_path: Path, real_data_dir: Path
) -> None:
    """AISBench's own summary of this very run (summary/*.csv) is what lenient must give."""
    [csv] = (FIXTURE / "summary").glob("*.csv")
    reported = {
        line.split(",")[0]: float(line.split(",")[-1]) for line in csv.read_text().splitlines()[1:]
    }
    names = {"gsm8k": "gsm8k", "BoolQ": "boolq", "ceval-law": "ceval"}
    source = tmp_path / "outputs" / FIXTURE.name
    shutil.copytree(FIXTURE, source)
    import_aisbench(source, output=tmp_path / "run", data_dir=str(real_data_dir))
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    lenient = {row["task"]: row["lenient"]["fixed_accuracy"] for row in summary["results"]}
    assert len(reported) == 3
    for dataset, accuracy in reported.items():
        assert round(100 * lenient[names[dataset]], 2) == accuracy, dataset
