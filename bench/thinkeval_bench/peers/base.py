"""What every harness adapter has: its pinned install, and a command built from a `Context`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from thinkeval_bench import ADAPTERS


@dataclass(frozen=True)
class Install:
    """A harness installed with pip into its own virtualenv, `ENVS/<harness>`."""

    python: str  # interpreter the virtualenv is made from
    packages: tuple[str, ...]  # pinned pip requirements
    dists: tuple[str, ...]  # distributions whose versions go into RESULTS.md


@dataclass(frozen=True)
class Context:
    """What an adapter needs to build the command of one run."""

    harness: str
    envs: Path  # the virtualenvs folder (--envs)
    workdir: Path  # this run's own folder, also the command's working directory
    base_url: str  # http://127.0.0.1:PORT/v1
    port: int
    data_dir: Path  # holds gsm8k/test.jsonl with exactly the run's rows
    prompt_file: Path  # the 4-shot prompt, as `workload.write_prompt` writes it
    concurrency: int | None  # None: the harness's default

    @property
    def data_file(self) -> Path:
        return self.data_dir / "gsm8k" / "test.jsonl"

    @property
    def python(self) -> Path:
        """The interpreter of the harness's virtualenv."""
        return env_python(self.envs, self.harness)


Command = tuple[list[str], dict[str, str]]  # argv and environment


@dataclass(frozen=True)
class Harness:
    """One harness: how it is installed (None: it is the checkout running the benchmark) and how
    its command line is built for a run."""

    name: str
    install: Install | None
    command: Callable[[Context], Command]


def env_python(envs: Path, name: str) -> Path:
    """The interpreter of harness `name`'s virtualenv under `envs`."""
    return envs / name / "bin" / "python"


def render_template(name: str, target: Path, values: dict[str, str]) -> Path:
    """`ADAPTERS/name` with every `{{KEY}}` replaced by `values[KEY]`, written to `target`."""
    text = (ADAPTERS / name).read_text(encoding="utf-8")
    for key, value in values.items():
        text = text.replace("{{" + key + "}}", value)
    target.write_text(text, encoding="utf-8")
    return target
