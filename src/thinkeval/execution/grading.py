"""A reply's program run against a code task's tests, in the sandbox: passed, or why not.

A task's gold is a JSON object (`CodeTests`), one of two forms:

- `{"form": "check", "prelude": ..., "tests": ..., "entry_point": ...}` (HumanEval): one
  program, `prelude` (the task's prompt code: its imports and helpers), then the reply's code,
  then `tests` (which define `check(candidate)`), then `check(<entry_point>)`;
- `{"form": "stdio", "cases": [{"input": ..., "output": ...}, ...]}` (LiveCodeBench's
  stdin/stdout problems): the reply's code once per case, its stdout compared with the
  expected output as LiveCodeBench's grader compares them (`outputs.py`: stripped lines, equal
  or numerically equal token by token).

Either may say `cpu_s` (the CPU-time allowance of one execution; default 6 s), `wall_s` (the
wall-clock limit, default 3 x `cpu_s` + 10 s, only for programs that wait) and `reference` (a known
solution, which the simulator answers with). The reasons a program fails, all `wrong` for
the accuracy: `failed_test` (an assertion of the tests, or a case's output differs), `crash`
(any other exception, a syntax error, a killed or silent exit, too much output), `timeout`
(its CPU time, or the wall-clock limit, ran out; re-run once alone before it counts) and
`memory` (its address-space limit ran out).
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import tempfile
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal

import orjson

from thinkeval.execution.outputs import output_mismatch
from thinkeval.execution.sandbox import Execution, Limits, run_program

Reason = Literal["failed_test", "crash", "timeout", "memory"]
REASONS: tuple[Reason, ...] = ("failed_test", "crash", "timeout", "memory")
DEFAULT_CPU_S = 6.0
UNSAFE_ENV = "THINKEVAL_UNSAFE_LOCAL_EXEC"  # "1": run without the sandbox (--unsafe-local-exec)
_EXCERPT = 240
_DONE = "thinkeval: all checks passed"  # printed after the tests, so a silent exit fails


class GoldError(ValueError):
    """A code task's gold that is not a test description; the message says what is wrong."""


@dataclass(frozen=True)
class Graded:
    """The outcome of a reply's program against the tests: `reason` is None when it passed;
    `detail` says what happened (an excerpt of stderr or stdout)."""

    reason: Reason | None
    detail: str
    executions: int

    @property
    def passed(self) -> bool:
        return self.reason is None


def parse_gold(gold: str) -> dict[str, Any]:
    """The test description in `gold`; `GoldError` when it is not one."""
    try:
        tests = orjson.loads(gold)
    except orjson.JSONDecodeError as exc:
        raise GoldError(f"code gold is not JSON ({exc})") from None
    if not isinstance(tests, dict):
        raise GoldError("code gold is not a JSON object")
    form = tests.get("form")
    if form == "check":
        for key in ("tests", "entry_point"):
            if not isinstance(tests.get(key), str) or not tests[key]:
                raise GoldError(f"code gold of form 'check' needs a non-empty string {key!r}")
    elif form == "stdio":
        cases = tests.get("cases")
        if not isinstance(cases, list) or not cases or not all(_is_case(c) for c in cases):
            raise GoldError("code gold of form 'stdio' needs cases [{input, output}, ...]")
    else:
        raise GoldError(f"code gold has form {form!r}; expected 'check' or 'stdio'")
    return tests


def _is_case(case: Any) -> bool:
    return isinstance(case, dict) and all(isinstance(case.get(k), str) for k in ("input", "output"))


def allow_unsafe_exec() -> None:
    """`--unsafe-local-exec`: this process and its scoring workers run replies unsandboxed."""
    os.environ[UNSAFE_ENV] = "1"


def unsafe_local() -> bool:
    """Whether replies run without the sandbox (`--unsafe-local-exec`)."""
    return os.environ.get(UNSAFE_ENV) == "1"


def _limits(tests: dict[str, Any]) -> Limits:
    cpu = float(tests.get("cpu_s") or DEFAULT_CPU_S)
    return Limits(cpu_s=cpu, wall_s=float(tests.get("wall_s") or 3 * cpu + 10))


