"""A run that failed to start leaves nothing behind: `discard_unstarted` removes the directory
a command created when no reply was ever recorded in it, so the next try starts clean (and no
`runs/` entry suggests there is something to resume)."""

from __future__ import annotations

import shutil
from pathlib import Path

from thinkeval.store.journal import journal_files


def nothing_recorded(run_dir: Path) -> bool:
    """No journal line was ever written (the journal files are missing or empty)."""
    return not any(path.stat().st_size for path in journal_files(run_dir))


def discard_unstarted(run_dir: Path, existed_before: bool) -> bool:
    """Remove `run_dir` if this command created it and it holds no recorded reply; whether it
    did. A directory that was there before is never touched."""
    if existed_before or not run_dir.is_dir() or not nothing_recorded(run_dir):
        return False
    shutil.rmtree(run_dir, ignore_errors=True)
    return True
