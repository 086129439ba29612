"""`thinkeval schema DOCUMENT`: argument parsing (the schemas come from `ops/schema.py`)."""

from __future__ import annotations

import argparse
import sys

from thinkeval.ops.schema import DOCUMENTS, render

DESCRIPTION = """\
Print the JSON Schema of a file thinkeval writes: `attempt` (one journal line), `summary`
(summary.json), `run` (config.json: the config a run started with, resolved per task),
`heartbeat` (status/<writer>.json), `config` (the YAML run config), `compare` (the output of
`thinkeval compare --json`) or `decide` (decide.json of a run with decide:). Generated from the
structs that read and write the files."""
EPILOG = """\
examples:
  thinkeval schema attempt > attempt.schema.json
  thinkeval schema summary | jq '.["$defs"].Counts'"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the schema command's arguments to `parser`."""
    parser.add_argument("document", choices=sorted(DOCUMENTS), help="which file's schema")


def run(args: argparse.Namespace) -> int:
    """`thinkeval schema DOCUMENT`: print the schema on stdout."""
    sys.stdout.write(render(args.document))
    return 0
