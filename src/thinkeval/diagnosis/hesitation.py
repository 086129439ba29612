"""Self-correction markers ("wait", "hmm", "alternatively", "等等", "不对") in a reply's tail.

A model that keeps turning back ("Wait, let me re-check. Hmm, alternatively...") spends its
budget without converging; quantised reasoning models do it more. The density is markers per
1000 pieces (`diagnosis.pieces`) in the last `TAIL_PIECES` pieces of the reasoning; a reply is
hesitating at `HESITATION_DENSITY` or more (one marker every 25 pieces) without an exact loop.
Ordinary reasoning of Qwen3 and DeepSeek-R1 has a few per 1000.

Chinese text is measured in tokens, not characters: a piece is one CJK character, but Qwen's and
DeepSeek's tokenizers merge common words (about 1.4 characters a token), so the same turning
back written in Chinese would otherwise read a third less dense than in English.
"""

from __future__ import annotations

import re

TAIL_PIECES = 1024
HESITATION_DENSITY = 40.0

# Lower-case English markers: each phrase counts once ("but wait" is one marker, not two).
ENGLISH_MARKERS: tuple[str, ...] = (
    "but wait",
    "wait",
    "hmm",
    "hold on",
    "actually",
    "alternatively",
    "on second thought",
    "let me re-check",
    "let me recheck",
    "let me double-check",
    "let me double check",
    "let me check again",
    "let me reconsider",
    "let me verify again",
    "let me try again",
    "let me start over",
    "maybe i made a mistake",
    "that's not right",
    "that doesn't seem right",
    "no, that's wrong",
    "i'm not sure",
    "let me think again",
    "let me redo",
    "let me recompute",
    "let me recalculate",
    "i made a mistake",
    "i made an error",
    "something is off",
    "something seems off",
    "that can't be right",
)
# Ordinary connectives ("不过" however, "或者" or) are no markers: progressing Chinese
# reasoning uses them as often as English uses "but" and "or".
CHINESE_MARKERS: tuple[str, ...] = (
    "等等",
    "等一下",
    "等一等",
    "慢着",
    "且慢",
    "不对",
    "也许",
    "或许",
    "再检查",
    "再确认",
    "重新检查",
    "重新考虑",
    "重新计算",
    "重新算",
    "再算一遍",
    "再算一下",
    "再验证",
    "再看看",
    "让我再想想",
    "让我想想",
    "再想想",
    "我错了",
    "算错",
    "弄错",
    "搞错",
    "好像不对",
    "好像有问题",
    "哪里有问题",
    "换个思路",
    "是不是",
    "嗯",
    "哦",
    "咦",
)
# CJK characters per token for Qwen's and DeepSeek's tokenizers on Chinese reasoning.
CJK_CHARS_PER_TOKEN = 1.4
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_ENGLISH = "|".join(re.escape(m) for m in sorted(ENGLISH_MARKERS, key=len, reverse=True))
_CHINESE = "|".join(re.escape(m) for m in sorted(CHINESE_MARKERS, key=len, reverse=True))
# English markers are whole words ("await" is not "wait") matched in the lower-cased text, behind
# a lookahead on their first characters so the alternation is tried at a few positions only
# (3x faster than one case-insensitive pattern). Chinese has no word boundaries and no case,
# and cannot occur in ASCII text: its pattern runs only on text that is not.
_FIRST = re.escape("".join(sorted({m[0] for m in ENGLISH_MARKERS})))
_ENGLISH_MARKERS = re.compile(rf"(?=[{_FIRST}])\b(?:{_ENGLISH})\b")
_CHINESE_MARKERS = re.compile(_CHINESE)


def count_markers(text: str) -> int:
    """The self-correction markers in `text`.

    >>> count_markers("Wait, but wait. Hmm, 等等，不对。Awaiting.")
    5
    """
    found = len(_ENGLISH_MARKERS.findall(text.lower()))
    return found if text.isascii() else found + len(_CHINESE_MARKERS.findall(text))


def token_length(text: str, pieces: int) -> float:
    """`pieces` of `text` with its CJK characters counted as tokens (`CJK_CHARS_PER_TOKEN`).

    >>> token_length("等等，不对", 5)
    3.857142857142857
    """
    cjk = 0 if text.isascii() else len(_CJK.findall(text))
    return pieces - cjk + cjk / CJK_CHARS_PER_TOKEN


def density(text: str, pieces: int) -> float:
    """Markers per 1000 tokens of `text`, `pieces` long (0 for no pieces)."""
    length = token_length(text, pieces)
    return 1000.0 * count_markers(text) / length if length > 0 else 0.0
