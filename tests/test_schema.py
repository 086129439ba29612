"""`thinkeval schema`: the published schemas match the structs and the files a run writes."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from conftest import write_config
from thinkeval.cli import main
from thinkeval.ops.schema import DOCUMENTS, json_schema, render

DOCS = Path(__file__).parent.parent / "docs" / "schemas"


@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_the_published_schema_is_the_generated_one(name: str) -> None:
    published = DOCS / f"{name}.schema.json"
    assert published.read_text(encoding="utf-8") == render(name), (
        f"regenerate it: thinkeval schema {name} > docs/schemas/{name}.schema.json"
    )


def test_a_run_s_files_follow_their_schemas(tmp_path: Path, sim, capsys) -> None:
    server = sim(model="m", seed=3, p_long=0.4, p_wrong=0.2)
    config = write_config(
        tmp_path / "run.yaml",
        {
            "run": "schemas",
            "tasks": [{"name": "gsm8k", "limit": 12}, {"name": "ceval", "limit": 6}],
            "models": [{"name": "m", "base_url": server.base_url}],
        },
    )
    run_dir = tmp_path / "out"
    assert main(["run", str(config), "--output", str(run_dir)]) == 0

    lines = (run_dir / "journal" / "main.jsonl").read_text(encoding="utf-8").splitlines()
    assert any(json.loads(line)["phase"] == "retry" for line in lines)
    for line in lines:
        jsonschema.validate(json.loads(line), json_schema("attempt"))
    jsonschema.validate(json.loads((run_dir / "summary.json").read_text()), json_schema("summary"))
    jsonschema.validate(json.loads((run_dir / "config.json").read_text()), json_schema("run"))
    jsonschema.validate(
        json.loads((run_dir / "status" / "main.json").read_text()), json_schema("heartbeat")
    )
    jsonschema.validate(yaml.safe_load(config.read_text()), json_schema("config"))

    broken = json.loads(lines[0]) | {"phase": "third"}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, json_schema("attempt"))


def test_schema_command_prints_json(capsys) -> None:
    assert main(["schema", "summary"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["$defs"]["Summary"]["required"][:2] == ["run", "complete"]


EXAMPLES = Path(__file__).parent.parent / "examples"
# Each shipped YAML example and the schema it belongs to (None: not a thinkeval file).
EXAMPLE_SCHEMAS = {
    "compare.yaml": "config",
    "prompts.yaml": "config",
    "sweep.yaml": "config",
    "k8s-job.yaml": None,  # a Kubernetes Job manifest that runs thinkeval
}


def test_every_shipped_example_validates_against_its_schema() -> None:
    from thinkeval.config import load_config

    assert {path.name for path in EXAMPLES.glob("*.yaml")} == set(EXAMPLE_SCHEMAS)
    for name, schema in EXAMPLE_SCHEMAS.items():
        if schema is None:
            continue
        path = EXAMPLES / name
        jsonschema.validate(yaml.safe_load(path.read_text(encoding="utf-8")), json_schema(schema))
        load_config(path)  # and thinkeval itself reads it


@pytest.mark.parametrize(
    ("tasks", "valid"),
    [
        (["gsm8k", {"name": "boolq", "limit": 5}], True),
        ([{"file": "quiz.yaml"}], True),
        ([{"define": {"name": "q"}}], True),
        ([{"limit": 5}], False),  # no task named
        ([{"name": "gsm8k", "definition": {}}], False),  # resolved by loading, never written
        ([3], False),
    ],
)
def test_the_config_schema_takes_tasks_as_written(tasks: list[object], valid: bool) -> None:
    config = {"run": "r", "tasks": tasks, "models": [{"name": "m", "base_url": "http://h/v1"}]}
    if valid:
        jsonschema.validate(config, json_schema("config"))
    else:
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(config, json_schema("config"))
