"""The README's test command (`tests/run.py`): it installs Debian's chromium and bubblewrap as
root with apt-get (a fake apt-get on PATH here), stops at once with one line where it cannot, and
then runs pytest; and plain `pytest` stops in one line, not one error per browser test, when
chromium is missing."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

CHECKOUT = Path(__file__).resolve().parent.parent


def _runner() -> ModuleType:
    spec = importlib.util.spec_from_file_location("tests_run", CHECKOUT / "tests" / "run.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _fake_apt_get(bin_dir: Path, log: Path, fail: bool = False) -> None:
    """An apt-get that logs its arguments and, on install, puts the packages' commands on PATH."""
    script = bin_dir / "apt-get"
    script.write_text(
        f"#!{sys.executable}\n"
        "import os, sys\n"
        f"open({str(log)!r}, 'a').write(' '.join(sys.argv[1:]) + '\\n')\n"
        f"if {fail!r} and 'install' in sys.argv:\n"
        "    print('E: Unable to locate package chromium', file=sys.stderr); sys.exit(100)\n"
        "if 'install' in sys.argv:\n"
        "    for name in ('chromium', 'bwrap'):\n"
        f"        path = os.path.join({str(bin_dir)!r}, name)\n"
        "        open(path, 'w').write('#!/bin/sh\\n'); os.chmod(path, 0o755)\n"
    )
    script.chmod(0o755)


@pytest.fixture
def bare_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """PATH holding one empty folder: no chromium, no bwrap, no apt-get."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setenv("THINKEVAL_AISBENCH_PYTHON", sys.executable)
    return bin_dir


def test_not_root_stops_at_once_with_the_one_command_to_run(
    bare_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    runner = _runner()
    monkeypatch.setattr(runner.os, "geteuid", lambda: 1000)
    monkeypatch.setattr(runner.subprocess, "run", lambda *a, **k: pytest.fail("ran something"))
    assert runner.main([]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "run `sudo apt-get install -y chromium bubblewrap`, then this again" in err


def test_as_root_it_installs_both_packages_then_runs_pytest(
    bare_path: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    log = tmp_path / "apt.log"
    _fake_apt_get(bare_path, log)
    runner = _runner()
    monkeypatch.setattr(runner.os, "geteuid", lambda: 0)
    assert runner.main(["--version"]) == 0
    assert log.read_text().splitlines() == ["update -q", "install -y -q chromium bubblewrap"]
    assert (bare_path / "chromium").exists() and (bare_path / "bwrap").exists()
    assert "installing chromium, bubblewrap with apt-get" in capsys.readouterr().out


def test_a_failing_apt_get_is_one_line_and_pytest_never_starts(
    bare_path: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _fake_apt_get(bare_path, tmp_path / "apt.log", fail=True)
    runner = _runner()
    monkeypatch.setattr(runner.os, "geteuid", lambda: 0)
    assert runner.main(["--version"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "E: Unable to locate package chromium" in err
    assert "run `apt-get install -y chromium bubblewrap` as root" in err


def test_a_bad_aisbench_interpreter_is_one_line(
    bare_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    runner = _runner()
    monkeypatch.setattr(runner, "missing_packages", lambda: [])
    monkeypatch.setenv("THINKEVAL_AISBENCH_PYTHON", "/nonexistent/python")
    assert runner.main([]) == 2
    assert "THINKEVAL_AISBENCH_PYTHON=/nonexistent/python is not an executable" in (
        capsys.readouterr().err
    )


def test_plain_pytest_without_chromium_stops_in_one_line_before_the_browser_tests(
    tmp_path: Path,
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         "tests/test_report_browser_repeats.py"],
        cwd=CHECKOUT, env={**os.environ, "PATH": str(bin_dir)},
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 4, done.stdout[-2000:]
    assert "chromium is not installed and the browser tests need it" in done.stdout
    assert "tests/run.py" in done.stdout
    assert " error" not in done.stdout and "passed" not in done.stdout
