"""LiveCodeBench code generation (`livecodebench/code_generation_lite` on the hub): the official
releases as tasks, their problems as code samples, the official prompt.

A release is cumulative: `release_vN` is the files `test.jsonl` (v1) to `testN.jsonl` (vN) of
the repo, each adding the problems of a later date window (`RELEASES`). Each row is one problem:
`question_id`, `question_title`, `question_content`, `platform`, `contest_date`, `difficulty`,
`starter_code`, `public_test_cases` (a JSON list of `{input, output, testtype}`),
`private_test_cases` (the same list as a JSON string, pickled, zlib-compressed and base64-encoded)
and `metadata` (JSON; `func_name` for LeetCode-style problems). A `stdin` problem becomes a
`stdio` gold (the program once per case, its stdout compared); a `functional` one a `check` gold
whose `check` calls `Solution().<func_name>(*args)` per case, each argument one JSON line of the
input, and compares the result with the JSON output, as LiveCodeBench's own harness does.
"""

from __future__ import annotations

import base64
import io
import json
import pickle
import zlib
from dataclasses import dataclass
from functools import partial
from typing import Any

import orjson

from thinkeval.errors import DatasetError
from thinkeval.records import Sample
from thinkeval.scoring.kinds.code import CodeKind
from thinkeval.tasks.prompts import user_message
from thinkeval.tasks.rows import key_field, nonempty_field, text_field
from thinkeval.tasks.spec import THINKING_SAMPLING, DataFile, HubSplit, Row, TaskSpec

REPO = "livecodebench/code_generation_lite"
# The repo's commit read: the one peers pin for these files (`test.jsonl`, `test2.jsonl` ...
# `test6.jsonl`, 1055 problems in all; docs/code.md says where it was found). It could not be
# checked against the hub from here (no network); a run records the commit it read.
REVISION = "0fe84c3912ea0c4d4a78037083943e8f0c4dd505"
CPU_S = 6.0  # CPU seconds per execution, LiveCodeBench's per-test time-out
MAX_FUNCTIONAL_CPU_S = 30.0  # a functional problem runs all its cases in one execution


@dataclass(frozen=True)
class Release:
    """One official release: the files it reads and the contest dates they cover."""

    name: str
    files: tuple[str, ...]
    window: str
    problems: int


_FILES = ("test.jsonl", "test2.jsonl", "test3.jsonl", "test4.jsonl", "test5.jsonl", "test6.jsonl")
_WINDOWS = (
    ("May 2023 - Mar 2024", 400),
    ("May 2023 - May 2024", 511),
    ("May 2023 - Jul 2024", 612),
    ("May 2023 - Sep 2024", 713),
    ("May 2023 - Jan 2025", 880),
    ("May 2023 - Apr 2025", 1055),
)
RELEASES = {
    f"release_v{n}": Release(f"release_v{n}", _FILES[:n], window, problems)
    for n, (window, problems) in enumerate(_WINDOWS, start=1)
}

# LiveCodeBench's prompt (`lcb_runner/prompts/code_generation.py`), in the form it sends
# reasoning models: the system message and the question in one user message.
SYSTEM = (
    "You are an expert Python programmer. You will be given a question (problem specification) "
    "and will generate a correct Python program that matches the specification and passes all "
    "tests."
)
WITH_STARTER = (
    "You will use the following starter code to write the solution to the problem and enclose "
    "your code within delimiters."
)
WITHOUT_STARTER = (
    "Read the inputs from stdin solve the problem and write the answer to stdout (do not "
    "directly test on the sample inputs). Enclose your code within delimiters as follows. "
    "Ensure that when the python program runs, it reads the inputs, runs the algorithm and "
    "writes output to STDOUT."
)
# What LiveCodeBench's harness puts before a functional solution (`testing_util.import_string`):
# starter code names `List`, `Optional`, ... without importing them.
IMPORTS = (
    "from string import *\nfrom re import *\nfrom datetime import *\nfrom collections import *\n"
    "from heapq import *\nfrom bisect import *\nfrom copy import *\nfrom math import *\n"
    "from random import *\nfrom statistics import *\nfrom itertools import *\n"
    "from functools import *\nfrom operator import *\nfrom io import *\nfrom sys import *\n"
    "from json import *\nfrom builtins import *\nfrom typing import *\nimport string\nimport re\n"
    "import datetime\nimport collections\nimport heapq\nimport bisect\nimport copy\nimport math\n"
    "import random\nimport statistics\nimport itertools\nimport functools\nimport operator\n"
    "import io\nimport sys\nimport json\nsys.setrecursionlimit(50000)\n"
)
_CHECK = """
def check(candidate):
    import json as _json
    _cases = _json.loads({cases!r})
    for _number, (_input, _output) in enumerate(_cases, start=1):
        _args = [_json.loads(_line) for _line in _input.split("\\n") if _line.strip()]
        _got = getattr(candidate(), {func!r})(*_args)
        if isinstance(_got, tuple):
            _got = list(_got)
        _want = _json.loads(_output)
        assert _got == _want, (
            f"case {{_number}}/{{len(_cases)}}: got {{repr(_got)[:80]}}, want {{repr(_want)[:80]}}"
        )
"""


