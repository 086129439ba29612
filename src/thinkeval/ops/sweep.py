"""`thinkeval sweep`: one model's settings study, as one run of variants on the same server.

A grid (`temperature=0,0.6`, `top_p=0.95,1.0`, any `--gen` key, dotted keys included,
`prompt=A,B` naming the config's `prompts:`, and the reasoning controls `reasoning.budget=512,1024`
and `reasoning.effort=low,high`) expands the config's model into one variant per
grid point, named `MODEL[temperature=0,top_p=0.95]`, each sending the same served model id to
the same base URL with its own `generation` and prompt variant (config/prompts.py). The
config's `sweep:` block (config/sweep.py) gives the grid when no flag replaces it. They
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

from thinkeval.client.reasoning_controls import ReasoningControls
from thinkeval.config import RunConfig
from thinkeval.config.models import ModelConfig
from thinkeval.config.prompts import PromptVariant
from thinkeval.config.sweep import (
    REASONING_AXES,
    SweepConfig,
    axis_refusal,
    grid_label,
    nested_setting,
    with_axis,
)
from thinkeval.errors import ConfigError
from thinkeval.run.from_flags import parse_generation
from thinkeval.settings import generation_problems

# key -> its values, each as (the text its variant's name shows, the value sent).
Grid = list[tuple[str, list[tuple[str, Any]]]]


def parse_grid(items: Sequence[str]) -> Grid:
    """`--grid KEY=V1,V2` flags, in order; each value read as YAML, as `--gen` reads it.

    >>> parse_grid(["temperature=0,0.6", "prompt=plain,boxed"])  # doctest: +NORMALIZE_WHITESPACE
    [('temperature', [('0', 0), ('0.6', 0.6)]),
     ('prompt', [('plain', 'plain'), ('boxed', 'boxed')])]
    """
    grid: Grid = []
    for item in items:
        key, sep, text = item.partition("=")
        key = key.strip()
        values = [value.strip() for value in text.split(",")]
        if not sep or not key or not all(values):
            raise ConfigError(f"--grid {item!r}: expected KEY=V1,V2,..., e.g. temperature=0,0.6")
        if any(key == seen for seen, _ in grid):
            raise ConfigError(f"--grid {item!r}: {key} is in the grid twice")
        if len(set(values)) < len(values):
            raise ConfigError(f"--grid {item!r}: a value is listed twice")
        if key == "prompt":
            grid.append((key, [(value, value) for value in values]))
            continue
        read = []
        for value in values:
            try:
                (parsed,) = _leaves(parse_generation([f"{key}={value}"]))
            except ConfigError as exc:
                raise ConfigError(f"--grid {item!r}: {str(exc).partition(': ')[2]}") from None
            read.append((value, parsed))
        grid.append((key, read))
    return grid


def _leaves(settings: dict[str, Any]) -> list[Any]:
    """The one value of a parsed `KEY=VALUE` (its nested mappings walked down)."""
    (value,) = settings.values()
    return _leaves(value) if isinstance(value, dict) and len(value) == 1 else [value]


def block_grid(sweep: SweepConfig | None) -> Grid:
    """The config's `sweep: grid:` in the same form as the flags'."""
    if sweep is None:
        return []
    return [(key, [(grid_label(v), v) for v in values]) for key, values in sweep.grid.items()]


def combined(block: Grid, flags: Grid) -> Grid:
    """The block's grid with the flags': a flag's key replaces the block's values in place, a
    new key comes at the end.

    >>> combined([("temperature", [("0", 0)]), ("top_p", [("1", 1)])],
    ...          [("top_p", [("0.9", 0.9)]), ("seed", [("1", 1)])])
    [('temperature', [('0', 0)]), ('top_p', [('0.9', 0.9)]), ('seed', [('1', 1)])]
    """
    given = dict(flags)
    grid = [(key, given.pop(key, values)) for key, values in block]
    grid += list(given.items())
    if not grid:
        raise ConfigError(
            "sweep: give at least one --grid KEY=V1,V2 (or a sweep: grid: block in the config)"
        )
    return grid


def _merged(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in extra.items():
        inner = out.get(key)
        out[key] = (
            _merged(inner, value) if isinstance(inner, dict) and isinstance(value, dict) else value
        )
    return out


def _prompt(config: RunConfig, name: str) -> PromptVariant:
    if name not in config.prompts:
        known = ", ".join(config.prompts) or "none (add a prompts: mapping to the config)"
        raise ConfigError(f"--grid prompt={name}: no prompt named {name!r}; prompts: {known}")
    return config.prompts[name]


def _reasoning(
    base: ModelConfig, controls: ReasoningControls | None, key: str, value: Any
) -> ReasoningControls:
    """The variant's reasoning controls with the axis `key` at `value`; one line where the
    model's server flavour has no such control."""
    refusal = axis_refusal(base, key) if key in REASONING_AXES else None
    try:
        if refusal is not None:
            raise ValueError(refusal)
        return with_axis(controls, key, value)
    except ValueError as exc:
        raise ConfigError(f"sweep: --grid {key}: {exc}") from None


