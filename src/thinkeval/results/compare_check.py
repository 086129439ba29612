"""Whether two models were asked like for like: the same samples, budgets, repeats, generation
settings, seed policy, task and scorer versions, and server flavour. Each difference is one
line naming the task, the setting and both values; a comparison refuses unless allowed."""

from __future__ import annotations

from typing import Any

import msgspec

# Generation keys whose value differs between repeats by design: only whether they are set
# (the seed policy) must match.
_POLICY_KEYS = ("seed",)


class Setup(msgspec.Struct, kw_only=True, frozen=True):
    """How one model was asked one task (from the run's config.json and journal)."""

    digest: str | None  # of the prompts asked (ids, messages, golds)
    samples: int
    budgets: tuple[int, int]
    repeats: int
    generation: dict[str, Any]  # effective: task recommended < model < task entry
    task_version: str | None
    scoring: str | None  # the answer kind and its version
    scorers: list[str]  # scorer versions seen in the journal
    api: str  # the server flavour requests were built for


def _plain(value: Any) -> Any:
    return msgspec.json.decode(msgspec.json.encode(value))


def _generation_lines(base: dict[str, Any], cand: dict[str, Any]) -> list[str]:
    lines = []
    for key in sorted(set(base) | set(cand)):
        was, now = base.get(key), cand.get(key)
        if key in _POLICY_KEYS:
            if (was is None) != (now is None):
                lines.append(
                    f"seed policy {'seeded' if was is not None else 'unseeded'} vs "
                    f"{'seeded' if now is not None else 'unseeded'}"
                )
            continue
        if _plain(was) != _plain(now):
            shown = ["unset" if v is None else _plain(v) for v in (was, now)]
            lines.append(f"{key} {shown[0]} vs {shown[1]}")
    return lines


def differences(task: str, base: Setup, cand: Setup) -> list[str]:
    """Every way `cand` was asked `task` differently from `base`, one line each, baseline's
    value first.

    >>> one = Setup(digest="ab", samples=3, budgets=(2048, 8192), repeats=1,
    ...             generation={"temperature": 0.0}, task_version="1", scoring="number 1",
    ...             scorers=["strict 1"], api="vllm")
    >>> two = msgspec.structs.replace(one, generation={"temperature": 0.6})
    >>> differences("gsm8k", one, two)
    ['gsm8k: temperature 0.0 vs 0.6']
    """
    lines: list[str] = []
    if base.digest != cand.digest or base.samples != cand.samples:
        lines.append(
            f"samples: {base.samples} (prompt digest {base.digest}) vs {cand.samples} "
            f"(prompt digest {cand.digest}); compared on the samples both were asked"
        )
    for name, was, now in (
        ("budgets", list(base.budgets), list(cand.budgets)),
        ("repeats", base.repeats, cand.repeats),
        ("task version", base.task_version, cand.task_version),
        ("scoring", base.scoring, cand.scoring),
        ("scorer versions", ", ".join(base.scorers), ", ".join(cand.scorers)),
        ("server flavour", base.api, cand.api),
    ):
        if was != now:
            lines.append(f"{name} {was} vs {now}")
    lines += _generation_lines(base.generation, cand.generation)
    return [f"{task}: {line}" for line in lines]
