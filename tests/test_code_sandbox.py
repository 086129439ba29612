"""The sandbox against a corpus of replies with known outcomes: correct and wrong programs, a
syntax error, an infinite loop, a memory bomb, a fork bomb, a socket, reading ~/.ssh, writing
outside its directory, killing its parent, flooding its output. Each gets its exact verdict and
reason, the canary directory the hostile ones aim at is unchanged, and no process of the
sandbox's uid is left."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from thinkeval.execution import grading, sandbox
from thinkeval.execution.grading import grade_uncached, parse_gold
from thinkeval.scoring.kinds.code import CodeKind
from thinkeval.scoring.strict import strict_verdict

SOLVE = "def add(a, b):\n    return a + b\n"
TESTS = "def check(candidate):\n    assert candidate(2, 3) == 5\n    assert candidate(-1, 1) == 0\n"
GOLD = orjson.dumps(
    {"form": "check", "tests": TESTS, "entry_point": "add", "cpu_s": 1, "wall_s": 30}
).decode()
# The same with a short wall-clock limit, for the reply that only waits.
WAITING = orjson.dumps(
    {"form": "check", "tests": TESTS, "entry_point": "add", "cpu_s": 1, "wall_s": 2}
).decode()


@pytest.fixture
def canary() -> Iterator[Path]:
    """A fresh directory holding a fake ~/.ssh key: the target of the hostile replies."""
    prefix = os.path.join(tempfile.gettempdir(), "thinkeval-canary-")
    made = tempfile.mkdtemp(prefix="thinkeval-canary-")
    assert made.startswith(prefix)
    root = Path(made)
    (root / ".ssh").mkdir()
    (root / ".ssh" / "id_rsa").write_text("SECRET-CANARY\n")
    yield root
    assert made.startswith(prefix)  # only the directory made above is ever deleted
    shutil.rmtree(made)


def _snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def _corpus(canary: Path) -> list[tuple[str, str, str, str]]:
    """(name, program, expected status, expected start of the rule)."""
    key = canary / ".ssh" / "id_rsa"
    return [
        ("correct", SOLVE, "correct", "last python block: all checks passed"),
        ("wrong", "def add(a, b):\n    return a - b\n", "wrong", "failed_test"),
        ("syntax error", "def add(a, b)\n    return a + b\n", "wrong", "crash: syntax error"),
        ("exception", "def add(a, b):\n    return a + None\n", "wrong", "crash: exit 1"),
        ("infinite loop", "while True:\n    pass\n" + SOLVE, "wrong", "timeout: CPU time"),
        ("sleeps forever", "import time\ntime.sleep(3600)\n", "wrong", "timeout: wall-clock"),
        ("memory bomb", "x = bytearray(8 * 2**30)\n" + SOLVE, "wrong", "memory"),
        ("fork bomb", "import os\nwhile True:\n    os.fork()\n", "wrong", "crash: exit 1"),
        (
            "socket",
            "import socket\nsocket.create_connection(('1.1.1.1', 53), timeout=2)\n" + SOLVE,
            "wrong",
            "crash: exit 1",
        ),
        (
            "reads ~/.ssh",
            f"import os\nfor p in ({str(key)!r}, os.path.expanduser('~/.ssh/id_rsa'),"
            " '/root/.ssh/id_rsa'):\n"
            "    try:\n        print(open(p).read())\n    except OSError:\n        pass\n"
            f"print(open({str(key)!r}).read())\n" + SOLVE,
            "wrong",
            "crash: exit 1",
        ),
        (
            "writes outside",
            "for p in ('/usr/evil', '/tmp/../usr/evil2'):\n"
            "    try:\n        open(p, 'w').write('x')\n    except OSError:\n        pass\n"
            f"open({str(canary / 'evil')!r}, 'w').write('x')\n" + SOLVE,
            "wrong",
            "crash: exit 1",
        ),
        (
            # The program is its namespace's init: its parent is outside (pid 0 inside), and
            # kill(-1) reaches only the sandbox; the signals hit nothing and the tests pass.
            "kills its parent",
            "import os, signal\nfor pid in (os.getppid(), 1, -1):\n    try:\n"
            "        os.kill(pid, signal.SIGKILL)\n    except OSError:\n        pass\n" + SOLVE,
            "correct",
            "last python block",
        ),
        ("floods output", "while True:\n    print('x' * 10000)\n", "wrong", "crash: output"),
        (
            "exits early",
            SOLVE + "import sys\nsys.exit(0)\n",
            "wrong",
            "crash: exited before the checks ended",
        ),
        ("writes in its own dir", "open('scratch.txt', 'w').write('x')\n" + SOLVE, "correct", ""),
    ]


def _sandbox_processes() -> list[int]:
    uid = sandbox.sandbox_uid()
    if uid is None:
        return []
    left = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid == uid:
                    left.append(int(entry.name))
            except FileNotFoundError:
                continue
    return left


def test_the_sandbox_works_here() -> None:
    assert sandbox.check_sandbox() is None


def test_each_reply_of_the_corpus_gets_its_exact_verdict_and_is_contained(
    canary: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = _snapshot(canary)
    # The host's temporary directory, as the executions see it: only the lock file may appear.
    scratch = Path(tempfile.mkdtemp(dir=canary))
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    kind = CodeKind()
    for name, program, status, rule in _corpus(canary):
        reply = f"Here it is.\n\n```python\n{program}```\n"
        gold = WAITING if name == "sleeps forever" else GOLD
        verdict = strict_verdict(kind, reply, "stop", gold)
        assert verdict.status == status, (name, verdict)
        assert (verdict.rule or "").startswith(rule), (name, verdict)
        assert {k: v for k, v in _snapshot(canary).items() if scratch.name not in k} == before
        assert [p.name for p in scratch.iterdir()] == [f"thinkeval-exec-{os.getuid()}.lock"]
        assert _sandbox_processes() == [], name
    assert not Path("/usr/evil").exists() and not Path("/usr/evil2").exists()


def test_reasons_carry_excerpts_of_stderr_and_stdout(canary: Path) -> None:
    tests = parse_gold(GOLD)
    leaked = grade_uncached(
        f"print(open({str(canary / '.ssh' / 'id_rsa')!r}).read())\n" + SOLVE, tests
    )
    assert leaked.reason == "crash" and "FileNotFoundError" in leaked.detail
    assert "SECRET" not in leaked.detail
    socket = grade_uncached("import socket\nsocket.create_connection(('1.1.1.1', 53))\n", tests)
    assert "Network is unreachable" in socket.detail
    wrong = grade_uncached("def add(a, b):\n    print('tried', a, b)\n    return 0\n", tests)
    assert wrong.reason == "failed_test" and "AssertionError" in wrong.detail


def test_a_time_out_is_run_again_alone_before_it_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    runs: list[str] = []
    real = grading.run_program

    def counted(*args: object, **kwargs: object) -> sandbox.Execution:
        runs.append("run")
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(grading, "run_program", counted)
    graded = grade_uncached("while True:\n    pass\n", parse_gold(GOLD))
    assert graded.reason == "timeout" and len(runs) == 2
    runs.clear()
    assert grade_uncached(SOLVE, parse_gold(GOLD)).passed and len(runs) == 1


def test_stdio_cases_compare_the_output_line_by_line() -> None:
    gold = {
        "form": "stdio",
        "cases": [{"input": "2 3\n", "output": "5\n"}, {"input": "10 -4\n", "output": "6"}],
    }
    right = "a, b = map(int, input().split())\nprint(a + b)  \n"
    assert grade_uncached(right, gold).passed
    wrong = grade_uncached("a, b = map(int, input().split())\nprint(a * b)\n", gold)
    assert wrong.reason == "failed_test" and wrong.detail.startswith("case 1/2: got '6'")


def test_without_bubblewrap_code_is_refused_in_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    sandbox.check_sandbox.cache_clear()
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.delenv(grading.UNSAFE_ENV, raising=False)
    try:
        with pytest.raises(Exception) as refused:
            CodeKind().ready()
        message = str(refused.value)
        assert "bubblewrap" in message and "--unsafe-local-exec" in message
        assert "\n" not in message
        monkeypatch.setenv(grading.UNSAFE_ENV, "1")
        CodeKind().ready()  # the explicit opt-out runs without the sandbox
    finally:
        sandbox.check_sandbox.cache_clear()


def test_unsafe_local_exec_still_applies_the_resource_limits() -> None:
    limits = sandbox.Limits(cpu_s=1, wall_s=5, memory_mb=512)
    looped = sandbox.run_program("while True:\n    pass\n", limits=limits, unsafe_local=True)
    assert looped.exit == "cpu"
    bomb = sandbox.run_program("x = bytearray(2**31)\n", limits=limits, unsafe_local=True)
    assert bomb.exit == "memory"
    assert sandbox.run_program("print(7)", unsafe_local=True).stdout == "7\n"
