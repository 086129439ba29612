"""`thinkeval import-aisbench`: hand-made AISBench folders in, a resumable thinkeval run out.

The folder's records are replies to real samples (their prompts and golds), so the tests that
import it are marked `real_data`."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from thinkeval.cli import import_aisbench as import_command
from thinkeval.cli import main
from thinkeval.errors import ThinkevalError
from thinkeval.ops import aisbench
from thinkeval.ops.aisbench import AisbenchError, split_prediction
from thinkeval.ops.aisbench.reading import imported_state
from thinkeval.records import RETRY_STATUSES, Attempt
from thinkeval.store.journal import iter_attempts
from thinkeval.store.protocol_rules import attempt_state
from thinkeval.store.rundir import read_samples
from thinkeval.tasks import get_task

FIXTURE = Path(__file__).parent / "fixtures" / "aisbench" / "20250628_151326"
MODEL = "vllm-api-general-chat"
PREDICTIONS = Path("predictions") / MODEL
# What the fixture's records are, by construction (see the files).
EXPECTED = {
    "gsm8k/0": "correct",
    "gsm8k/1": "wrong",
    "gsm8k/2": "empty",  # cut inside <think>: no content
    "gsm8k/3": "unfinished",  # finished text without a legal answer
    "gsm8k/4": "empty",  # reasoning only (no </think>): AISBench stored it, the content was empty
    "gsm8k/5": "error",  # a failed request
    "ceval/law/0": "correct",
    "ceval/law/1": "empty",
    "ceval/law/2": "unfinished",
    "boolq/0": "correct",
    "boolq/1": "wrong",
}
CANDIDATES = {k for k, v in EXPECTED.items() if v in RETRY_STATUSES}
STATUSES = ("correct", "wrong", "no_answer", "empty", "unfinished", "error")


def import_cli(*argv: str | Path) -> int:
    parser = argparse.ArgumentParser()
    import_command.add_arguments(parser)
    return import_command.run(parser.parse_args([str(a) for a in argv]))


def copy_fixture(tmp_path: Path) -> Path:
    target = tmp_path / "outputs" / "default" / FIXTURE.name
    shutil.copytree(FIXTURE, target)
    return target


def sim_stats(base_url: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{base_url.removesuffix('/v1')}/sim/stats") as resp:
        return json.load(resp)


@pytest.mark.real_data
def test_import_judges_each_record_from_its_text(
    tmp_path: Path, real_data_dir: Path, capsys
) -> None:
    run_dir = tmp_path / "run"
    assert import_cli(FIXTURE, "--output", run_dir, "--data-dir", real_data_dir) == 0
    attempts = {a.sample_id: a for a in iter_attempts(run_dir)}
    assert {k: a.recorded_status() for k, a in attempts.items()} == EXPECTED
    for attempt in attempts.values():
        assert attempt.phase == "fixed" and attempt.imported_from == "aisbench"
        assert attempt.budget == attempt.max_tokens == 2048
        assert attempt.request["imported_from"] == "aisbench"
        assert attempt.request["source_file"].startswith(f"predictions/{MODEL}/")

    correct = attempts["gsm8k/0"]
    assert correct.reasoning == "\nJanet has 16 - 3 - 4 = 9 eggs left to sell.\n"
    assert correct.content is not None and correct.content.endswith("The answer is 18")
    assert correct.finish_reason is None and correct.verdicts["strict"].answer == "18"
    assert correct.usage.prompt_tokens == 880 and correct.usage.completion_tokens == 118
    # reasoning + "</think>" + content, as AISBench joins them, without an opening tag
    assert attempts["gsm8k/1"].reasoning == "Okay, 2 bolts of blue and half that of white.\n"
    cut = attempts["ceval/law/1"]
    assert cut.content is None and cut.reasoning is not None and cut.reasoning.startswith("\n业主")
    inferred = attempts["gsm8k/4"]
    assert inferred.finish_reason == "length" and inferred.content is None
    assert inferred.reasoning is not None and inferred.reasoning.startswith("Each chicken")
    assert inferred.request["finish_reason_inferred"] == "output_tokens >= max_tokens"
    assert attempts["gsm8k/3"].finish_reason is None  # unfinished by the text alone
    failed = attempts["gsm8k/5"]
    assert failed.error == "Request timed out after 3600 s"
    assert failed.error_kind == "imported"
    assert failed.request["source_file"] == f"predictions/{MODEL}/gsm8k_failed.jsonl"
    assert attempts["boolq/0"].usage.completion_tokens is None  # AISBench's 0: not counted

    out = capsys.readouterr().out
    assert "thinkeval run" in out and str(run_dir / "aisbench-import.yaml") in out


@pytest.mark.real_data
def test_import_writes_a_run_directory(tmp_path: Path, real_data_dir: Path) -> None:
    run_dir = tmp_path / "run"
    import_cli(FIXTURE, "--output", run_dir, "--data-dir", real_data_dir, "--run", "qwen3-import")
    config = json.loads((run_dir / "config.json").read_text())
    assert config["run"] == "qwen3-import" and config["budgets"] == [2048, 8192]
    [model] = config["models"]
    # From the AISBench config dump: served id, address, batch size and sampling settings.
    assert model["name"] == MODEL and model["model"] == "sim-qwen3"
    assert model["base_url"] == "http://localhost:8080/v1" and model["concurrency"] == 16
    assert model["generation"]["temperature"] == 0.6
    assert model["generation"]["chat_template_kwargs"] == {"enable_thinking": True}
    assert [(t["name"], t["limit"], t["range"]) for t in config["tasks"]] == [
        ("boolq", 2, None),
        ("ceval", None, "186:189"),
        ("gsm8k", 6, None),
    ]
    assert all(t["version"] == "1" and t["digest"] for t in config["tasks"])
    samples = read_samples(run_dir, "ceval")
    assert [s.id for s in samples] == [f"ceval/law/{i}" for i in range(3)]
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["complete"] is False  # the retries are still to be asked
    written = yaml.safe_load((run_dir / "aisbench-import.yaml").read_text())
    assert written["run"] == "qwen3-import" and written["models"][0]["model"] == "sim-qwen3"


@pytest.mark.real_data
def test_adaptive_phase_asks_only_the_candidates(tmp_path: Path, real_data_dir: Path, sim) -> None:
    server = sim(model="sim-qwen3", seed=11)
    run_dir = tmp_path / "run"
    assert (
        import_cli(
            FIXTURE, "--output", run_dir, "--data-dir", real_data_dir, "--base-url", server.base_url
        )
        == 0
    )
    assert sim_stats(server.base_url)["requests"] == 0  # importing asks nothing

    config = run_dir / "aisbench-import.yaml"
    assert main(["run", str(config), "--output", str(run_dir)]) == 0
    asked = [a for a in iter_attempts(run_dir) if a.imported_from is None]
    assert sim_stats(server.base_url)["requests"] == len(asked)
    fixed = {a.sample_id for a in asked if a.phase == "fixed"}
    retried = {a.sample_id for a in asked if a.phase == "retry"}
    assert fixed == {"gsm8k/5"}  # the failed request, asked again at the fixed budget
    new_candidates = {
        a.sample_id for a in asked if a.phase == "fixed" and a.state in RETRY_STATUSES
    }
    assert retried == CANDIDATES | new_candidates
    assert all(a.max_tokens == 8192 for a in asked if a.phase == "retry")

    rows = {r["task"]: r for r in json.loads((run_dir / "summary.json").read_text())["results"]}
    assert set(rows) == {"ceval", "boolq", "gsm8k"}
    for task, row in rows.items():
        fixed_row, retry, adaptive = row["fixed"], row["retry"], row["adaptive"]
        assert sum(fixed_row[s] for s in STATUSES) == row["total"]
        assert fixed_row["pending"] == retry["pending"] == 0
        assert retry["candidates"] == fixed_row["empty"] + fixed_row["unfinished"]
        assert sum(retry[s] for s in STATUSES) == retry["candidates"]
        assert adaptive["correct"] == fixed_row["correct"] + retry["correct"]
        assert sum(adaptive[s] for s in STATUSES) == row["total"]
        imported = Counter(v for k, v in EXPECTED.items() if k.split("/")[0] == task and v)
        if task != "gsm8k":  # gsm8k/5 was answered by the simulator
            assert {s: fixed_row[s] for s in imported} == dict(imported)
    assert rows["ceval"]["retry"]["candidates"] == 2
    assert rows["gsm8k"]["fixed"]["empty"] >= 2 and rows["gsm8k"]["fixed"]["error"] == 0

    # Running again asks nothing more.
    requests = sim_stats(server.base_url)["requests"]
    assert main(["run", str(config), "--output", str(run_dir)]) == 0
    assert sim_stats(server.base_url)["requests"] == requests


@pytest.mark.real_data
def test_json_and_jsonl_layouts_import_alike(tmp_path: Path, real_data_dir: Path) -> None:
    source = copy_fixture(tmp_path)
    folder = source / PREDICTIONS
    # gsm8k as the older dict-of-index .json; ceval-law as .jsonl records with extra fields.
    lines = (folder / "gsm8k.jsonl").read_text(encoding="utf-8").splitlines()
    records = {str(json.loads(line)["id"]): json.loads(line) for line in lines}
    (folder / "gsm8k.jsonl").unlink()
    (folder / "gsm8k.json").write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
    law = json.loads((folder / "ceval-law.json").read_text(encoding="utf-8"))
    (folder / "ceval-law.json").unlink()
    (folder / "ceval_law.jsonl").write_text(
        "".join(
            json.dumps({"id": int(k), "extra": {"x": 1}, **v}, ensure_ascii=False) + "\n"
            for k, v in law.items()
        ),
        encoding="utf-8",
    )
    (folder / "SuperGLUE_BoolQ.jsonl").write_bytes((folder / "BoolQ.jsonl").read_bytes())
    (folder / "BoolQ.jsonl").unlink()
    run_dir = tmp_path / "run"
    # The parent folder works too when it holds exactly one AISBench run.
    import_cli(source.parent, "--output", run_dir, "--data-dir", real_data_dir)
    assert {a.sample_id: a.recorded_status() for a in iter_attempts(run_dir)} == EXPECTED


@pytest.mark.parametrize(
    ("text", "thinking", "content", "reasoning"),
    [
        ("<think>\nR\n</think>\n\nThe answer is 4", True, "\n\nThe answer is 4", "\nR\n"),
        ("R</think>A</think>B", True, "B", "R</think>A"),  # the last </think> ends the reasoning
        ("<think>\nOkay, 2+2", True, None, "\nOkay, 2+2"),
        ("<think>\nOkay, 2+2", False, None, "\nOkay, 2+2"),
        # AISBench stores a thinking model's reasoning alone when the content was empty
        ("Okay, 2+2 is 4. The answer is 4", True, None, "Okay, 2+2 is 4. The answer is 4"),
        ("The answer is 4", False, "The answer is 4", None),
        ("R</think>", True, None, "R"),
        ("R</think>  ", True, "  ", "R"),
        ("", True, None, None),
        (None, False, None, None),
    ],
)
def test_split_prediction(
    text: str | None, thinking: bool, content: str | None, reasoning: str | None
) -> None:
    assert split_prediction(text, thinking) == (content, reasoning)


def test_imported_replies_without_a_legal_answer_count_as_cut_off() -> None:
    gsm8k = get_task("gsm8k")
    assert imported_state(gsm8k, "no idea", None, "4") == "unfinished"
    assert imported_state(gsm8k, "The answer is 5", None, "4") == "finished"  # a wrong answer
    assert imported_state(gsm8k, "no idea", "stop", "4") == "finished"  # the end is known
    assert imported_state(gsm8k, None, None, "4") == "empty"


@pytest.mark.parametrize(
    ("task", "content", "state"),
    [
        # went on after the answer and stops mid-sentence: cut by the limit, retried
        ("gsm8k", "The answer is 4.\n\nLet me double-check: 2 + 2", "unfinished"),
        ("gsm8k", "The answer is 4.\n\nTo verify, we add", "unfinished"),
        ("ceval", "答案：B\n\n解析：A项错误，", "unfinished"),
        # ends on its answer, or on a closed sentence
        ("gsm8k", "2 + 2 = 4.\n\nThe answer is 4", "finished"),
        ("gsm8k", "The answer is 4.\n\nHope this helps!", "finished"),
        ("gsm8k", "\\boxed{4}", "finished"),
        ("ceval", "分析……\n\nanswer:B", "finished"),
        ("boolq", "Yes, it is. The passage says so.", "finished"),
    ],
)
def test_imported_replies_that_stop_mid_sentence_count_as_cut_off(
    task: str, content: str, state: str
) -> None:
    gold = {"gsm8k": "4", "ceval": "B", "boolq": "A"}[task]
    assert imported_state(get_task(task), content, None, gold) == state


def test_version_1_imports_are_judged_by_the_same_rule() -> None:
    # Journals written before the reply state was recorded: the judge applies the import rule.
    def attempt(**fields: Any) -> Attempt:
        base = {
            "model": "m",
            "task": "gsm8k",
            "sample_id": "gsm8k/0",
            "phase": "fixed",
            "budget": 2048,
            "max_tokens": 2048,
            "content": "no idea",
            "schema_version": 1,
        }
        return Attempt(**{**base, **fields})

    gsm8k = get_task("gsm8k")
    assert attempt_state(attempt(imported_from="aisbench"), gsm8k, "4") == "unfinished"
    assert attempt_state(attempt(), gsm8k, "4") == "finished"  # a live reply said it all
    finished = attempt(imported_from="aisbench", finish_reason="stop")
    assert attempt_state(finished, gsm8k, "4") == "finished"
    wrong = attempt(imported_from="aisbench", content="The answer is 5")
    assert attempt_state(wrong, gsm8k, "4") == "finished"


def test_dataset_names() -> None:
    assert aisbench.task_of("gsm8k") == "gsm8k"
    assert aisbench.task_of("SuperGLUE_BoolQ") == aisbench.task_of("BoolQ") == "boolq"
    assert aisbench.task_of("ceval-law") == aisbench.task_of("ceval_law") == "ceval"
    assert aisbench.task_of("mmlu") is None
    ceval = get_task("ceval")
    assert aisbench.subset_of("ceval-tax_accountant", ceval) == "tax_accountant"
    assert aisbench.subset_of("ceval_accountant", ceval) == "accountant"
    assert aisbench.subset_of("ceval-law_gen", ceval) == "law"
    assert aisbench.subset_of("ceval-lawyer", ceval) is None
    assert aisbench.subset_of("ceval-computer_network", ceval) is None


# Bad input -----------------------------------------------------------------------------------


def expect_error(match: str, source: Path, tmp_path: Path, data_dir: Path, *extra: str) -> None:
    with pytest.raises(ThinkevalError, match=match) as caught:
        import_cli(source, "--output", tmp_path / "run", "--data-dir", data_dir, *extra)
    assert isinstance(caught.value, AisbenchError)


def test_not_an_aisbench_folder(tmp_path: Path, data_dir: Path) -> None:
    (tmp_path / "empty").mkdir()
    expect_error(r"empty: not an AISBench output folder", tmp_path / "empty", tmp_path, data_dir)
    expect_error(r"nowhere: not found", tmp_path / "nowhere", tmp_path, data_dir)
    source = copy_fixture(tmp_path)
    shutil.copytree(source, source.parent / "20250629_080000")
    expect_error(r"holds several AISBench runs", source.parent, tmp_path, data_dir)


@pytest.mark.real_data
def test_torn_line_names_file_and_line(tmp_path: Path, real_data_dir: Path) -> None:
    source = copy_fixture(tmp_path)
    path = source / PREDICTIONS / "gsm8k.jsonl"
    data = path.read_bytes()
    path.write_bytes(data[: len(data) - 40])  # cut inside the last record
    expect_error(r"gsm8k\.jsonl line 5: not valid JSON.*torn", source, tmp_path, real_data_dir)


@pytest.mark.real_data
def test_unknown_dataset_names_the_file(tmp_path: Path, real_data_dir: Path) -> None:
    source = copy_fixture(tmp_path)
    (source / PREDICTIONS / "mmlu_college_physics.jsonl").write_text("{}\n")
    expect_error(r"mmlu_college_physics\.jsonl: unknown dataset", source, tmp_path, real_data_dir)
    (source / PREDICTIONS / "mmlu_college_physics.jsonl").unlink()
    (source / PREDICTIONS / "ceval-computer_network.json").write_text("{}")
    expect_error(
        r"ceval-computer_network\.json: unknown ceval subset", source, tmp_path, real_data_dir
    )


@pytest.mark.real_data
def test_records_that_do_not_match_our_samples(tmp_path: Path, real_data_dir: Path) -> None:
    source = copy_fixture(tmp_path)
    law = source / PREDICTIONS / "ceval-law.json"
    records = json.loads(law.read_text(encoding="utf-8"))
    records["0"]["gold"] = "A"
    law.write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
    expect_error(
        r"ceval-law\.json key '0': gold 'A' is not ceval/law/0's gold 'C'",
        source,
        tmp_path,
        real_data_dir,
    )

    records["0"]["gold"] = "C"
    records["0"]["origin_prompt"] = records["1"]["origin_prompt"]
    law.write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
    expect_error(
        r"key '0': origin_prompt does not contain the question of ceval/law/0",
        source,
        tmp_path,
        real_data_dir,
    )

    records["0"] = {"prediction": "answer:C"}
    records["99"] = {"prediction": "answer:C"}
    law.write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
    expect_error(r"key '99': index 99 is beyond the dataset", source, tmp_path, real_data_dir)


def test_prompt_check_ignores_layout(data_dir: Path) -> None:
    # A prompt stored as the repr of a chat list still matches its question; another does not.
    from thinkeval.tasks import load_samples

    first, second = load_samples("gsm8k", data_dir)[:2]
    turns = [{"role": "HUMAN", "prompt": first.messages[-1]["content"]}]
    record = aisbench.Record(index=0, where="f line 1", source="f", key="0", prompt=repr(turns))
    aisbench.verify(record, first)
    with pytest.raises(AisbenchError, match="f line 1: origin_prompt does not contain"):
        aisbench.verify(record, second)


def test_an_empty_prediction_file(tmp_path: Path, data_dir: Path) -> None:
    source = tmp_path / "20250101_000000"
    (source / PREDICTIONS).mkdir(parents=True)
    (source / PREDICTIONS / "gsm8k.jsonl").write_text("\n")
    expect_error(r"the prediction files hold no records", source, tmp_path, data_dir)
    (source / PREDICTIONS / "gsm8k.jsonl").unlink()
    expect_error(r"no prediction files", source, tmp_path, data_dir)


@pytest.mark.real_data
def test_duplicate_predictions_are_refused(tmp_path: Path, real_data_dir: Path) -> None:
    source = copy_fixture(tmp_path)
    folder = source / PREDICTIONS
    (folder / "gsm8k_copy.jsonl").write_bytes((folder / "gsm8k.jsonl").read_bytes())
    expect_error(r"a second prediction for gsm8k/\d", source, tmp_path, real_data_dir)


def test_budget_must_match_max_out_len(tmp_path: Path, data_dir: Path) -> None:
    expect_error(
        r"max_out_len=2048, but the fixed budget is 4096.*--budgets 2048,B2",
        FIXTURE,
        tmp_path,
        data_dir,
        "--budgets",
        "4096,16384",
    )


@pytest.mark.real_data
def test_importing_twice_is_refused(tmp_path: Path, real_data_dir: Path) -> None:
    run_dir = tmp_path / "run"
    import_cli(FIXTURE, "--output", run_dir, "--data-dir", real_data_dir)
    expect_error(
        r"already holds attempts of model 'vllm-api-general-chat'", FIXTURE, tmp_path, real_data_dir
    )


@pytest.mark.real_data
def test_several_models_need_a_choice(tmp_path: Path, real_data_dir: Path) -> None:
    source = copy_fixture(tmp_path)
    shutil.copytree(source / PREDICTIONS, source / "predictions" / "other-model")
    expect_error(
        r"several models \(other-model, vllm-api-general-chat\)", source, tmp_path, real_data_dir
    )
    run_dir = tmp_path / "other"
    import_cli(
        source,
        "--output",
        run_dir,
        "--data-dir",
        real_data_dir,
        "--model",
        "other-model",
        "--served-model",
        "qwen3-8b",
    )
    config = json.loads((run_dir / "config.json").read_text())
    assert config["models"][0]["name"] == "other-model"
    assert config["models"][0]["model"] == "qwen3-8b"
    # No config dump matches this model: the base_url is the documented placeholder.
    assert config["models"][0]["base_url"] == aisbench.PLACEHOLDER_BASE_URL


def test_help_has_an_example() -> None:
    epilog = import_command.EPILOG
    assert "example:" in epilog and "thinkeval import-aisbench" in epilog


@pytest.mark.real_data
def test_a_prediction_file_that_is_a_fifo_is_refused(tmp_path: Path, real_data_dir: Path) -> None:
    # An open of a FIFO with no writer would block the import for ever.
    source = copy_fixture(tmp_path)
    path = source / PREDICTIONS / "gsm8k.jsonl"
    path.unlink()
    os.mkfifo(path)
    expect_error(r"gsm8k\.jsonl: cannot read \(a FIFO, not a regular file\)", source, tmp_path,
                 real_data_dir)  # fmt: skip
