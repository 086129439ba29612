"""Tasks: GSM8K, BoolQ and C-Eval from the real local copies (marked `real_data`), and from broken
copies of the fixture data."""

from __future__ import annotations

import ast
import csv
import json
import shutil
import subprocess
import sys
from collections import Counter
from dataclasses import replace
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from thinkeval.errors import ArgumentError, DatasetError
from thinkeval.records import Sample
from thinkeval.scoring.lenient import RULES
from thinkeval.sim.behaviour import FLAVOUR_NAMES
from thinkeval.tasks import (
    DATA_DIR_ENV,
    Row,
    all_tasks,
    get_task,
    load_samples,
    resolve_data_dir,
)
from thinkeval.tasks.builtin.boolq import boolq_sample
from thinkeval.tasks.builtin.ceval import SUBJECTS as CEVAL_SUBJECTS
from thinkeval.tasks.builtin.ceval import ceval_sample
from thinkeval.tasks.builtin.gsm8k import gsm8k_sample
from thinkeval.tasks.spec import SIM_FLAVOUR_NAMES

TASKS = ("boolq", "ceval", "gsm8k")

CEVAL_COUNTS = {
    "college_economics": 55,
    "business_administration": 33,
    "accountant": 49,
    "tax_accountant": 49,
    "law": 24,
    "legal_professional": 23,
}
CEVAL_HEADER_ZH = (
    "以下是中国关于{subject_zh}考试的单项选择题，请选出其中的正确答案。"
    "回答的最后一行应采用以下格式：”answer:$LETTER“（不带引号），其中LETTER 是ABCD之一。"
    "回答之前先一步步思考。\n\n"
)
SUFFIX = "\nLet's think step by step\nAnswer:"


def jsonl_rows(path: Path) -> list[dict[str, Any]]:
    """The rows of a JSON Lines file, read without thinkeval."""
    with path.open(encoding="utf-8") as file:
        return [json.loads(line) for line in file]


# --- real data ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def real(real_data_dir: Path) -> dict[str, list[Sample]]:
    return {task: load_samples(task, real_data_dir) for task in TASKS}


@pytest.mark.real_data
def test_packaged_prompts_equal_the_shared_file(real_data_dir: Path) -> None:
    shared = real_data_dir / "prompts" / "aisbench_prompts.json"
    packaged = resources.files("thinkeval.tasks").joinpath("aisbench_prompts.json")
    assert packaged.read_bytes() == shared.read_bytes()


@pytest.mark.real_data
@pytest.mark.parametrize(("task", "count"), [("gsm8k", 1319), ("boolq", 3270), ("ceval", 233)])
def test_counts(real: dict[str, list[Sample]], task: str, count: int) -> None:
    samples = real[task]
    assert len(samples) == count
    assert len({s.id for s in samples}) == count
    assert all(s.task == task for s in samples)


@pytest.mark.real_data
def test_gold_distribution(real: dict[str, list[Sample]]) -> None:
    assert Counter(s.gold for s in real["boolq"]) == {"A": 2033, "B": 1237}
    assert {s.gold for s in real["ceval"]} == {"A", "B", "C", "D"}
    assert all(s.gold and "," not in s.gold for s in real["gsm8k"])


@pytest.mark.real_data
def test_ceval_subjects_in_order(real: dict[str, list[Sample]]) -> None:
    subsets = [s.subset for s in real["ceval"]]
    assert Counter(subsets) == CEVAL_COUNTS
    # Contiguous blocks in the fixed subject order.
    assert list(dict.fromkeys(subsets)) == list(CEVAL_SUBJECTS) == list(CEVAL_COUNTS)
    assert all(s.subset is None for s in real["gsm8k"] + real["boolq"])


