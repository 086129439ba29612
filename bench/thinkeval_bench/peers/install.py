"""Installing a peer harness into its own virtualenv, and reading back what is installed."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path

from thinkeval_bench.peers.base import Install, env_python


def installed_versions(python: Path, dists: Sequence[str]) -> dict[str, str] | None:
    """The versions of `dists` (and of Python) in the interpreter `python`, or None if one is
    missing or the interpreter does not run."""
    code = (
        "import importlib.metadata as m, json, sys\n"
        "out = {'python': sys.version.split()[0]}\n"
        f"for d in {list(dists)!r}:\n"
        "    out[d] = m.version(d)\n"
        "print(json.dumps(out))"
    )
    try:
        done = subprocess.run(
            [str(python), "-c", code], capture_output=True, text=True, timeout=60, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    try:
        versions: dict[str, str] = json.loads(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return None
    return versions


def pinned_versions(install: Install) -> dict[str, str]:
    """Distribution name to pinned version, from requirements such as `lm-eval[api]==0.4.13`."""
    return {re.split(r"[\[=]", spec)[0]: spec.rpartition("==")[2] for spec in install.packages}


def setup_peer(name: str, install: Install, envs: Path, log: Callable[[str], None]) -> str | None:
    """Create `envs/name` and install the pins into it (skipped when they are already there);
    None when done, else why not."""
    python = env_python(envs, name)
    if python.exists():
        versions = installed_versions(python, install.dists)
        pinned = pinned_versions(install)
        if versions and all(versions.get(d) == v for d, v in pinned.items() if d in versions):
            log(f"setup {name}: already installed ({versions})")
            return None
    log(f"setup {name}: creating {envs / name}")
    envs.mkdir(parents=True, exist_ok=True)
    logs = envs / "logs"
    logs.mkdir(exist_ok=True)
    try:
        subprocess.run([install.python, "-m", "venv", str(envs / name)], check=True)
    except (OSError, subprocess.CalledProcessError) as exc:
        return f"cannot create a {install.python} virtualenv: {exc}"
    command = [str(python), "-m", "pip", "install", "-q", *install.packages]
    log(f"setup {name}: {shlex.join(command)} (log: {logs / name}.log)")
    with open(logs / f"{name}.log", "w") as handle:
        try:
            done = subprocess.run(
                command, stdout=handle, stderr=subprocess.STDOUT, timeout=3600, check=False
            )
        except subprocess.TimeoutExpired:
            return "pip install took more than an hour"
    if done.returncode != 0:
        tail = (logs / f"{name}.log").read_text(errors="replace").strip().splitlines()[-3:]
        return f"pip install failed (exit {done.returncode}): {' / '.join(tail)}"
    return None


def find_installed(name: str, install: Install, envs: Path) -> tuple[dict[str, str] | None, str]:
    """(versions, "") when harness `name` is installed under `envs`, else (None, why not)."""
    python = env_python(envs, name)
    found = installed_versions(python, install.dists)
    if found is not None:
        return found, ""
    if not python.exists():
        return None, f"not installed in {envs / name} (run with --setup)"
    return None, f"{', '.join(install.dists)} missing from {envs / name}"
