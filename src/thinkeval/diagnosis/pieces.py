"""Text cut into token-like pieces, for the loop detector when a reply has no token ids.

The journal keeps text, not token ids, so the detector runs on pieces that approximate a BPE
tokenizer: an ASCII word with its leading space, one digit, one CJK character or punctuation
mark, a run of whitespace. Qwen's and DeepSeek's tokenizers split digits one by one and give
most CJK characters a token each, so a block of N tokens is about N pieces. `unit="chars"`
uses one piece per character instead (the detector's parameters are then in characters).
"""

from __future__ import annotations

import re
from itertools import accumulate
from typing import Literal, NamedTuple

Unit = Literal["tokens", "pieces", "chars"]
_PIECE = re.compile(r" ?[A-Za-z]+|\d|\s+|[^\sA-Za-z\d]")


class Pieces(NamedTuple):
    """Integer ids (equal text, equal id) and each piece's start offset in the text."""

    ids: list[int]
    starts: list[int]


def cut(text: str, unit: Unit = "pieces") -> Pieces:
    """The pieces of `text`; offsets let a detected block be highlighted in the text.

    >>> cut("Wait, 12").ids
    [0, 1, 2, 3, 4]
    >>> cut("等等等", "chars").ids
    [0, 0, 0]
    """
    vocabulary: dict[str, int] = {}
    if unit == "chars":
        ids = [vocabulary.setdefault(char, len(vocabulary)) for char in text]
        return Pieces(ids, list(range(len(text))))
    # findall and running lengths: the pattern covers every character, so pieces are contiguous.
    found = _PIECE.findall(text)
    ids = [vocabulary.setdefault(piece, len(vocabulary)) for piece in found]
    starts = list(accumulate(map(len, found), initial=0))[:-1] if found else []
    return Pieces(ids, starts)
