"""Tool calls in the simulator: replies to a tool-calling task (BFCL) and vLLM's parser over them.

The simulated model writes its calls as Qwen3 does, `<tool_call>{"name", "arguments"}</tool_call>`
blocks after the think block; a request with `tools` then gets them parsed as vLLM's `hermes`
parser does (`--enable-auto-tool-choice --tool-call-parser hermes`): the calls go to
`message.tool_calls`, the text before them stays `content` (None when there is none) and
`finish_reason` becomes `tool_calls`. A reply cut by the budget keeps its half-written block as
content (`length`), and a call written only in the reasoning is never parsed.

From the answer key's gold (BFCL's possible answers): a correct reply calls with each
argument's first possible value; a wrong one changes one argument; a malformed one describes the
call in prose after writing it in the reasoning; an irrelevance question's correct reply calls
nothing.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

_BLOCK = re.compile(r"<tool_call>(.*?)</tool_call>|<tool_call>(.*)", re.DOTALL)


def _first(options: Any) -> Any:
    """The first possible value of a BFCL answer's option list, resolved all the way down."""
    chosen = next((o for o in options if o != ""), "") if isinstance(options, list) else options
    return _resolved(chosen)


def _resolved(value: Any) -> Any:
    if isinstance(value, dict):  # a dict argument: each key has its own options
        return {k: _first(v) for k, v in value.items() if _first(v) != ""}
    if isinstance(value, list):
        return [_resolved(item) for item in value]
    return value


def planned_calls(gold: str, correct: bool) -> list[dict[str, Any]]:
    """The calls a reply makes: `[{"name", "arguments"}]`, names as OpenAI tools carry them."""
    parsed = orjson.loads(gold)
    if "irrelevance" in parsed["category"]:
        if correct or not parsed["functions"]:
            return []
        return [{"name": parsed["functions"][0]["name"].replace(".", "_"), "arguments": {}}]
    if "relevance" in parsed["category"]:
        function = parsed["functions"][0]
        required = function.get("parameters", {}).get("required", [])
        return [
            {
                "name": function["name"].replace(".", "_"),
                "arguments": {name: "x" for name in required},
            }
        ]
    calls = []
    for answer in parsed["answer"]:
        ((name, arguments),) = answer.items()
        chosen = {k: _first(v) for k, v in arguments.items() if _first(v) != ""}
        calls.append({"name": name.replace(".", "_"), "arguments": chosen})
    if not correct and calls:
        arguments = calls[0]["arguments"]
        if arguments:
            key = sorted(arguments)[0]
            arguments[key] = "thinkeval-sim-wrong"
        else:
            arguments["thinkeval_sim_extra"] = 1
    return calls


def calls_text(calls: list[dict[str, Any]]) -> str:
    """The calls as Qwen3 writes them; prose when there are none."""
    if not calls:
        return "None of the given functions can answer this question."
    return "\n".join(f"<tool_call>\n{orjson.dumps(call).decode()}\n</tool_call>" for call in calls)


def prose_text(calls: list[dict[str, Any]]) -> str:
    """A reply that names the call in words: no call to any parser."""
    name = calls[0]["name"] if calls else "none of the functions"
    return f"I would use {name} here with the values from the question."


def tool_reply(gold: str, outcome: str, malformed: str) -> tuple[str, str, str | None]:
    """(answer, answer without thinking, what the reasoning restates) for a plan's outcome."""
    if outcome in ("correct", "wrong"):
        text = calls_text(planned_calls(gold, outcome == "correct"))
        return text, text, None
    if outcome == "malformed":  # the call only in the reasoning, prose after it
        calls = planned_calls(gold, True)
        return prose_text(calls), prose_text(calls), calls_text(calls)
    return "", ("" if outcome == "empty" else malformed), None


def parsed_calls(
    content: str | None, call_id: str
) -> tuple[str | None, list[dict[str, Any]]] | None:
    """(the text before the calls, the calls) as vLLM's hermes parser reads a reply's content;
    None when it finds no call (or a block that does not parse: then it is all content)."""
    if not isinstance(content, str) or "<tool_call>" not in content:
        return None
    calls = []
    for index, match in enumerate(_BLOCK.finditer(content)):
        try:
            raw = orjson.loads(match.group(1) or match.group(2) or "")
        except orjson.JSONDecodeError:
            return None
        calls.append(
            {
                "id": f"chatcmpl-tool-{call_id}{index}",
                "type": "function",
                "function": {
                    "name": raw.get("name"),
                    "arguments": orjson.dumps(raw.get("arguments", {})).decode(),
                },
            }
        )
    return content[: content.find("<tool_call>")].strip() or None, calls


def parse_hermes(body: dict[str, Any], call_id: str) -> None:
    """The hermes parser over a non-streaming reply's content, in place."""
    choice = body["choices"][0]
    parsed = parsed_calls(choice["message"].get("content"), call_id)
    if parsed is None:
        return
    choice["message"]["content"], choice["message"]["tool_calls"] = parsed
    if choice.get("finish_reason") == "stop":
        choice["finish_reason"] = "tool_calls"


def call_deltas(calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The stream's tool-call deltas, as vLLM sends them: per call its id and name with empty
    arguments, then the arguments."""
    deltas: list[dict[str, Any]] = []
    for index, call in enumerate(calls):
        function = call["function"]
        head = {"name": function["name"], "arguments": ""}
        deltas.append({"index": index, "id": call["id"], "type": "function", "function": head})
        deltas.append({"index": index, "function": {"arguments": function["arguments"]}})
    return deltas
