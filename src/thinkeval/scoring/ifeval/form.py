"""IFEval checkers on how a reply is laid out: format, start and end, placeholders, repeats.

Same contract as `content`: the reply text exactly as given and the instruction's arguments
in, followed or not out (docs/scoring.md#ifeval).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

Args = Mapping[str, Any]
_CONSTRAINED = ("My answer is yes.", "My answer is no.", "My answer is maybe.")


def number_placeholders(text: str, args: Args) -> bool:
    """At least N placeholders in square brackets (`[name]`, shortest match each)."""
    return len(re.findall(r"\[.*?\]", text)) >= int(args["num_placeholders"])


def postscript(text: str, args: Args) -> bool:
    """A line holds the postscript marker (`P.S.`, `P.P.S`, ...), ignoring case; the dots of
    `P.S.` and `P.P.S` may be followed by a space."""
    marker = str(args["postscript_marker"])
    if marker == "P.P.S":
        pattern = r"\s*p\.\s?p\.\s?s.*$"
    elif marker == "P.S.":
        pattern = r"\s*p\.\s?s\..*$"
    else:
        pattern = r"\s*" + re.escape(marker.lower()) + r".*$"
    return bool(re.findall(pattern, text.lower(), flags=re.MULTILINE))


def number_bullet_lists(text: str, args: Args) -> bool:
    """Exactly N markdown bullets: lines starting (after blanks) with `* ` (not `**`) or `-`."""
    stars = re.findall(r"^\s*\*[^\*].*$", text, flags=re.MULTILINE)
    dashes = re.findall(r"^\s*-.*$", text, flags=re.MULTILINE)
    return len(stars) + len(dashes) == int(args["num_bullets"])


def constrained_response(text: str, args: Args) -> bool:
    """The reply contains one of the offered answers, word for word."""
    stripped = text.strip()
    return any(option in stripped for option in _CONSTRAINED)


def number_highlighted_sections(text: str, args: Args) -> bool:
    """At least N non-empty highlights `*text*` or `**text**` within one line."""
    single = re.findall(r"\*[^\n\*]*\*", text)
    double = re.findall(r"\*\*[^\n\*]*\*\*", text)
    count = sum(1 for h in single if h.strip("*").strip())
    count += sum(1 for h in double if h.removeprefix("**").removesuffix("**").strip())
    return count >= int(args["num_highlights"])


def multiple_sections(text: str, args: Args) -> bool:
    """At least N sections, each opened by the splitter word and a number (`SECTION 1`)."""
    splitter = re.escape(str(args["section_spliter"]).strip())
    sections = re.split(r"\s?" + splitter + r"\s?\d+\s?", text)
    return len(sections) - 1 >= int(args["num_sections"])


def json_format(text: str, args: Args) -> bool:
    """The reply is one JSON value, optionally inside a ```json (or plain ```) code fence."""
    body = text.strip()
    for fence in ("```json", "```Json", "```JSON", "```"):
        body = body.removeprefix(fence)
    body = body.removesuffix("```").strip()
    try:
        json.loads(body)
    except ValueError:
        return False
    return True


def title(text: str, args: Args) -> bool:
    """A title in double angle brackets on one line, not blank: `<<poem of joy>>`."""
    titles = re.findall(r"<<[^\n]+>>", text)
    return any(t.lstrip("<").rstrip(">").strip() for t in titles)


def two_responses(text: str, args: Args) -> bool:
    """Two different replies separated by six asterisks `******`; an empty part is allowed
    only before the first or after the last separator."""
    parts = text.split("******")
    kept = []
    for index, part in enumerate(parts):
        if not part.strip():
            if index not in (0, len(parts) - 1):
                return False
        else:
            kept.append(part)
    return len(kept) == 2 and kept[0].strip() != kept[1].strip()


def repeat_prompt(text: str, args: Args) -> bool:
    """The reply starts with the request repeated word for word (ignoring case and the blanks
    around both)."""
    return text.strip().lower().startswith(str(args["prompt_to_repeat"]).strip().lower())


def end_checker(text: str, args: Args) -> bool:
    """The reply ends with the phrase (ignoring case, blanks and double quotes around it)."""
    ending = text.strip().strip('"').lower()
    return ending.endswith(str(args["end_phrase"]).strip().lower())


def quotation(text: str, args: Args) -> bool:
    """The whole reply (blanks around it aside) is wrapped in double quotes."""
    stripped = text.strip()
    return len(stripped) > 1 and stripped[0] == '"' and stripped[-1] == '"'