def data_file(release: str) -> DataFile:
    """The hub files of `release` (`RELEASES`), read from the hub only (no local copy)."""
    files = RELEASES[release].files
    return DataFile("", hub=HubSplit(REPO, None, "test", revision=REVISION, files=files))


def prompt(question: str, starter_code: str) -> str:
    """The official question template: the problem, the format asked for, the answer cue."""
    text = f"{SYSTEM}\n\n### Question:\n{question}\n\n"
    if starter_code.strip():
        text += f"### Format: {WITH_STARTER}\n```python\n{starter_code}\n```\n\n"
    else:
        text += f"### Format: {WITHOUT_STARTER}\n```python\n# YOUR CODE HERE\n```\n\n"
    return text + "### Answer: (use the provided format with backticks)\n\n"


class _PlainUnpickler(pickle.Unpickler):
    """Unpickles plain data only. A pickle can name any importable callable and have it called
    while loading (`os.system`, say), so reading a downloaded one with `pickle.loads` would run
    whatever the file's author chose. The private tests are a pickled `str`, which needs no
    class at all: every `find_class` is refused, so strings, numbers and containers load and
    nothing else can."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"refused to load {module}.{name}: only plain data")


def decode_private(encoded: str) -> Any:
    """The private tests as the official files hold them: base64 of zlib of a pickled JSON
    string, decoded with `_PlainUnpickler`; a JSON string already (some mirrors) is read as is."""
    text = encoded.strip()
    if not text:
        return []
    if text.startswith("["):
        return json.loads(text)
    raw = zlib.decompress(base64.b64decode(text.encode("utf-8")))
    loaded = _PlainUnpickler(io.BytesIO(raw)).load()
    return json.loads(loaded) if isinstance(loaded, (str, bytes)) else loaded


def _cases(row: Row) -> list[dict[str, str]]:
    try:
        public = json.loads(text_field(row, "public_test_cases") or "[]")
        private = decode_private(text_field(row, "private_test_cases"))
    except (ValueError, TypeError, zlib.error, pickle.UnpicklingError, EOFError) as exc:
        raise DatasetError(f"{row.where}: unreadable test cases ({exc})") from None
    cases = [*public, *private]
    if not cases or not all(_is_case(case) for case in cases):
        raise DatasetError(f"{row.where}: test cases must be [{{input, output, testtype}}, ...]")
    return cases


def _is_case(case: Any) -> bool:
    return isinstance(case, dict) and all(isinstance(case.get(k), str) for k in ("input", "output"))


def _metadata(row: Row) -> dict[str, Any]:
    raw = row.fields.get("metadata") or "{}"
    try:
        metadata = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError as exc:
        raise DatasetError(f"{row.where}: metadata is not JSON ({exc})") from None
    return metadata if isinstance(metadata, dict) else {}


def tests_gold(row: Row) -> dict[str, Any]:
    """The gold of a problem: `stdio` for stdin/stdout problems, `check` for functional ones."""
    cases = _cases(row)
    kinds = {case.get("testtype", "stdin") for case in cases}
    if kinds == {"stdin"}:
        plain = [{"input": c["input"], "output": c["output"]} for c in cases]
        return {"form": "stdio", "cases": plain, "cpu_s": CPU_S}
    func = _metadata(row).get("func_name")
    if kinds != {"functional"} or not isinstance(func, str) or not func.isidentifier():
        raise DatasetError(
            f"{row.where}: functional tests need metadata.func_name, and a problem's tests "
            f"must be all stdin or all functional (got {sorted(map(str, kinds))})"
        )
    pairs = json.dumps([[c["input"], c["output"]] for c in cases])
    return {
        "form": "check",
        "prelude": IMPORTS,
        "tests": _CHECK.format(cases=pairs, func=func),
        "entry_point": "Solution",
        "cpu_s": min(MAX_FUNCTIONAL_CPU_S, CPU_S + 0.5 * len(cases)),
    }


def livecodebench_sample(task: str, row: Row) -> Sample:
    """A problem row as a sample `<task>/<question_id>`."""
    question_id = key_field(row, "question_id")
    starter = text_field(row, "starter_code")
    return Sample(
        id=f"{task}/{question_id}",
        task=task,
        messages=(user_message(prompt(nonempty_field(row, "question_content"), starter)),),
        gold=orjson.dumps(tests_gold(row)).decode(),
    )


def livecodebench_spec(name: str, release: str, aisbench: tuple[str, ...] = ()) -> TaskSpec:
    """The task `name` asking every problem of `release` (`RELEASES`); `aisbench`: the AISBench
    dataset names it stands for (one task only, so an import knows which)."""
    chosen = RELEASES[release]
    return TaskSpec(
        name=name,
        version="1",
        description=(
            f"LiveCodeBench {release}: {chosen.problems} problems of {chosen.window}, "
            "judged by running their public and private tests"
        ),
        files=(data_file(release),),
        sample=partial(livecodebench_sample, name),
        answer=CodeKind(),
        lenient="code",
        budgets=(16384, 32768),
        generation=THINKING_SAMPLING,
        ids_from_data=True,
        prompt_source="LiveCodeBench's official prompt (system message + question, starter code)",
        aisbench_names=aisbench,
        sim_flavour="code",
        suite="code",
        reply_tokens=8000,
    )
