"""The README's test command: bring what the suite needs beyond pip, then run pytest.

    .venv/bin/python tests/run.py [PYTEST ARGS...]

The suite needs four things `pip install -e '.[test]'` cannot give:

- Debian's `chromium` (the browser tests drive it through Playwright; never Playwright's own
  browser download) and Debian's `bubblewrap` (`bwrap`, the sandbox model code runs in);
- AISBench 3.1 in an interpreter of its own (it pulls torch and pins numpy < 2), for the live
  differential of the lenient scorer against AISBench's own code (tests/test_lenient_aisbench.py);
- bfcl-eval (BFCL's data and AST checker, tests/test_bfcl.py) without its requirements, which
  pull torch and every vendor SDK that neither the data nor the checker uses.

As root with apt-get it installs the Debian packages (non-interactive, no stdin); otherwise it
stops at once with one line saying what to run. It builds the AISBench interpreter into
`.ci-aisbench/` once (from tests/data/aisbench-requirements.txt; rebuilt when that file changes)
unless `THINKEVAL_AISBENCH_PYTHON` already names one. Then it runs `python -m pytest -q` with the
arguments given, and exits with pytest's status.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parent.parent
REQUIREMENTS = CHECKOUT / "tests" / "data" / "aisbench-requirements.txt"
AISBENCH_ENV = CHECKOUT / ".ci-aisbench"
AISBENCH_PYTHON_ENV = "THINKEVAL_AISBENCH_PYTHON"
# Debian package -> the command it puts on PATH.
DEBIAN_PACKAGES = {"chromium": "chromium", "bubblewrap": "bwrap"}


class SetupError(Exception):
    """Something the suite needs is missing and cannot be installed here; one line says why."""


def missing_packages(which: Callable[[str], str | None] = shutil.which) -> list[str]:
    """The Debian packages whose command is not on PATH."""
    return [package for package, command in DEBIAN_PACKAGES.items() if which(command) is None]


def _last_line(done: subprocess.CompletedProcess[str]) -> str:
    said = (done.stderr.strip() or done.stdout.strip()).splitlines()
    return said[-1] if said else f"exit {done.returncode}"


def install_packages(packages: list[str]) -> None:
    """apt-get install `packages` as root, or stop with the command the user should run."""
    command = f"apt-get install -y {' '.join(packages)}"
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        raise SetupError(
            f"the tests need Debian's {', '.join(packages)}: run `sudo {command}`, then this again"
        )
    print(f"tests/run.py: installing {', '.join(packages)} with apt-get", flush=True)
    environment = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for step in (["apt-get", "update", "-q"], ["apt-get", "install", "-y", "-q", *packages]):
        done = subprocess.run(
            step, env=environment, stdin=subprocess.DEVNULL, capture_output=True, text=True
        )
        if done.returncode != 0:
            raise SetupError(
                f"`{' '.join(step)}` failed ({_last_line(done)}): run `{command}` as root, "
                "then this again"
            )
    still = missing_packages()
    if still:
        raise SetupError(f"apt-get installed {', '.join(packages)} but {still[0]} is not on PATH")


def aisbench_python() -> Path:
    """An interpreter with AISBench installed: `THINKEVAL_AISBENCH_PYTHON`, else `.ci-aisbench/`,
    built (once per version of the requirements file) when it is not there."""
    configured = os.environ.get(AISBENCH_PYTHON_ENV, "")
    if configured:
        if not os.access(configured, os.X_OK):
            raise SetupError(f"{AISBENCH_PYTHON_ENV}={configured} is not an executable interpreter")
        return Path(configured)
    python = AISBENCH_ENV / "bin" / "python"
    stamp = AISBENCH_ENV / "requirements.sha256"
    wanted = hashlib.sha256(REQUIREMENTS.read_bytes()).hexdigest()
    if python.exists() and stamp.exists() and stamp.read_text().strip() == wanted:
        return python
    print(
        "tests/run.py: installing AISBench 3.1 into .ci-aisbench/ (once; it pulls torch: minutes)",
        flush=True,
    )
    base = getattr(sys, "_base_executable", sys.executable)
    pip = [str(python), "-m", "pip", "install", "-q"]
    requirements = REQUIREMENTS.relative_to(CHECKOUT)
    for step in (
        [base, "-m", "venv", "--clear", str(AISBENCH_ENV)],
        [*pip, "--upgrade", "pip"],
        [*pip, "-r", str(REQUIREMENTS)],
    ):
        done = subprocess.run(step, stdin=subprocess.DEVNULL, capture_output=True, text=True)
        if done.returncode != 0:
            raise SetupError(
                f"installing AISBench into .ci-aisbench/ failed ({_last_line(done)}): run "
                f"`python3 -m venv .ci-aisbench && .ci-aisbench/bin/pip install -r "
                f"{requirements}`, or set {AISBENCH_PYTHON_ENV} to an interpreter with AISBench"
            )
    stamp.write_text(wanted + "\n")
    return python


def install_bfcl() -> None:
    """bfcl-eval at the pinned release, `--no-deps`, into this interpreter unless it is there."""
    from importlib.metadata import PackageNotFoundError, version

    from thinkeval.scoring.bfcl import INSTALL, VERSION

    try:
        if version("bfcl-eval") == VERSION:
            return
    except PackageNotFoundError:
        pass
    step = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", f"bfcl-eval=={VERSION}"]
    done = subprocess.run(step, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    if done.returncode != 0:
        raise SetupError(f"installing bfcl-eval failed ({_last_line(done)}): run `{INSTALL}`")


def main(arguments: list[str]) -> int:
    """Prepare, then run pytest; pytest's exit status, or 2 when the preparation failed."""
    try:
        packages = missing_packages()
        if packages:
            install_packages(packages)
        interpreter = aisbench_python()
        install_bfcl()
    except SetupError as error:
        print(f"tests/run.py: {error}", file=sys.stderr)
        return 2
    environment = {**os.environ, AISBENCH_PYTHON_ENV: str(interpreter)}
    command = [sys.executable, "-m", "pytest", "-q", *arguments]
    return subprocess.run(command, cwd=CHECKOUT, env=environment).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