@contextmanager
def _turn(alone: bool) -> Iterator[None]:
    """A shared hold on this machine's execution lock, or (`alone`) the only one: a time-out is
    run again while no other execution of this user runs."""
    path = os.path.join(tempfile.gettempdir(), f"thinkeval-exec-{os.getuid()}.lock")
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
        yield
    finally:
        os.close(fd)


def _execute(source: str, stdin: str, limits: Limits) -> Execution:
    with _turn(alone=False):
        first = run_program(source, stdin, limits, unsafe_local=unsafe_local())
    if first.exit not in ("cpu", "wall"):
        return first
    with _turn(alone=True):
        return run_program(source, stdin, limits, unsafe_local=unsafe_local())


def _excerpt(run: Execution) -> str:
    err = run.stderr.strip()
    if err:
        lines = err.splitlines()
        return ("stderr: " + " | ".join(lines[-3:]))[-_EXCERPT:]
    out = run.stdout.strip()
    return ("stdout: " + out[-_EXCERPT:]) if out else "no output"


def _failure(run: Execution) -> tuple[Reason, str]:
    if run.exit in ("cpu", "wall"):
        what = "CPU time" if run.exit == "cpu" else "wall-clock time"
        return "timeout", f"{what} limit reached twice; {_excerpt(run)}"
    if run.exit == "memory":
        return "memory", f"memory limit reached; {_excerpt(run)}"
    if run.exit == "output":
        return "crash", f"output over the limit; {_excerpt(run)}"
    last = (run.stderr.strip().splitlines() or [""])[-1]
    if last.startswith("AssertionError"):
        return "failed_test", _excerpt(run)
    if last.startswith(("SyntaxError", "IndentationError", "TabError")):
        return "crash", f"syntax error; {_excerpt(run)}"
    if run.exit == "signal":
        return "crash", f"killed by a signal (exit {run.returncode}); {_excerpt(run)}"
    return "crash", f"exit {run.returncode}; {_excerpt(run)}"


def _check_program(code: str, tests: dict[str, Any]) -> str:
    prelude = tests.get("prelude") or ""
    return (
        f"{prelude}\n{code}\n\n{tests['tests']}\n\n"
        f"check({tests['entry_point']})\nprint({_DONE!r})\n"
    )


def grade_uncached(code: str, tests: dict[str, Any]) -> Graded:
    """`grade` without its memo."""
    limits = _limits(tests)
    if tests["form"] == "check":
        run = _execute(_check_program(code, tests), "", limits)
        if run.exit == "ok" and run.stdout.rstrip().endswith(_DONE):
            return Graded(None, "all checks passed", 1)
        if run.exit == "ok":
            return Graded("crash", f"exited before the checks ended; {_excerpt(run)}", 1)
        return Graded(*_failure(run), 1)
    cases = tests["cases"]
    for number, case in enumerate(cases, start=1):
        run = _execute(code, case["input"], limits)
        if run.exit != "ok":
            reason, detail = _failure(run)
            return Graded(reason, f"case {number}/{len(cases)}: {detail}", number)
        mismatch = output_mismatch(run.stdout, case["output"])
        if mismatch is not None:
            got = run.stdout.strip()[-_EXCERPT // 2 :]
            want = case["output"].strip()[-_EXCERPT // 2 :]
            detail = f"case {number}/{len(cases)}: got {got!r}, want {want!r} ({mismatch})"
            return Graded("failed_test", detail, number)
    return Graded(None, f"{len(cases)}/{len(cases)} cases passed", len(cases))


_memo: OrderedDict[bytes, Graded] = OrderedDict()


def grade(code: str, gold: str) -> Graded:
    """The outcome of `code` against the tests in `gold`. The last few outcomes are kept, so
    the strict and the lenient scorer reading the same program run it once."""
    key = hashlib.blake2b(f"{code}\x00{gold}".encode(), digest_size=16).digest()
    if key in _memo:
        _memo.move_to_end(key)
        return _memo[key]
    graded = grade_uncached(code, parse_gold(gold))
    _memo[key] = graded
    while len(_memo) > 16:
        _memo.popitem(last=False)
    return graded