@pytest.mark.real_data
def test_ids_are_stable(real: dict[str, list[Sample]], real_data_dir: Path) -> None:
    assert [s.id for s in real["gsm8k"]] == [f"gsm8k/{i}" for i in range(1319)]
    idx = [row["idx"] for row in jsonl_rows(real_data_dir / "boolq/validation.jsonl")]
    assert [s.id for s in real["boolq"]] == [f"boolq/{i}" for i in idx]
    expected = [f"ceval/{subject}/{i}" for subject, n in CEVAL_COUNTS.items() for i in range(n)]
    assert [s.id for s in real["ceval"]] == expected
    # A second load gives the same samples, messages included.
    assert load_samples("ceval", real_data_dir) == real["ceval"]


@pytest.mark.real_data
def test_gsm8k_first_prompt_is_byte_exact(
    real: dict[str, list[Sample]], real_data_dir: Path
) -> None:
    sample = real["gsm8k"][0]
    assert sample.id == "gsm8k/0"
    assert sample.gold == "18"
    assert len(sample.messages) == 9
    assert [m["role"] for m in sample.messages] == ["user", "assistant"] * 4 + ["user"]
    prompts = real_data_dir / "prompts/aisbench_prompts.json"
    shared = json.loads(prompts.read_text(encoding="utf-8"))
    assert list(sample.messages[:8]) == shared["gsm8k_4shot_cot_chat"]["exemplars"]
    assert sample.messages[0]["content"].startswith("Question: Angelo and Melanie want to plan")
    assert sample.messages[0]["content"].endswith(SUFFIX)
    endings = [m["content"].rsplit("\n", 2)[-2] for m in sample.messages[1:8:2]]
    assert endings == [
        "The answer is 4",
        "The answer is 201",
        "The answer is 140",
        "The answer is 146",
    ]
    assert sample.messages[8] == {
        "role": "user",
        "content": "Question: Janet\u2019s ducks lay 16 eggs per day. She eats three for breakfast"
        " every morning and bakes muffins for her friends every day with four. She sells the"
        " remainder at the farmers' market daily for $2 per fresh duck egg. How much in dollars"
        " does she make every day at the farmers' market?\nLet's think step by step\nAnswer:",
    }


@pytest.mark.real_data
def test_gsm8k_gold_drops_thousands_separators(real: dict[str, list[Sample]]) -> None:
    # test.jsonl line 147 ends "#### 2,125"; line 612 ends "#### 1,450,000".
    assert real["gsm8k"][146].gold == "2125"
    assert real["gsm8k"][611].gold == "1450000"


@pytest.mark.real_data
def test_boolq_prompt_is_byte_exact(real: dict[str, list[Sample]], real_data_dir: Path) -> None:
    with (real_data_dir / "boolq/validation.jsonl").open(encoding="utf-8") as file:
        row = json.loads(file.readline())
    sample = real["boolq"][0]
    assert sample.id == "boolq/0"
    assert (row["label"], sample.gold) == ("false", "B")
    assert sample.messages == (
        {
            "role": "user",
            "content": row["passage"] + "\nQuestion: does ethanol take more energy make"
            " that produces\nA. Yes\nB. No\nAnswer:",
        },
    )
    assert sample.messages[0]["content"].startswith("Ethanol fuel -- All biomass goes through")


@pytest.mark.real_data
def test_ceval_prompt_is_byte_exact(real: dict[str, list[Sample]], real_data_dir: Path) -> None:
    with (real_data_dir / "ceval/val/law_val.csv").open(encoding="utf-8", newline="") as file:
        row = next(csv.DictReader(file))
    sample = next(s for s in real["ceval"] if s.id == "ceval/law/0")
    content = CEVAL_HEADER_ZH.format(subject_zh="法学") + (
        f"{row['question']}\nA. {row['A']}\nB. {row['B']}\nC. {row['C']}\nD. {row['D']}"
    )
    assert sample.messages == ({"role": "user", "content": content},)
    assert (sample.gold, sample.subset, sample.meta) == (
        row["answer"],
        "law",
        {"subject_zh": "法学"},
    )
    assert "\r" not in content


# --- bad input ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def fixture_samples(data_dir: Path) -> dict[str, list[Sample]]:
    return {task: load_samples(task, data_dir) for task in TASKS}


