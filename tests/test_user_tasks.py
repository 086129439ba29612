"""Tasks of your own from a file, written as a newcomer would from docs/tasks.md alone, run end
to end against the simulator; and every mistake in a task file as a one-line error."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import yaml

from conftest import ThreadedSim, write_config
from fakehub import FakeHub
from thinkeval.api import score
from thinkeval.cli import main
from thinkeval.config import load_config, parse_config
from thinkeval.errors import ConfigError, DatasetError
from thinkeval.records import Verdict
from thinkeval.scoring.kinds import KINDS, AnswerKind, Found, KindError, make_kind, register_kind
from thinkeval.sim import SimConfig, answer_key_from_samples
from thinkeval.tasks import find_task, iter_samples, load_samples
from thinkeval.tasks.spec import TaskSpec
from thinkeval.tasks.user import load_task_file

DOCS = (Path(__file__).parent.parent / "docs" / "tasks.md").read_text(encoding="utf-8")
QUIZ_ROWS = [
    ("q3", "Which gas do plants take in?", "Oxygen", "Nitrogen", "Carbon dioxide", "Helium", "C"),
    ("q4", "How many legs has a spider?", "6", "8", "10", "12", "B"),
    ("q5", "Which is a prime number?", "21", "27", "29", "33", "C"),
    ("q6", "What is H2O?", "Water", "Salt", "Sugar", "Sand", "A"),
    ("q7", "Which ocean is largest?", "Atlantic", "Indian", "Arctic", "Pacific", "D"),
    ("q8", "Who wrote Hamlet?", "Dickens", "Shakespeare", "Austen", "Tolstoy", "B"),
]


def doc_block(after: str, language: str) -> str:
    """The first ```language block after the sentence `after` in docs/tasks.md."""
    start = DOCS.index(after)
    match = re.compile(rf"```{language}\n(.*?)```", re.DOTALL).search(DOCS, start)
    assert match is not None, after
    return match.group(1)


@pytest.fixture
def newcomer(tmp_path: Path) -> Path:
    """The docs' quiz (CSV, multiple choice) and sums (JSONL, numbers), with more rows of the
    newcomer's own."""
    quiz_csv = doc_block("The questions, `quiz.csv`", "csv")
    quiz_csv += "".join(",".join(row) + "\n" for row in QUIZ_ROWS)
    (tmp_path / "quiz.csv").write_text(quiz_csv, encoding="utf-8")
    (tmp_path / "quiz.yaml").write_text(doc_block("The task file, `quiz.yaml`", "yaml"))
    sums = doc_block("`sums.jsonl`, one JSON object a line", "json")
    sums += "".join(
        json.dumps({"q": f"What is {a} times {b}?", "a": a * b}) + "\n"
        for a, b in [(3, 4), (7, 8), (12, 12), (9, 6), (15, 4), (21, 3), (11, 11), (13, 5)]
    )
    (tmp_path / "sums.jsonl").write_text(sums, encoding="utf-8")
    (tmp_path / "sums.yaml").write_text(doc_block("`sums.yaml`:", "yaml"))
    return tmp_path


@pytest.fixture
def serve_for() -> Iterator[Any]:
    started: list[ThreadedSim] = []

    def start(*tasks: TaskSpec, **knobs: Any) -> str:
        samples = [s for task in tasks for s in load_samples(task)]
        server = ThreadedSim(SimConfig(port=0, **knobs), answer_key_from_samples(samples, tasks))
        started.append(server.start())
        return server.base_url

    yield start
    for server in started:
        server.stop()


def test_a_newcomers_csv_and_jsonl_tasks_run_end_to_end(
    newcomer: Path, serve_for: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    config_text = doc_block("Then name it in a run config", "yaml")
    config = yaml.safe_load(config_text)
    config["tasks"].append({"file": "sums.yaml"})
    catalogue = load_config(write_config(newcomer / "run.yaml", config)).catalogue
    tasks = [catalogue.get("quiz"), catalogue.get("sums")]
    served = config["models"][0]["model"]  # the docs' config names the id the server serves
    url = serve_for(*tasks, model=served, seed=2, p_long=0.3, p_wrong=0.2)
    config["models"][0].update(base_url=url, concurrency=8, retry_backoff_s=0.01)
    path = write_config(newcomer / "run.yaml", config)
    assert main(["run", str(path), "--output", str(newcomer / "out")]) == 0
    summary = json.loads((newcomer / "out" / "summary.json").read_text())
    rows = {r["task"]: r for r in summary["results"]}
    assert rows["quiz"]["total"] == 8 and rows["sums"]["total"] == 10
    assert rows["sums"]["budgets"] == [1024, 4096]
    # Loading the config, running and summarising (reading the run back) registered nothing.
    assert find_task("quiz") is None and find_task("sums") is None
    for row in rows.values():
        adaptive = row["adaptive"]
        assert adaptive["pending"] == adaptive["error"] == 0
        assert adaptive["correct"] + adaptive["wrong"] + adaptive["no_answer"] > 0
        assert adaptive["correct"] > 0
    assert summary["complete"]
    # The run directory alone is enough for readers in another process.
    verify = subprocess.run(
        [sys.executable, "-m", "thinkeval", "verify", str(newcomer / "out")],
        capture_output=True, text=True,
    )  # fmt: skip
    assert verify.returncode == 0, verify.stderr
    record = json.loads((newcomer / "out" / "config.json").read_text())
    quiz = next(t for t in record["tasks"] if t["name"] == "quiz")
    assert quiz["definition"]["data"]["file"] == str(newcomer / "quiz.csv")


def test_tasks_show_prints_the_messages_and_gold(
    newcomer: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["tasks", "show", str(newcomer / "quiz.yaml"), "--sample", "1", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["id"] == "quiz/q2" and shown["gold"] == "B"
    assert shown["messages"] == [
        {
            "role": "user",
            "content": "What is the boiling point of water at sea level in Celsius?\n\n"
            "A. 90\nB. 100\nC. 110\nD. 120\n\n"
            'Answer with the letter of the correct option, as "Answer: X" on the last line.',
        }
    ]
    assert main(["tasks", "show", str(newcomer / "sums.yaml")]) == 0
    out = capsys.readouterr().out
    assert "What is 17 + 25?\nPlease reason step by step" in out and "gold: 42" in out
    assert main(["tasks", "--task-file", str(newcomer / "sums.yaml")]) == 0
    assert re.search(r"sums\s+│\s+user\s+│\s+10\s+│\s+number", capsys.readouterr().out)


def _write(tmp_path: Path, task: dict[str, Any]) -> Path:
    path = tmp_path / "task.yaml"
    path.write_text(yaml.safe_dump(task), encoding="utf-8")
    return path


QUIZ = {
    "name": "quiz2",
    "data": {"file": "quiz.csv"},
    "fields": {"question": "question", "answer": "answer", "choices": ["A", "B", "C", "D"]},
    "answer": {"kind": "choice"},
}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"answer": {"kind": "letter"}},
            "answer.kind: unknown answer kind 'letter'; one of "
            "number, choice, boolean, math, exact, regex",
        ),
        ({"fields": {"question": "question"}}, "fields.answer: required key is missing"),
        ({"data": {"file": "nope.csv"}}, "data.file: {dir}/nope.csv not found"),
        ({"data": {"file": "quiz.txt"}}, "data.file: cannot tell the format of 'quiz.txt'"),
        ({"budgets": [4096, 2048]}, "budgets: budgets must increase"),
        ({"generation": {"max_tokens": 5}}, "generation: max_tokens cannot be set"),
        ({"answer": {"kind": "regex"}}, "answer.pattern: the regex kind needs a pattern"),
        ({"answer": {"kind": "regex", "pattern": "("}}, "answer: pattern '(' is not a valid"),
        ({"name": "gsm8k"}, "name: task 'gsm8k' is built in"),
        ({"promt": "x"}, "promt: unknown key (check the spelling: docs/tasks.md)"),
        ({"few_shot": {"limit": 2}}, "few_shot: give either rows"),
        ({"repeats": 0}, "repeats: Expected `int` >= 1"),
    ],
)
def test_every_mistake_is_one_line_naming_file_and_key(
    newcomer: Path, change: dict[str, Any], message: str
) -> None:
    path = _write(newcomer, {**QUIZ, **change})
    with pytest.raises(ConfigError) as caught:
        load_task_file(path)
    text = str(caught.value)
    assert "\n" not in text
    assert text.startswith(f"{path}: "), text
    assert message.format(dir=newcomer) in text, text


@pytest.mark.parametrize(
    ("rows", "change", "message"),
    [
        ("id,question,A,B,C,answer\nq,Q?,a,b,c,A\n", {}, "line 1: missing column 'D'"),
        (
            "question,A,B,C,D,answer\nQ?,a,b,c,d,E\n",
            {},
            "line 2: answer 'E' is neither one of the letters ABCD nor the text of an option",
        ),
        (
            "question,A,B,C,D,answer\nQ?,a,b,c,d,A\n",
            {"prompt": "{questoin}"},
            "prompt: placeholder {questoin} is not question, choices, answer, subject",
        ),
        ("question,A,B,C,D,answer\n,a,b,c,d,A\n", {}, "line 2: field 'question' is empty"),
    ],
)
def test_mistakes_in_the_data_name_the_file_and_row(
    tmp_path: Path, rows: str, change: dict[str, Any], message: str
) -> None:
    (tmp_path / "quiz.csv").write_text(rows, encoding="utf-8")
    spec = load_task_file(_write(tmp_path, {**QUIZ, **change}))
    with pytest.raises(DatasetError) as caught:
        list(iter_samples(spec))
    assert "\n" not in str(caught.value) and message in str(caught.value), str(caught.value)


def test_a_choice_gold_may_be_the_option_text_and_options_a_list(tmp_path: Path) -> None:
    rows = [{"q": "Capital of France?", "opts": ["Rome", "Paris", "Oslo"], "gold": "Paris"}]
    (tmp_path / "mc.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    spec = load_task_file(_write(tmp_path, {
        "name": "mc", "data": {"file": "mc.jsonl"},
        "fields": {"question": "q", "answer": "gold", "choices": "opts"},
        "answer": {"kind": "choice", "letters": "ABC"},
        "prompt": "{question}\n{choices}\nOnly {A}, {B} or {C}?",
    }))  # fmt: skip
    (sample,) = iter_samples(spec)
    assert sample.gold == "B" and sample.id == "mc/0"
    assert sample.messages[-1]["content"] == (
        "Capital of France?\nA. Rome\nB. Paris\nC. Oslo\nOnly Rome, Paris or Oslo?"
    )
    assert spec.answer.name == "choice" and spec.answer.letters == "ABC"


def test_few_shot_system_and_subject(tmp_path: Path) -> None:
    (tmp_path / "yn.jsonl").write_text(
        json.dumps({"text": "Is ice cold?", "label": True, "topic": "physics"}) + "\n"
        + json.dumps({"text": "Is fire cold?", "label": "no", "topic": "physics"}) + "\n"
    )  # fmt: skip
    spec = load_task_file(_write(tmp_path, {
        "name": "yn", "data": {"file": "yn.jsonl"}, "system": "Be brief.",
        "fields": {"question": "text", "answer": "label", "subject": "topic"},
        "answer": {"kind": "boolean"},
        "few_shot": {"rows": [{"text": "Is water wet?", "label": "yes"}], "reply": "{answer}!"},
    }))  # fmt: skip
    first, second = iter_samples(spec)
    assert (first.gold, second.gold, first.subset) == ("A", "B", "physics")
    assert [m["role"] for m in first.messages] == ["system", "user", "assistant", "user"]
    assert first.messages[2]["content"] == "yes!"
    assert first.messages[1]["content"].startswith("Is water wet?\n\nAnswer yes or no")
    assert spec.lenient == "yn:boolean"
    from thinkeval.api import score

    assert score(spec, "Answer: yes", "stop", "A").status == "correct"
    lenient = score(spec, None, "length", "A", reasoning="So... Answer: yes", scorer="lenient")
    assert lenient.status == "correct"


def test_parquet_and_the_hub(tmp_path: Path, fake_hub: FakeHub) -> None:
    import pyarrow
    import pyarrow.parquet as pq

    table = pyarrow.table({"question": ["2+2?", "3+3?"], "answer": [4, 6]})
    pq.write_table(table, tmp_path / "adds.parquet")
    spec = load_task_file(_write(tmp_path, {
        "name": "adds", "data": {"file": "adds.parquet"},
        "fields": {"question": "question", "answer": "answer"}, "answer": {"kind": "number"},
    }))  # fmt: skip
    assert [(s.id, s.gold) for s in iter_samples(spec)] == [("adds/0", "4"), ("adds/1", "6")]

    fake_hub.add("org/sums", {"train.jsonl": b'{"problem": "1+1?", "solution": "2"}\n'})
    spec = load_task_file(_write(tmp_path, {
        "name": "hubby", "data": {"hub": {"path": "org/sums", "split": "train"}},
        "fields": {"question": "problem", "answer": "solution"}, "answer": {"kind": "math"},
    }))  # fmt: skip
    data_dir = Path(__file__).parent  # a data dir does not stop a hub task from the hub
    (sample,) = iter_samples(spec, data_dir)
    assert sample.gold == "2" and sample.messages[-1]["content"].startswith("1+1?\n")
    assert any("/org/sums/" in path for path in fake_hub.downloads())


def test_a_task_defined_inline_in_the_config(tmp_path: Path) -> None:
    (tmp_path / "d.jsonl").write_text(json.dumps({"x": "Name a colour.", "y": "Blue"}) + "\n")
    define = {
        "data": {"file": str(tmp_path / "d.jsonl")},
        "fields": {"question": "x", "answer": "y"},
        "answer": {"kind": "exact"},
    }
    model = {"name": "m", "base_url": "http://127.0.0.1:9/v1"}
    entry = {"name": "colour", "limit": 1, "repeats": 2, "define": define}
    config = parse_config({"run": "inline", "tasks": [entry], "models": [model]}, "run.yaml")
    assert config.tasks[0].name == "colour" and config.task("colour").repeats == 2
    assert config.catalogue.get("colour").answer.name == "exact"
    # Loading the config changed no process state: the task is the config's alone.
    assert find_task("colour") is None
    both = {"file": "a.yaml", "define": define}
    with pytest.raises(ConfigError, match=r"run.yaml: tasks\[0\]: give either file or define"):
        parse_config({"run": "r", "tasks": [both], "models": [model]}, "run.yaml")


@dataclass(frozen=True)
class _Initial(AnswerKind):
    """A kind of one's own: the answer is the first letter of the last line, case-folded."""

    name: str = "initial"
    version: str = "1"
    pooled: bool = False

    def find(self, text: str) -> Found | None:
        lines = text.strip().splitlines()
        return Found(lines[-1][:1].lower(), "initial") if lines and lines[-1] else None

    def matches(self, answer: str, gold: str) -> bool:
        return answer == gold[:1].lower()

    def check_gold(self, gold: str) -> str | None:
        return None if gold else "an empty gold"


def test_a_registered_kind_is_one_a_task_file_can_use(tmp_path: Path) -> None:
    (tmp_path / "d.jsonl").write_text(json.dumps({"q": "Name a fruit.", "a": "Apple"}) + "\n")
    task = {"name": "initials", "data": {"file": "d.jsonl"},
            "fields": {"question": "q", "answer": "a"}, "answer": {"kind": "initial"}}  # fmt: skip
    with pytest.raises(ConfigError, match="unknown answer kind 'initial'"):
        load_task_file(_write(tmp_path, task))
    register_kind("initial", _Initial)
    try:
        spec = load_task_file(_write(tmp_path, task))
        assert spec.answer.name == "initial"
        (sample,) = iter_samples(spec)
        assert sample.messages[-1]["content"].endswith('as "Answer: ...".')
        verdict = score(spec, "Let me think.\nartichoke? no: apple", "stop", sample.gold)
        assert verdict.status == "correct"
    finally:
        del KINDS["initial"]


def test_a_kind_is_typed_and_its_capabilities_have_defaults() -> None:
    """A registered factory must make an `AnswerKind`; one that overrides none of its
    capabilities is ready, decides nothing at once and is judged by `matches`."""
    register_kind("duck", lambda: SimpleNamespace(name="duck", find=_Initial.find))
    try:
        with pytest.raises(KindError, match=r"answer kind 'duck': namespace\(.* is no AnswerKind"):
            make_kind("duck")
    finally:
        del KINDS["duck"]
    kind = _Initial()
    assert kind.ready() is None and kind.quick_matches("a", "Apple") is None
    assert kind.time_limit_s is None and not kind.judges_whole_reply
    assert kind.explain(Found("a", "initial"), "Apple") == Verdict("correct", "a", "initial")
    assert kind.explain(Found("b", "initial"), "Apple").status == "wrong"
