"""The simulator's answers to code tasks: the task's reference solution in a fenced block when it
answers right, and when wrong one of three typical failures, a wrong result (`failed_test`), an
exception (`crash`) or a syntax error, so runs without a model exercise every verdict."""

from __future__ import annotations

import random

import orjson

# A wrong program for a task whose entry point is {f}; `form` picks one.
_WRONG = (
    "def {f}(*args, **kwargs):\n    return None\n",
    "def {f}(*args, **kwargs):\n    raise ValueError('not implemented')\n",
    "def {f}(*args, **kwargs)\n    return args[0]\n",
)
_MALFORMED = (
    "I would loop over the input once, keeping what is needed, and return the result.",
    "This needs a helper that checks each element; the main function then combines them.",
)


def _tests(gold: str) -> dict[str, object]:
    try:
        tests = orjson.loads(gold)
    except orjson.JSONDecodeError:
        return {}
    return tests if isinstance(tests, dict) else {}


def wrong_code(gold: str, rng: random.Random) -> str:
    """A program that fails the tests in `gold`."""
    name = _tests(gold).get("entry_point") or "solution"
    return rng.choice(_WRONG).format(f=name)


def code_answer(value: str) -> str:
    """The reply after the think block: `value` (a program, or the gold whose reference
    solution it stands for) in a fenced Python block."""
    tests = _tests(value) if value.startswith("{") else {}
    program = str(tests.get("reference") or "") if tests else value
    if tests and not program:
        program = "pass\n"  # a gold without a reference: the simulator cannot solve it
    return f"Here is the solution.\n\n```python\n{program.rstrip()}\n```"


def malformed_code(form: int) -> str:
    """A finished reply without a code block."""
    return _MALFORMED[form % len(_MALFORMED)]
