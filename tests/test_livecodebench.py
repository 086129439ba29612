"""The livecodebench tasks against a fake hub holding a small made-up release in the official
format: cumulative releases, the official prompt (with and without starter code), public and
private tests (the private ones base64 -> zlib -> pickle -> JSON, read without running any
pickled callable), stdin/stdout and functional problems judged in the sandbox."""

from __future__ import annotations

import base64
import json
import pickle
import zlib
from pathlib import Path
from typing import Any

import orjson
import pytest

from fakehub import FakeHub
from thinkeval.errors import DatasetError
from thinkeval.scoring.kinds import make_kind
from thinkeval.scoring.strict import strict_verdict
from thinkeval.tasks import get_task, iter_samples, load_samples
from thinkeval.tasks.livecodebench import (
    IMPORTS,
    RELEASES,
    REPO,
    REVISION,
    SYSTEM,
    WITH_STARTER,
    WITHOUT_STARTER,
    decode_private,
)
from thinkeval.tasks.source import DataSource

CODE = make_kind("code")


def _private(cases: list[dict[str, str]]) -> str:
    """Encoded as the official files encode it."""
    return base64.b64encode(zlib.compress(pickle.dumps(json.dumps(cases)))).decode()


def _row(qid: str, content: str, public: list[Any], private: list[Any], **extra: Any) -> bytes:
    row = {
        "question_title": f"Problem {qid}", "question_content": content, "platform": "atcoder",
        "question_id": qid, "contest_id": "made-up", "contest_date": "2023-06-01T00:00:00",
        "starter_code": "", "difficulty": "easy", "public_test_cases": json.dumps(public),
        "private_test_cases": _private(private), "metadata": "{}", **extra,
    }  # fmt: skip
    return json.dumps(row).encode() + b"\n"


def _stdin(inp: str, out: str) -> dict[str, str]:
    return {"input": inp, "output": out, "testtype": "stdin"}


def _functional(inp: str, out: str) -> dict[str, str]:
    return {"input": inp, "output": out, "testtype": "functional"}


STARTER = "class Solution:\n    def addAll(self, nums: List[int], k: int) -> int:\n        "
TEST1 = _row(
    "sum_two", "Read two integers a and b and print a + b.",
    [_stdin("1 2\n", "3\n")], [_stdin("10 -4\n", "6\n"), _stdin("0 0\n", "0\n")],
) + _row(
    "3001", "Return the sum of nums plus k.",
    [_functional("[1, 2]\n3", "6")], [_functional("[]\n0", "0"), _functional("[5]\n-5", "0")],
    platform="leetcode", starter_code=STARTER, metadata=json.dumps({"func_name": "addAll"}),
)  # fmt: skip
TEST2 = _row("double", "Print twice the integer read.", [_stdin("4\n", "8\n")], [])


@pytest.fixture
def lcb_hub(fake_hub: FakeHub) -> FakeHub:
    files = {"test.jsonl": TEST1, "test2.jsonl": TEST2, "code_generation_lite.py": b"# script"}
    fake_hub.commit = fake_hub.add(REPO, files, commit=REVISION)  # type: ignore[attr-defined]
    return fake_hub


def _fenced(program: str) -> str:
    return f"Here it is.\n```python\n{program}```\n"


def test_releases_are_cumulative_and_read_from_the_pinned_hub_revision(
    lcb_hub: FakeHub, data_dir: Path
) -> None:
    assert len(REVISION) == 40 and int(REVISION, 16) >= 0  # a commit, never a branch
    assert [r.files[-1] for r in RELEASES.values()] == [
        "test.jsonl",
        *(f"test{n}.jsonl" for n in range(2, 7)),
    ]
    assert [RELEASES[f"release_v{n}"].problems for n in range(1, 7)] == [
        400,
        511,
        612,
        713,
        880,
        1055,
    ]
    v1 = load_samples("livecodebench_v1", data_dir)  # a data dir has no copy: the hub is read
    assert [s.id for s in v1] == ["livecodebench_v1/sum_two", "livecodebench_v1/3001"]
    sources: list[DataSource] = []
    v2 = list(iter_samples("livecodebench_v2", None, sources))
    assert [s.id for s in v2] == [
        "livecodebench_v2/sum_two", "livecodebench_v2/3001", "livecodebench_v2/double"
    ]  # fmt: skip
    assert [s.file for s in sources] == ["test.jsonl", "test2.jsonl"]
    assert {s.origin for s in sources} == {f"{REPO}@{lcb_hub.commit}"}  # type: ignore[attr-defined]
    assert not any("code_generation_lite.py" in path for path in lcb_hub.downloads())
    assert get_task("livecodebench").files[0].hub.files == RELEASES["release_v6"].files  # type: ignore[union-attr]


