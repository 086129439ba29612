"""A samples file edited after the run wrote it (a gold changed by hand) is noticed.

The run records the digest of each `samples/<task>.jsonl` it writes (`config.json`); `verify`
reports a file whose digest changed (the run is not clean), and `rescore` and `report` refuse
it with one line naming the file unless `--allow-edited-samples`. A run recorded without
digests (an older thinkeval) is read as before, with a note from `verify`.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from thinkeval.cli import main


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory, answer_key: dict[str, object]) -> Path:
    from conftest import ThreadedSim
    from thinkeval.sim.config import SimConfig

    root = tmp_path_factory.mktemp("edited")
    server = ThreadedSim(SimConfig(port=0, model="m", seed=3), answer_key).start()  # type: ignore[arg-type]
    try:
        run = root / "run"
        argv = ["run", "--base-url", server.base_url, "--tasks", "gsm8k", "--limit", "4"]
        assert main([*argv, "--output", str(run)]) == 0
    finally:
        server.stop()
    return run


def _copy(run: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "run"
    shutil.copytree(run, copy)
    return copy


def _edit_a_gold(run: Path) -> Path:
    path = run / "samples" / "gsm8k.jsonl"
    lines = path.read_text().splitlines()
    row = json.loads(lines[1])
    row["gold"] = str(row["gold"]) + "1"
    lines[1] = json.dumps(row)
    path.write_text("\n".join(lines) + "\n")
    return path


def test_an_edited_gold_is_reported_by_verify_and_refused_by_rescore_and_report(
    recorded: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _copy(recorded, tmp_path)
    assert main(["verify", str(run)]) == 0
    path = _edit_a_gold(run)
    capsys.readouterr()

    assert main(["verify", str(run)]) != 0
    out = " ".join(capsys.readouterr().out.split())
    assert f"{path} was changed after the run wrote it" in out
    assert main(["verify", str(run), "--json"]) != 0
    found = json.loads(capsys.readouterr().out)
    assert found["clean"] is False and str(path) in found["edited_samples"][0]

    summary = (run / "summary.json").read_bytes()
    for argv in (["rescore", str(run)], ["report", str(run)]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        (line,) = [x for x in err.splitlines() if x.startswith("error")]
        assert str(path) in " ".join(err.split()) and "--allow-edited-samples" in err, line
    assert (run / "summary.json").read_bytes() == summary  # rescore changed nothing

    assert main(["rescore", str(run), "--allow-edited-samples"]) == 0
    assert f"note: {path} was changed" in " ".join(capsys.readouterr().err.split())
    assert main(["report", str(run), "--allow-edited-samples"]) == 0


def test_a_run_recorded_without_digests_is_read_as_before_with_a_note(
    recorded: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _copy(recorded, tmp_path)
    config = json.loads((run / "config.json").read_text())
    for task in config["tasks"]:
        task.pop("digest", None)
    (run / "config.json").write_text(json.dumps(config))
    _edit_a_gold(run)  # nothing to compare it with: read as it is
    capsys.readouterr()
    assert main(["verify", str(run)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "gsm8k.jsonl: no digest recorded (an older run): read as it is" in out
    assert main(["rescore", str(run)]) == 0
    assert main(["report", str(run)]) == 0
