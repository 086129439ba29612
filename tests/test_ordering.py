"""The tail-aware order of the fixed work: what may run long goes first, nothing is asked twice."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from conftest import write_config
from test_run import model_entry
from thinkeval.cli import main
from thinkeval.ops.verify import verify_run
from thinkeval.records import Attempt, Usage
from thinkeval.run.ordering import FixedWork, TaskEstimate, WorkItem
from thinkeval.store.journal import iter_attempts


def reply(task: str, tokens: int, cut: bool, phase: str = "fixed") -> Attempt:
    return Attempt(
        model="m",
        task=task,
        sample_id=f"{task}/0",
        phase=phase,  # type: ignore[arg-type]
        budget=2048,
        max_tokens=2048,
        state="unfinished" if cut else "finished",
        finish_reason="length" if cut else "stop",
        content="x",
        started_at=0.0,
        usage=Usage(completion_tokens=tokens),
    )


def stream(task: str, n: int) -> Iterator[WorkItem]:
    for offset in range(n):
        yield WorkItem(task, "fixed", 2048, offset)


def test_the_task_likely_to_be_cut_off_goes_first_and_what_is_seen_refines_it() -> None:
    estimates = {
        "short": TaskEstimate.prior((2048, 8192), 500),
        "long": TaskEstimate.prior((2048, 8192), 1800),
    }
    work = FixedWork(
        {"short": stream("short", 50), "long": stream("long", 50)},
        estimates,
        32,
        {"short": 50, "long": 50},
    )
    assert [work.next().task for _ in range(3)] == ["long"] * 3  # type: ignore[union-attr]
    # The run sees the "long" task answer briefly and never cut off: it gives way.
    for _ in range(40):
        estimates["long"].observe(reply("long", 300, cut=False))
        estimates["short"].observe(reply("short", 2048, cut=True))
    assert work.next().task == "short"  # type: ignore[union-attr]
    rest = [item.task for item in iter(work.next, None)]
    assert Counter(rest) == {"short": 49, "long": 47}  # every unit once, whatever the order


def test_moved_up_work_goes_before_the_streams_once() -> None:
    work = FixedWork(
        {"t": stream("t", 3)}, {"t": TaskEstimate.prior((2048, 8192), None)}, 4, {"t": 6}
    )
    early = WorkItem("t", "fixed", 2048, 7, repeat=1)
    work.move_up("t", 5, early)
    work.move_up("t", 5, early)  # a second cut-off repeat of the same sample: still once
    assert work.taken_early("t", 5) and not work.taken_early("t", 4)
    assert work.next() is early
    given = work.next()
    assert given is not None and given.offset == 0
    work.move_up("t", 0, WorkItem("t", "fixed", 2048, 0))  # its stream gave it: not again
    assert not work.taken_early("t", 0)
    assert len([*iter(work.next, None)]) == 2


def test_repeats_of_a_sample_cut_off_go_first_and_each_unit_is_asked_once(
    tmp_path: Path, sim
) -> None:
    server = sim(model="m", seed=41, p_long=0.4, latency_s=0.005)
    config = write_config(
        tmp_path / "run.yaml",
        {
            "run": "repeats",
            "tasks": [{"name": "gsm8k", "limit": 40, "repeats": 3}],
            "models": [model_entry("m", server.base_url, concurrency=2)],
        },
    )
    assert main(["run", str(config), "--output", str(tmp_path / "out")]) == 0
    attempts = sorted(iter_attempts(tmp_path / "out"), key=lambda x: x.started_at)
    fixed = [x for x in attempts if x.phase == "fixed"]
    assert Counter((x.sample_id, x.repeat) for x in fixed) == {
        (f"gsm8k/{i}", r): 1 for i in range(40) for r in range(3)
    }
    assert verify_run(tmp_path / "out").ok
    # A sample cut off in repeat 0 has its other repeats asked before the last samples' repeat 0.
    first_cut = next(x for x in fixed if x.repeat == 0 and x.state in ("empty", "unfinished"))
    later = next(x.started_at for x in fixed if x.sample_id == first_cut.sample_id and x.repeat)
    last_plain = next(x.started_at for x in fixed if (x.sample_id, x.repeat) == ("gsm8k/39", 0))
    assert later < last_plain