def test_samples_follow_the_rows(data_dir: Path, fixture_samples: dict[str, list[Sample]]) -> None:
    """Ids, golds and subjects as the fixture rows give them, read without thinkeval."""
    gsm8k = jsonl_rows(data_dir / "gsm8k/test.jsonl")
    finals = [row["answer"].rsplit("####", 1)[1].strip() for row in gsm8k]
    assert any("," in final for final in finals)  # thousands separators are dropped
    assert [(s.id, s.gold) for s in fixture_samples["gsm8k"]] == [
        (f"gsm8k/{i}", final.replace(",", "")) for i, final in enumerate(finals)
    ]
    boolq = jsonl_rows(data_dir / "boolq/validation.jsonl")
    assert [(s.id, s.gold) for s in fixture_samples["boolq"]] == [
        (f"boolq/{row['idx']}", "A" if row["label"] == "true" else "B") for row in boolq
    ]
    ceval = []
    for subject in CEVAL_SUBJECTS:  # contiguous blocks in the fixed subject order
        path = data_dir / f"ceval/val/{subject}_val.csv"
        with path.open(encoding="utf-8", newline="") as file:
            rows = list(csv.DictReader(file))
        ceval += [(f"ceval/{subject}/{row['id']}", row["answer"], subject) for row in rows]
    assert [(s.id, s.gold, s.subset) for s in fixture_samples["ceval"]] == ceval


