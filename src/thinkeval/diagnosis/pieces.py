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

    >>> pieces = cut("Wait, 12 12")
    >>> len(pieces.ids), pieces.ids[3] == pieces.ids[6], pieces.starts
    (8, True, [0, 4, 5, 6, 7, 8, 9, 10])
    >>> len(set(cut("等等等", "chars").ids))
    1
    """
    if unit == "chars":
        return Pieces(list(map(ord, text)), list(range(len(text))))
    # findall and running lengths: the pattern covers every character, so pieces are contiguous.
    # A piece's id is its string hash (equal text, equal id; computed in C, several times
    # faster than numbering them; a 64-bit collision inside one reply is not a concern).
    found = _PIECE.findall(text)
    ids = list(map(hash, found))
    starts = list(accumulate(map(len, found[:-1]), initial=0)) if found else []
    return Pieces(ids, starts)


def count(text: str) -> int:
    """How many pieces `text` has: `len(cut(text).ids)` without the ids and offsets (a
    finished reply's reasoning length, when the server did not count its tokens).

    >>> count("Wait, 12 12"), count("")
    (8, 0)
    """
    return len(_PIECE.findall(text))
