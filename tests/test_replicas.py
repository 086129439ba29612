"""A model served by several replicas, over real HTTP against simulators: every repeat of a
prompt goes to one replica, no replica holds more than its bounded share, replicas that are not
one deployment are refused (or run, flagged, when allowed), and a replica that answers worse
than its fleet is flagged in summary.json and the end-of-run table."""

from __future__ import annotations

import asyncio
import json
import math
import random
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from conftest import ThreadedSim, write_config
from thinkeval.cli import main
from thinkeval.client.dispatch import Dispatcher
from thinkeval.client.limits import EndpointLimits
from thinkeval.client.profiles import get_profile
from thinkeval.client.replicas import (
    Route,
    choose_replica,
    load_cap,
    prompt_affinity,
    rendezvous_rank,
)
from thinkeval.config import ModelConfig
from thinkeval.generation import GenerationSettings
from thinkeval.sim import serve
from thinkeval.sim.config import SimConfig
from thinkeval.store.journal import iter_attempts

# Short replies: the sums ask for \boxed{}, whose simulated reasoning is 8 times longer.
QUIET = {"p_long": 0.0, "p_never": 0.0, "short_tokens": (20, 40)}


class _Replica:
    def __init__(self, url: str, outstanding: int = 0) -> None:
        self.base_url = url
        self.outstanding = outstanding


def test_a_key_keeps_its_replica_until_it_is_full() -> None:
    pool = [_Replica(f"http://r{i}/v1") for i in range(4)]
    urls = [r.base_url for r in pool]
    first = rendezvous_rank("gsm8k\x1f7", urls)

    def choose(key: str | None, route: Route) -> _Replica:
        return choose_replica(pool, urls, lambda r: r.outstanding, key, route)

    assert choose("gsm8k\x1f7", "affinity") is pool[first[0]]
    # 9 in flight over 4 replicas: the cap is ceil(1.25 * 10 / 4) = 4.
    for replica in pool:
        replica.outstanding = 1
    pool[first[0]].outstanding = 6
    assert load_cap(9, 4) == 4
    assert choose("gsm8k\x1f7", "affinity") is pool[first[1]]
    assert choose("gsm8k\x1f7", "least_loaded").outstanding == 1
    assert choose(None, "affinity").outstanding == 1


def test_keys_spread_over_the_replicas() -> None:
    urls = [f"http://r{i}/v1" for i in range(4)]
    firsts = [rendezvous_rank(f"t\x1f{i}", urls)[0] for i in range(400)]
    assert all(60 < firsts.count(i) < 140 for i in range(4))
    # Removing a replica moves only its own keys (rendezvous hashing).
    fewer = [rendezvous_rank(f"t\x1f{i}", urls[:3])[0] for i in range(400)]
    assert all(a == b for a, b in zip(firsts, fewer, strict=True) if a != 3)


@pytest.mark.parametrize("replicas", [2, 4, 7])
def test_with_balanced_loads_every_repeat_goes_to_its_home(replicas: int) -> None:
    """Whatever the common load, while no replica is above the others every repeat of a prompt
    goes to the first replica of its rendezvous ranking: all on one prefix cache."""
    pool = [_Replica(f"http://r{i}/v1") for i in range(replicas)]
    urls = [r.base_url for r in pool]
    for level in (0, 1, 5, 40):
        for replica in pool:
            replica.outstanding = level
        for prompt in range(50):
            key = f"aime\x1f{prompt}"
            chosen = {
                id(choose_replica(pool, urls, lambda r: r.outstanding, key, "affinity"))
                for _ in range(8)
            }
            assert chosen == {id(pool[rendezvous_rank(key, urls)[0]])}


@pytest.mark.parametrize(("replicas", "concurrency"), [(4, 32), (3, 8), (8, 64)])
def test_a_full_run_keeps_repeats_together_and_no_replica_over_its_bound(
    replicas: int, concurrency: int
) -> None:
    """A closed loop as a run drives it: `concurrency` requests in flight, 64 prompts x 8
    repeats asked repeat by repeat, a random one ending each time. No placement ever leaves a
    replica above ceil(1.25 x the mean load), and most repeats still land on their home."""
    rng = random.Random(replicas * 1000 + concurrency)
    pool = [_Replica(f"http://r{i}/v1") for i in range(replicas)]
    urls = [r.base_url for r in pool]
    keys = [f"t\x1f{prompt}" for _ in range(8) for prompt in range(64)]
    in_flight: list[_Replica] = []
    at_home = 0
    for key in keys:
        if len(in_flight) == concurrency:
            in_flight.pop(rng.randrange(len(in_flight))).outstanding -= 1
        total = len(in_flight)
        chosen = choose_replica(pool, urls, lambda r: r.outstanding, key, "affinity")
        chosen.outstanding += 1
        in_flight.append(chosen)
        assert chosen.outstanding <= load_cap(total, replicas)
        assert max(r.outstanding for r in pool) <= math.ceil(1.25 * (total + 1) / replicas)
        at_home += chosen is pool[rendezvous_rank(key, urls)[0]]
    assert at_home / len(keys) > 0.75


