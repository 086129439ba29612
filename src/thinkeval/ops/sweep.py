"""`thinkeval sweep`: one model's settings study, as one run of variants on the same server.

A grid (`temperature=0,0.6`, `top_p=0.95,1.0`, any `--gen` key, dotted keys included) expands
the config's model into one variant per grid point, named `MODEL[temperature=0,top_p=0.95]`,
each sending the same served model id to the same base URL with its own `generation`. They
run as the models of one run do, concurrently, and since they share the URL they share one
in-flight cap (the model's `concurrency`, or the config's `endpoints` entry). Each task is
limited to `limit` samples. The study then reads the journal: per variant the completion rate
(replies that finished, after the retry), the loop rate (the diagnosis of those that did not),
strict adaptive accuracy and the median reasoning length, with paired comparisons against the
first variant on the same samples (accuracy difference, flips each way, McNemar's exact p, and
how many more samples loop).
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from math import comb
from pathlib import Path
from typing import Any

import msgspec

from thinkeval.config import RunConfig
from thinkeval.config.models import ModelConfig
from thinkeval.errors import ConfigError
from thinkeval.run.from_flags import parse_generation

Grid = list[tuple[str, list[str]]]


def parse_grid(items: Sequence[str]) -> Grid:
    """`--grid KEY=V1,V2` flags, in order; values stay text until `parse_generation` reads them.

    >>> parse_grid(["temperature=0,0.6", "top_p=0.95,1.0"])
    [('temperature', ['0', '0.6']), ('top_p', ['0.95', '1.0'])]
    """
    grid: Grid = []
    for item in items:
        key, sep, text = item.partition("=")
        values = [value.strip() for value in text.split(",")]
        if not sep or not key.strip() or not all(values):
            raise ConfigError(f"--grid {item!r}: expected KEY=V1,V2,..., e.g. temperature=0,0.6")
        if key.strip() == "prompt":
            raise ConfigError(f"--grid {item!r}: prompt variants are not supported yet")
        if any(key.strip() == seen for seen, _ in grid):
            raise ConfigError(f"--grid {item!r}: {key.strip()} is in the grid twice")
        grid.append((key.strip(), values))
    if not grid:
        raise ConfigError("sweep: give at least one --grid KEY=V1,V2")
    return grid


def _merged(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in extra.items():
        inner = out.get(key)
        out[key] = (
            _merged(inner, value) if isinstance(inner, dict) and isinstance(value, dict) else value
        )
    return out


def expand(config: RunConfig, grid: Grid, model: str | None, limit: int | None) -> RunConfig:
    """The run of the variants: one model per grid point, the tasks cut to `limit`."""
    if model is None and len(config.models) != 1:
        names = ", ".join(m.name for m in config.models)
        raise ConfigError(
            f"sweep: the config has several models ({names}); choose one with --model"
        )
    base: ModelConfig = config.model_named(model) if model else config.models[0]
    variants = []
    for point in itertools.product(*(values for _, values in grid)):
        settings = [f"{key}={value}" for (key, _), value in zip(grid, point, strict=True)]
        generation = _merged(base.generation, parse_generation(settings))
        name = f"{base.name}[{','.join(settings)}]"
        variants.append(
            msgspec.structs.replace(base, name=name, model=base.served_model, generation=generation)
        )
    tasks = [
        msgspec.structs.replace(t, limit=min(limit, t.limit or limit)) if limit else t
        for t in config.tasks
    ]
    return msgspec.structs.replace(config, run=f"{config.run}-sweep", models=variants, tasks=tasks)


@dataclass(frozen=True)
class Variant:
    """One variant's numbers over every sample of every task of the sweep."""

    name: str
    samples: int
    completed: float  # share whose counted final reply finished
    loops: float  # share whose final reply loops (diagnosis)
    accuracy: float  # strict, adaptive
    reasoning_p50: float | None  # reasoning tokens (or pieces) of the fixed replies


