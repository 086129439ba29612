"""A task spec: everything one benchmark knows, in one place.

A spec says where its rows come from (a file under the data dir, or the Hugging Face hub), how a
row becomes a `Sample` (id, messages, gold, subset), how answers are scored (an answer kind for
the strict scorer, an AISBench post-processor for the lenient one), its default budgets,
generation settings and repeats, and the names other tools use for it. Nothing outside a spec
names a task: adding a benchmark is one spec file (`tasks/builtin/`) or one task file (YAML).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal, get_args

from thinkeval.errors import ArgumentError
from thinkeval.generation import GenerationSettings
from thinkeval.records import Sample
from thinkeval.scoring.kinds import AnswerKind
from thinkeval.tasks.source import DataSource

# The sampling reasoning models' cards recommend (Qwen3, DeepSeek-R1): the tasks made for
# thinking models ask with it unless a config says otherwise.
THINKING_SAMPLING = GenerationSettings(temperature=0.6, top_p=0.95)


@dataclass(frozen=True)
class HubSplit:
    """Where a data file lives on the Hugging Face hub: a dataset repo, its config and split.

    `revision` pins a commit (a branch or tag name follows the repo as it changes). `files`
    names the split's files in the repo when they are known; otherwise they are found by the
    hub's naming conventions (`tasks.hub.split_patterns`).
    """

    path: str
    name: str | None
    split: str
    revision: str | None = None
    files: tuple[str, ...] = ()


@dataclass(frozen=True)
class DataFile:
    """One file of a task's data: its path under the data dir, and the same rows on the hub.

    `subset` names the part of the task the file holds (a C-Eval subject); its rows' samples
    carry it. `format` is `jsonl`, `csv` or `parquet`, by default the local file's suffix.
    """

    local: str
    hub: HubSplit | None = None
    subset: str | None = None
    format: str | None = None
    columns: tuple[str, ...] = ()  # CSV: columns the header must name
    # A CSV kept inside a (password-protected) zip, as GPQA's authors ship it: read in memory.
    member: str | None = None
    password: str | None = None
    # Rows the spec reads itself, from an installed package's data (BFCL's, in bfcl-eval):
    # `local` then only names the file; the read is appended to the sources it is given.
    rows: Callable[[list[DataSource] | None], Iterator[Row]] | None = None

    @property
    def file_format(self) -> str:
        return self.format or self.local.rsplit(".", 1)[-1].lower()


@dataclass(frozen=True)
class Row:
    """One data row and where it is: `index` counts rows of its file from 0; `where` names the
    file and line (or hub row) for error messages."""

    fields: Mapping[str, Any]
    index: int
    where: str
    subset: str | None = None


# How the simulator (`sim/behaviour.py`) answers a task's prompts, its spec's `sim_flavour`:
# the style of the answer and its reasoning, or "instructions" (IFEval's: replies built to follow
# the prompt's instructions) or "tool_calls" (BFCL's: calls from the answer key, sim/tool_calls.py),
# both over the number style's reasoning.
SimAnswerStyle = Literal["number", "yesno", "choice", "math", "code"]
SimFlavour = Literal[SimAnswerStyle, "instructions", "tool_calls"]
SIM_FLAVOUR_NAMES: tuple[SimFlavour, ...] = get_args(SimFlavour)

# row -> Sample; raises `DatasetError` naming `row.where` for a bad row.
SampleBuilder = Callable[[Row], Sample]
# The samples of all files, in file order -> the task's samples: where a sample needs other
# rows (MMLU-Pro's few-shot exemplars) or the task has its own order.
Assembler = Callable[[Iterator[Sample]], Iterator[Sample]]


@dataclass(frozen=True)
class TaskSpec:
    """A benchmark. Build one per module in `tasks/builtin/` (or from a YAML task file).

    `ids_from_data` says the builder takes ids from the rows (checked for repeats while
    loading); ids made from the row position are unique by construction.
    """

    name: str
    version: str
    description: str
    files: tuple[DataFile, ...]
    sample: SampleBuilder
    answer: AnswerKind
    lenient: str  # the AISBench post-processor of the lenient scorer (scoring.lenient.RULES)
    budgets: tuple[int, int] = (2048, 8192)
    generation: GenerationSettings = field(default_factory=GenerationSettings)  # recommended
    repeats: int = 1
    # The typical reply length of a thinking model, reasoning included, in tokens: a scheduling
    # hint only (what may run long goes first, `run/ordering.py`); None: half the first budget.
    reply_tokens: int | None = None
    ids_from_data: bool = False
    prompt_source: str = ""  # where the prompt comes from, for the docs and the report
    # Names other tools use for it: AISBench dataset abbreviations (matched as prefixes; a
    # subset follows after "-" or "_"), and the simulator's answer flavour.
    aisbench_names: tuple[str, ...] = ()
    sim_flavour: SimFlavour = "number"
    # Run when a config lists no tasks: the seed's three benchmarks are "default".
    suite: str = "extra"
    assemble: Assembler | None = None
    # Subset -> the category it is reported under (C-Eval's four); the summary and the report
    # then add per-category tables and the average over categories as the headline.
    categories: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        if self.repeats < 1:
            raise ValueError(f"task {self.name}: repeats must be at least 1")
        if not 0 < self.budgets[0] < self.budgets[1]:
            raise ValueError(f"task {self.name}: budgets must increase, got {self.budgets}")
        from thinkeval.scoring.lenient import RULES  # its rules import their scorers lazily

        if self.lenient not in RULES:
            self._refuse("lenient", f"unknown lenient rule {self.lenient!r}", RULES)
        if self.sim_flavour not in SIM_FLAVOUR_NAMES:
            self._refuse("sim_flavour", f"unknown flavour {self.sim_flavour!r}", SIM_FLAVOUR_NAMES)

    def _refuse(self, key: str, what: str, known: Iterable[str]) -> None:
        raise ArgumentError(f"task {self.name}: {key}: {what}; one of {', '.join(known)}")

    @property
    def subsets(self) -> tuple[str, ...]:
        """The subsets in report order (empty for a task of one part)."""
        return tuple(f.subset for f in self.files if f.subset is not None)

    @property
    def scoring_version(self) -> str:
        """Changes when this task's strict verdicts could change: its kind's name and version."""
        return f"{self.answer.name}-{self.answer.version}"


def prompt_digest(samples: Iterator[Sample]) -> tuple[str, int]:
    """A digest of what a task asks (ids, messages, tools, golds, in order) and the number of
    samples.

    Resuming compares it with the digest recorded at the run's start, so a run never mixes
    answers to two versions of a prompt.
    """
    digest = hashlib.sha256()
    count = 0
    for sample in samples:
        asked = (sample.id, sample.messages, sample.gold)
        # A tool-calling task's functions are asked too; other tasks keep their digests.
        digest.update(repr((*asked, sample.tools) if sample.tools else asked).encode())
        count += 1
    return digest.hexdigest()[:16], count
