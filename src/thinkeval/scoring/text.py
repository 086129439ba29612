"""Preparing reply text for answer matching: think blocks and full-width forms."""

from __future__ import annotations

import re

OPEN_THINK = "<think>"
CLOSE_THINK = "</think>"

# Full-width ASCII (Ｂ, ：, （, １８) folds to ASCII so one set of patterns serves Chinese replies.
# The full-width comma stays: folding it would glue "1，200" lists into thousands separators.
_FOLD = {cp: cp - 0xFEE0 for cp in range(0xFF01, 0xFF5F) if cp != 0xFF0C}
_FOLD[0x2212] = ord("-")  # Unicode minus sign
_FOLD[0x3000] = ord(" ")  # ideographic space
# Lower-casing only ASCII keeps every index in place (str.lower turns "İ" into two characters).
_ASCII_LOWER = {cp: cp + 32 for cp in range(ord("A"), ord("Z") + 1)}


def split_think(content: str) -> tuple[str, bool]:
    """Return the text after the last `</think>` and whether an opened think block is unclosed.

    >>> split_think("<think>\\nR\\n</think>\\n\\n18")
    ('\\n\\n18', False)
    >>> split_think("<think>\\nOkay, 2+2")
    ('<think>\\nOkay, 2+2', True)
    """
    end = content.rfind(CLOSE_THINK)
    # A lone `</think>` (thinking-only templates put `<think>` in the prompt) also ends reasoning.
    visible = content if end < 0 else content[end + len(CLOSE_THINK) :]
    return visible, OPEN_THINK in visible


def fold_width(text: str) -> str:
    """Map full-width letters, digits and punctuation to ASCII (`答案：Ｂ` -> `答案:B`)."""
    return text.translate(_FOLD)


def ascii_lower(text: str) -> str:
    """Lower-case ASCII letters only, so positions in the result are positions in `text`.

    Markers are searched in this copy: a case-sensitive literal search is many times faster
    than a case-insensitive one, and the answer itself is then read from `text`.
    """
    return text.translate(_ASCII_LOWER)


# A model that continues the few-shot format after answering writes the next "Question:" and
# answers it too; AISBench cuts there as well. Only a line that starts with it counts.
_CONTINUATION = re.compile(r"\n[ \t]*(?:Question|问题)[ \t]*:")
# A note after the answer ("Note: ...", "(注：...)") qualifies it; it does not restate it.
_NOTE = re.compile(
    r"\n[ \t>*_(\[（【]*(?:notes?|n\.\s?b\.|p\.\s?s\.|remark|注意|注|备注|说明)[ \t*_]*[:：]",
    re.IGNORECASE,
)


def answer_regions(text: str) -> list[str]:
    """Where to look for a reply's final answer, in order: the text before a note that follows
    the answer, the text before a few-shot continuation (a line starting `Question:`), the
    whole text. A finder takes the first region where it finds an answer, so a note or an
    invented next question never overrides an answer given before it, yet a reply that only
    restates the question before answering is still read.

    >>> answer_regions("The answer is 18.\\n\\nQuestion: Tom has 5 apples. The answer is 7")
    ['The answer is 18.\\n', 'The answer is 18.\\n\\nQuestion: Tom has 5 apples. The answer is 7']
    """
    regions = []
    continuation = _CONTINUATION.search(text)
    body = text[: continuation.start()] if continuation else text
    note = _NOTE.search(body)
    for region in (body[: note.start()] if note else body, body, text):
        if region.strip() and region not in regions:
            regions.append(region)
    return regions
