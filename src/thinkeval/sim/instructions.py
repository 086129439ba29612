"""The simulator's IFEval replies: text built to follow a prompt's verifiable instructions (a
`correct` plan) or to follow all but the first (a `wrong` one).

It knows the instructions from the answer key (the sample's gold) and builds the reply in a
fixed order: the repeated request, a title, the body (paragraphs, sentences, words, keywords,
highlights, bullets, placeholders, sections), then case and punctuation, a postscript, the end
phrase and quotation marks. A reply asked in another language is built from that language's
words (`sim.languages`), fillers included; a language it has no words for is left unmet, as a
weak model would.
"""

from __future__ import annotations

import json
from typing import Any

from thinkeval.sim.languages import words as language_words

_WORDS = (
    "the", "quiet", "harbour", "keeps", "its", "boats", "in", "rows", "while", "gulls", "circle",
    "over", "grey", "water", "and", "old", "ropes", "dry", "in", "the", "morning", "sun",
)  # fmt: skip


Words = tuple[str, ...] | None  # a language's words, or None for English


def _sentence(index: int, length: int = 8, words: Words = None) -> str:
    if words is None:
        picked = [_WORDS[(index * 3 + i) % len(_WORDS)] for i in range(length)]
        return " ".join(picked).capitalize() + "."
    # Consecutive words of the language's text, so that its letter sequences stay its own.
    text = " ".join(words[(index * length + i) % len(words)] for i in range(length))
    return text[:1].upper() + text[1:] + "."


def _filler(english: str, words: Words) -> str:
    """A filler word (`highlight`, `place`, `point`): English, or a word of the language."""
    return english if words is None else words[1]


def _body(args: dict[str, dict[str, Any]], words: Words) -> list[str]:
    """The paragraphs, before case, punctuation and the closing parts."""
    # A reply in another language says more, at least twice as much as the English it must
    # quote (a repeated request, keywords), so that the language detector names its language.
    sentences = 3 if words is None else 6
    if "length_constraints:number_sentences" in args:
        a = args["length_constraints:number_sentences"]
        n = int(a["num_sentences"])
        sentences = n + 1 if a["relation"] == "at least" else max(1, n - 1)
    per = 8
    if "length_constraints:number_words" in args:
        a = args["length_constraints:number_words"]
        n = int(a["num_words"])
        per = max(2, (n + 10) // sentences + 1) if a["relation"] == "at least" else 2
    if words is not None and not {"length_constraints:number_sentences",
                                  "length_constraints:number_words"} & set(args):  # fmt: skip
        quoted = len(str(args.get("combination:repeat_prompt", {}).get("prompt_to_repeat", "")))
        quoted += sum(len(str(k)) for k in args.get("keywords:existence", {}).get("keywords", []))
        while len(" ".join(_sentence(i, per, words) for i in range(sentences))) < 2 * quoted:
            sentences += 1
    paragraphs = 1
    for iid in ("length_constraints:number_paragraphs",
                "length_constraints:nth_paragraph_first_word"):  # fmt: skip
        if iid in args:
            paragraphs = int(args[iid]["num_paragraphs"])
    texts = [[_sentence(i, per, words) for i in range(sentences)] for _ in range(paragraphs)]
    if "length_constraints:nth_paragraph_first_word" in args:
        a = args["length_constraints:nth_paragraph_first_word"]
        nth = int(a["nth_paragraph"]) - 1
        if 0 <= nth < paragraphs:
            texts[nth][0] = f"{a['first_word']} {texts[nth][0][0].lower()}{texts[nth][0][1:]}"
    extra: list[str] = []
    for keyword in args.get("keywords:existence", {}).get("keywords", []):
        extra.append(f"It mentions {keyword}." if words is None else f"{keyword}.")
    if "keywords:frequency" in args:
        a = args["keywords:frequency"]
        if a["relation"] == "at least":
            extra.append(" ".join([str(a["keyword"])] * int(a["frequency"])) + ".")
    if "keywords:letter_frequency" in args:
        a = args["keywords:letter_frequency"]
        if a["let_relation"] == "at least":
            extra.append(str(a["letter"]) * int(a["let_frequency"]) + ".")
    if "change_case:capital_word_frequency" in args:
        a = args["change_case:capital_word_frequency"]
        if a["capital_relation"] == "at least":
            extra.append(" ".join(["NOTE"] * int(a["capital_frequency"])) + ".")
    for k in range(int(args.get("detectable_format:number_highlighted_sections", {}).get(
            "num_highlights", 0))):  # fmt: skip
        extra.append(f"*{_filler('highlight', words)} {k + 1}*")
    for k in range(int(args.get("detectable_content:number_placeholders", {}).get(
            "num_placeholders", 0))):  # fmt: skip
        extra.append(f"[{_filler('place', words)} {k + 1}]")
    texts[-1].extend(extra)
    out = [" ".join(sentences_) for sentences_ in texts]
    bullets = int(args.get("detectable_format:number_bullet_lists", {}).get("num_bullets", 0))
    if bullets:
        point = _filler("point", words)
        out[-1] += "\n" + "\n".join(f"* {point} {k + 1}" for k in range(bullets))
    if "detectable_format:multiple_sections" in args:
        a = args["detectable_format:multiple_sections"]
        splitter = str(a["section_spliter"]).strip()
        out = [f"{splitter} {k + 1}\n{out[0]}" for k in range(int(a["num_sections"]))]
    return out


def ifeval_reply(gold: str, follow: bool) -> str:
    """A reply to the instructions in `gold` (`kinds.instructions` JSON)."""
    instructions = json.loads(gold)
    if not follow:
        instructions = instructions[1:]  # the first instruction is ignored
    args: dict[str, dict[str, Any]] = {str(iid): dict(a) for iid, a in instructions}
    language = args.get("language:response_language", {}).get("language")
    words = None if language in (None, "en") else language_words(str(language))
    if "detectable_format:json_format" in args:
        return json.dumps({"reply": _sentence(0, words=words)}, ensure_ascii=False)
    if "detectable_format:constrained_response" in args:
        return "My answer is yes."
    body = _body(args, words)
    joiner = "\n***\n" if "length_constraints:number_paragraphs" in args else "\n\n"
    text = joiner.join(body)
    if "combination:two_responses" in args:
        text = f"{text}\n******\n{_sentence(5, words=words)}"
    if "detectable_format:title" in args:
        title = "a simulated reply" if words is None else " ".join(words[:2])
        text = f"<<{title}>>\n\n{text}"
    if "combination:repeat_prompt" in args:
        text = f"{args['combination:repeat_prompt']['prompt_to_repeat']}\n\n{text}"
    if "detectable_content:postscript" in args:
        ending = "see you." if words is None else _sentence(2, 3, words)
        text += f"\n\n{args['detectable_content:postscript']['postscript_marker']} {ending}"
    if "startend:end_checker" in args:
        text += f"\n\n{args['startend:end_checker']['end_phrase']}"
    if "change_case:english_lowercase" in args:
        text = text.lower()
    if "change_case:english_capital" in args:
        text = text.upper()
    for word in args.get("keywords:forbidden_words", {}).get("forbidden_words", []):
        text = text.replace(str(word), "")
    if "punctuation:no_comma" in args:
        text = text.replace(",", "")
    if "startend:quotation" in args:
        text = f'"{text}"'
    return text