def test_the_official_prompt_with_and_without_starter_code(lcb_hub: FakeHub) -> None:
    stdio, functional = load_samples("livecodebench_v1", None)
    content = stdio.messages[0]["content"]
    assert stdio.messages[0]["role"] == "user" and len(stdio.messages) == 1
    assert content == (
        f"{SYSTEM}\n\n### Question:\nRead two integers a and b and print a + b.\n\n"
        f"### Format: {WITHOUT_STARTER}\n```python\n# YOUR CODE HERE\n```\n\n"
        "### Answer: (use the provided format with backticks)\n\n"
    )
    assert (
        f"### Format: {WITH_STARTER}\n```python\n{STARTER}\n```\n\n"
        in (functional.messages[0]["content"])
    )


def test_public_and_private_tests_become_stdio_and_check_golds(lcb_hub: FakeHub) -> None:
    stdio, functional = load_samples("livecodebench_v1", None)
    gold = orjson.loads(stdio.gold)
    assert gold["form"] == "stdio"
    assert gold["cases"] == [
        {"input": "1 2\n", "output": "3\n"}, {"input": "10 -4\n", "output": "6\n"},
        {"input": "0 0\n", "output": "0\n"},
    ]  # fmt: skip
    check = orjson.loads(functional.gold)
    assert check["form"] == "check" and check["entry_point"] == "Solution"
    assert check["prelude"] == IMPORTS and "'addAll'" in check["tests"]


def test_stdio_problems_are_judged_case_by_case(lcb_hub: FakeHub) -> None:
    gold = load_samples("livecodebench_v1", None)[0].gold
    right = "a, b = map(int, input().split())\nprint(a + b)\n"
    assert strict_verdict(CODE, _fenced(right), "stop", gold).status == "correct"
    wrong = strict_verdict(CODE, _fenced("print(3)\n"), "stop", gold)
    assert wrong.status == "wrong"
    assert (wrong.rule or "").startswith("failed_test: case 2/3: got '3', want '6'")
    crash = strict_verdict(CODE, _fenced("print(int('x'))\n"), "stop", gold)
    assert (crash.rule or "").startswith("crash")


def test_functional_problems_call_the_solution_method(lcb_hub: FakeHub) -> None:
    gold = load_samples("livecodebench_v1", None)[1].gold
    body = STARTER + "return sum(nums) + k\n"  # List comes from the official imports
    assert strict_verdict(CODE, _fenced(body), "stop", gold).status == "correct"
    off = strict_verdict(CODE, _fenced(STARTER + "return sum(nums) + k + 1\n"), "stop", gold)
    assert off.status == "wrong" and (off.rule or "").startswith("failed_test")
    assert "case 1/3: got 7, want 6" in (off.rule or "")
    slow = strict_verdict(CODE, _fenced(STARTER + "while True: pass\n"), "stop", gold)
    assert (slow.rule or "").startswith("timeout")
    renamed = strict_verdict(CODE, _fenced(body.replace("addAll", "add_all")), "stop", gold)
    assert (renamed.rule or "").startswith("crash")


class _Called:
    """A pickle that would call `print` when loaded."""

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return (print, ("a pickled callable ran",))


def test_private_tests_never_run_pickled_callables(
    lcb_hub: FakeHub, capsys: pytest.CaptureFixture[str]
) -> None:
    assert decode_private(_private([_stdin("1", "2")])) == [_stdin("1", "2")]
    hostile = base64.b64encode(zlib.compress(pickle.dumps(_Called()))).decode()
    with pytest.raises(pickle.UnpicklingError, match=r"refused to load builtins\.print"):
        decode_private(hostile)
    lcb_hub.add(REPO, {"test.jsonl": TEST1.replace(
        _private([_stdin("10 -4\n", "6\n"), _stdin("0 0\n", "0\n")]).encode(), hostile.encode()
    )}, commit=REVISION)  # fmt: skip
    with pytest.raises(DatasetError, match=r"test\.jsonl.*unreadable test cases.*refused"):
        load_samples("livecodebench_v1", None)
    assert "a pickled callable ran" not in capsys.readouterr().out


def test_a_functional_problem_without_its_function_name_is_named(lcb_hub: FakeHub) -> None:
    bad = TEST1.replace(b'{\\"func_name\\": \\"addAll\\"}', b"{}")
    lcb_hub.add(REPO, {"test.jsonl": bad}, commit=REVISION)
    with pytest.raises(DatasetError, match=r"functional tests need metadata\.func_name"):
        load_samples("livecodebench_v1", None)


def test_listing_tasks_does_not_download_livecodebench(lcb_hub: FakeHub, data_dir: Path) -> None:
    from thinkeval.ops.tasks import list_tasks

    listed = {info.name: info for info in list_tasks(str(data_dir))}
    assert listed["livecodebench"].samples is None and listed["gsm8k"].samples
    assert listed["livecodebench_v1"].answer == "code"
    assert lcb_hub.requests == []


def test_a_hub_without_the_pinned_commit_is_refused_naming_it(fake_hub: FakeHub) -> None:
    fake_hub.add(REPO, {"test.jsonl": TEST1}, branch="main")  # main only: not the pinned commit
    with pytest.raises(DatasetError, match=rf"{REPO}.*no revision '{REVISION}'"):
        load_samples("livecodebench_v1", None)
