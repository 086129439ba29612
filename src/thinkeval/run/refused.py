"""The requests a run's servers refused for good, as the lines a run ends with.

A refusal (client/refusals.py) is recorded once and never asked again; the run says which
samples it concerns, per model, e.g. "1 sample does not fit the 2048-token window: prompt 2554
tokens". Read from the journal only when the summary counts refusals, so a run without any pays
nothing.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from thinkeval.client.refusals import window_line
from thinkeval.store.counted import Journals


def refusal_lines(run_dir: Path) -> list[str]:
    """One line per model and kind of refusal in the run's journal, in model order."""
    windows: dict[str, dict[int | None, dict[str, int | None]]] = defaultdict(
        lambda: defaultdict(dict)
    )
    params: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    with Journals(run_dir) as journals:
        for attempt, _ in journals.located():
            key = f"{attempt.task}/{attempt.sample_id}#{attempt.repeat}"
            if attempt.refused == "prompt_over_window":
                windows[attempt.model][attempt.window][key] = attempt.usage.prompt_tokens
            elif attempt.refused is not None:
                params[attempt.model][attempt.error or attempt.refused].add(key)
    lines = []
    for model in sorted({*windows, *params}):
        for window, samples in windows[model].items():
            prompts = [p for p in samples.values() if p is not None]
            lines.append(f"{model}: {window_line(len(samples), window, prompts)}")
        for message, keys in params[model].items():
            noun = "request was" if len(keys) == 1 else "requests were"
            lines.append(f"{model}: {len(keys)} {noun} refused: {message}")
    return lines