@pytest.fixture
def copy_dir(data_dir: Path, tmp_path: Path) -> Path:
    """A copy of the fixture files the tasks read, for a test to break."""
    copy = tmp_path / "data"
    for relative in ("gsm8k/test.jsonl", "boolq/validation.jsonl"):
        (copy / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(data_dir / relative, copy / relative)
    shutil.copytree(data_dir / "ceval/val", copy / "ceval/val")
    return copy


def edit_jsonl(path: Path, line: int, change: Any) -> None:
    """Replace 1-based `line` of a JSON Lines file with `change(row)` (a dict or raw text)."""
    lines = path.read_text(encoding="utf-8").split("\n")
    new = change(json.loads(lines[line - 1]))
    lines[line - 1] = new if isinstance(new, str) else json.dumps(new)
    path.write_text("\n".join(lines), encoding="utf-8")


def edit_csv(path: Path, change: Any) -> None:
    """Rewrite a CSV file as `change(rows)`, rows including the header, keeping CRLF."""
    with path.open(encoding="utf-8", newline="") as file:
        rows = list(csv.reader(file))
    with path.open("w", encoding="utf-8", newline="") as file:
        csv.writer(file).writerows(change(rows))


def error_for(task: str, data_dir: Path) -> str:
    with pytest.raises(DatasetError) as caught:
        load_samples(task, data_dir)
    return str(caught.value)


def test_torn_json_line(copy_dir: Path) -> None:
    path = copy_dir / "gsm8k/test.jsonl"
    lines = path.read_bytes().split(b"\n")
    path.write_bytes(b"\n".join([*lines[:4], lines[4][:60]]))  # torn mid-way through line 5
    message = error_for("gsm8k", copy_dir)
    assert f"{path} line 5: invalid JSON" in message
    assert "torn" in message


def test_row_that_is_not_an_object(copy_dir: Path) -> None:
    path = copy_dir / "boolq/validation.jsonl"
    edit_jsonl(path, 3, lambda row: "[1, 2]")
    assert f"{path} line 3: expected a JSON object, got list" in error_for("boolq", copy_dir)


def test_missing_field(copy_dir: Path) -> None:
    path = copy_dir / "gsm8k/test.jsonl"
    edit_jsonl(path, 2, lambda row: {"question": row["question"]})
    assert f"{path} line 2: missing field 'answer'" in error_for("gsm8k", copy_dir)


def test_gsm8k_answer_without_final_line(copy_dir: Path) -> None:
    path = copy_dir / "gsm8k/test.jsonl"
    edit_jsonl(path, 9, lambda row: {**row, "answer": "no final line"})
    assert f"{path} line 9: field 'answer' has no '####" in error_for("gsm8k", copy_dir)


def test_empty_question(copy_dir: Path) -> None:
    path = copy_dir / "boolq/validation.jsonl"
    edit_jsonl(path, 7, lambda row: {**row, "question": "  "})
    assert f"{path} line 7: empty question" in error_for("boolq", copy_dir)


def test_unknown_boolq_label(copy_dir: Path) -> None:
    path = copy_dir / "boolq/validation.jsonl"
    edit_jsonl(path, 10, lambda row: {**row, "label": "maybe"})
    assert f"{path} line 10: unknown label 'maybe'" in error_for("boolq", copy_dir)


def test_boolq_accepts_json_booleans(
    copy_dir: Path, fixture_samples: dict[str, list[Sample]]
) -> None:
    path = copy_dir / "boolq/validation.jsonl"
    lines = [json.dumps({**row, "label": row["label"] == "true"}) for row in jsonl_rows(path)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert load_samples("boolq", copy_dir) == fixture_samples["boolq"]


def test_duplicate_boolq_id(copy_dir: Path) -> None:
    path = copy_dir / "boolq/validation.jsonl"
    edit_jsonl(path, 5, lambda row: {**row, "idx": 0})
    message = error_for("boolq", copy_dir)
    assert f"{path} line 5: duplicate id 'boolq/0', first seen at {path} line 1" in message


def test_ceval_answer_not_a_letter(copy_dir: Path) -> None:
    path = copy_dir / "ceval/val/law_val.csv"
    edit_csv(path, lambda rows: [*rows[:4], [*rows[4][:-1], "E"], *rows[5:]])
    assert f"{path} line 5: answer must be one of A, B, C, D, got 'E'" in error_for(
        "ceval", copy_dir
    )


def test_ceval_missing_column(copy_dir: Path) -> None:
    path = copy_dir / "ceval/val/accountant_val.csv"
    edit_csv(path, lambda rows: [row[:5] + row[6:] for row in rows])  # drop column D
    assert f"{path} line 1: missing column 'D'" in error_for("ceval", copy_dir)


def test_ceval_duplicate_id(copy_dir: Path) -> None:
    path = copy_dir / "ceval/val/tax_accountant_val.csv"
    edit_csv(path, lambda rows: [*rows[:3], ["0", *rows[3][1:]], *rows[4:]])
    message = error_for("ceval", copy_dir)
    assert f"{path} line 4: duplicate id 'ceval/tax_accountant/0'" in message


def test_ceval_wrong_field_count(copy_dir: Path) -> None:
    path = copy_dir / "ceval/val/law_val.csv"
    edit_csv(path, lambda rows: [*rows[:6], rows[6][:-2], *rows[7:]])
    assert f"{path} line 7: 5 fields, the header has 7" in error_for("ceval", copy_dir)


def test_ceval_unterminated_quote(copy_dir: Path) -> None:
    path = copy_dir / "ceval/val/law_val.csv"
    with path.open("ab") as file:
        file.write(b'99,"never closed,A,B,C,D,A\r\n')
    message = error_for("ceval", copy_dir)
    assert str(path) in message
    assert "malformed CSV" in message


def test_missing_file_names_file_and_data_dir(copy_dir: Path) -> None:
    path = copy_dir / "ceval/val/tax_accountant_val.csv"
    path.unlink()
    message = error_for("ceval", copy_dir)
    assert f"{path}: file not found (data dir {copy_dir}" in message
    assert "ceval/val/tax_accountant_val.csv" in message


def test_missing_data_dir(tmp_path: Path) -> None:
    assert "does not exist" in error_for("gsm8k", tmp_path / "nowhere")


def test_byte_order_mark_is_ignored(
    copy_dir: Path, fixture_samples: dict[str, list[Sample]]
) -> None:
    for relative in ("gsm8k/test.jsonl", *(f"ceval/val/{s}_val.csv" for s in CEVAL_SUBJECTS)):
        path = copy_dir / relative
        path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert load_samples("gsm8k", copy_dir) == fixture_samples["gsm8k"]
    assert load_samples("ceval", copy_dir) == fixture_samples["ceval"]


def test_invalid_utf8_names_the_line(copy_dir: Path) -> None:
    path = copy_dir / "gsm8k/test.jsonl"
    lines = path.read_bytes().split(b"\n")
    lines[2] = lines[2].replace(b"question", b"ques\xfftion", 1)
    path.write_bytes(b"\n".join(lines))
    assert f"{path} line 3: not valid UTF-8" in error_for("gsm8k", copy_dir)


def test_ceval_multiline_field_and_line_numbers(copy_dir: Path) -> None:
    path = copy_dir / "ceval/val/college_economics_val.csv"
    path.write_bytes(
        "id,question,A,B,C,D,answer\r\n"
        '0,"第一行\r\n第二行",甲,乙,丙,丁,A\r\n'
        "1,问题,甲,乙,丙,丁,X\r\n".encode()
    )
    message = error_for("ceval", copy_dir)
    # The multi-line record spans lines 2-3, so the bad record starts on line 4.
    assert f"{path} line 4: answer must be one of A, B, C, D, got 'X'" in message
    path.write_bytes(path.read_bytes().replace(b",X\r\n", b",C\r\n"))
    first = load_samples("ceval", copy_dir)[0]
    # Line breaks inside fields become "\n", as AISBench reads them.
    assert "\n\n第一行\n第二行\nA. 甲\n" in first.messages[0]["content"]


def test_braces_in_values_are_inserted_verbatim() -> None:
    row = {"question": "Is {question} {x} {{y}} 50% of {}?", "answer": "so\n#### 1,000"}
    sample = gsm8k_sample(Row(row, 7, "here"))
    assert sample.messages[-1]["content"] == f"Question: {row['question']}{SUFFIX}"
    assert (sample.id, sample.gold) == ("gsm8k/7", "1000")
    ceval = {
        "id": "3",
        "question": "{A}?",
        "A": "{B}",
        "B": "{D}",
        "C": "}{",
        "D": "{",
        "answer": "B",
    }
    content = ceval_sample(Row(ceval, 0, "here", "law")).messages[0]["content"]
    assert content.endswith("\n\n{A}?\nA. {B}\nB. {D}\nC. }{\nD. {")


def test_unknown_task() -> None:
    with pytest.raises(DatasetError, match=r"unknown task 'mmlu'; known tasks: ") as raised:
        load_samples("mmlu")
    # Every built-in task, in name order (more arrive with new benchmarks).
    listed = str(raised.value).split("known tasks: ")[1].split(", ")
    assert listed == sorted(listed)
    assert {"aime24", "aime25", "boolq", "ceval", "gsm8k", "ifeval", "math500"} <= set(listed)


# --- resolving the data dir --------------------------------------------------------------------


def test_configured_data_dir_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path / "elsewhere"))
    assert resolve_data_dir(tmp_path) == tmp_path.resolve()
    assert resolve_data_dir(str(tmp_path)) == tmp_path.resolve()