@dataclass(frozen=True)
class Paired:
    """A variant against the first, on the samples both have."""

    name: str
    samples: int
    accuracy_pp: float  # variant - first, percentage points
    gains: int  # right here, wrong in the first
    losses: int
    p_value: float  # McNemar's exact test on the flips
    more_loops: int  # samples looping here and not in the first, minus the reverse


@dataclass(frozen=True)
class _Final:
    correct: bool
    finished: bool
    loop: bool


def mcnemar(gains: int, losses: int) -> float:
    """Two-sided exact p-value of `gains` vs `losses` flips (binomial, p = 1/2).

    >>> round(mcnemar(8, 1), 4), mcnemar(0, 0)
    (0.0391, 1.0)
    """
    n = gains + losses
    if n == 0:
        return 1.0
    tail = sum(comb(n, k) for k in range(min(gains, losses) + 1)) / 2**n
    return min(1.0, 2 * tail)


def study(run_dir: Path, variants: Sequence[str]) -> tuple[list[Variant], list[Paired]]:
    """Read the sweep's journal: the numbers per variant and the paired comparisons."""
    from thinkeval.diagnosis import diagnose
    from thinkeval.store.journal import iter_attempts
    from thinkeval.store.run_record import read_run_record

    catalogue = read_run_record(run_dir).catalogue

    finals: dict[str, dict[tuple[str, str, int], _Final]] = {name: {} for name in variants}
    lengths: dict[str, list[int]] = {name: [] for name in variants}
    for attempt in iter_attempts(run_dir):
        if attempt.error is not None or attempt.model not in finals:
            continue
        key = (attempt.task, attempt.sample_id, attempt.repeat)
        mine = finals[attempt.model]
        if attempt.phase == "fixed" and key in mine:
            continue  # a retry already recorded, or a duplicate: the first / the retry counts
        finished = attempt.state == "finished"
        loop = False
        if not finished:
            kind = catalogue.get(attempt.task).answer
            found = diagnose(
                attempt.reasoning,
                attempt.content,
                attempt.finish_reason,
                attempt.state,
                kind,
                attempt.gold,
            )
            loop = found.label == "loop"
        if attempt.phase == "fixed":
            used = attempt.usage.reasoning_tokens
            lengths[attempt.model].append(
                used if used is not None else len(attempt.reasoning or "") // 4
            )
        mine[key] = _Final(attempt.recorded_status() == "correct", finished, loop)
    rows = [_variant(name, finals[name], lengths[name]) for name in variants]
    first = finals[variants[0]]
    pairs = [_paired(name, first, finals[name]) for name in variants[1:]]
    return rows, pairs


def _variant(name: str, finals: dict[tuple[str, str, int], _Final], lengths: list[int]) -> Variant:
    n = len(finals)

    def share(count: int) -> float:
        return count / n if n else 0.0

    return Variant(
        name=name,
        samples=n,
        completed=share(sum(f.finished for f in finals.values())),
        loops=share(sum(f.loop for f in finals.values())),
        accuracy=share(sum(f.correct for f in finals.values())),
        reasoning_p50=statistics.median(lengths) if lengths else None,
    )


def _paired(
    name: str, first: dict[tuple[str, str, int], _Final], mine: dict[tuple[str, str, int], _Final]
) -> Paired:
    common = [key for key in first if key in mine]
    gains = sum(mine[k].correct and not first[k].correct for k in common)
    losses = sum(first[k].correct and not mine[k].correct for k in common)
    more = sum(mine[k].loop and not first[k].loop for k in common)
    fewer = sum(first[k].loop and not mine[k].loop for k in common)
    return Paired(
        name=name,
        samples=len(common),
        accuracy_pp=100.0 * (gains - losses) / len(common) if common else 0.0,
        gains=gains,
        losses=losses,
        p_value=mcnemar(gains, losses),
        more_loops=more - fewer,
    )
