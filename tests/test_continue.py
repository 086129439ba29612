"""`retry: continue` end to end against the simulator over real HTTP: the same verdicts as a
re-ask under greedy decoding, fewer generated tokens, refusal where the server has no token ids,
and resuming between the two requests of a continuation."""

from __future__ import annotations

import json
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from conftest import kill_and_resume, write_config
from thinkeval.cli import main
from thinkeval.run.journal import iter_attempts

TASKS = [{"name": "gsm8k", "limit": 40}, {"name": "ceval", "limit": 40}]


def stats(base_url: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{base_url.removesuffix('/v1')}/sim/stats") as resp:
        return json.load(resp)


def model_entry(url: str, **extra: Any) -> dict[str, Any]:
    return {"name": "m", "base_url": url, "concurrency": 8, "retry_backoff_s": 0.01,
            "retry_backoff_max_s": 0.05, "generation": {"temperature": 0.0}, **extra}


def run(tmp_path: Path, name: str, url: str, **extra: Any) -> Path:
    config = write_config(tmp_path / f"{name}.yaml", {
        "run": name, "tasks": TASKS, "models": [model_entry(url, **extra)]})
    assert main(["run", str(config), "--output", str(tmp_path / name)]) == 0
    return tmp_path / name


def test_continue_gives_the_reask_replies_and_generates_each_token_once(tmp_path, sim) -> None:
    knobs = {"model": "m", "seed": 5, "p_long": 0.4, "p_never": 0.1, "p_empty": 0.05}
    reask_sim, continue_sim = sim(**knobs), sim(**knobs)
    reask = run(tmp_path, "reask", reask_sim.base_url)
    cont = run(tmp_path, "cont", continue_sim.base_url, retry="continue")

    def replies(run_dir: Path) -> dict[Any, Any]:
        return {(x.sample_id, x.phase): (x.recorded_status(), x.content, x.reasoning,
                                         x.finish_reason, x.usage.completion_tokens)
                for x in iter_attempts(run_dir)}

    assert replies(cont) == replies(reask)
    retries = [x for x in iter_attempts(cont) if x.phase == "retry"]
    continued = [x for x in retries if x.continuation and x.continuation.requested]
    assert len(continued) > 5
    for x in continued:
        assert x.continuation is not None
        assert x.continuation.completion_tokens == x.usage.completion_tokens - x.continuation.from_tokens
    # Only cut-off fixed replies keep their token ids.
    fixed = [x for x in iter_attempts(cont) if x.phase == "fixed"]
    assert all((x.token_ids is not None) == (x.state in ("empty", "unfinished")
                                             and x.finish_reason == "length") for x in fixed)
    s_reask, s_cont = stats(reask_sim.base_url), stats(continue_sim.base_url)
    floor = sum(x.usage.completion_tokens for x in iter_attempts(reask) if x.phase == "retry") + sum(
        x.usage.completion_tokens for x in iter_attempts(reask)
        if x.phase == "fixed" and x.state not in ("empty", "unfinished"))
    # The probe asks 1 token and continues it by 1.
    assert s_cont["generation_tokens"] <= floor + 2 < s_reask["generation_tokens"]
    assert s_cont["continuations"] == len(continued) + 1
    assert s_cont["continuations_diverged"] == 0