def expand(
    config: RunConfig, flags: Grid, model: str | None = None, limit: int | None = None
) -> RunConfig:
    """The run of the variants: one model per grid point, the tasks cut to `limit`.

    The grid is the config's `sweep:` block with the flags over it (`combined`); `model` and
    `limit`, when given, win over the block's.
    """
    grid = combined(block_grid(config.sweep), flags)
    if config.sweep is not None:
        model = model or config.sweep.model
        limit = limit or config.sweep.limit
    if model is None and len(config.models) != 1:
        names = ", ".join(m.name for m in config.models)
        raise ConfigError(
            f"sweep: the config has several models ({names}); choose one with --model "
            "(or sweep: model:)"
        )
    base: ModelConfig = config.model_named(model) if model else config.models[0]
    variants = []
    for point in itertools.product(*(values for _, values in grid)):
        generation, prompt, reasoning = dict(base.generation), base.prompt, base.reasoning
        for (key, _), (_, value) in zip(grid, point, strict=True):
            if key == "prompt":
                prompt = _prompt(config, value)
            elif key.split(".")[0] == "reasoning":
                reasoning = _reasoning(base, reasoning, key, value)
            else:
                generation = _merged(generation, nested_setting(key, value))
        for path, message in generation_problems(generation):
            raise ConfigError(f"sweep: {path}: {message}")
        labels = [f"{key}={label}" for (key, _), (label, _) in zip(grid, point, strict=True)]
        name = f"{base.name}[{','.join(labels)}]"
        variant = msgspec.structs.replace(
            base,
            name=name,
            model=base.served_model,
            generation=generation,
            prompt=prompt,
            reasoning=reasoning,
        )
        variants.append(variant)
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
    # The reasoning check over its tasks (`results.reasoning_check`); None without reasoning
    # controls.
    reasoning: str | None = None


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
    tail: float = sum(comb(n, k) for k in range(min(gains, losses) + 1)) / 2**n
    return min(1.0, 2 * tail)


def study(run_dir: Path, variants: Sequence[str]) -> tuple[list[Variant], list[Paired]]:
    """Read the sweep's journal: the numbers per variant and the paired comparisons."""
    from thinkeval.diagnosis import diagnose
    from thinkeval.store.journal import iter_attempts
    from thinkeval.store.run_record import read_run_record

    record = read_run_record(run_dir)
    catalogue = record.catalogue

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
    checks = _checks(run_dir, record.models)
    rows = [_variant(name, finals[name], lengths[name], checks.get(name)) for name in variants]
    first = finals[variants[0]]
    pairs = [_paired(name, first, finals[name]) for name in variants[1:]]
    return rows, pairs


def _checks(run_dir: Path, models: Sequence[ModelConfig]) -> dict[str, str]:
    """Per variant with reasoning controls, its budget check over every task, in a few words:
    `respected (0/12 over 512)`, `ignored (9/12 over 512)`, `effort high: not checked`."""
    from thinkeval.results.reasoning_check import reasoning_blocks
    from thinkeval.store.journal import iter_attempts

    if not any(m.reasoning is not None for m in models):
        return {}
    blocks = reasoning_blocks(iter_attempts(run_dir), models)
    out = {}
    for model in models:
        if model.reasoning is None:
            continue
        mine = [block for (name, _), block in blocks.items() if name == model.name]
        budget, effort = model.reasoning.budget, model.reasoning.effort
        words = [] if effort is None else [f"effort {effort}: not checked"]
        if budget is not None:
            over, replies = sum(b.over for b in mine), sum(b.replies for b in mine)
            check = "unchecked" if not replies else "ignored" if over else "respected"
            words.insert(0, f"{check} ({over}/{replies} over {budget})")
        out[model.name] = "; ".join(words)
    return out


def _variant(
    name: str,
    finals: dict[tuple[str, str, int], _Final],
    lengths: list[int],
    reasoning: str | None = None,
) -> Variant:
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
        reasoning=reasoning,
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
