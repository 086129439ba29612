"""A config's `sweep:` block: the grid `thinkeval sweep` runs when no `--grid` replaces it.

```yaml
sweep:
  model: qwen3-8b          # which model to vary (needed when the config has several)
  limit: 50                # samples per task
  grid:
    temperature: [0, 0.6]
    chat_template_kwargs.enable_thinking: [true, false]
    prompt: [plain, boxed] # names in the config's `prompts:` mapping
```

Flags win: `--grid KEY=...` replaces the block's values of KEY (or adds KEY at the end),
`--model` and `--limit` replace the block's.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Annotated, Any

import msgspec

from thinkeval.sections import Problem, Section
from thinkeval.settings import generation_problems

# A generation key, dotted for nested ones (as `--gen`), or `prompt`.
GRID_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)*$")


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
            top = key.split(".")[0]
            for message in dict.fromkeys(m for v in values for m in generation_problems({top: v})):
                yield where, message


def grid_label(value: Any) -> str:
    """A grid value as its variant's name shows it: text as is, else JSON (`true`, `0.6`).

    >>> grid_label(0.6), grid_label(True), grid_label("boxed")
    ('0.6', 'true', 'boxed')
    """
    return value if isinstance(value, str) else msgspec.json.encode(value).decode()


def sweep_problems(
    sweep: SweepConfig | None, models: list[str], prompts: Mapping[str, object]
) -> Iterator[Problem]:
    """What the block names that the config lacks: its model, its prompts."""
    if sweep is None:
        return
    if sweep.model is not None and sweep.model not in models:
        yield "sweep.model", f"no model named {sweep.model!r}; models: {', '.join(models)}"
    for name in sweep.grid.get("prompt", []):
        if isinstance(name, str) and name not in prompts:
            known = ", ".join(prompts) or "none (add a prompts: mapping)"
            yield "sweep.grid.prompt", f"no prompt named {name!r}; prompts: {known}"
