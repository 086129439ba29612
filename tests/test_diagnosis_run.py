"""The diagnosis of a whole run: the simulator produces each cause on request, and
summary.json counts it per model, task and phase with the deployment findings."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import write_config
from thinkeval.cli import main
from thinkeval.report.sections.diagnosis import SECTION as DIAGNOSIS


def _run(tmp_path: Path, sim: Any, name: str, **knobs: Any) -> dict[str, Any]:
    server = sim(model="m", seed=5, p_long=0.0, p_wrong=0.0, p_malformed=0.0, p_empty=0.0, **knobs)
    config = write_config(
        tmp_path / f"{name}.yaml",
        {
            "run": name,
            "budgets": [1024, 2048],
            "tasks": [{"name": "gsm8k", "limit": 12}],
            "models": [
                {
                    "name": "m",
                    "base_url": server.base_url,
                    "generation": {"chat_template_kwargs": {"enable_thinking": True}},
                }
            ],
        },
    )
    run_dir = tmp_path / name
    assert main(["run", str(config), "--output", str(run_dir)]) == 0
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["schema_version"] == 6
    (result,) = summary["results"]
    block: dict[str, Any] = result["diagnosis"]
    return block


def test_each_cause_the_simulator_produces_is_the_label_counted(tmp_path: Path, sim) -> None:
    for knob, label in (
        ("p_loop", "loop"),
        ("p_hesitate", "hesitation"),
        ("p_buried", "found_then_lost"),
    ):
        block = _run(tmp_path, sim, knob, p_never=1.0, **{knob: 1.0})
        for phase in ("fixed", "retry"):
            counted = block["phases"][phase]
            if phase == "fixed":
                assert counted["labels"] == {label: 12}, (knob, counted)
            else:
                # At 2048 tokens the simulator's own sentence pool now and then says one
                # sentence three times running: a real loop, which vLLM would stop too.
                assert counted["labels"].get(label, 0) >= 10, (knob, counted)
                assert set(counted["labels"]) <= {label, "loop"}
            assert counted["replies"] == {"empty": 12}  # cut while thinking: content null
            assert sum(counted["reasoning_bins"]) == 12 and counted["still_thinking"] == 12
        if label == "found_then_lost":
            assert block["phases"]["fixed"]["found_correct"] == 12
    plain = _run(tmp_path, sim, "plain", p_never=1.0)
    assert plain["phases"]["fixed"]["labels"] == {"progressing": 12}


def test_repetition_finishes_are_apart_and_retried(tmp_path: Path, sim) -> None:
    block = _run(tmp_path, sim, "rep", p_never=1.0, p_loop=1.0, repetition_detection=1)
    fixed = block["phases"]["fixed"]
    assert fixed["replies"] == {"repetition": 12} and fixed["labels"] == {"loop": 12}
    assert block["phases"]["retry"]["replies"] == {"repetition": 12}  # retried as unfinished
    found = {f["check"]: f for f in block["findings"]}
    assert found["repetition_finish"]["count"] == 24
    assert len(found["repetition_finish"]["examples"]) == 5


def test_reasoning_in_content_is_a_finding(tmp_path: Path, sim) -> None:
    block = _run(tmp_path, sim, "parser", parser_off=1)
    found = {f["check"]: f for f in block["findings"]}
    assert found["reasoning_in_content"]["count"] >= 12
    assert "thinking_without_reasoning" not in found  # it came back, in the wrong field
    assert block["phases"]["fixed"]["replies"]["finished"] >= 10


def test_the_report_shows_the_diagnosis_table_findings_and_plot(tmp_path: Path, sim) -> None:
    from thinkeval.report import build_report, render_html, render_markdown

    _run(tmp_path, sim, "mixed", p_never=0.6, p_loop=0.5, p_hesitate=0.25, parser_off=0)
    report = build_report([tmp_path / "mixed"], resamples=100)
    (row,) = DIAGNOSIS.numbers(report).diagnosis
    assert row.block.phases["fixed"].labels.get("loop", 0) >= 1
    markdown = render_markdown(report)
    assert "Why replies did not finish" in markdown
    header = next(line for line in markdown.splitlines() if "found_then_lost" in line)
    assert "repetition" in header and "progressing" in header
    page = render_html(report)
    assert "Share of replies still thinking, m on gsm8k" in page
    assert page.count("still thinking</title>") == 2  # fixed and retry
    # Without summary.json (or with a stale one) the report diagnoses the journal itself.
    (tmp_path / "mixed" / "summary.json").unlink()
    assert (
        DIAGNOSIS.numbers(build_report([tmp_path / "mixed"], resamples=100)).diagnosis
        == DIAGNOSIS.numbers(report).diagnosis
    )


def test_sweep_runs_a_2x2_grid_and_prints_the_per_variant_table(
    tmp_path: Path, sim, capsys
) -> None:
    server = sim(model="m", seed=5, p_never=0.5, p_loop=0.2, p_greedy_loop=0.6)
    config = write_config(
        tmp_path / "sweep.yaml",
        {
            "run": "study",
            "budgets": [1024, 2048],
            "tasks": [{"name": "gsm8k", "limit": 50}],
            "models": [{"name": "m", "base_url": server.base_url, "concurrency": 8}],
        },
    )
    out = tmp_path / "out"
    argv = [
        "sweep",
        str(config),
        "--grid",
        "temperature=0,0.6",
        "--grid",
        "top_p=0.95,1.0",
        "--limit",
        "12",
        "--output",
        str(out),
    ]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    names = [f"m[temperature={t},top_p={p}]" for t in ("0", "0.6") for p in ("0.95", "1.0")]
    rows = [line for line in printed.splitlines() if line.startswith("│")]
    assert [sum(name + " " in row for row in rows) for name in names] == [1, 2, 2, 2], printed
    summary = json.loads((out / "summary.json").read_text())
    assert sorted(r["model"] for r in summary["results"]) == sorted(names)
    assert all(r["total"] == 12 for r in summary["results"])
    request = json.loads((out / "journal" / "main.jsonl").read_text().splitlines()[0])["request"]
    assert request["model"] == "m" and "temperature" in request and "top_p" in request
    loops = {
        r["model"]: r["diagnosis"]["phases"]["retry"]["labels"].get("loop", 0)
        for r in summary["results"]
    }
    # Greedy decoding loops more in the simulator; the table shows it and so do the pairs.
    assert loops[names[0]] > loops[names[2]]
    against_greedy = [cell.strip() for cell in rows[-2].split("│")]
    assert against_greedy[1] == names[2] and against_greedy[-2].startswith("-"), printed


def test_sweep_refuses_a_bad_grid_in_one_line(tmp_path: Path, capsys) -> None:
    config = write_config(
        tmp_path / "c.yaml",
        {"run": "r", "models": [{"name": "m", "base_url": "http://127.0.0.1:9/v1"}]},
    )
    assert main(["sweep", str(config), "--grid", "temperature"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["error: --grid 'temperature': expected KEY=V1,V2,..., e.g. temperature=0,0.6"]


def test_the_sample_browser_gets_each_reply_s_diagnosis_and_loop_block(tmp_path: Path, sim) -> None:
    from thinkeval.report._collect import collect
    from thinkeval.report._embed import EMBED_LIMITS
    from thinkeval.report._samples import Catalog

    _run(tmp_path, sim, "browse", p_never=1.0, p_loop=1.0)
    with collect([tmp_path / "browse"]) as data:
        catalog = Catalog(data)
        views = [
            v
            for row in range(len(catalog.row_question))
            for v in catalog.reply_views(row, EMBED_LIMITS)
        ]
    assert len(views) == 24 and {v.diagnosis for v in views} == {"loop"}
    for view in views:
        assert view.loop_block and view.reasoning is not None
        # The embedded page keeps the last 500 characters: the loop, repeated there.
        shown = view.reasoning if isinstance(view.reasoning, str) else view.reasoning[2]
        assert shown.count(view.loop_block) >= 2, (view.loop_block, shown)


def test_a_reply_s_view_shows_the_diagnosis_the_index_made_for_it(tmp_path: Path, sim) -> None:
    from thinkeval.diagnosis import diagnose
    from thinkeval.report._collect import collect
    from thinkeval.report._embed import EMBED_LIMITS
    from thinkeval.report._samples import Catalog
    from thinkeval.report._samples_diagnosis import DIAGNOSES, NO_DIAGNOSIS

    _run(tmp_path, sim, "mixed", p_never=0.7, p_loop=0.4, p_hesitate=0.4)
    with collect([tmp_path / "mixed"]) as data:
        catalog = Catalog(data)
        assert catalog.diagnosed.kept  # what the index found, kept for the views
        cell = data.cells[("m", "gsm8k")]
        spec = cell.run.record.task("gsm8k").spec
        labels = set()
        for row in range(len(catalog.row_question)):
            code = int(catalog.columns["row_fixed_diagnosis"][row])
            view = catalog.reply_views(row, EMBED_LIMITS)[0]
            assert view.diagnosis == (None if code == NO_DIAGNOSIS else DIAGNOSES[code])
            _, unit = catalog.cell(row)
            attempt = cell.run.read(int(cell.fixed.ref[unit]))
            if attempt.state != "finished":
                found = diagnose(
                    attempt.reasoning, attempt.content, attempt.finish_reason, attempt.state,
                    spec.answer, cell.samples.golds[unit // cell.k],
                )  # fmt: skip
                block = found.loop.block_text if found.loop is not None else None
                assert (view.diagnosis, view.loop_block) == (found.label, block)
                labels.add(found.label)
    assert {"loop", "progressing"} <= labels


def test_compare_says_how_many_more_samples_the_candidate_loops_on(
    tmp_path: Path, sim, capsys
) -> None:
    shape = {"seed": 5, "p_long": 0.0, "p_wrong": 0.0, "p_malformed": 0.0, "p_empty": 0.0}
    base = sim(model="base", p_never=0.5, **shape)
    looping = sim(model="cand", p_never=0.5, p_loop=1.0, **shape)
    config = write_config(
        tmp_path / "pair.yaml",
        {
            "run": "pair",
            "budgets": [1024, 2048],
            "tasks": [{"name": "gsm8k", "limit": 12}],
            "models": [
                {"name": "base", "base_url": base.base_url},
                {"name": "cand", "base_url": looping.base_url},
            ],
        },
    )
    run_dir = tmp_path / "pair"
    assert main(["run", str(config), "--output", str(run_dir)]) == 0
    summary = json.loads((run_dir / "summary.json").read_text())
    loops = {
        r["model"]: r["diagnosis"]["phases"]["retry"]["labels"].get("loop", 0)
        for r in summary["results"]
    }
    assert loops["cand"] > loops["base"]
    capsys.readouterr()
    main(["compare", str(run_dir), "--baseline", "base"])
    printed = capsys.readouterr().out
    more = loops["cand"] - loops["base"]
    assert f"gsm8k: cand loops on +{more} samples against base after the retry" in printed
