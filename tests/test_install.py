"""The README's path for real servers, as a new user takes it: a fresh virtualenv in an empty
directory, `pip install <checkout>`, one `thinkeval run --base-url ... --tasks gsm8k --limit 20`
against the simulator, with the data from a (fake) Hugging Face hub.

Installing into a fresh virtualenv takes 35-75 s on the 2-core machine (pip resolving and
installing a dozen wheels), a third of the rest of the suite or more, for a check of packaging that
changes rarely: it is marked `install`, left out of `pytest -q`, and run by .ci/run on every
submission (`pytest -m install`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fakehub import FakeHub

pytestmark = pytest.mark.install
CHECKOUT = Path(__file__).resolve().parent.parent


def test_pip_install_then_one_run_from_flags_gives_a_number(
    tmp_path: Path, sim, fake_hub: FakeHub
) -> None:
    server = sim(model="sim-qwen3", seed=11)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    installed = subprocess.run(
        [str(venv / "bin" / "pip"), "install", "-q", str(CHECKOUT)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert installed.returncode == 0, installed.stderr[-3000:]

    empty = tmp_path / "empty"
    empty.mkdir()
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("THINKEVAL_", "PYTHON", "VIRTUAL_ENV"))
    }
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    # HF_ENDPOINT and HF_HOME point at the fake hub and an empty cache (the fixture).
    result = subprocess.run(
        ["thinkeval", "run", "--base-url", server.base_url, "--tasks", "gsm8k", "--limit", "20"],
        cwd=empty,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert "gsm8k: 20 samples (limit 20) from hub openai/gsm8k@740312add88f" in result.stderr
    assert "/20 = " in result.stdout  # the number: fixed and adaptive accuracy
    (run_dir,) = (empty / "runs").iterdir()
    summary = json.loads((run_dir / "summary.json").read_text())
    (row,) = summary["results"]
    assert (row["model"], row["task"], row["total"]) == ("sim-qwen3", "gsm8k", 20)
    assert fake_hub.downloads()  # the data came from the hub, not from a checkout beside it
    where = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import thinkeval; print(thinkeval.__file__)"],
        cwd=empty,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert where.stdout.startswith(str(venv)), where.stdout
