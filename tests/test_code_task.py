"""The code answer kind and the humaneval task: which block counts, the reasons apart, scoring in
the workers, a simulated run end to end, rescoring from the journal, the refusal without a
sandbox; on the real data, every canonical solution passes and a broken variant of each fails."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import orjson
import pytest

from conftest import ThreadedSim, write_config
from thinkeval.cli import main
from thinkeval.errors import DatasetError
from thinkeval.execution import sandbox
from thinkeval.records import Sample
from thinkeval.scoring.kinds import make_kind
from thinkeval.scoring.kinds.code import final_block
from thinkeval.scoring.lenient import lenient_verdict
from thinkeval.scoring.pool import ScoringPool
from thinkeval.scoring.pooled import many_verdicts, pooled_verdicts
from thinkeval.scoring.scorers import ReplyText
from thinkeval.scoring.strict import strict_verdict
from thinkeval.sim.behaviour import answer_key_from_samples
from thinkeval.sim.config import SimConfig
from thinkeval.store.journal import iter_attempts
from thinkeval.tasks import get_task, load_samples
from thinkeval.tasks.builtin.humaneval import INSTRUCTION
from thinkeval.tasks.user import load_task_file

CODE = make_kind("code")
TASK = get_task("humaneval")  # strict and lenient both pool its replies (its kind, its rule)


def _reference(sample: Sample) -> str:
    return str(orjson.loads(sample.gold)["reference"])


def _code_reply(program: str) -> ReplyText:
    return ReplyText(_fenced(program), None, "stop")


def _fenced(program: str, lang: str = "python") -> str:
    return f"```{lang}\n{program.rstrip()}\n```"


def test_the_last_python_block_counts_others_and_unclosed_ones_do_not() -> None:
    text = "\n\n".join([_fenced("x = 1"), _fenced("x = 2", ""), _fenced("$ python x.py", "bash")])
    assert final_block(text) == ("x = 2\n", 2)
    assert final_block(text + "\n```python\nx = 3\n") == ("x = 2\n", 2)  # unclosed: ignored
    assert final_block("~~~py\ny = 1\n~~~") == ("y = 1\n", 1)
    assert final_block("no code here") is None
    assert final_block(_fenced("fn main() {}", "rust")) is None


def test_humaneval_fixture_samples_ask_for_a_fenced_function(data_dir: Path) -> None:
    samples = load_samples("humaneval", data_dir)
    assert [s.id for s in samples] == [f"humaneval/{n}" for n in range(6)]
    content = samples[0].messages[-1]["content"]
    assert content.startswith(INSTRUCTION + "\n```\ndef add_two(")
    gold = orjson.loads(samples[0].gold)
    assert (gold["form"], gold["entry_point"]) == ("check", "add_two")


def test_verdicts_say_why_and_never_read_the_reasoning(data_dir: Path) -> None:
    sample = load_samples("humaneval", data_dir)[2]  # evens, whose prompt imports List
    solution = "def evens(numbers: List[int]) -> List[int]:\n"
    solution += "    return [n for n in numbers if n % 2 == 0]\n"
    right = strict_verdict(CODE, f"Done.\n{_fenced(solution)}", "stop", sample.gold)
    assert right.status == "correct"
    odd = solution.replace("== 0", "== 1")
    wrong = strict_verdict(CODE, _fenced(odd), "stop", sample.gold)
    assert wrong.status == "wrong" and (wrong.rule or "").startswith("failed_test")
    thought = f"<think>{_fenced(solution)}</think>I would filter the list."
    assert strict_verdict(CODE, thought, "stop", sample.gold).status == "no_answer"
    cut = strict_verdict(CODE, _fenced(solution), "length", sample.gold)
    assert cut.status == "unfinished"
    # The lenient scorer reads the reasoning when there is no content (as AISBench does).
    assert lenient_verdict("code", None, _fenced(solution), sample.gold).is_correct


async def test_code_replies_are_judged_in_the_workers_as_they_would_be_inline(
    data_dir: Path,
) -> None:
    samples = load_samples("humaneval", data_dir)
    pool = ScoringPool(workers=2, warm=None)
    try:
        for sample in samples[:2]:
            for program in (_reference(sample), "def nope(:\n"):
                reply = ReplyText(_fenced(program), None, "stop")
                pooled = await pooled_verdicts(TASK, reply, sample.gold, pool)
                inline = strict_verdict(CODE, reply.content, "stop", sample.gold)
                assert pooled["strict"] == inline
        jobs = [(TASK, _code_reply(_reference(s)), s.gold) for s in samples]
        assert all(v["strict"].is_correct for v in many_verdicts(jobs, pool))
    finally:
        pool.close()


def test_a_simulated_humaneval_run_mixes_verdicts_and_rescores_to_the_same(
    tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key = answer_key_from_samples(load_samples("humaneval", data_dir))
    server = ThreadedSim(SimConfig(port=0, model="coder", seed=5, p_wrong=0.5), key).start()
    try:
        run_dir = tmp_path / "run"
        model = {"name": "coder", "base_url": server.base_url, "concurrency": 8,
                 "generation": {"seed": 100}}  # fmt: skip
        tasks = [{"name": "humaneval", "repeats": 4, "budgets": [1024, 4096]}]
        config = write_config(tmp_path / "run.yaml", {"run": "code", "tasks": tasks,
                                                      "models": [model]})  # fmt: skip
        status = main(["run", str(config), "--output", str(run_dir)])
    finally:
        server.stop()
    assert status == 0
    attempts = [a for a in iter_attempts(run_dir) if a.error is None]
    statuses = Counter(a.verdicts["strict"].status for a in attempts)
    assert statuses["correct"] > 0 and statuses["wrong"] > 0
    reasons = {
        (a.verdicts["strict"].rule or "").split(":")[0]
        for a in attempts
        if a.verdicts["strict"].status == "wrong"
    }
    assert reasons and reasons <= {"failed_test", "crash"}
    capsys.readouterr()
    assert main(["rescore", str(run_dir), "--json"]) == 0
    rescored = orjson.loads(capsys.readouterr().out)
    assert all(row["changed"] == 0 for row in rescored["scorers"])


def test_a_run_is_refused_in_one_line_without_a_sandbox(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    sandbox.check_sandbox.cache_clear()
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.delenv("THINKEVAL_UNSAFE_LOCAL_EXEC", raising=False)
    try:
        status = main(["run", "--base-url", "http://127.0.0.1:9/v1", "--model", "m",
                       "--tasks", "humaneval", "--output", str(tmp_path / "run")])  # fmt: skip
    finally:
        sandbox.check_sandbox.cache_clear()
    err = capsys.readouterr().err
    assert status != 0 and "Traceback" not in err
    (line,) = [line for line in err.splitlines() if "bubblewrap" in line]
    assert "--unsafe-local-exec" in line


def _broken(sample: Sample) -> str:
    """The canonical solution, then the function redefined to return None."""
    name = orjson.loads(sample.gold)["entry_point"]
    return f"{_reference(sample)}\n\ndef {name}(*args, **kwargs):\n    return None\n"


def test_a_task_file_runs_its_own_stdio_and_check_tests(tmp_path: Path) -> None:
    stdio = {
        "form": "stdio",
        "cases": [{"input": "2 3\n", "output": "5\n"}, {"input": "-1 1\n", "output": "0"}],
    }
    check = {
        "form": "check",
        "tests": "def check(f):\n    assert f(2, 3) == 5\n",
        "entry_point": "add",
    }
    rows = [{"q": "Print the sum of a and b.", "t": orjson.dumps(stdio).decode()},
            {"q": "Write add(a, b).", "t": orjson.dumps(check).decode()}]  # fmt: skip
    (tmp_path / "code.jsonl").write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows))
    (tmp_path / "code.yaml").write_text(
        "name: mycode\ndata: {file: code.jsonl}\nfields: {question: q, answer: t}\n"
        "answer: {kind: code}\n"
    )
    spec = load_task_file(tmp_path / "code.yaml")
    first, second = load_samples(spec, tmp_path)
    assert "fenced code block" in first.messages[-1]["content"]
    summing = "a, b = map(int, input().split())\nprint(a + b)\n"
    assert strict_verdict(spec.answer, _fenced(summing), "stop", first.gold).is_correct
    product = strict_verdict(spec.answer, _fenced(summing.replace("+", "*")), "stop", first.gold)
    assert (product.rule or "").startswith("failed_test: case 1/2")
    adding = "def add(a, b):\n    return a + b\n"
    assert strict_verdict(spec.answer, _fenced(adding), "stop", second.gold).is_correct
    (tmp_path / "code.jsonl").write_text('{"q": "x", "t": "{\\"form\\": \\"nope\\"}"}\n')
    with pytest.raises(DatasetError, match="form 'nope'"):
        load_samples(load_task_file(tmp_path / "code.yaml"), tmp_path)


@pytest.mark.real_data
def test_every_canonical_solution_passes_and_a_broken_variant_of_each_fails(
    real_data_dir: Path,
) -> None:
    samples = load_samples("humaneval", real_data_dir)
    assert len(samples) == 164
    pool = ScoringPool(workers=2, warm=None)
    try:
        right = [(TASK, _code_reply(_reference(s)), s.gold) for s in samples]
        broken = [(TASK, _code_reply(_broken(s)), s.gold) for s in samples]
        verdicts = many_verdicts(right + broken, pool)
    finally:
        pool.close()
    passed = [v["strict"] for v in verdicts[:164]]
    failed = [v["strict"] for v in verdicts[164:]]
    assert [v.status for v in passed] == ["correct"] * 164, [
        (s.id, v.rule) for s, v in zip(samples, passed, strict=True) if not v.is_correct
    ]
    assert [v.status for v in failed] == ["wrong"] * 164
    assert {(v.rule or "").split(":")[0] for v in failed} <= {"failed_test", "crash"}


@pytest.mark.real_data
def test_a_simulated_right_answer_passes_its_tests_as_the_canonical_solution_does(
    tmp_path: Path, real_data_dir: Path
) -> None:
    # The simulator's tokens once dropped indentation: 6 of 20 canonical solutions passed.
    samples = load_samples("humaneval", real_data_dir)[:20]
    key = answer_key_from_samples(samples)
    config = SimConfig(port=0, model="coder", seed=5, p_wrong=0.0, p_malformed=0.0, p_long=0.0,
                       p_never=0.0, p_empty=0.0)  # fmt: skip
    server = ThreadedSim(config, key).start()
    try:
        model = {"name": "coder", "base_url": server.base_url, "concurrency": 8}
        tasks = [{"name": "humaneval", "limit": 20}]
        document = {
            "run": "code",
            "tasks": tasks,
            "models": [model],
            "data_dir": str(real_data_dir),
        }
        run = write_config(tmp_path / "run.yaml", document)
        assert main(["run", str(run), "--output", str(tmp_path / "run")]) == 0
    finally:
        server.stop()
    verdicts = [a.verdicts["strict"] for a in iter_attempts(tmp_path / "run")]
    assert [v.status for v in verdicts] == ["correct"] * 20, [v.rule for v in verdicts]
