"""The Berkeley Function Calling Leaderboard's single-turn questions, from the `bfcl-eval` package.

bfcl-eval ships its data (`bfcl_eval/data/BFCL_v4_<category>.json`, JSON Lines) and answer keys
(`data/possible_answer/`). A question becomes a chat request with `tools`: BFCL's functions with
the language hint BFCL's own generation adds (`add_language_specific_hint_to_function_doc`),
converted to OpenAI function tools as its OpenAI FC handler does (`convert_to_tool` with
`ModelStyle.OPENAI_COMPLETIONS`: dots in names become underscores, `dict` parameters `object`,
BFCL types mapped by its `GORILLA_TO_OPENAPI`, a `float` noted in the description). That
function lives in a module importing every vendor's SDK, so its few lines are followed here; the
checker itself is BFCL's own (`scoring.bfcl`).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

import orjson

from thinkeval.errors import DatasetError
from thinkeval.records import Sample
from thinkeval.scoring.bfcl import VERSION, bfcl_module
from thinkeval.scoring.kinds.base import KindError
from thinkeval.tasks.files import read_jsonl
from thinkeval.tasks.rows import key_field
from thinkeval.tasks.source import DataSource
from thinkeval.tasks.spec import Row

# The single-turn categories, in BFCL's order: those with an answer key, then the relevance
# ones (decided by whether a call is made).
CATEGORIES = (
    "simple_python",
    "simple_java",
    "simple_javascript",
    "multiple",
    "parallel",
    "parallel_multiple",
    "live_simple",
    "live_multiple",
    "live_parallel",
    "live_parallel_multiple",
    "irrelevance",
    "live_irrelevance",
    "live_relevance",
)
PREFIX = "BFCL_v4"


def package_dir() -> Path:
    """The installed `bfcl_eval` package's directory (`DatasetError` when it is not there)."""
    try:
        module = bfcl_module("constants.type_mappings")
    except KindError as exc:
        raise DatasetError(str(exc)) from None
    return Path(str(module.__file__)).resolve().parents[1]


def category_rows(category: str, sources: list[DataSource] | None) -> Iterator[Row]:
    """The questions of `category`, one row at a time, each with where it is."""
    data = package_dir() / "data"
    name = f"{PREFIX}_{category}.json"
    if sources is not None:
        sources.append(DataSource("package", f"bfcl-eval=={VERSION}", f"data/{name}"))
    for index, (_, where, fields) in enumerate(read_jsonl(data / name, data)):
        yield Row(fields, index, where, category)


@lru_cache(maxsize=2)
def answers(category: str) -> dict[str, Any]:
    """`id -> ground_truth` of a category's answer key (empty for the relevance ones)."""
    if "relevance" in category:
        return {}
    data = package_dir() / "data"
    path = data / "possible_answer" / f"{PREFIX}_{category}.json"
    rows = read_jsonl(path, data)
    return {str(fields.get("id")): fields.get("ground_truth") for _, _, fields in rows}


def openai_tools(functions: list[dict[str, Any]], category: str) -> list[dict[str, Any]]:
    """BFCL's functions as the OpenAI FC handler sends them (see the module's docstring)."""
    hinted = bfcl_module("utils")._func_doc_language_specific_pre_processing(
        copy.deepcopy(functions), category
    )
    mapping = bfcl_module("constants.type_mappings").GORILLA_TO_OPENAPI
    tools = []
    for item in hinted:
        item["name"] = re.sub(r"\.", "_", item["name"])
        item["parameters"]["type"] = "object"
        item["parameters"]["properties"] = _openai_types(item["parameters"]["properties"], mapping)
        tools.append({"type": "function", "function": item})
    return tools


def _openai_types(properties: dict[str, Any], mapping: dict[str, str]) -> dict[str, Any]:
    """BFCL's `_cast_to_openai_type`: its types as OpenAPI's, nested a level or two."""
    for value in properties.values():
        kind = value.get("type")
        if kind is None:
            value["type"] = "string"
        else:
            if kind == "float":
                value["format"] = "float"
                value["description"] = value.get("description", "") + " This is a float type value."
            value["type"] = mapping.get(kind, "string")
        if value["type"] in ("array", "object"):
            if "properties" in value:
                value["properties"] = _openai_types(value["properties"], mapping)
            elif "items" in value:
                items = value["items"]
                items["type"] = mapping[items["type"]]
                if items["type"] == "array" and "items" in items:
                    items["items"]["type"] = mapping[items["items"]["type"]]
                elif items["type"] == "object" and "properties" in items:
                    items["properties"] = _openai_types(items["properties"], mapping)
    return properties


def interleave(samples: Iterator[Sample]) -> Iterator[Sample]:
    """The questions round-robin over the categories, each in BFCL's order: `limit: 13 * k`
    asks the first k of every category (all of a smaller one), a quick balanced run."""
    by_category: dict[str, list[Sample]] = {category: [] for category in CATEGORIES}
    for sample in samples:
        by_category[sample.subset or ""].append(sample)
    for index in range(max(len(items) for items in by_category.values())):
        yield from (items[index] for items in by_category.values() if index < len(items))


def bfcl_sample(row: Row) -> Sample:
    """A row `{"id", "question": [[messages]], "function": [...]}` of category `row.subset`; the
    gold holds the category, the functions as BFCL defines them and its possible answers."""
    category = str(row.subset)
    key = key_field(row, "id")
    question, functions = row.fields.get("question"), row.fields.get("function")
    if not isinstance(question, list) or not question or not isinstance(question[0], list):
        raise DatasetError(f"{row.where}: 'question' must be a list of turns of messages")
    # A few live_irrelevance questions offer no function at all: asked without tools.
    if not isinstance(functions, list) or not (functions or "irrelevance" in category):
        raise DatasetError(f"{row.where}: 'function' must list the functions")
    gold: dict[str, Any] = {"category": category, "functions": functions}
    if "relevance" not in category:
        answer = answers(category).get(key)
        if not answer:
            raise DatasetError(f"{row.where}: {key} has no answer in BFCL's possible_answer")
        gold["answer"] = answer
    try:
        tools = openai_tools(functions, category)
    except (KeyError, TypeError, AttributeError) as exc:
        raise DatasetError(
            f"{row.where}: a function BFCL's conversion cannot read ({exc})"
        ) from None
    return Sample(
        id=f"bfcl/{key}",
        task="bfcl",
        messages=tuple({"role": str(m["role"]), "content": str(m["content"])} for m in question[0]),
        gold=orjson.dumps(gold).decode(),
        subset=category,
        tools=tuple(tools),
    )