async def test_a_replica_at_its_shared_cap_is_passed_over_while_another_has_room() -> None:
    """`endpoints:` caps each replica at one request: the prompt's second repeat goes to the
    other replica at once instead of waiting in the client for its home's slot."""
    config = SimConfig(port=0, latency_s=0.2, **QUIET)
    async with serve(config) as a, serve(config) as b:
        model = ModelConfig(
            name="m", model=config.model, base_url=[a, b], concurrency=2,
            probe_interval_s=None, deadline_factor=None,
        )  # fmt: skip
        body = get_profile("vllm").request(
            config.model,
            [{"role": "user", "content": "What is 2 plus 2?"}],
            64,
            GenerationSettings(),
            False,
        )
        async with Dispatcher(model, limits=EndpointLimits({a: 1, b: 1})) as dispatcher:
            outcomes = await asyncio.gather(
                *(dispatcher.chat(body, affinity="sums\x1f1") for _ in range(2))
            )
    assert all(o.failure is None for o in outcomes)
    assert {o.endpoint for o in outcomes} == {a, b}  # chosen before either slot was free


def _sums(tmp_path: Path, n: int, repeats: int) -> dict[str, Any]:
    rows = [{"q": f"What is {i} plus {i}?", "a": 2 * i} for i in range(n)]
    (tmp_path / "sums.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "sums.yaml").write_text(
        "name: sums\ndata: {file: sums.jsonl}\nfields: {question: q, answer: a}\n"
        "answer: {kind: number}\nbudgets: [1024, 4096]\n"
    )
    return {"file": str(tmp_path / "sums.yaml"), "repeats": repeats}


def _run(
    tmp_path: Path,
    sims: list[ThreadedSim],
    *flags: str,
    n: int = 12,
    repeats: int = 4,
    task: dict[str, Any] | None = None,
    **model: Any,
) -> int:
    entry = {"name": "m", "model": "sim-qwen3", "base_url": [s.base_url for s in sims]}
    entry.update({"concurrency": 1, "generation": {"seed": 0}, **model})
    task = _sums(tmp_path, n, repeats) if task is None else task
    data = {"run": "r", "models": [entry], "tasks": [task]}
    path = write_config(tmp_path / "run.yaml", data)
    return main(["run", str(path), "--output", str(tmp_path / "out"), *flags])


def test_every_repeat_of_a_prompt_goes_to_one_replica(tmp_path: Path, sim) -> None:
    sims = [sim(**QUIET, seed=1) for _ in range(3)]
    assert _run(tmp_path, sims) == 0
    where: dict[str, set[str | None]] = defaultdict(set)
    bases = [s.base_url for s in sims]
    for attempt in iter_attempts(tmp_path / "out"):
        where[attempt.sample_id].add(attempt.endpoint)
        # each to its home: the first of its rendezvous ranking (one request in flight)
        home = rendezvous_rank(prompt_affinity(attempt.task, attempt.sample_id), bases)[0]
        assert attempt.endpoint == bases[home]
    assert len(where) == 12 and all(len(urls) == 1 for urls in where.values())
    card = json.loads((tmp_path / "out" / "models" / "m.json").read_text())
    assert [r["base_url"] for r in card["replicas"]] == [s.base_url for s in sims]
    assert card["fleet_differences"] == []
    assert {r["engine_version"] for r in card["replicas"]} == {"0.33.0"}


def test_no_replica_holds_more_than_its_bounded_share(tmp_path: Path, sim) -> None:
    sims = [sim(**QUIET, seed=1, latency_s=0.02) for _ in range(2)]
    assert _run(tmp_path, sims, concurrency=8, n=16, repeats=2) == 0
    cap = math.ceil(1.25 * 8 / 2)
    for server in sims:
        stats = _stats(server)
        assert 0 < stats["max_in_flight"] <= cap


def _stats(server: ThreadedSim) -> dict[str, Any]:
    import urllib.request

    with urllib.request.urlopen(f"{server.base_url.removesuffix('/v1')}/sim/stats") as reply:
        result: dict[str, Any] = json.load(reply)
        return result


