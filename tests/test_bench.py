"""The benchmark's arithmetic, plan, results file and RESULTS.md renderer, on hand-made results.

No harness, simulator or run is involved: `bench/thinkeval_bench` is imported from bench/
(pytest's `pythonpath`).
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from thinkeval_bench.figures import cpu_splits, efficiency, ideal_wall
from thinkeval_bench.plan import DataDirs, plan_runs, run_timeout, write_data
from thinkeval_bench.render import render_report
from thinkeval_bench.results import BenchRecord, Machine, Result, load_record, save_record

TOKENS = {"distinct_prompts": 1000, "prompt_tokens": 1_300_000, "generation_tokens": 660_000}


def _run(harness: str, scenario: str, setting: str, n: int, **measured: Any) -> Result:
    latency = 1.0 if scenario == "1s" else 0.0
    fields: dict[str, Any] = {"sim_requests": n, "sim_completed": n, **measured}
    return Result(harness, scenario, setting, n, latency, fields.pop("status", "ok"), **fields)


def _results() -> list[Result]:
    """thinkeval and lm-eval in every scenario, with round numbers whose ratios are known."""
    return [
        _run("thinkeval", "zero", "c64", 1000, wall_s=2.0, cpu_s=1.0, peak_rss_mb=40, **TOKENS),
        _run("thinkeval", "zero", "baseline", 20, wall_s=0.5, cpu_s=0.51, peak_rss_mb=30),
        _run("lm-eval", "zero", "c64", 1000, wall_s=30.0, cpu_s=20.0, peak_rss_mb=300, **TOKENS),
        _run("lm-eval", "zero", "baseline", 20, wall_s=10.0, cpu_s=10.2, peak_rss_mb=250),
        _run(
            "thinkeval",
            "1s",
            "c64",
            1000,
            wall_s=17.0,
            span_s=16.4,
            before_first_s=0.4,
            after_last_s=0.2,
            ideal_s=16.0,
            cpu_s=1.2,
            peak_rss_mb=40,
            max_in_flight=64,
            loadavg=(1.5, 1.0, 0.5),
            **TOKENS,
        ),
        _run(
            "lm-eval",
            "1s",
            "c64",
            1000,
            wall_s=40.0,
            span_s=16.0,
            before_first_s=20.0,
            after_last_s=4.0,
            ideal_s=16.0,
            cpu_s=24.0,
            peak_rss_mb=280,
            max_in_flight=64,
            **TOKENS,
        ),
        _run(
            "thinkeval",
            "1s",
            "c64-long",
            4000,
            wall_s=66.0,
            span_s=63.5,
            ideal_s=63.0,
            cpu_s=3.6,
            peak_rss_mb=40,
            max_in_flight=64,
        ),
        replace(
            _run(
                "lm-eval",
                "1s",
                "default",
                1000,
                status="probe",
                wall_s=45.0,
                span_s=20.0,
                ideal_s=21.0,
                cpu_s=9.0,
                peak_rss_mb=270,
                max_in_flight=1,
                reason="stopped after 45 s (a probe of the defaults)",
            ),
            sim_requests=21,
            sim_completed=20,
        ),
        _run("thinkeval", "100k", "c64", 10_000, wall_s=5.0, cpu_s=5.0, peak_rss_mb=40),
        _run("thinkeval", "100k", "c64", 100_000, wall_s=50.0, cpu_s=45.0, peak_rss_mb=46),
    ]


def _record(results: list[Result] | None = None) -> BenchRecord:
    return BenchRecord(
        command="run_bench.py --harnesses thinkeval,lm-eval,inspect",
        started=dt.datetime(2026, 1, 2, 3, 4, tzinfo=dt.UTC),
        finished=dt.datetime(2026, 1, 2, 3, 30, tzinfo=dt.UTC),
        machine=Machine("2 CPUs (Test CPU), 4 GiB RAM, Linux 6.0", 2),
        harnesses=["thinkeval", "lm-eval", "inspect"],
        scenarios=["zero", "1s", "100k"],
        requests=1000,
        seed=7,
        versions={
            "thinkeval": {"python": "3.11.7", "thinkeval": "0.1.0", "commit": "abc1234"},
            "lm-eval": {"python": "3.11.7", "lm-eval": "0.4.13"},
        },
        not_run={"inspect": "not installed in /envs/inspect (run with --setup)"},
        work_dir="bench/out/20260102-030400",
        results=_results() if results is None else results,
    )


def test_ideal_wall_is_full_waves_of_c_requests() -> None:
    assert ideal_wall(1000, 64, 1.0) == 16.0  # ceil(15.6) waves
    assert ideal_wall(1024, 64, 1.0) == 16.0
    assert ideal_wall(1025, 64, 1.0) == 17.0
    assert ideal_wall(1, 64, 1.0) == 1.0
    assert ideal_wall(100, 8, 0.5) == 6.5
    assert efficiency(16.0, 20.0) == 0.8
    assert efficiency(None, 20.0) is None
    assert efficiency(16.0, 0.0) is None


def test_cpu_split_into_start_up_and_per_request() -> None:
    splits = cpu_splits(_results())
    assert list(splits) == ["thinkeval", "lm-eval"]
    te, lm = splits["thinkeval"], splits["lm-eval"]
    # (1.0 - 0.51) / (1000 - 20) = 0.5 ms a request; 0.51 - 20 × 0.5 ms = 0.5 s at zero requests.
    assert (te.baseline_cpu_s, te.full_cpu_s) == (0.51, 1.0)
    assert te.per_request_ms == pytest.approx(0.5)
    assert te.startup_cpu_s == pytest.approx(0.5)
    assert (lm.baseline_cpu_s, lm.full_cpu_s) == (10.2, 20.0)
    assert (lm.per_request_ms, lm.startup_cpu_s) == pytest.approx((10.0, 10.0))


def test_cpu_split_needs_two_ok_runs_with_more_requests_in_the_full_one() -> None:
    results = _results()
    failed = [replace(r, status="failed") if r.setting == "baseline" else r for r in results]
    assert cpu_splits(failed) == {}
    no_baseline = [r for r in results if not (r.harness == "lm-eval" and r.setting == "baseline")]
    assert list(cpu_splits(no_baseline)) == ["thinkeval"]
    same_size = [replace(r, sim_completed=1000) if r.setting == "baseline" else r for r in results]
    assert cpu_splits(same_size) == {}


def _plan(harnesses: list[str], scenarios: list[str], data: DataDirs) -> list[tuple[Any, ...]]:
    return [
        (s.harness, s.scenario, s.setting, s.requests, s.stop_after_s, s.data_dir.name)
        for s in plan_runs(harnesses, scenarios, 100, data, probe_s=45.0)
    ]


def test_plan_runs_every_scenario() -> None:
    data = DataDirs(
        Path("first"),
        Path("base"),
        10,
        Path("long"),
        synthetic={1000: Path("s1000"), 5000: Path("s5000")},
    )
    assert _plan(["thinkeval", "lm-eval"], ["zero", "1s", "100k"], data) == [
        ("thinkeval", "zero", "c64", 100, None, "first"),
        ("thinkeval", "zero", "default", 100, None, "first"),
        ("thinkeval", "zero", "baseline", 10, None, "base"),
        ("lm-eval", "zero", "c64", 100, None, "first"),
        ("lm-eval", "zero", "default", 100, None, "first"),
        ("lm-eval", "zero", "baseline", 10, None, "base"),
        ("thinkeval", "1s", "c64", 100, None, "first"),
        ("lm-eval", "1s", "c64", 100, None, "first"),
        ("thinkeval", "1s", "c64-long", 400, None, "long"),
        ("thinkeval", "1s", "default", 100, 45.0, "first"),
        ("lm-eval", "1s", "default", 100, 45.0, "first"),
        ("thinkeval", "100k", "c64", 1000, None, "s1000"),
        ("thinkeval", "100k", "c64", 5000, None, "s5000"),
    ]
    # Without thinkeval there is no long run and no memory scenario; without a baseline dir, no
    # baseline runs.
    assert _plan(["lm-eval"], ["zero", "1s", "100k"], replace(data, baseline=None)) == [
        ("lm-eval", "zero", "c64", 100, None, "first"),
        ("lm-eval", "zero", "default", 100, None, "first"),
        ("lm-eval", "1s", "c64", 100, None, "first"),
        ("lm-eval", "1s", "default", 100, 45.0, "first"),
    ]
    specs = list(plan_runs(["thinkeval"], ["1s", "100k"], 100, data, probe_s=45.0))
    assert [s.synthetic for s in specs] == [False, True, False, True, True]
    assert [run_timeout(s, 30.0) for s in specs] == [30.0, 30.0, 30.0, 30.0, 150.0]


def test_write_data_writes_only_what_the_plan_reads(tmp_path: Path) -> None:
    source = tmp_path / "test.jsonl"
    rows_in = [json.dumps({"question": f"q{i}", "answer": "#### 1"}) for i in range(5)]
    source.write_text("\n".join(rows_in) + "\n")
    data = write_data(
        source,
        tmp_path / "data",
        requests=4,
        baseline_requests=2,
        harnesses=["thinkeval"],
        scenarios=["zero", "1s", "100k"],
        sizes_100k=[3, 6],
        seed=1,
    )

    def rows(folder: Path | None) -> list[dict[str, str]]:
        assert folder is not None
        lines = (folder / "gsm8k" / "test.jsonl").read_text().splitlines()
        return [json.loads(line) for line in lines]

    assert [r["question"] for r in rows(data.first)] == ["q0", "q1", "q2", "q3"]
    assert [r["question"] for r in rows(data.baseline)] == ["q0", "q1"]
    assert data.baseline_rows == 2
    assert len(rows(data.long)) == 16  # LONG_FACTOR × requests
    assert {n: len(rows(folder)) for n, folder in data.synthetic.items()} == {3: 3, 6: 6}
    for row in rows(data.synthetic[6]):
        # "... = <total> <things>.\n#### <total>": the answer line agrees with the working.
        working, _, final = row["answer"].rpartition("\n#### ")
        assert working.rsplit("= ", 1)[1].split()[0] == final
    lone = write_data(
        source,
        tmp_path / "lone",
        requests=2,
        baseline_requests=2,
        harnesses=["lm-eval"],
        scenarios=["zero", "1s", "100k"],
        sizes_100k=[3],
        seed=1,
    )
    assert (lone.baseline, lone.long, lone.synthetic) == (None, None, {})
    with pytest.raises(SystemExit, match="has 5 rows, fewer than --requests 9"):
        write_data(
            source,
            tmp_path / "big",
            requests=9,
            baseline_requests=0,
            harnesses=["thinkeval"],
            scenarios=["zero"],
            sizes_100k=[],
            seed=1,
        )


def test_render_prints_the_tables_ratios_and_targets() -> None:
    text = render_report(_record(), "bench/RESULTS.json")
    lines = text.splitlines()
    assert lines[2].startswith(
        "Measured 2026-01-02 03:04–03:30 UTC on 2 CPUs (Test CPU), 4 GiB RAM, Linux 6.0 with "
        "`run_bench.py --harnesses thinkeval,lm-eval,inspect`."
    )
    assert "seed 7" in lines[4]
    expected = [
        # Versions, and the harness that could not run.
        "| thinkeval | 3.11.7 | thinkeval 0.1.0, commit abc1234 |",
        "| lm-eval | 3.11.7 | lm-eval 0.4.13 |",
        "| inspect | – | not run: not installed in /envs/inspect (run with --setup) |",
        "- **inspect**: not run: not installed in /envs/inspect (run with --setup)",
        # Zero latency: ratios to thinkeval's run of the same setting.
        "| thinkeval | c64 | 1000 | 2.0 | 1.00× | 1.00 | 1.00× | 40 | 1.00× | ok |",
        "| lm-eval | c64 | 1000 | 30.0 | 15.00× | 20.00 | 20.00× | 300 | 7.50× | ok |",
        "| lm-eval | baseline | 20 | 10.0 | 20.00× | 510.00 | 20.00× | 250 | 8.33× | ok |",
        # The CPU split.
        "| thinkeval | 0.51 | 1.00 | 0.50 | 1.00× | 0.50 | 1.00× |",
        "| lm-eval | 10.20 | 20.00 | 10.00 | 20.00× | 10.00 | 20.00× |",
        # 1 s: efficiencies over wall and span; ratios to thinkeval's c64 run; a probe's
        # completed/planned and projected wall (1000 × 20 s / 20).
        "`ceil(N/C)·L` (16 s for N=1000, C=64, L=1 s).",
        "| thinkeval | c64 | 1000 | 64 | 17.0 | 0.4 | 16.4 | 0.2 | 16 | 0.941 | 0.976 | 1.20 "
        "| 1.00× | 40 | 1.00× | ok |",
        "| lm-eval | c64 | 1000 | 64 | 40.0 | 20.0 | 16.0 | 4.0 | 16 | 0.400 | 1.000 | 24.00 "
        "| 20.00× | 280 | 7.00× | ok |",
        "| thinkeval | c64-long | 4000 | 64 | 66.0 | – | 63.5 | – | 63 | 0.955 | 0.992 | 0.90 "
        "| 0.75× | 40 | 1.00× | ok |",
        "| lm-eval | default | 20/1000 | 1 | 45.0 (≈1,000 projected) | – | 20.0 | – | 21 | 0.467 "
        "| 1.050 | 450.00 | 375.00× | 270 | 6.75× | probe: stopped after 45 s (a probe of the "
        "defaults) |",
        # Memory against run length.
        "| 10,000 | 10000 | 5.0 | 2,000 | 0.50 | 40 | 1.00× | ok |",
        "| 100,000 | 100000 | 50.0 | 2,000 | 0.45 | 46 | 1.15× | ok |",
        # Targets.
        "- Least CPU per request (zero latency, c64): **met**: thinkeval 1.00 CPU s / 1000 "
        "requests; lm-eval 20.00.",
        "- Least CPU per request (1s latency, c64): **met**: thinkeval 1.20 CPU s / 1000 "
        "requests; lm-eval 24.00.",
        "- Least CPU per request, start-up excluded (marginal, zero latency): **met**: thinkeval "
        "0.50 ms per request; lm-eval 10.00.",
        "- ≥ 0.95 of ideal throughput at 1 s latency: over the whole command 0.941 "
        "(**NOT met**); over the server-side span 0.976 (**met**).",
        "  Start-up and wrap-up are a fixed 0.6 s (0.4 s before the first request, 0.2 s after "
        "the last), not a per-request cost: at 4,000 requests the whole command reaches 0.955 of "
        "ideal.",
        "- Memory flat in the run length (peak RSS at 100,000 within 10 % of 10,000): "
        "**NOT met**: 40 → 46 MiB (1.15×, 0.07 MiB per 1000 more samples).",
        # Checks: the four complete runs on 1000 rows sent the same prompts.
        "- Runs on 1000 rows (4 with exactly one request per row):",
        "  - same generated tokens: yes, 660000",
        "- 1-minute load average after the runs: 1.5–1.5 on 2 CPUs (other work on the machine "
        "inflates wall times, not CPU s).",
        "Every run's numbers, the versions and the machine: `bench/RESULTS.json`",
    ]
    missing = [line for line in expected if line not in text]
    assert missing == []
    for section in ("## Zero latency", "## 1 s latency", "## 100,000 samples", "## Targets"):
        assert sum(line.startswith(section) for line in lines) == 1


def test_render_says_not_met_and_no_when_thinkeval_loses_or_replies_differ() -> None:
    results = [
        replace(r, cpu_s=40.0, generation_tokens=660_001)
        if (r.harness, r.scenario, r.setting) == ("thinkeval", "zero", "c64")
        else r
        for r in _results()
    ]
    results.append(_run("aisbench", "zero", "c64", 1000, cpu_s=50.0, **TOKENS))
    results[-1].sim_requests = results[-1].sim_completed = 1001  # its warm-up request
    text = render_report(_record(results), "x.json")
    assert (
        "- Least CPU per request (zero latency, c64): **NOT met**: thinkeval 40.00 CPU s / 1000 "
        "requests; lm-eval 20.00, aisbench 49.95." in text
    )
    assert "marginal, zero latency): **NOT met**: thinkeval 40.30 ms per request;" in text
    assert (
        "  - same generated tokens: NO: thinkeval/zero/c64 660001, lm-eval/zero/c64 660000, "
        "thinkeval/1s/c64 660000, lm-eval/1s/c64 660000" in text
    )
    assert "  - same distinct prompts: yes, 1000" in text
    assert (
        "  - aisbench/zero/c64 sent 1001 requests for 1000 rows (AISBench: its warm-up request)"
        in text
    )


def test_render_of_a_run_with_nothing_decided() -> None:
    record = replace(_record([]), scenarios=["zero"], not_run={})
    text = render_report(record, "x.json")
    assert "(no target could be evaluated from this run)" in text
    assert "## Not run" not in text and "## 1 s latency" not in text
    assert "## Zero latency" in text and "CPU split" not in text


def test_saved_results_load_and_render_as_the_original(tmp_path: Path) -> None:
    record = _record()
    path = tmp_path / "RESULTS.json"
    save_record(record, path)
    loaded = load_record(path)
    assert loaded == record
    assert render_report(loaded, "RESULTS.json") == render_report(record, "RESULTS.json")
    assert json.loads(path.read_text())["results"][4]["loadavg"] == [1.5, 1.0, 0.5]
    assert not list(tmp_path.glob("*.partial"))


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"not json", "JSON is malformed"),
        (b'{"command": 1}', "Expected `str`, got `int` - at `$.command`"),
        (b"[]", "Expected `object`, got `array`"),
    ],
)
def test_a_bad_results_file_is_one_line_naming_it(
    tmp_path: Path, content: bytes, message: str
) -> None:
    path = tmp_path / "r.json"
    path.write_bytes(content)
    with pytest.raises(SystemExit) as caught:
        load_record(path)
    assert str(caught.value).startswith(f"error: {path} is not a benchmark results file: {message}")
    assert "\n" not in str(caught.value)


def test_a_missing_or_newer_results_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match=r"cannot read results file .*nope\.json"):
        load_record(tmp_path / "nope.json")
    path = tmp_path / "r.json"
    save_record(replace(_record(), format=2), path)
    with pytest.raises(SystemExit, match="has results format 2; this script reads 1"):
        load_record(path)


def test_revision_comparison_reports_medians_and_ratios(tmp_path: Path) -> None:
    from thinkeval_bench.revisions import MEASURES, Revision, render

    old, new = Revision("base abc", tmp_path), Revision("new", tmp_path)
    for key, _, _ in MEASURES:
        for value in (1.0, 3.0, 2.0):
            old.add(key, value)
            new.add(key, value * 1.5)
    table = render([old, new], 1000, 100_000, 3)
    assert "| CPU s per 1000 requests (zero latency, 64 in flight) | 2.00 | 3.00 | 1.50 |" in table
    assert "| peak RSS MiB, memory run | 2 | 3 | 1.50 |" in table
    assert "| HTTP layer alone: CPU s per 1000 requests | 2.00 | 3.00 | 1.50 |" in table
    assert "| the rest (run - HTTP layer): start-up CPU s | 2.00 | 3.00 | 1.50 |" in table
    assert table.startswith("3 interleaved rounds; 1000 GSM8K rows; memory run 100000 rows.")
