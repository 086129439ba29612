"""IFEval's 25 verifiable instructions, and strict and loose following of a reply.

`follows(text, instructions, loose)` says, per instruction, whether the reply follows it.
Strict reads the reply as it is; loose (the authors' rule) counts an instruction followed when
any of eight variants follows it: the reply, without its first line, without its last line,
without both, and each of those four with every `*` removed (markdown emphasis).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from thinkeval.scoring.ifeval import content, form

Checker = Callable[[str, Mapping[str, Any]], bool]

# instruction id -> (checker, the arguments it needs).
CHECKERS: dict[str, tuple[Checker, tuple[str, ...]]] = {
    "change_case:capital_word_frequency": (
        content.capital_word_frequency,
        ("capital_frequency", "capital_relation"),
    ),
    "change_case:english_capital": (content.english_capital, ()),
    "change_case:english_lowercase": (content.english_lowercase, ()),
    "combination:repeat_prompt": (form.repeat_prompt, ("prompt_to_repeat",)),
    "combination:two_responses": (form.two_responses, ()),
    "detectable_content:number_placeholders": (form.number_placeholders, ("num_placeholders",)),
    "detectable_content:postscript": (form.postscript, ("postscript_marker",)),
    "detectable_format:constrained_response": (form.constrained_response, ()),
    "detectable_format:json_format": (form.json_format, ()),
    "detectable_format:multiple_sections": (
        form.multiple_sections,
        ("num_sections", "section_spliter"),
    ),
    "detectable_format:number_bullet_lists": (form.number_bullet_lists, ("num_bullets",)),
    "detectable_format:number_highlighted_sections": (
        form.number_highlighted_sections,
        ("num_highlights",),
    ),
    "detectable_format:title": (form.title, ()),
    "keywords:existence": (content.keywords_existence, ("keywords",)),
    "keywords:forbidden_words": (content.keywords_forbidden_words, ("forbidden_words",)),
    "keywords:frequency": (content.keywords_frequency, ("frequency", "keyword", "relation")),
    "keywords:letter_frequency": (
        content.keywords_letter_frequency,
        ("let_frequency", "let_relation", "letter"),
    ),
    "language:response_language": (content.response_language, ("language",)),
    "length_constraints:nth_paragraph_first_word": (
        content.nth_paragraph_first_word,
        ("first_word", "nth_paragraph", "num_paragraphs"),
    ),
    "length_constraints:number_paragraphs": (content.number_paragraphs, ("num_paragraphs",)),
    "length_constraints:number_sentences": (
        content.number_sentences,
        ("num_sentences", "relation"),
    ),
    "length_constraints:number_words": (content.number_words, ("num_words", "relation")),
    "punctuation:no_comma": (content.no_comma, ()),
    "startend:end_checker": (form.end_checker, ("end_phrase",)),
    "startend:quotation": (form.quotation, ()),
}

Instruction = tuple[str, Mapping[str, Any]]


def check_instruction(instruction_id: str, args: Mapping[str, Any]) -> str | None:
    """Why an instruction cannot be checked (unknown id, missing argument), or None."""
    entry = CHECKERS.get(instruction_id)
    if entry is None:
        return f"unknown IFEval instruction {instruction_id!r}"
    missing = [name for name in entry[1] if args.get(name) is None]
    if missing:
        return f"instruction {instruction_id!r} lacks {', '.join(missing)}"
    return None


def loose_variants(text: str) -> list[str]:
    """The eight readings loose scoring accepts (module doc), the reply itself first."""
    lines = text.split("\n")
    trimmed = [
        text,
        "\n".join(lines[1:]).strip(),
        "\n".join(lines[:-1]).strip(),
        "\n".join(lines[1:-1]).strip(),
    ]
    return trimmed + [variant.replace("*", "") for variant in trimmed]


def follows(text: str, instructions: Sequence[Instruction], loose: bool = False) -> list[bool]:
    """Per instruction, whether `text` follows it; blank text follows nothing."""
    variants = loose_variants(text) if loose else [text]
    return [
        any(variant.strip() and CHECKERS[iid][0](variant, args) for variant in variants)
        for iid, args in instructions
    ]