@pytest.mark.parametrize(
    ("odd", "difference"),
    [
        ({"max_model_len": 32768}, "max_model_len: 40960 at {a}, {b}; 32768 at {c}"),
        ({"parser_off": 1}, "reasoning: reasoning at {a}, {b}; content <think> at {c}"),
        ({"profile": "vllm-0.13"}, "engine_version: 0.33.0 at {a}, {b}; 0.13.0 at {c}"),
        ({"root": "Qwen/Qwen3-8B-AWQ"}, "root: sim-qwen3 at {a}, {b}; Qwen/Qwen3-8B-AWQ at {c}"),
    ],
)
def test_a_mixed_fleet_is_refused_with_its_differences(
    tmp_path: Path, sim, capsys: pytest.CaptureFixture[str], odd: dict[str, Any], difference: str
) -> None:
    sims = [sim(**QUIET), sim(**QUIET), sim(**QUIET, **odd)]
    assert _run(tmp_path, sims) == 2
    err = " ".join(capsys.readouterr().err.split())
    a, b, c = (s.base_url for s in sims)
    assert "the 3 replicas of m are not one deployment" in err
    assert difference.format(a=a, b=b, c=c) in err
    assert not list(iter_attempts(tmp_path / "out"))  # nothing asked


def test_allow_mixed_fleet_runs_and_flags_it(
    tmp_path: Path, sim, capsys: pytest.CaptureFixture[str]
) -> None:
    sims = [sim(**QUIET), sim(**QUIET, max_model_len=32768)]
    assert _run(tmp_path, sims, "--allow-mixed-fleet") == 0
    err = " ".join(capsys.readouterr().err.split())
    assert "m: mixed fleet (allow_mixed_fleet): max_model_len: 40960 at" in err
    card = json.loads((tmp_path / "out" / "models" / "m.json").read_text())
    assert card["fleet_differences"][0].startswith("max_model_len: 40960 at")


def test_a_worse_replica_is_flagged_an_outlier(
    tmp_path: Path, sim, capsys: pytest.CaptureFixture[str]
) -> None:
    """Same card, version and parser (the fingerprint cannot tell), but one replica answers
    wrongly far more often (a broken quantization, say): its accuracy gives it away."""
    sims = [sim(**QUIET, p_wrong=0.05), sim(**QUIET, p_wrong=0.05), sim(**QUIET, p_wrong=0.9)]
    gsm8k = {"name": "gsm8k", "limit": 30, "repeats": 4}  # the simulators know its golds
    assert _run(tmp_path, sims, task=gsm8k, concurrency=4) == 0
    out = capsys.readouterr().out
    rows = json.loads((tmp_path / "out" / "summary.json").read_text())["replicas"]
    by_url = {row["endpoint"]: row for row in rows}
    bad = by_url[sims[2].base_url]
    assert bad["outlier"] is True and bad["accuracy"] < 0.3 and bad["accuracy_p"] < 0.001
    assert not any(by_url[s.base_url]["outlier"] for s in sims[:2])
    assert sum(row["replies"] for row in rows) == 120
    assert "per replica" in out and "OUTLIER" in out
    # `thinkeval report` regenerates the same rows from the journal, section and JSON alike.
    report = tmp_path / "r.md"
    assert main(["report", str(tmp_path / "out"), "--out", str(report)]) == 0
    markdown = report.read_text()
    assert "Replicas" in markdown and f"| m | {sims[2].base_url} |" in markdown
    line = next(x for x in markdown.splitlines() if f"| {sims[2].base_url} |" in x)
    assert line.rstrip(" |").endswith("outlier")
    as_json = tmp_path / "r.json"
    assert main(["report", str(tmp_path / "out"), "--format", "json", "--out", str(as_json)]) == 0
    assert json.loads(as_json.read_text())["replicas"] == rows


def test_one_server_leaves_summary_as_it_was(tmp_path: Path, sim) -> None:
    server = sim(**QUIET)
    assert _run(tmp_path, [server]) == 0
    assert "replicas" not in json.loads((tmp_path / "out" / "summary.json").read_text())
    card = json.loads((tmp_path / "out" / "models" / "m.json").read_text())
    assert "replicas" not in card
    as_json = tmp_path / "r.json"
    assert main(["report", str(tmp_path / "out"), "--format", "json", "--out", str(as_json)]) == 0
    assert "replicas" not in json.loads(as_json.read_text())


def test_sim_prefix_cache_skips_the_prefill_of_a_prompt_seen_before() -> None:
    """The simulator's prefix cache (bench/affinity_bench.py measures routing with it)."""
    from thinkeval.sim.prefix_cache import PrefixCache

    cache = PrefixCache(capacity=300)
    assert cache.lookup("a", 200) == 0 and cache.lookup("a", 200) == 200
    assert cache.lookup("b", 200) == 0  # evicts a (least recently used)
    assert cache.lookup("a", 200) == 0
    assert (cache.queries, cache.hits) == (800, 200)
    _ = SimConfig(prefix_cache_tokens=10)
