"""One `python -m thinkeval sim` process on a free port, and a poller timing its traffic."""

from __future__ import annotations

import contextlib
import json
import re
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from thinkeval_bench.measure import stop_process, track, untrack
from thinkeval_bench.runenv import thinkeval_env
from thinkeval_bench.workload import MODEL, SIM_FLAGS


class Simulator:
    """One `python -m thinkeval sim` process, on a free port, with a stats poller. `flags`
    replace the workload's simulator flags (the GSM8K scenarios': nothing cut off)."""

    def __init__(
        self,
        *,
        seed: int,
        latency_s: float,
        data_dir: Path,
        log_path: Path,
        flags: Sequence[str] = SIM_FLAGS,
    ) -> None:
        self.argv = [
            sys.executable,
            "-m",
            "thinkeval",
            "sim",
            "--port",
            "0",
            "--model",
            MODEL,
            "--seed",
            str(seed),
            "--latency-s",
            f"{latency_s:g}",
            *flags,
            "--data-dir",
            str(data_dir),
        ]
        self.log_path = log_path
        self.proc: subprocess.Popen[bytes] | None = None
        self.port = 0
        # Poller state: monotonic times bracketing the first request and the last completion.
        self._poller: threading.Thread | None = None
        self._halt = threading.Event()
        self.first_request: tuple[float, float] | None = None
        self.last_completion: tuple[float, float] | None = None
        self.poll_s = 0.05

    def start(self, timeout_s: float = 120.0) -> None:
        """Start the simulator in its own session and wait for the address it prints."""
        self.proc = subprocess.Popen(
            self.argv,
            env=thinkeval_env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=open(self.log_path, "wb"),  # noqa: SIM115 - lives as long as the process
            start_new_session=True,
        )
        track(self.proc)
        assert self.proc.stdout is not None
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            match = re.search(rb"http://[\d.]+:(\d+)/v1", line)
            if match:
                self.port = int(match.group(1))
                break
        if not self.port:
            self.stop()
            raise RuntimeError(
                f"the simulator did not start: {self.log_path.read_text(errors='replace')[-500:]}"
            )

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def stats(self) -> dict[str, Any]:
        """The simulator's counters (`/sim/stats`)."""
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/sim/stats", timeout=10) as r:
            data: dict[str, Any] = json.loads(r.read())
        return data

    def watch(self) -> None:
        """Poll /sim/stats in the background to time the first request and last completion."""
        self._halt.clear()
        self.first_request = self.last_completion = None

        def poll() -> None:
            seen_requests = 0
            completed = 0
            before = time.monotonic()
            while not self._halt.is_set():
                with contextlib.suppress(OSError, ValueError):
                    stats = self.stats()
                    now = time.monotonic()
                    if seen_requests == 0 and stats["requests"] > 0:
                        self.first_request = (before, now)
                    seen_requests = stats["requests"]
                    if stats["completed"] > completed:
                        completed = stats["completed"]
                        self.last_completion = (before, now)
                    before = now
                self._halt.wait(self.poll_s)

        self._poller = threading.Thread(target=poll, daemon=True)
        self._poller.start()

    def unwatch(self) -> None:
        """Stop the poller started by `watch`."""
        self._halt.set()
        if self._poller is not None:
            self._poller.join()

    def span_s(self) -> float | None:
        """Seconds from the first request to the last completion (each to ±poll_s / 2)."""
        if self.first_request is None or self.last_completion is None:
            return None
        first = sum(self.first_request) / 2
        last = sum(self.last_completion) / 2
        return max(0.0, last - first)

    def stop(self) -> None:
        """Stop the poller and the simulator's whole session."""
        self.unwatch()
        if self.proc is not None:
            stop_process(self.proc)
            untrack(self.proc)
            if self.proc.stdout is not None:
                self.proc.stdout.close()
