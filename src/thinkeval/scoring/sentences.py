"""Sentences around an answer: whether a cue's sentence is a question, the sentence a cue that
ends its own sentence refers back to (`So x = 5. That's the final answer.`), and the closing
sentence of a finished reply. Shared by the number and math answer kinds.

A sentence ends at `.` before a blank, at `!` or `?` (full-width forms are folded to these
before scoring, and Chinese puts no blank after them), at `。`, or at a line end, so `3.5` and
`e.g.,` do not end one.
"""

from __future__ import annotations

import re
from bisect import bisect_left

# What ends a sentence inside a line ("18. Then" but not "3.5"), for the start of the last one.
SENTENCE_BREAK = re.compile(r"\.(?=\s)|[!?。！？]")
# Only . and ! (and their Chinese forms) end a concluding sentence; a question concludes nothing.
CONCLUDING_END = ".!。！"
# Closers that may follow the full stop of a final sentence: **, ), quotes, LaTeX $.
CLOSERS = "*_)]}\"'”’$ \t"
_ANY_END = re.compile(r"\.(?=[\s*_\"'”’)\]]|$)|[!?。！？\n]")
_QUESTION = ("?", "？")
# How far a cue's sentence is followed to its end; a longer one is no question to us.
_SENTENCE_LIMIT = 400
# A cue that closes its own sentence and so names the sentence before it, never the next one:
# "I think that's the final answer.", "That is my final answer!", "这就是最终答案。"
# Searched by `refers_back`: the English cue without its leading word boundary (a pattern that
# starts with literal words is scanned for them in C; `\b` or a lookahead in front made the
# scan try the alternation at most positions, half of a math reply's scoring time), the
# boundary checked on each match; the Chinese one only in text that is not ASCII.
_BACK_ENGLISH = re.compile(
    r"(?:that|this|which|it)(?:'s|’s|\s+is|\s+was|\s+(?:should|must|will)\s+be)"
    r"\s+(?:indeed\s+|definitely\s+|clearly\s+)?(?:my|the|our)\s+(?:final\s+)?answer"
    r"[\s*_]*[.!](?=\s|$)"
)
_BACK_CHINESE = re.compile(
    r"(?:这|那|此)(?:就|便|也)?(?:是|为)(?:我的)?(?:最终|最后的?)?答案[\s*_]*[。！]"
)


def refers_back(lowered: str) -> list[re.Match[str]]:
    """The back-referring cues of an ASCII-lower-cased text, in order. A match not at a word
    boundary ("bit's the answer.") is no cue; no cue can start inside one, and the English and
    Chinese cues never overlap, so this finds what one `\b`-anchored alternation would.

    >>> [m.group() for m in refers_back("so 5. that's the final answer. bit's the answer.")]
    ["that's the final answer."]
    """
    found = [
        m
        for m in _BACK_ENGLISH.finditer(lowered)
        if not m.start() or not _is_word(lowered[m.start() - 1])
    ]
    if not lowered.isascii():
        found += _BACK_CHINESE.finditer(lowered)
        found.sort(key=lambda m: m.start())
    return found


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"  # what `\w` matches in a str pattern


class Questions:
    """Which positions of one text lie in a question, its sentence ends found once (a reply
    may hold thousands of answer cues).

    >>> Questions("Is the final answer 30? Let me check.").asks(15)
    True
    >>> Questions("The final answer is 30. Is it?").asks(10)
    False
    """

    def __init__(self, text: str) -> None:
        self._ends: list[int] | None = None
        self._text = text
        self._asked: list[bool] = []

    def asks(self, position: int) -> bool:
        """Whether the sentence running on at `position` ends with a question mark."""
        if self._ends is None:
            found = list(_ANY_END.finditer(self._text))
            self._ends = [end.start() for end in found]
            self._asked = [end.group() in _QUESTION for end in found]
        index = bisect_left(self._ends, position)
        if index == len(self._ends) or self._ends[index] - position > _SENTENCE_LIMIT:
            return False
        return self._asked[index]


def sentence_before(text: str, position: int) -> str | None:
    """The sentence before the one `position` is in (its terminator kept), or None when there
    is none or it is a question.

    >>> sentence_before("We add them. So Janet earns $18. I think that's the answer.", 41)
    'So Janet earns $18.'
    """
    window = max(0, position - _SENTENCE_LIMIT)
    ends = [window, *(found.end() for found in _ANY_END.finditer(text, window, position))]
    # The sentence `position` is in starts at ends[-1]; the one before it is the last non-blank.
    for begin, end in zip(reversed(ends[:-1]), reversed(ends[1:]), strict=True):
        sentence = text[begin:end].strip()
        if sentence:
            return None if sentence.endswith(_QUESTION) else sentence
    return None


def closing_sentence(line: str) -> str | None:
    """The last sentence of a reply's last line without its terminator, when it is a complete
    statement (ends in `.`, `!`, `。` or `！`), else None: the reply stopped mid-sentence or asked.

    >>> closing_sentence("First, 2 + 2 = 4. So she makes $18 every day.**")
    'So she makes $18 every day'
    >>> closing_sentence("Could you clarify the 4 hours?") is None
    True
    """
    body = line.rstrip(CLOSERS)
    if not body or body[-1] not in CONCLUDING_END:
        return None
    body = body[:-1]
    start = 0
    for found in SENTENCE_BREAK.finditer(body):
        start = found.end()
    return body[start:].strip()
