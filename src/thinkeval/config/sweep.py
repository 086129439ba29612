"""A config's `sweep:` block: the grid `thinkeval sweep` runs when no `--grid` replaces it.

```yaml
sweep:
  model: qwen3-8b          # which model to vary (needed when the config has several)
  limit: 50                # samples per task
  grid:
    temperature: [0, 0.6]
    chat_template_kwargs.enable_thinking: [true, false]
    prompt: [plain, boxed] # names in the config's `prompts:` mapping
    reasoning.budget: [512, 1024]   # the model's `reasoning` (client/reasoning_controls.py)
    reasoning.effort: [low, high]
```

A `reasoning.budget` or `reasoning.effort` axis gives each variant a copy of the model with that
control; a flavour without the control (`api: openai` has no thinking budget) is refused.

Flags win: `--grid KEY=...` replaces the block's values of KEY (or adds KEY at the end),
`--model` and `--limit` replace the block's.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Annotated, Any, get_args

import msgspec

from thinkeval.client.reasoning_controls import Effort, ReasoningControls
from thinkeval.sections import Problem, Section
from thinkeval.settings import generation_problems

if TYPE_CHECKING:
    from thinkeval.config.models import ModelConfig

# A generation key, dotted for nested ones (as `--gen`), `prompt`, or a reasoning control.
GRID_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)*$")
REASONING_AXES = ("reasoning.budget", "reasoning.effort")


class SweepConfig(Section, kw_only=True, frozen=True):
    """The sweep's model, its per-task limit and its grid (key -> the values to try)."""

    grid: dict[str, Any] = msgspec.field(default_factory=dict)  # each value a list (problems)
    model: str | None = None
    limit: Annotated[int, msgspec.Meta(gt=0)] | None = None

    def problems(self) -> Iterator[Problem]:
        for key, values in self.grid.items():
            where = f"grid.{key}"
            if not GRID_KEY.match(key):
                yield (
                    where,
                    (
                        f"{key!r} is not a generation key (letters, digits, '_', '-', dots for "
                        "nested keys, e.g. chat_template_kwargs.enable_thinking) nor prompt"
                    ),
                )
            if not isinstance(values, list):
                yield where, f"give a list of values, e.g. [0, 0.6], not {grid_label(values)}"
                continue
            if not values:
                yield where, "list at least one value, e.g. [0, 0.6]"
            labels = [grid_label(value) for value in values]
            for label in sorted({x for x in labels if labels.count(x) > 1}):
                yield where, f"value {label} is listed twice"
            if key == "prompt":
                if not all(isinstance(value, str) for value in values):
                    yield where, "prompt values are names of the config's prompts: entries"
                continue
            if key.split(".")[0] == "reasoning":
                for message in dict.fromkeys(_axis_problem(key, value) for value in values):
                    if message is not None:
                        yield where, message
                continue
            messages = (m for v in values for _, m in generation_problems(nested_setting(key, v)))
            for message in dict.fromkeys(messages):
                yield where, message


def nested_setting(key: str, value: Any) -> dict[str, Any]:
    """A grid key (dotted for nested ones) and a value as the generation mapping it sets.

    >>> nested_setting("chat_template_kwargs.enable_thinking", False)
    {'chat_template_kwargs': {'enable_thinking': False}}
    """
    out: Any = value
    for part in reversed(key.split(".")):
        out = {part: out}
    result: dict[str, Any] = out
    return result


def grid_label(value: Any) -> str:
    """A grid value as its variant's name shows it: text as is, else JSON (`true`, `0.6`).

    >>> grid_label(0.6), grid_label(True), grid_label("boxed")
    ('0.6', 'true', 'boxed')
    """
    return value if isinstance(value, str) else msgspec.json.encode(value).decode()


def with_axis(controls: ReasoningControls | None, key: str, value: Any) -> ReasoningControls:
    """`controls` with the reasoning axis `key` (`reasoning.budget`, `reasoning.effort`) set to
    `value`; ValueError says what is wrong with either.

    >>> with_axis(ReasoningControls(effort="low"), "reasoning.budget", 512)
    ReasoningControls(budget=512, effort='low')
    """
    if key not in REASONING_AXES:
        raise ValueError(
            f"{key!r} is not a reasoning control; sweep reasoning.budget or reasoning.effort"
        )
    if key == "reasoning.budget":
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ValueError(f"reasoning.budget={grid_label(value)}: give thinking tokens > 0")
        return msgspec.structs.replace(controls or ReasoningControls(), budget=value)
    if value not in get_args(Effort):
        efforts = "|".join(get_args(Effort))
        raise ValueError(f"reasoning.effort={grid_label(value)}: give one of {efforts}")
    return msgspec.structs.replace(controls or ReasoningControls(), effort=value)


def _axis_problem(key: str, value: Any) -> str | None:
    try:
        with_axis(None, key, value)
    except ValueError as exc:
        return str(exc)
    return None


def axis_refusal(model: ModelConfig, key: str) -> str | None:
    """Why `model`'s server flavour cannot take the reasoning axis `key`, or None."""
    probe = (
        ReasoningControls(budget=1)
        if key == "reasoning.budget"
        else ReasoningControls(effort="low")
    )
    found = [message for _, message in probe.problems_for(model.api)]
    return f"model {model.name!r}: {found[0]}" if found else None


def sweep_problems(
    sweep: SweepConfig | None, models: list[ModelConfig], prompts: Mapping[str, object]
) -> Iterator[Problem]:
    """What the block names that the config lacks: its model, its prompts; a reasoning axis
    the model's flavour has no control for."""
    if sweep is None:
        return
    names = [m.name for m in models]
    if sweep.model is not None and sweep.model not in names:
        yield "sweep.model", f"no model named {sweep.model!r}; models: {', '.join(names)}"
    varied = [
        m for m in models if m.name == sweep.model or (sweep.model is None and len(models) == 1)
    ]
    for key in sweep.grid:
        for model in varied:
            refusal = axis_refusal(model, key) if key in REASONING_AXES else None
            if refusal is not None:
                yield f"sweep.grid.{key}", refusal
    for name in sweep.grid.get("prompt", []):
        if isinstance(name, str) and name not in prompts:
            known = ", ".join(prompts) or "none (add a prompts: mapping)"
            yield "sweep.grid.prompt", f"no prompt named {name!r}; prompts: {known}"
