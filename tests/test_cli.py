"""The command line: every command is listed, has help with an example, and loads lazily."""

from __future__ import annotations

import subprocess
import sys

import pytest

from thinkeval.cli import MODULE_COMMANDS, build_parser

COMMANDS = ["run", "demo", *MODULE_COMMANDS]


def test_top_level_help_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser(["--help"]).parse_args(["--help"])
    out = capsys.readouterr().out
    for command in COMMANDS:
        assert f"    {command}" in out


@pytest.mark.parametrize("command", COMMANDS)
def test_each_command_has_help_with_an_example(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        build_parser([command, "--help"]).parse_args([command, "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert f"thinkeval {command}" in out
    assert "example" in out


def test_run_does_not_import_reporting_or_the_simulator() -> None:
    code = (
        "import sys; from thinkeval.cli import build_parser; build_parser(['run', 'x.yaml']); "
        "print(sorted(m for m in ('numpy', 'thinkeval.sim', 'thinkeval.report') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_version() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "thinkeval", "--version"], capture_output=True, text=True, check=True
    )
    assert out.stdout.startswith("thinkeval ")
