"""Prompt variants: another system message or a wrapper around the question, per model.

A variant changes what a model is asked without touching the task: `system` replaces the
task's system message (`""` drops it), and `template` rewrites the last user message (the
question; few-shot examples before it are kept) with `{prompt}` standing for the task's own
text. Braces other than `{prompt}` are sent as written, so `\\boxed{}` needs no escaping.
The config's `prompts:` mapping names variants for `thinkeval sweep --grid prompt=A,B`; a
model may carry one as `prompt:`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from thinkeval.sections import Problem, Section

PLACEHOLDER = "{prompt}"
# Prompt names go into variant names, which name files in the run directory.
PROMPT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


class PromptVariant(Section, kw_only=True, frozen=True):
    """A system message and/or a template for the question; neither set asks as the task does.

    >>> v = PromptVariant(system="Be brief.", template="{prompt}\\nAnswer in \\\\boxed{}.")
    >>> v.apply([{"role": "user", "content": "2+2?"}])  # doctest: +NORMALIZE_WHITESPACE
    [{'role': 'system', 'content': 'Be brief.'},
     {'role': 'user', 'content': '2+2?\\nAnswer in \\\\boxed{}.'}]
    """

    system: str | None = None
    template: str | None = None

    def problems(self) -> Iterator[Problem]:
        if self.template is not None and PLACEHOLDER not in self.template:
            yield (
                "template",
                (
                    f"template must hold {PLACEHOLDER} where the task's question goes, e.g. "
                    "'{prompt}\\nPut the final answer within \\boxed{}.'"
                ),
            )

    def apply(self, messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """The messages a request sends: the task's, with this variant's system and template."""
        out = [dict(m) for m in messages]
        if self.system is not None:
            out = [m for m in out if m.get("role") != "system"]
            if self.system:
                out.insert(0, {"role": "system", "content": self.system})
        if self.template is not None:
            last = next((m for m in reversed(out) if m.get("role") == "user"), None)
            if last is not None and isinstance(last.get("content"), str):
                last["content"] = self.template.replace(PLACEHOLDER, last["content"])
        return out


def prompts_problems(prompts: Mapping[str, PromptVariant]) -> Iterator[Problem]:
    """Each named variant's mistakes, under `prompts.NAME`."""
    for name, variant in prompts.items():
        if not PROMPT_NAME.match(name):
            yield (
                f"prompts.{name}",
                (
                    f"prompt name {name!r} must start with a letter or digit and use only letters, "
                    "digits, '.', '_' and '-' (it names the sweep's variants)"
                ),
            )
        for where, message in variant.problems():
            yield f"prompts.{name}.{where}", message
