"""A run that failed to start leaves nothing behind: `discard_unstarted` removes the directory
a command created when no reply was ever recorded in it, and the parents it created for it (an
empty `runs/`), so the next try starts clean and no entry suggests there is something to
resume."""

from __future__ import annotations

import shutil
from pathlib import Path

from thinkeval.store.journal import journal_files


def nothing_recorded(run_dir: Path) -> bool:
    """No journal line was ever written (the journal files are missing or empty)."""
    return not any(path.stat().st_size for path in journal_files(run_dir))


def missing_dirs(run_dir: Path) -> list[Path]:
    """`run_dir` and those of its parents that do not exist yet, innermost first: what a run
    there would create (taken before the run starts)."""
    missing: list[Path] = []
    path = run_dir.absolute()
    while not path.exists() and path != path.parent:
        missing.append(path)
        path = path.parent
    return missing


def discard_unstarted(run_dir: Path, created: list[Path]) -> bool:
    """Remove `run_dir` if this command created it (it is first in `created`, from
    `missing_dirs`) and it holds no recorded reply, then each created parent left empty;
    whether it did. A directory that was there before is never touched."""
    if not created or created[0] != run_dir.absolute():
        return False
    if not run_dir.is_dir() or not nothing_recorded(run_dir):
        return False
    shutil.rmtree(run_dir, ignore_errors=True)
    for parent in created[1:]:
        try:
            parent.rmdir()  # only while empty: never anything that holds a file
        except OSError:
            break
    return True
