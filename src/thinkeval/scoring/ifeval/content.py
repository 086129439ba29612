"""IFEval checkers on what a reply says: keywords, language, length, letter case, punctuation.

Each checker takes the reply text exactly as given (never stripped or folded unless the
instruction's published definition says so) and the instruction's arguments, and says whether
the reply follows the instruction. Definitions: Zhou et al. 2023, "Instruction-Following
Evaluation for Large Language Models", table 1, and the authors' evaluation rules
(docs/scoring.md#ifeval lists each rule and where ours differs).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pysbd

Args = Mapping[str, Any]
_WORD = re.compile(r"\w+")
# A word for capital counting: letters/digits with inner apostrophes or dots ("DON'T", "U.S.").
_CAPITAL_WORD = re.compile(r"\w+(?:['’.]\w+)*")


def _compare(count: int, relation: str, bound: int) -> bool:
    """`less than`: count < bound; `at least`: count >= bound (the only two relations)."""
    if relation == "less than":
        return count < bound
    if relation == "at least":
        return count >= bound
    raise ValueError(f"unknown relation {relation!r}: expected 'less than' or 'at least'")


# Loose scoring reads up to eight variants of a reply, often equal: detect and split once each.
@lru_cache(maxsize=64)
def _language(text: str) -> str | None:
    # langdetect and pysbd load on first use: summaries and runs of other tasks import this
    # package (IFEval's metrics) and should not pay for them.
    from langdetect import DetectorFactory, LangDetectException, detect

    # langdetect is random by default; a fixed seed makes a verdict the same on every run.
    DetectorFactory.seed = 0
    try:
        return str(detect(text))
    except LangDetectException:  # no letters at all: the authors count the reply as following
        return None


def keywords_existence(text: str, args: Args) -> bool:
    """Every keyword occurs somewhere, ignoring case (inside longer words too)."""
    return all(re.search(re.escape(k), text, re.IGNORECASE) for k in args["keywords"])


def keywords_frequency(text: str, args: Args) -> bool:
    """The keyword occurs (ignoring case, inside words too) fewer than / at least N times."""
    count = len(re.findall(re.escape(args["keyword"]), text, re.IGNORECASE))
    return _compare(count, args["relation"], int(args["frequency"]))


def keywords_forbidden_words(text: str, args: Args) -> bool:
    """No forbidden word occurs as a whole word, ignoring case."""
    return not any(
        re.search(rf"\b{re.escape(w)}\b", text, re.IGNORECASE) for w in args["forbidden_words"]
    )


def keywords_letter_frequency(text: str, args: Args) -> bool:
    """The letter occurs (ignoring case) fewer than / at least N times."""
    count = text.lower().count(str(args["letter"]).lower())
    return _compare(count, args["let_relation"], int(args["let_frequency"]))


def response_language(text: str, args: Args) -> bool:
    """The whole reply is in the language (ISO 639-1 code) by langdetect; undetectable text
    passes, as in the authors' rule."""
    found = _language(text)
    return found is None or found == args["language"]


@cache
def _segmenter() -> pysbd.Segmenter:
    import pysbd

    return pysbd.Segmenter(language="en", clean=False)


@lru_cache(maxsize=64)
def count_sentences(text: str) -> int:
    """Sentences by pysbd's rule-based English segmenter (abbreviations, decimals, URLs)."""
    # Line breaks end no sentence: a poem line or a list item without a full stop runs on.
    flat = re.sub(r"\s+", " ", text)
    return sum(1 for sentence in _segmenter().segment(flat) if sentence.strip())


def number_sentences(text: str, args: Args) -> bool:
    return _compare(count_sentences(text), args["relation"], int(args["num_sentences"]))


def count_words(text: str) -> int:
    """Words are runs of letters, digits and underscores (`\\w+`), as the authors count them."""
    return len(_WORD.findall(text))


def number_words(text: str, args: Args) -> bool:
    return _compare(count_words(text), args["relation"], int(args["num_words"]))


def number_paragraphs(text: str, args: Args) -> bool:
    """Exactly N paragraphs separated by the markdown divider `***`; an empty paragraph is
    allowed only before the first or after the last divider."""
    parts = re.split(r"\s?\*\*\*\s?", text)
    count = len(parts)
    for index, part in enumerate(parts):
        if not part.strip():
            if index in (0, len(parts) - 1):
                count -= 1
            else:
                return False
    return count == int(args["num_paragraphs"])


def nth_paragraph_first_word(text: str, args: Args) -> bool:
    """Exactly N paragraphs separated by blank lines (`\\n\\n`), and paragraph i starts with the
    word (ignoring case, leading quotes and the punctuation after it)."""
    parts = re.split(r"\n\n", text)
    count = sum(1 for part in parts if part.strip())
    nth = int(args["nth_paragraph"])
    if nth > len(parts):
        return False
    paragraph = parts[nth - 1].strip()
    if not paragraph:
        return False
    word = paragraph.split()[0].strip().lstrip("'").lstrip('"')
    first = ""
    for char in word:
        if char in ".,?!'\"":
            break
        first += char.lower()
    return count == int(args["num_paragraphs"]) and first == str(args["first_word"]).lower()


def capital_word_frequency(text: str, args: Args) -> bool:
    """Words written all in capitals occur fewer than / at least N times."""
    count = sum(1 for word in _CAPITAL_WORD.findall(text) if word.isupper())
    return _compare(count, args["capital_relation"], int(args["capital_frequency"]))


def english_capital(text: str, args: Args) -> bool:
    """All letters are capitals and the reply is English (undetectable text passes)."""
    return text.isupper() and _language(text) in (None, "en")


def english_lowercase(text: str, args: Args) -> bool:
    """All letters are lower case and the reply is English (undetectable text passes)."""
    return text.islower() and _language(text) in (None, "en")


def warm_up() -> None:
    """Load langdetect's language profiles and pysbd's rules (seconds, once per process)."""
    _language("A short English sentence to load the language profiles.")
    count_sentences("One sentence. Two sentences.")


def no_comma(text: str, args: Args) -> bool:
    """No ASCII comma anywhere (the full-width `，` is another character)."""
    return "," not in text
