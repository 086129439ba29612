"""The bad-input corpus: every command × the bad inputs and faults a user meets in the first hour.

Each case runs the command in-process (`thinkeval.cli.main`, as the console script does) and
asserts what a user needs: the exit status, exactly one `error:` line naming the flag, key or
file (the `expect` fragments), no traceback, no run directory left behind by a failed start, and
the journal of an existing run unchanged. A few cases run `python -m thinkeval` for real, and
`--debug` / THINKEVAL_DEBUG=1 are checked to give the traceback with its cause.

tests/test_bad_input.py and tests/test_user_errors.py test particular messages in depth; this
file is the breadth: one row per (command, mistake).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

import thinkeval
from conftest import ThreadedSim
from thinkeval.cli import main
from thinkeval.errors import ThinkevalError
from thinkeval.sim.config import SimConfig
from thinkeval.tasks import get_task

UNREACHABLE = "http://127.0.0.1:9/v1"


@dataclass(frozen=True)
class World:
    """What the cases refer to: a live simulator, a finished run, and files of every kind."""

    url: str
    run: Path  # a finished run (gsm8k, 4 samples); cases must leave its journal as it is
    root: Path  # where each case's files and outputs go


@pytest.fixture(scope="module")
def world(
    tmp_path_factory: pytest.TempPathFactory, answer_key: dict[str, object]
) -> Iterator[World]:
    root = tmp_path_factory.mktemp("corpus")
    server = ThreadedSim(SimConfig(port=0, model="m", seed=1), answer_key).start()  # type: ignore[arg-type]
    run = root / "done"
    assert main(["run", "--base-url", server.base_url, "--tasks", "gsm8k", "--limit", "4",
                 "--output", str(run)]) == 0  # fmt: skip
    _files(root)
    # A copy of the run with a broken line in the middle of its journal (not a torn tail).
    corrupt = shutil.copytree(run, root / "corrupt_run")
    journal = corrupt / "journal" / "main.jsonl"
    lines = journal.read_bytes().splitlines(keepends=True)
    journal.write_bytes(lines[0] + b'{"sample_id": 7, "torn\n' + b"".join(lines[1:]))
    _edited_copy(run, root / "edited_run")
    try:
        yield World(server.base_url, run, root)
    finally:
        server.stop()


def _files(root: Path) -> None:
    """Bad (and good) input files the cases name, written once."""
    files = {
        "syntax.yaml": "run: x\nmodels: [\n",
        "list.yaml": "- a\n- b\n",
        "empty.yaml": "",
        "unknown_key.yaml": "run: x\nmodles: []\n",
        "no_models.yaml": "run: x\ntasks: [gsm8k]\n",
        "tab.yaml": "run: x\n\tmodels: []\n",
        "q.csv": "id,question,answer\n1,What is 2+2?,4\n2,What is 3+3?,6\n",
        "dup.csv": "id,question,answer\n1,What is 2+2?,4\n1,What is 3+3?,6\n",
        "header.csv": "id,question,answer\n",
        "bad.jsonl": '{"id": "1", "question": "2+2?", "answer": "4"}\n{"id": "2", "question"\n',
        "nocol.csv": "id,prompt,answer\n1,2+2?,4\n",
        "notes.txt": "not a run\n",
        "dupkey.yaml": "run: x\ntasks: [gsm8k]\nrun: y\n",
        **SWEEP_FILES,
    }
    for name, text in files.items():
        (root / name).write_text(text)
    # Not files at all: a FIFO (an open would block), a symlink loop, a sparse 9 MiB config.
    os.mkfifo(root / "fifo.yaml")
    os.mkfifo(root / "fifo.csv")
    for name in ("loop.yaml", "loop.csv"):
        (root / f"{name}.other").symlink_to(name)
        (root / name).symlink_to(f"{name}.other")
    with (root / "huge.yaml").open("wb") as handle:
        handle.truncate(9 * 1024 * 1024)
    (root / "loopdata" / "gsm8k").mkdir(parents=True)
    (root / "loopdata" / "gsm8k" / "x").symlink_to("test.jsonl")
    (root / "loopdata" / "gsm8k" / "test.jsonl").symlink_to("x")
    task = "data:\n  file: {data}\nfields:\n  question: question\n  answer: answer\n  id: id\n"
    for name, data in (("dup", "dup.csv"), ("header", "header.csv"), ("badline", "bad.jsonl"),
                       ("nocol", "nocol.csv"), ("good", "q.csv")):  # fmt: skip
        body = f"name: t_{name}\n" + task.format(data=data) + "answer:\n  kind: number\n"
        (root / f"task_{name}.yaml").write_text(body)
    for name, data, extra in (("brace", "q.csv", "prompt: 'Q: {question'\n"),
                              ("placeholder", "q.csv", "prompt: 'Q: {question} {nope}'\n"),
                              ("dupkey", "q.csv", "prompt: '{question}'\nprompt: 'Q'\n"),
                              ("loop", "loop.csv", ""), ("fifo", "fifo.csv", ""),
                              ("gen", "q.csv", "generation: {min_p: 7}\n")):  # fmt: skip
        body = f"name: t_{name}\n" + task.format(data=data) + "answer:\n  kind: number\n" + extra
        (root / f"task_{name}.yaml").write_text(body)
    (root / "task_kind.yaml").write_text(
        "name: t_kind\n" + task.format(data="q.csv") + "answer:\n  kind: poem\n"
    )
    (root / "task_missing.yaml").write_text(
        "name: t_missing\n" + task.format(data="nope.csv") + "answer:\n  kind: number\n"
    )
    (root / "empty_dir").mkdir()
    broken = root / "broken_run"
    broken.mkdir()
    (broken / "config.json").write_text("{not json")


def _edited_copy(run: Path, copy: Path) -> None:
    """A copy of the finished run whose samples file had a gold edited by hand."""
    shutil.copytree(run, copy)
    path = copy / "samples" / "gsm8k.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    lines[1] = lines[1].replace('"gold":"', '"gold":"9', 1)
    path.write_text("".join(lines))


@dataclass(frozen=True)
class Case:
    """One mistake: the command line (`{url}`, `{run}`, `{root}` filled in), the exit status,
    and fragments the one error line must hold."""

    id: str
    argv: tuple[str, ...]
    code: int
    expect: tuple[str, ...]
    output: str | None = None  # a run directory this command must not leave behind
    env: tuple[tuple[str, str], ...] = ()


def _config(world: World, name: str, body: str) -> Path:
    path = world.root / f"{name}.yaml"
    path.write_text(body.replace("{url}", world.url).replace("{root}", str(world.root)))
    return path


def _model(url: str = "{url}", extra: str = "") -> str:
    return f"models:\n  - name: m\n    base_url: {url}\n{extra}"


RUN = ("run", "--base-url", "{url}", "--tasks", "gsm8k", "--limit", "2")
FLAG_CASES = [
    Case("run-no-server", ("run", "--tasks", "gsm8k"), 2, ("--base-url URL", "OPENAI_BASE_URL")),
    Case("run-url-no-scheme", ("run", "--base-url", "127.0.0.1:8000/v1"), 2, ("--base-url",)),
    Case("run-url-ftp", ("run", "--base-url", "ftp://h/v1"), 2, ("--base-url",)),
    Case("run-url-spaces", ("run", "--base-url", "http://a b/v1"), 2, ("--base-url",)),
    Case("run-unreachable", ("run", "--base-url", UNREACHABLE, "--tasks", "gsm8k"), 2,
         ("cannot reach", "127.0.0.1:9"), "out-unreachable"),
    Case("run-tasks-empty", ("run", "--base-url", "{url}", "--tasks", ""), 2,
         ("--tasks names nothing",)),
    Case("run-tasks-commas", ("run", "--base-url", "{url}", "--tasks", ",,"), 2,
         ("--tasks names nothing",)),
    Case("run-tasks-unknown", ("run", "--base-url", "{url}", "--tasks", "gsm9k"), 2,
         ("unknown task 'gsm9k'",)),
    Case("run-tasks-twice", ("run", "--base-url", "{url}", "--tasks", "gsm8k,gsm8k"), 2,
         ("--tasks", "gsm8k given twice")),
    Case("run-limit-0", (*RUN[:-1], "0"), 2, ("--limit", "at least 1")),
    Case("run-limit-negative", (*RUN[:-1], "-3"), 2, ("--limit", "at least 1")),
    Case("run-limit-word", (*RUN[:-1], "ten"), 2, ("--limit", "'ten'")),
    Case("run-limit-float", (*RUN[:-1], "1.5"), 2, ("--limit", "'1.5'")),
    Case("run-budgets-negative", (*RUN, "--budgets", "-1,100"), 2, ("--budgets", "'-1,100'")),
    Case("run-budgets-one", (*RUN, "--budgets", "2048"), 2, ("--budgets", "'2048'")),
    Case("run-budgets-three", (*RUN, "--budgets", "1,2,3"), 2, ("--budgets",)),
    Case("run-budgets-words", (*RUN, "--budgets", "a,b"), 2, ("--budgets",)),
    Case("run-budgets-zero", (*RUN, "--budgets", "0,100"), 2, ("budgets",)),
    Case("run-concurrency-0", (*RUN, "--concurrency", "0"), 2, ("--concurrency", "at least 1")),
    Case("run-concurrency-word", (*RUN, "--concurrency", "many"), 2, ("--concurrency",)),
    Case("run-gen-no-equals", (*RUN, "--gen", "temperature"), 2, ("--gen", "KEY=VALUE")),
    Case("run-gen-bad-yaml", (*RUN, "--gen", "stop=[a"), 2, ("--gen", "not valid YAML")),
    Case("run-gen-twice", (*RUN, "--gen", "seed=1", "--gen", "seed=2"), 2, ("seed is set twice",)),
    Case("run-gen-nested-clash", (*RUN, "--gen", "a=1", "--gen", "a.b=2"), 2, ("--gen",)),
    Case("run-gen-bad-key", (*RUN, "--gen", "1x=2"), 2, ("--gen", "KEY=VALUE")),
    Case("run-gen-temperature-word", (*RUN, "--gen", "temperature=hot"), 2,
         ("command line: models[0].generation.temperature: expected a number", "got 'hot'")),
    Case("run-gen-top-k-fraction", (*RUN, "--gen", "top_k=0.5"), 2,
         ("models[0].generation.top_k: expected an integer >= -1",)),
    Case("run-key-env-unset", (*RUN, "--api-key-env", "I23_NOT_SET"), 2,
         ("I23_NOT_SET", "--api-key-env", "not set")),
    Case("run-key-env-unset-with-model", (*RUN, "--model", "m", "--api-key-env", "I23_NOT_SET"),
         2, ("I23_NOT_SET", "not set")),
    Case("run-two-models", (*RUN, "--model", "a,b"), 2, ("one model",)),
    Case("run-model-wrong", (*RUN, "--model", "nope", "--output", "{root}/out-nope"), 2,
         ("serves m, not 'nope'",), "out-nope"),
    Case("run-shard-bad", (*RUN, "--shard", "3/2"), 2, ("--shard",)),
    Case("run-shard-word", (*RUN, "--shard", "half"), 2, ("--shard",)),
    Case("run-shard-zero", (*RUN, "--shard", "0/0"), 2, ("--shard",)),
    Case("run-data-dir-missing", (*RUN, "--data-dir", "{root}/nodata", "--output",
                                  "{root}/out-nodata"), 2, ("nodata",), "out-nodata"),
    Case("run-unknown-flag", (*RUN, "--fast"), 2, ("unrecognized arguments: --fast",)),
    Case("run-config-missing", ("run", "{root}/nope.yaml"), 2, ("nope.yaml",)),
    Case("run-config-and-limit", ("run", "{root}/empty.yaml", "--limit", "3"), 2,
         ("--limit", "describe a run from flags")),
    Case("run-config-is-dir", ("run", "{root}/empty_dir"), 2, ("empty_dir",)),
    Case("run-key-env-blank", (*RUN, "--api-key-env", "I23_BLANK"), 2, ("I23_BLANK",),
         env=(("I23_BLANK", "  "),)),
    Case("run-gen-key-twice", (*RUN, "--gen", "stop={a: 1, a: 2}"), 2,
         ("--gen", "key 'a' is given twice")),
    Case("run-config-dev-zero", ("run", "/dev/zero"), 2, ("/dev/zero", "a character device")),
    Case("run-config-fifo", ("run", "{root}/fifo.yaml"), 2, ("fifo.yaml", "a FIFO")),
    Case("run-config-symlink-loop", ("run", "{root}/loop.yaml"), 2,
         ("loop.yaml", "symbolic links")),
    Case("run-config-huge", ("run", "{root}/huge.yaml"), 2, ("huge.yaml", "larger than 8 MiB")),
    Case("run-data-dir-symlink-loop", (*RUN, "--data-dir", "{root}/loopdata", "--output",
                                       "{root}/out-loopdata"), 2,
         ("loopdata/gsm8k/test.jsonl", "symbolic links"), "out-loopdata"),
    Case("run-key-env-newline", (*RUN, "--api-key-env", "I23_NL"), 2, ("I23_NL", "line breaks"),
         env=(("I23_NL", "sk-1\nX: y"),)),
]  # fmt: skip

CONFIG_BODIES: list[tuple[str, str, tuple[str, ...]]] = [
    ("cfg-syntax", "run: x\nmodels: [\n", ("cfg-syntax.yaml",)),
    ("cfg-list", "- a\n- b\n", ("cfg-list.yaml", "mapping")),
    ("cfg-empty", "", ("cfg-empty.yaml",)),
    ("cfg-unknown-key", "run: x\nmodles: []\n", ("modles",)),
    ("cfg-no-models", "run: x\ntasks: [gsm8k]\n", ("models",)),
    ("cfg-tab", "run: x\n\tmodels: []\n", ("cfg-tab.yaml",)),
    ("cfg-no-run", _model(), ("run",)),
    ("cfg-model-no-url", "run: x\nmodels:\n  - name: m\n", ("base_url",)),
    ("cfg-model-bad-url", "run: x\n" + _model("localhost:8000"), ("base_url",)),
    ("cfg-models-empty", "run: x\nmodels: []\n", ("models",)),
    ("cfg-model-twice", "run: x\n" + _model() + "  - name: m\n    base_url: {url}\n", ("m",)),
    ("cfg-task-unknown", "run: x\ntasks: [gsm9k]\n" + _model(), ("gsm9k",)),
    ("cfg-ollama-budget",
     "run: x\n" + _model() + "    api: ollama\n    reasoning: {budget: 512}\n",
     ("reasoning.budget", "the ollama API has no thinking-budget control")),
    ("cfg-api-unknown", "run: x\n" + _model() + "    api: vllm2\n",
     ("models[0].api", "unknown api 'vllm2'", "vllm, ")),
    ("cfg-model-route", "run: x\n" + _model() + "    route: nearest\n", ("route", "nearest")),
    ("cfg-task-limit-0", "run: x\ntasks: [{name: gsm8k, limit: 0}]\n" + _model(), ("limit",)),
    ("cfg-task-limit-word", "run: x\ntasks: [{name: gsm8k, limit: many}]\n" + _model(),
     ("limit",)),
    ("cfg-limit-and-range", "run: x\ntasks: [{name: gsm8k, limit: 2, range: '0:2'}]\n"
     + _model(), ("limit or range",)),
    ("cfg-range-bad", "run: x\ntasks: [{name: gsm8k, range: 'a:b'}]\n" + _model(), ("range",)),
    ("cfg-range-past", "run: x\ntasks: [{name: gsm8k, range: '5000:5100'}]\n" + _model(),
     ("range 5000:5100 selects no sample",)),
    ("cfg-budgets-word", "run: x\nbudgets: lots\n" + _model(), ("budgets",)),
    ("cfg-budgets-one", "run: x\nbudgets: [2048]\n" + _model(), ("budgets",)),
    ("cfg-concurrency-neg", "run: x\n" + _model(extra="    concurrency: -1\n"),
     ("concurrency",)),
    ("cfg-gen-list", "run: x\n" + _model(extra="    generation: [1, 2]\n"), ("generation",)),
    ("cfg-gen-temperature-word", "run: x\n" + _model(extra="    generation: {temperature: hot}\n"),
     ("cfg-gen-temperature-word.yaml: models[0].generation.temperature: expected a number >= 0 "
      "or null, got 'hot'",)),
    ("cfg-gen-top-p-zero", "run: x\n" + _model(extra="    generation: {top_p: 0}\n"),
     ("models[0].generation.top_p: expected a number > 0 and <= 1",)),
    ("cfg-gen-seed-fraction", "run: x\n" + _model(extra="    generation: {seed: 1.5}\n"),
     ("models[0].generation.seed: expected an integer",)),
    ("cfg-gen-template-kwargs-list",
     "run: x\n" + _model(extra="    generation: {chat_template_kwargs: [true]}\n"),
     ("models[0].generation.chat_template_kwargs: expected a mapping",)),
    ("cfg-task-gen-penalty",
     "run: x\ntasks: [{name: gsm8k, generation: {presence_penalty: 3}}]\n" + _model(),
     ("tasks[0].generation.presence_penalty: expected a number from -2 to 2",)),
    ("cfg-retry-after-max-neg", "run: x\n" + _model(extra="    retry_after_max_s: -5\n"),
     ("retry_after_max_s",)),
    ("cfg-key-env-unset", "run: x\n" + _model(extra="    api_key_env: I23_NOT_SET\n"),
     ("I23_NOT_SET", "not set")),
    ("cfg-model-not-served", "run: x\ntasks: [{name: gsm8k, limit: 2}]\n"
     + _model(extra="    model: other\n"), ("serves m, not 'other'",)),
    ("cfg-unreachable", "run: x\ntasks: [{name: gsm8k, limit: 2}]\n" + _model(UNREACHABLE),
     ("cannot reach",)),
    ("cfg-task-file-missing", "run: x\ntasks: [{file: {root}/nope_task.yaml}]\n" + _model(),
     ("nope_task.yaml",)),
    ("cfg-task-file-syntax", "run: x\ntasks: [{file: {root}/syntax.yaml}]\n" + _model(),
     ("syntax.yaml",)),
    ("cfg-task-dup-ids", "run: x\ntasks: [{file: {root}/task_dup.yaml}]\n" + _model(),
     ("dup.csv line 3", "duplicate id")),
    ("cfg-task-header-only", "run: x\ntasks: [{file: {root}/task_header.yaml}]\n" + _model(),
     ("t_header", "no sample", "only a header")),
    ("cfg-task-bad-line", "run: x\ntasks: [{file: {root}/task_badline.yaml}]\n" + _model(),
     ("bad.jsonl", "line 2")),
    ("cfg-task-no-column", "run: x\ntasks: [{file: {root}/task_nocol.yaml}]\n" + _model(),
     ("question",)),
    ("cfg-task-kind", "run: x\ntasks: [{file: {root}/task_kind.yaml}]\n" + _model(),
     ("poem",)),
    ("cfg-task-file-generation", "run: x\ntasks: [{file: {root}/task_gen.yaml}]\n" + _model(),
     ("task_gen.yaml: generation.min_p: expected a number from 0 to 1",)),
    ("cfg-task-data-missing", "run: x\ntasks: [{file: {root}/task_missing.yaml}]\n" + _model(),
     ("nope.csv",)),
    ("cfg-tasks-not-list", "run: x\ntasks: gsm8k\n" + _model(), ("tasks",)),
    ("cfg-task-twice", "run: x\ntasks: [gsm8k, gsm8k]\n" + _model(), ("gsm8k",)),
    ("cfg-noise-floor-unknown", "run: x\n" + _model()
     + "baseline: {model: m, noise_floor: zz}\n", ("baseline.noise_floor", "'zz'")),
    ("cfg-noise-floor-is-baseline", "run: x\n" + _model()
     + "baseline: {model: m, noise_floor: m}\n", ("baseline.noise_floor",)),
    ("cfg-unfinished-gap-0", "run: x\n" + _model()
     + "baseline: {model: m, max_unfinished_gap: 0}\n", ("max_unfinished_gap",)),
    ("cfg-tasks-twice", "run: x\ntasks: [gsm8k]\n" + _model() + "tasks: [boolq]\n",
     ("cfg-tasks-twice.yaml: line 6: key 'tasks' is given twice (first on line 2)",)),
    ("cfg-model-key-twice", "run: x\n" + _model(extra="    concurrency: 2\n    concurrency: 4\n"),
     ("line 6: key 'concurrency' is given twice (first on line 5)",)),
    ("cfg-baseline-key-twice", "run: x\nbaseline: {model: m, model: n}\n" + _model(),
     ("line 2: key 'model' is given twice",)),
    ("cfg-anchor-bomb", "".join(
        f"a{i}: &a{i} [{', '.join([f'*a{i - 1}' if i else 'x'] * 9)}]\n" for i in range(9)
    ) + "run: x\n" + _model(), ("cfg-anchor-bomb.yaml: line 6", "expands to more than")),
    ("cfg-task-prompt-unclosed", "run: x\ntasks: [{file: {root}/task_brace.yaml}]\n" + _model(),
     ("task_brace.yaml: prompt: the '{' at character 4", "never closed")),
    ("cfg-task-placeholder-unknown",
     "run: x\ntasks: [{file: {root}/task_placeholder.yaml}]\n" + _model(),
     ("placeholder {nope}",)),
    ("cfg-task-file-key-twice", "run: x\ntasks: [{file: {root}/task_dupkey.yaml}]\n" + _model(),
     ("task_dupkey.yaml: line 11: key 'prompt' is given twice",)),
    ("cfg-task-data-symlink-loop",
     "run: x\ntasks: [{file: {root}/task_loop.yaml}]\n" + _model(),
     ("data.file: cannot read", "loop.csv", "symbolic links")),
    ("cfg-task-data-fifo", "run: x\ntasks: [{file: {root}/task_fifo.yaml}]\n" + _model(),
     ("data.file: cannot read", "fifo.csv", "a FIFO, not a regular file")),
    ("cfg-decide-no-baseline", "run: x\ndecide: {batch: 50}\n" + _model(),
     ("decide", "needs a baseline")),
    ("cfg-decide-batch-0", "run: x\nbaseline: m\ndecide: {batch: 0}\n" + _model(),
     ("decide.batch",)),
    ("cfg-decide-goal", "run: x\nbaseline: m\ndecide: {goal: superior}\n" + _model(),
     ("decide.goal",)),
    ("cfg-decide-recovery", "run: x\nbaseline: {model: m, recovery: 0.99}\ndecide: {}\n"
     + _model(), ("decide", "baseline.margin")),
]  # fmt: skip


def _read_only_run_cases() -> list[Case]:
    """status, verify, report, view, rescore, judge, stop on folders that are not runs."""
    cases = []
    targets = {
        "missing": ("{root}/no_such_run", ("no_such_run",)),
        "file": ("{root}/notes.txt", ("notes.txt",)),
        "empty-dir": ("{root}/empty_dir", ("empty_dir",)),
        "broken-config": ("{root}/broken_run", ("broken_run",)),
    }
    commands: dict[str, tuple[str, ...]] = {
        "status": ("status",),
        "verify": ("verify",),
        "report": ("report",),
        "report-html": ("report", "--format", "html", "--out", "{root}/r.html"),
        "view": ("view", "--port", "0"),
        "rescore": ("rescore",),
        "judge": ("judge", "--base-url", "{url}", "--model", "m"),
        "stop": ("stop",),
        "compare": ("compare", "--baseline", "m"),
        "export": ("export", "--out", "{root}/exported"),
    }
    for command, argv in commands.items():
        for target, (path, expect) in targets.items():
            if command == "stop" and target in ("broken-config", "empty-dir"):
                continue  # a run starting (no config.json yet) may have a process to stop
            cases.append(Case(f"{command}-{target}", (*argv, path), 2, expect))
    return cases


OTHER_CASES = [
    Case("rescore-edited-samples", ("rescore", "{root}/edited_run"), 2,
         ("edited_run/samples/gsm8k.jsonl was changed", "--allow-edited-samples")),
    Case("report-edited-samples", ("report", "{root}/edited_run"), 2,
         ("edited_run/samples/gsm8k.jsonl was changed", "--allow-edited-samples")),
    Case("check-no-url", ("check",), 2, ("--base-url",)),
    # `check` exits 1 for a server that fails a check (its EPILOG), 2 for bad input.
    Case("check-unreachable", ("check", "--base-url", UNREACHABLE), 1, ("127.0.0.1:9",)),
    Case("check-bad-url", ("check", "--base-url", "127.0.0.1:8000"), 2,
         ("--base-url", "no scheme")),
    Case("check-model-wrong", ("check", "--base-url", "{url}", "--model", "nope"), 1,
         ("serves m, not 'nope'",)),
    Case("check-key-env-unset", ("check", "--base-url", "{url}", "--api-key-env",
                                 "I23_NOT_SET"), 2, ("I23_NOT_SET",)),
    Case("check-budgets-bad", ("check", "--base-url", "{url}", "--budgets", "-5,10"), 2,
         ("--budgets",)),
    Case("report-corrupt-journal-line", ("report", "{root}/corrupt_run"), 2,
         ("corrupt_run/journal/main.jsonl:2: not a valid attempt record",)),
    Case("check-audit-skip-unknown", ("check", "--base-url", "{url}", "--audit", "--skip",
                                      "budgit"), 2, ("--skip budgit: no such check",)),
    Case("check-audit-concurrency-0", ("check", "--base-url", "{url}", "--audit",
                                       "--concurrency", "0"), 2, ("--concurrency",)),
    Case("check-audit-unreachable", ("check", "--base-url", UNREACHABLE, "--audit"), 1,
         ("127.0.0.1:9",)),
    Case("report-format-bad", ("report", "{run}", "--format", "pdf"), 2, ("--format", "pdf")),
    Case("report-resamples-word", ("report", "{run}", "--resamples", "lots"), 2,
         ("--resamples",)),
    Case("report-out-under-a-file", ("report", "{run}", "--out", "{root}/notes.txt/r.md"), 2,
         ("notes.txt",)),
    Case("view-port-word", ("view", "{run}", "--port", "http"), 2, ("--port",)),
    Case("status-watch-word", ("status", "{run}", "--watch", "often"), 2, ("--watch",)),
    Case("judge-unreachable", ("judge", "{run}", "--base-url", UNREACHABLE, "--model", "j",
                               "--max-retries", "0"), 2, ("cannot reach",)),
    Case("judge-model-wrong", ("judge", "{run}", "--base-url", "{url}", "--model", "jugde"), 2,
         ("not 'jugde'", "--model")),
    Case("judge-concurrency-0", ("judge", "{run}", "--base-url", "{url}", "--model", "m",
                                 "--concurrency", "0"), 2, ("--concurrency",)),
    Case("judge-no-model", ("judge", "{run}", "--base-url", "{url}"), 2, ("--model",)),
    Case("judge-key-env-unset", ("judge", "{run}", "--base-url", "{url}", "--model", "m",
                                 "--api-key-env", "I23_NOT_SET"), 2, ("I23_NOT_SET",)),
    Case("import-missing", ("import-aisbench", "{root}/no_such_output"), 2,
         ("no_such_output",)),
    Case("import-empty", ("import-aisbench", "{root}/empty_dir"), 2, ("empty_dir",)),
    Case("import-file", ("import-aisbench", "{root}/notes.txt"), 2, ("notes.txt",)),
    Case("import-budgets-bad", ("import-aisbench", "{root}/empty_dir", "--budgets", "x"), 2,
         ("--budgets",)),
    Case("tasks-show-unknown", ("tasks", "show", "gsm9k"), 2, ("gsm9k",)),
    Case("tasks-show-negative", ("tasks", "show", "gsm8k", "--sample", "-1"), 2, ("--sample",)),
    Case("tasks-show-past-end", ("tasks", "show", "gsm8k", "--sample", "99999"), 2,
         ("gsm8k has", "none at 99999")),
    Case("tasks-show-dup-ids", ("tasks", "show", "{root}/task_dup.yaml"), 2,
         ("dup.csv line 3", "duplicate id")),
    Case("tasks-show-bad-line", ("tasks", "show", "{root}/task_badline.yaml"), 2,
         ("bad.jsonl", "line 2")),
    Case("tasks-show-header-only", ("tasks", "show", "{root}/task_header.yaml"), 2,
         ("t_header", "only a header")),
    Case("tasks-show-kind", ("tasks", "show", "{root}/task_kind.yaml"), 2, ("poem",)),
    Case("tasks-show-generation", ("tasks", "show", "{root}/task_gen.yaml"), 2,
         ("task_gen.yaml: generation.min_p: expected a number from 0 to 1 or null, got 7",)),
    Case("tasks-show-data-missing", ("tasks", "show", "{root}/task_missing.yaml"), 2,
         ("nope.csv",)),
    Case("tasks-config-missing", ("tasks", "list", "--config", "{root}/nope.yaml"), 2,
         ("nope.yaml",)),
    Case("tasks-task-file-missing", ("tasks", "list", "--task-file", "{root}/nope_task.yaml"),
         2, ("nope_task.yaml",)),
    Case("tasks-bad-action", ("tasks", "delete"), 2, ("delete",)),
    Case("tasks-config-key-twice", ("tasks", "list", "--config", "{root}/dupkey.yaml"), 2,
         ("dupkey.yaml: line 3: key 'run' is given twice",)),
    Case("tasks-show-prompt-unclosed", ("tasks", "show", "{root}/task_brace.yaml"), 2,
         ("task_brace.yaml: prompt:", "never closed")),
    Case("tasks-show-data-symlink-loop", ("tasks", "show", "{root}/task_loop.yaml"), 2,
         ("loop.csv", "symbolic links")),
    Case("tasks-task-file-fifo", ("tasks", "list", "--task-file", "{root}/fifo.yaml"), 2,
         ("fifo.yaml", "a FIFO")),
    Case("sim-port-out-of-range", ("sim", "--port", "99999", "--tasks", "gsm8k"), 2,
         ("port must be between 0 and 65535, got 99999",)),
    Case("sim-batched-tokens-under-seqs", ("sim", "--max-num-batched-tokens", "64",
         "--max-num-seqs", "128", "--tasks", "gsm8k"), 2,
         ("max_num_batched_tokens (64) must be at least max_num_seqs (128)",)),
    Case("compare-no-baseline", ("compare", "{run}"), 2, ("--baseline MODEL",)),
    Case("compare-margin-word", ("compare", "{run}", "--margin", "x"), 2, ("--margin", "'x'")),
    Case("compare-baseline-unknown", ("compare", "{run}", "--baseline", "zz"), 2,
         ("--baseline 'zz' is not a model of these runs",)),
    Case("compare-noise-floor-unknown", ("compare", "{run}", "--baseline", "m",
         "--noise-floor", "zz"), 2, ("--noise-floor 'zz' is not a model of these runs",)),
    Case("compare-unfinished-gap-word", ("compare", "{run}", "--max-unfinished-gap", "x"), 2,
         ("--max-unfinished-gap", "'x'")),
    Case("compare-unfinished-gap-task", ("compare", "{run}", "--max-unfinished-gap",
         "gsm8k=2"), 2, ("--max-unfinished-gap", "not TASK=points")),
    Case("plan-task-unknown", ("plan", "--task", "gsm9k", "--margin", "1"), 2, ("gsm9k",)),
    Case("plan-margin-word", ("plan", "--task", "gsm8k", "--margin", "lots"), 2, ("--margin",)),
    Case("plan-margin-negative", ("plan", "--task", "gsm8k", "--margin", "-1"), 2,
         ("--margin must be positive",)),
    Case("plan-no-margin", ("plan", "--task", "gsm8k"), 2, ("--margin",)),
    Case("export-no-out", ("export", "{run}"), 2, ("--out",)),
    Case("export-out-is-a-file", ("export", "{run}", "--out", "{root}/notes.txt"), 2,
         ("notes.txt",)),
    Case("schema-unknown", ("schema", "journal"), 2, ("journal",)),
    Case("schema-none", ("schema",), 2, ("schema",)),
    Case("no-such-command", ("runn",), 2, ("runn",)),
]  # fmt: skip

# `thinkeval sweep`: configs of their own (written by `_files`), then the flags' mistakes.
_SWEEP_BASE = f"run: s\ntasks: [{{name: gsm8k, limit: 2}}]\n{_model(UNREACHABLE)}"
SWEEP_FILES = {
    "sweep_plain.yaml": _SWEEP_BASE,
    "sweep_two.yaml": _SWEEP_BASE + f"  - name: b\n    base_url: {UNREACHABLE}\n",
    "sweep_not_list.yaml": _SWEEP_BASE + "sweep:\n  grid: {temperature: 0.6}\n",
    "sweep_empty.yaml": _SWEEP_BASE + "sweep:\n  grid: {temperature: []}\n",
    "sweep_prompt.yaml": _SWEEP_BASE + "prompts: {a: {}}\nsweep:\n  grid: {prompt: [a, bb]}\n",
    "sweep_model.yaml": _SWEEP_BASE + "sweep:\n  model: zz\n  grid: {seed: [1]}\n",
    "sweep_key.yaml": _SWEEP_BASE + "sweep:\n  gird: {seed: [1]}\n",
    "sweep_reserved.yaml": _SWEEP_BASE + "sweep:\n  grid: {max_tokens: [1, 2]}\n",
    "sweep_limit.yaml": _SWEEP_BASE + "sweep:\n  limit: 0\n  grid: {seed: [1]}\n",
    "sweep_template.yaml": _SWEEP_BASE + "prompts: {a: {template: 'no slot'}}\n",
    "sweep_prompt_key.yaml": _SWEEP_BASE + "prompts: {a: {sytem: hi}}\n",
    "sweep_twice.yaml": _SWEEP_BASE + "sweep:\n  grid: {seed: [1]}\n  grid: {seed: [2]}\n",
}
SWEEP = ("sweep", "{root}/sweep_plain.yaml", "--output", "{root}/out-sweep")
SWEEP_CASES = [
    Case("sweep-no-grid", SWEEP, 2, ("give at least one --grid",), "out-sweep"),
    Case("sweep-grid-no-equals", (*SWEEP, "--grid", "temperature"), 2,
         ("--grid 'temperature'", "KEY=V1,V2")),
    Case("sweep-grid-no-values", (*SWEEP, "--grid", "temperature="), 2, ("--grid",)),
    Case("sweep-grid-empty-value", (*SWEEP, "--grid", "seed=1,,2"), 2, ("--grid 'seed=1,,2'",)),
    Case("sweep-grid-twice", (*SWEEP, "--grid", "seed=1", "--grid", "seed=2"), 2,
         ("seed is in the grid twice",)),
    Case("sweep-grid-value-twice", (*SWEEP, "--grid", "seed=1,1"), 2,
         ("--grid 'seed=1,1'", "listed twice")),
    Case("sweep-grid-bad-key", (*SWEEP, "--grid", "1x=2"), 2, ("--grid '1x=2'", "KEY=VALUE")),
    Case("sweep-grid-bad-yaml", (*SWEEP, "--grid", "stop=[a"), 2,
         ("--grid 'stop=[a'", "not valid YAML")),
    Case("sweep-grid-reserved", (*SWEEP, "--grid", "max_tokens=10,20"), 2,
         ("max_tokens cannot be set",)),
    Case("sweep-grid-stop", (*SWEEP, "--grid", "stop=x"), 2, ("stop sequences are not sent",)),
    Case("sweep-prompt-unknown", (*SWEEP, "--grid", "prompt=a,b"), 2,
         ("--grid prompt=a", "no prompt named 'a'", "prompts:")),
    Case("sweep-limit-0", (*SWEEP, "--grid", "seed=1", "--limit", "0"), 2,
         ("--limit 0", "at least 1")),
    Case("sweep-limit-word", (*SWEEP, "--grid", "seed=1", "--limit", "ten"), 2,
         ("--limit", "'ten'")),
    Case("sweep-model-unknown", (*SWEEP, "--grid", "seed=1", "--model", "zz"), 2,
         ("no model named 'zz'",)),
    Case("sweep-several-models", ("sweep", "{root}/sweep_two.yaml", "--grid", "seed=1"), 2,
         ("several models (m, b)", "--model")),
    Case("sweep-config-missing", ("sweep", "{root}/nope.yaml", "--grid", "seed=1"), 2,
         ("nope.yaml",)),
    Case("sweep-no-config", ("sweep",), 2, ("CONFIG",)),
    Case("sweep-unreachable", (*SWEEP, "--grid", "seed=1,2"), 2,
         ("cannot reach", "127.0.0.1:9"), "out-sweep"),
    *[Case(f"sweep-{name}", ("sweep", f"{{root}}/sweep_{name}.yaml", "--grid", "seed=1"), 2,
           (f"sweep_{name}.yaml: ", *expect)) for name, expect in (
        ("not_list", ("sweep.grid.temperature: give a list of values",)),
        ("empty", ("sweep.grid.temperature: list at least one value",)),
        ("prompt", ("sweep.grid.prompt: no prompt named 'bb'; prompts: a",)),
        ("model", ("sweep.model: no model named 'zz'",)),
        ("key", ("sweep.gird: unknown key",)),
        ("reserved", ("sweep.grid.max_tokens: max_tokens cannot be set",)),
        ("limit", ("sweep.limit",)),
        ("template", ("prompts.a.template: template must hold {prompt}",)),
        ("prompt_key", ("prompts.a.sytem: unknown key",)),
    )],
    Case("sweep-key-twice", ("sweep", "{root}/sweep_twice.yaml", "--grid", "seed=1"), 2,
         ("sweep_twice.yaml: line 8: key 'grid' is given twice (first on line 7)",)),
]  # fmt: skip

CASES = [
    *FLAG_CASES,
    *SWEEP_CASES,
    *[Case(name, ("run", f"{{root}}/{name}.yaml", "--output", f"{{root}}/out-{name}"), 2,
           expect, f"out-{name}") for name, _, expect in CONFIG_BODIES],
    *_read_only_run_cases(),
    *OTHER_CASES,
]  # fmt: skip


def _fill(text: str, world: World) -> str:
    return (
        text.replace("{url}", world.url)
        .replace("{run}", str(world.run))
        .replace("{root}", str(world.root))
    )


def _journal_digest(run: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted((run / "journal").glob("*.jsonl")):
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _one_error_line(err: str) -> str:
    assert "Traceback" not in err
    errors = [line for line in err.splitlines() if line.startswith(("error", "check failed"))]
    assert len(errors) == 1, err
    return errors[0]


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_each_mistake_is_one_clear_line(
    case: Case, world: World, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, body, _ in CONFIG_BODIES:
        if case.id == name:
            _config(world, name, body)
    for key, value in case.env:
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.chdir(world.root)
    before = _journal_digest(world.run)
    capsys.readouterr()
    try:
        code = main([_fill(arg, world) for arg in case.argv])
    except SystemExit as exited:  # argparse: its own one line
        code = int(exited.code or 0)
    err = capsys.readouterr().err
    line = _one_error_line(err)
    assert code == case.code, err
    for fragment in case.expect:
        assert _fill(fragment, world) in line, line
    assert _journal_digest(world.run) == before, "a recorded run was changed"
    if case.output is not None:
        assert not (world.root / case.output).exists(), "a failed start left its directory"
    assert not (world.root / "runs").exists(), "a failed start left an empty runs/ behind"


API_CASES: list[tuple[str, Callable[[World], object], str]] = [
    ("evaluate-limit-0",
     lambda w: thinkeval.evaluate(base_url=w.url, tasks="gsm8k", limit=0), "limit= must be"),
    ("evaluate-limit-negative",
     lambda w: thinkeval.evaluate(base_url=w.url, tasks="gsm8k", limit=-2), "limit= must be"),
    ("evaluate-tasks-empty", lambda w: thinkeval.evaluate(base_url=w.url, tasks=""),
     "tasks= names nothing"),
    ("evaluate-tasks-unknown", lambda w: thinkeval.evaluate(base_url=w.url, tasks="gsm9k"),
     "thinkeval.evaluate(): tasks[0].name: unknown task 'gsm9k'"),
    ("evaluate-config-and-flags",
     lambda w: thinkeval.evaluate({"run": "x"}, base_url=w.url),
     "base_url describe a run from flags"),
    ("evaluate-config-missing", lambda w: thinkeval.evaluate(w.root / "nope.yaml"), "nope.yaml"),
    ("evaluate-config-mapping-bad", lambda w: thinkeval.evaluate({"run": "x", "modles": []}),
     "modles"),
    ("evaluate-unreachable", lambda w: thinkeval.evaluate(base_url=UNREACHABLE),
     "cannot reach"),
    ("score-finish-reason", lambda w: thinkeval.score("gsm8k", "15", "banana", "15"),
     "finish_reason 'banana'"),
    ("score-unknown-task", lambda w: thinkeval.score("nosuch", "15", "stop", "15"),
     "unknown task 'nosuch'"),
    ("score-unknown-scorer",
     lambda w: thinkeval.score("gsm8k", "15", "stop", "15", scorer="fuzzy"),
     "unknown scorer 'fuzzy'"),
    ("taskspec-lenient-unknown", lambda w: replace(get_task("gsm8k"), lenient="gsm9k"),
     "task gsm8k: lenient: unknown lenient rule 'gsm9k'; one of gsm8k, first-capital"),
    ("taskspec-sim-flavour-unknown",
     lambda w: replace(get_task("boolq"), sim_flavour="boolean"),  # type: ignore[arg-type]
     "task boolq: sim_flavour: unknown flavour 'boolean'; one of number, yesno"),
    ("load-run-missing", lambda w: thinkeval.load_run(w.root / "no_such_run"), "no_such_run"),
    ("load-run-broken", lambda w: thinkeval.load_run(w.root / "broken_run"), "broken_run"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("call", "expect"), [case[1:] for case in API_CASES], ids=[case[0] for case in API_CASES]
)
def test_each_python_api_mistake_is_a_thinkeval_error(
    call: Callable[[World], object], expect: str, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(world.root)
    with pytest.raises(ThinkevalError) as raised:
        call(world)
    message = str(raised.value)
    assert expect in message and "\n" not in message
    assert not message.startswith("command line")
    assert not (world.root / "runs").exists() or not any((world.root / "runs").iterdir())


def _thinkeval(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "thinkeval", *args],
        capture_output=True, text=True, timeout=120, env={**os.environ, **(env or {})},
    )  # fmt: skip


def test_in_a_real_process_a_mistake_is_one_line_and_debug_shows_the_cause(
    world: World,
) -> None:
    plain = _thinkeval("report", str(world.root / "broken_run"))
    assert plain.returncode == 2 and "Traceback" not in plain.stderr
    assert plain.stderr.count("\n") == 1 and "broken_run" in plain.stderr
    for debug in (("--debug",), ()):
        env = {} if debug else {"THINKEVAL_DEBUG": "1"}
        shown = _thinkeval("report", str(world.root / "broken_run"), *debug, env=env)
        assert shown.returncode == 2
        assert "Traceback" in shown.stderr
        # The cause a `raise ... from None` hides from users is there for the one debugging.
        assert "During handling of the above exception" in shown.stderr, shown.stderr[-2000:]
        assert shown.stderr.rstrip().splitlines()[-1].startswith("error:")


def test_in_a_real_process_an_empty_task_list_does_not_run_the_default_suite(
    world: World, tmp_path: Path
) -> None:
    done = _thinkeval("run", "--base-url", world.url, "--tasks", "", "--output",
                      str(tmp_path / "out"))  # fmt: skip
    assert done.returncode == 2 and "--tasks names nothing" in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "out").exists()


def test_an_internal_error_is_one_line_unless_debug(
    world: World, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import thinkeval.cli.status as status

    def broken(args: object) -> int:
        raise KeyError("boom")

    monkeypatch.setattr(status, "run", broken)
    assert main(["status", str(world.run)]) == 3
    line = _one_error_line(capsys.readouterr().err.replace("internal error", "error"))
    assert "KeyError" in line and "--debug" in line
    with pytest.raises(KeyError):
        main(["status", str(world.run), "--debug"])


def test_the_corpus_is_as_large_as_promised() -> None:
    assert len(CASES) + len(API_CASES) >= 120
    assert len({case.id for case in CASES}) == len(CASES)


def test_nothing_is_left_in_the_cases_folder_but_their_inputs(world: World) -> None:
    left = {p.name for p in world.root.iterdir() if p.name.startswith("out-")}
    assert left == set()
    shutil.rmtree(world.root / "runs", ignore_errors=True)
    assert json.loads((world.run / "summary.json").read_text())["complete"] is True
