"""The environment every run gets, and the snapshot of thinkeval that simulators and runs import."""

from __future__ import annotations

import compileall
import contextlib
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

from thinkeval_bench import REPO

# A copy of src/thinkeval taken when the script starts: every simulator and every thinkeval run
# imports it, so edits to the checkout during a long benchmark change nothing mid-way.
_SNAPSHOT: list[Path] = []


def base_env() -> dict[str, str]:
    """This process's environment without virtualenv, PYTHONPATH or thinkeval settings, and with
    everything kept on this machine: no hub, no telemetry, no proxies for loopback."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("VIRTUAL_ENV", "PYTHONPATH", "THINKEVAL_"))
    }
    env.update(
        {
            "HF_HUB_OFFLINE": "1",
            "HF_DATASETS_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1",
            "HF_HUB_DISABLE_TELEMETRY": "1",
            "DO_NOT_TRACK": "1",
            "NO_PROXY": "127.0.0.1,localhost",
            "no_proxy": "127.0.0.1,localhost",
            "PYTHONUNBUFFERED": "1",
        }
    )
    return env


def take_snapshot(target: Path) -> str:
    """Copy the thinkeval package to `target/thinkeval`, make later runs import it, and return a
    digest of what was copied."""
    import thinkeval

    source = Path(thinkeval.__file__).resolve().parent
    shutil.copytree(
        source, target / "thinkeval", ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
    )
    digest = hashlib.sha256()
    for path in sorted((target / "thinkeval").rglob("*")):
        if path.is_file():
            digest.update(str(path.relative_to(target)).encode() + b"\0" + path.read_bytes())
    # Byte-compiled as `pip install` does for every harness (the peers' packages come compiled):
    # with PYTHONDONTWRITEBYTECODE set, each run would otherwise compile thinkeval from source.
    compileall.compile_dir(target / "thinkeval", quiet=1)
    _SNAPSHOT[:] = [target]
    return digest.hexdigest()[:12]


def thinkeval_env() -> dict[str, str]:
    """The environment of a simulator or thinkeval run: the snapshot first on the path."""
    env = base_env()
    if _SNAPSHOT:
        env["PYTHONPATH"] = str(_SNAPSHOT[0])
    return env


def thinkeval_location() -> str:
    """Where a run in `thinkeval_env()` imports thinkeval from (or why it cannot)."""
    check = subprocess.run(
        [sys.executable, "-c", "import thinkeval; print(thinkeval.__file__)"],
        env=thinkeval_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    return check.stdout.strip() or check.stderr.strip()


def _git(*args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(REPO), *args], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def thinkeval_version() -> dict[str, str]:
    """thinkeval's version, the Python running it and the checkout's commit (marked when src/
    has local changes)."""
    import thinkeval

    out = {"thinkeval": thinkeval.__version__, "python": sys.version.split()[0]}
    with contextlib.suppress(OSError, subprocess.CalledProcessError):
        commit = _git("rev-parse", "--short", "HEAD")
        dirty = _git("status", "--porcelain", "src")
        out["commit"] = commit + ("+local changes in src/" if dirty else "")
    return out
