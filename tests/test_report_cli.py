"""`thinkeval report` through its argparse entry points: `add_arguments` and `run`."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from test_report_runs import boolq_sample, make_run, reply
from thinkeval.cli.report import add_arguments, run
from thinkeval.errors import JournalError, ThinkevalError
from thinkeval.report import build_report, render_html, render_json, render_markdown


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="thinkeval report")
    add_arguments(parser)
    return parser.parse_args(list(argv))


def _run(tmp_path: Path) -> Path:
    samples = [boolq_sample(i) for i in range(6)]
    attempts = [
        reply("w8a8", s, "fixed", "correct" if i % 3 else "wrong") for i, s in enumerate(samples)
    ]
    attempts += [reply("bf16", s, "fixed", "correct") for s in samples]
    return make_run(tmp_path / "boolq-run", {"boolq": samples}, attempts, ["w8a8", "bf16"])


def test_defaults() -> None:
    args = _args("runs/a", "runs/b")
    assert args.run_dirs == [Path("runs/a"), Path("runs/b")]
    assert (args.format, args.out, args.seed, args.resamples) == ("md", None, 0, 10_000)


@pytest.mark.parametrize(
    ("fmt", "render"), [("md", render_markdown), ("html", render_html), ("json", render_json)]
)
def test_writes_each_format_to_out(tmp_path: Path, fmt: str, render: object) -> None:
    run_dir = _run(tmp_path)
    out = tmp_path / "out" / f"report.{fmt}"
    args = _args(
        str(run_dir), "--format", fmt, "--out", str(out), "--seed", "3", "--resamples", "500"
    )
    assert run(args) == 0
    expected = render(build_report([run_dir], seed=3, resamples=500))  # type: ignore[operator]
    assert out.read_text(encoding="utf-8") == expected
    if fmt == "json":
        assert json.loads(expected)["resamples"] == 500


def test_markdown_goes_to_stdout_by_default(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir = _run(tmp_path)
    assert run(_args(str(run_dir), "--resamples", "500")) == 0
    out = capsys.readouterr().out
    assert out.startswith("# thinkeval report\n")
    assert "| w8a8 | 4/6 = 66.67% | 4/6 = 66.67% | +0.00 pp |" in out


def test_html_goes_into_the_run_directory_by_default(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir = _run(tmp_path)
    assert run(_args(str(run_dir), "--format", "html", "--resamples", "500")) == 0
    page = (run_dir / "report.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert capsys.readouterr().out == ""  # the page is not also dumped on stdout


def test_unusable_input_raises_a_user_error(tmp_path: Path) -> None:
    with pytest.raises(JournalError, match="not a thinkeval run directory"):
        run(_args(str(tmp_path)))
    with pytest.raises(ThinkevalError, match="--resamples must be at least 1"):
        run(_args(str(_run(tmp_path)), "--resamples", "0"))


def test_thinkeval_report_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from thinkeval.cli import main

    assert main(["report", str(_run(tmp_path)), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["models"] == ["w8a8", "bf16"]