def test_configured_data_dir_must_exist(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match=f"data_dir {tmp_path / 'nope'} does not exist"):
        resolve_data_dir(tmp_path / "nope")


def test_data_dir_from_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path))
    assert resolve_data_dir() == tmp_path.resolve()
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path / "nope"))
    with pytest.raises(DatasetError, match=f"{DATA_DIR_ENV} {tmp_path / 'nope'} does not exist"):
        resolve_data_dir()


def test_data_dir_beside_checkout_then_hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(DATA_DIR_ENV, raising=False)
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    monkeypatch.chdir(checkout)
    assert resolve_data_dir() is None  # nothing local: load from the hub
    (tmp_path / "shared/datasets").mkdir(parents=True)
    assert resolve_data_dir() == (tmp_path / "shared/datasets").resolve()


def test_row_conversion_needs_no_files() -> None:
    sample = boolq_sample(Row({"question": "q", "passage": "p", "idx": 9, "label": True}, 0, "mem"))
    assert (sample.id, sample.gold, sample.subset) == ("boolq/9", "A", None)
    with pytest.raises(DatasetError, match="mem: missing field 'passage'"):
        boolq_sample(Row({"question": "q", "idx": 9, "label": True}, 0, "mem"))


def _loaded_after(code: str) -> list[str]:
    """The task, kind and maths modules a fresh interpreter holds after running `code`."""
    probe = (
        f"import sys; {code}; print(sorted(m for m in sys.modules if m.startswith(("
        "'thinkeval.tasks.builtin.', 'thinkeval.scoring.kinds.', 'thinkeval.scoring.lenient_math',"
        " 'math_verify'))))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return ast.literal_eval(out.stdout.strip())


def test_a_task_loads_only_its_own_module_and_answer_kind() -> None:
    # A GSM8K run compiles no maths patterns and imports no other benchmark's spec.
    code = "import thinkeval; thinkeval.score('gsm8k', 'The answer is 18', 'stop', gold='18')"
    assert _loaded_after(code) == [
        "thinkeval.scoring.kinds.base",
        "thinkeval.scoring.kinds.number",
        "thinkeval.tasks.builtin.gsm8k",
    ]
    code = "from thinkeval.tasks import get_task; get_task('aime25').answer.find('\\\\boxed{7}')"
    loaded = _loaded_after(code)
    assert "thinkeval.tasks.builtin.aime25" in loaded
    assert "thinkeval.tasks.builtin.gsm8k" not in loaded
    assert "thinkeval.scoring.kinds.math" in loaded


def test_listing_tasks_finds_every_builtin_module() -> None:
    from thinkeval.scoring.kinds import KINDS, make_kind
    from thinkeval.tasks.registry import find_task, task_names

    assert task_names() == [
        "aime24", "aime25", "bfcl", "boolq", "ceval", "ceval_all", "gpqa_diamond", "gsm8k",
        "humaneval", "ifeval", "livecodebench", "livecodebench_v1", "livecodebench_v2",
        "livecodebench_v3", "livecodebench_v4", "livecodebench_v5", "math500", "mmlu_pro",
        "mmlu_pro_0shot",
    ]  # fmt: skip
    assert find_task("gsm8k") is find_task("gsm8k")  # one spec object, however it was found
    for unknown in ("nope", "../gsm8k", "__init__", "_private", "registry"):
        assert find_task(unknown) is None
    built = {
        name: type(make_kind(name, **({"pattern": "x"} if name == "regex" else {})))
        for name in KINDS
    }
    assert {name: cls.__name__ for name, cls in built.items()} == {
        "number": "NumberKind",
        "choice": "ChoiceKind",
        "boolean": "BooleanKind",
        "exact": "ExactKind",
        "regex": "RegexKind",
        "math": "MathKind",
        "instructions": "InstructionsKind",
        "code": "CodeKind",
        "tool_calls": "ToolCallsKind",
    }


def test_a_spec_with_an_unknown_lenient_rule_or_sim_flavour_is_refused_when_built() -> None:
    """One line naming the task and the key, when the spec is made (a builtin module, a task
    file, a `TaskSpec` given to `thinkeval.score`), not when the first reply is scored."""
    gsm8k = get_task("gsm8k")
    with pytest.raises(ArgumentError) as lenient:
        replace(gsm8k, lenient="gsm8k-strict")
    assert str(lenient.value).startswith("task gsm8k: lenient: unknown lenient rule ")
    assert ", ".join(RULES) in str(lenient.value)
    with pytest.raises(ValueError, match="task gsm8k: sim_flavour: unknown flavour 'yes-no'"):
        replace(gsm8k, sim_flavour="yes-no")  # type: ignore[arg-type]
    # Every builtin is built with known names, and each simulator answer style is a flavour.
    assert {spec.sim_flavour for spec in all_tasks()} <= set(SIM_FLAVOUR_NAMES)
    assert set(FLAVOUR_NAMES) == set(SIM_FLAVOUR_NAMES) - {"instructions", "tool_calls"}
