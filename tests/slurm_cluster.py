"""A real one-node Slurm cluster on this machine, for the job-array test (tests/test_slurm.py).

Debian's `slurm-wlm` (slurmctld + slurmd) and `munge`, installed with apt-get when missing (as
root; otherwise one line says what to run). `Cluster` starts its own munged, slurmctld and
slurmd on 127.0.0.1 with every file (key, socket, state, spool, logs, pid files, slurm.conf)
inside a temporary directory it made, on free ports, so it neither needs nor touches a
system-wide Slurm; it stops what it started and removes only that directory.

    python tests/slurm_cluster.py     # install if missing, start a cluster, run `sinfo`, stop
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import TracebackType

# Debian package -> the command it puts on PATH.
PACKAGES = {"slurm-wlm": "slurmctld", "munge": "munged"}
# The array's tasks run side by side: the node claims more CPUs than this 2-core machine has.
CPUS = 8


class SlurmUnavailable(Exception):
    """Slurm cannot be installed or started here; the message says what to run."""


def ensure_installed() -> None:
    """apt-get install Slurm and munge if their commands are missing (as root), or say how."""
    missing = [name for name, command in PACKAGES.items() if shutil.which(command) is None]
    if not missing:
        return
    command = f"apt-get install -y {' '.join(missing)}"
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        raise SlurmUnavailable(
            f"the Slurm test needs Debian's {', '.join(missing)}: run `sudo {command}`"
        )
    environment = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for step in (["apt-get", "update", "-q"], ["apt-get", "install", "-y", "-q", *missing]):
        done = subprocess.run(step, env=environment, stdin=subprocess.DEVNULL, capture_output=True)
        if done.returncode != 0:
            raise SlurmUnavailable(f"`{' '.join(step)}` failed: run `{command}` as root")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Cluster:
    """munged + slurmctld + slurmd in a temporary directory; `environment()` points Slurm's
    commands (sbatch, squeue, sinfo) at it."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="thinkeval-slurm-"))
        self.root.chmod(0o755)  # munged wants its socket's directory reachable by everyone
        self.conf = self.root / "slurm.conf"
        self.node = socket.gethostname()

    def environment(self) -> dict[str, str]:
        return {**os.environ, "SLURM_CONF": str(self.conf)}

    def _run(self, *command: str) -> None:
        done = subprocess.run(
            command,
            env=self.environment(),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            said = (done.stderr or done.stdout).strip().splitlines()
            raise SlurmUnavailable(f"{command[0]} failed: {said[-1] if said else done.returncode}")

    def _write_conf(self) -> None:
        root = self.root
        lines = {
            "ClusterName": "thinkeval",
            "SlurmctldHost": f"{self.node}(127.0.0.1)",
            "SlurmUser": "root",
            "SlurmctldPort": str(_free_port()),
            "SlurmdPort": str(_free_port()),
            "AuthType": "auth/munge",
            "AuthInfo": f"socket={root}/munge.sock",
            "CredType": "cred/munge",
            "StateSaveLocation": f"{root}/state",
            "SlurmdSpoolDir": f"{root}/spool",
            "SlurmctldPidFile": f"{root}/slurmctld.pid",
            "SlurmdPidFile": f"{root}/slurmd.pid",
            "SlurmctldLogFile": f"{root}/slurmctld.log",
            "SlurmdLogFile": f"{root}/slurmd.log",
            "ProctrackType": "proctrack/linuxproc",
            "TaskPlugin": "task/none",
            "JobAcctGatherType": "jobacct_gather/none",
            "AccountingStorageType": "accounting_storage/none",
            "ReturnToService": "2",
            "SchedulerType": "sched/backfill",
            "SelectType": "select/cons_tres",
            "SelectTypeParameters": "CR_Core",
            # The node's CPUs are declared, not detected (CPUS on a 2-core machine).
            "SlurmdParameters": "config_overrides",
            "MpiDefault": "none",
        }
        text = "".join(f"{key}={value}\n" for key, value in lines.items())
        text += (
            f"NodeName={self.node} NodeAddr=127.0.0.1 CPUs={CPUS} RealMemory=16000 State=UNKNOWN\n"
        )
        text += "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n"
        self.conf.write_text(text)

    def start(self) -> Cluster:
        ensure_installed()
        for folder in ("state", "spool"):
            (self.root / folder).mkdir()
        key = self.root / "munge.key"
        key.write_bytes(os.urandom(128))
        key.chmod(0o400)
        root = self.root
        self._run(
            "munged", "--force", f"--socket={root}/munge.sock", f"--key-file={key}",
            f"--log-file={root}/munged.log", f"--pid-file={root}/munged.pid",
            f"--seed-file={root}/munged.seed",
        )  # fmt: skip
        self._write_conf()
        self._run("slurmctld", "-i")  # -i: ignore (there is no) saved state
        self._run("slurmd")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            done = subprocess.run(
                ["sinfo", "--noheader", "--format=%t"],
                env=self.environment(),
                capture_output=True,
                text=True,
            )
            if done.stdout.strip() == "idle":
                return self
            time.sleep(0.5)
        raise SlurmUnavailable(f"the node did not come up within 60 s (logs in {self.root})")

    def stop(self) -> None:
        for name in ("slurmd", "slurmctld", "munged"):
            pid_file = self.root / f"{name}.pid"
            if pid_file.exists():
                with contextlib.suppress(ProcessLookupError, ValueError):
                    os.kill(int(pid_file.read_text().split()[0]), signal.SIGTERM)
        time.sleep(1)
        # Only the directory this cluster made, never anything else.
        assert self.root.name.startswith("thinkeval-slurm-") and self.root.parent == Path(
            tempfile.gettempdir()
        )
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> Cluster:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.stop()


if __name__ == "__main__":
    try:
        with Cluster() as cluster:
            subprocess.run(["sinfo"], env=cluster.environment(), check=True)
    except SlurmUnavailable as error:
        print(f"tests/slurm_cluster.py: {error}", file=sys.stderr)
        sys.exit(2)
