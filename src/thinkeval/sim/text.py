"""The words the simulated model says: reasoning pools, answer phrasings, a toy tokenizer.

Generated text is a list of tokens (strings) whose concatenation is the decoded text, so token
accounting and streaming fall out of list slicing. Reasoning is sliced from a large pool built
once per flavour; per request only the "restatement" slots of the pool are rewritten, which keeps
a 7,000-token think block at a few microseconds of work.
"""

from __future__ import annotations

import bisect
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import thinkeval.sim.maths as maths
from thinkeval.sim.code import code_answer, malformed_code

THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"
EOS = ""  # <|im_end|> is a special token: counted in usage, absent from the decoded text
EOS_TOKEN_ID = 151645  # Qwen3's <|im_end|>, reported by SGLang as `matched_stop`

POOL_TOKENS = 1 << 16

# One token is one short word, number, punctuation mark, newline run, indentation run or one/two
# Han characters: close enough to Qwen's tokenizer for budgets and lengths to behave
# realistically. Spaces before a space or tab are a token of their own, so code keeps its
# indentation (a lone space still rides on the word after it).
_TOKEN_RE = re.compile(
    r"\n+|[ \t]+(?=[ \t])|\t+| ?\{[a-z]\}|\{[a-z]\}| ?[A-Za-z']+| ?\d+|[\u4e00-\u9fff]{1,2}"
    r"| ?[^\sA-Za-z\d\u4e00-\u9fff]"
)


def tokenize(text: str) -> list[str]:
    """Split text into the simulator's tokens; `"".join(tokenize(t)) == t` up to lone spaces
    before a newline or Han characters.

    >>> tokenize("So 12 plus 3.\\n\\nDone")
    ['So', ' 12', ' plus', ' 3', '.', '\\n\\n', 'Done']
    >>> "".join(tokenize("def f():\\n    return 1\\n"))
    'def f():\\n    return 1\\n'
    """
    return _TOKEN_RE.findall(text)


# Reasoning templates per flavour. {a} {b} {c} are numbers with c derived from a and b as the
# sentence claims; {x} marks a restatement slot that a request may overwrite with its answer.
_NUMBER = (
    ("So {a} plus {b} is {c}.", "add"),
    ("Then {a} times {b} gives {c}.", "mul"),
    ("Subtracting {b} from {c} leaves {a}.", "add"),
    ("Half of {c} is {a}.", "half"),
    ("The problem says there are {a} of them at first.", ""),
    ("Each one costs {a}, and there are {b} of them.", ""),
    ("Wait, let me double check that step.", ""),
    ("Hmm, I should reread the question carefully.", ""),
    ("Okay, that seems right so far.", ""),
    ("Let me think about what the question is really asking.", ""),
    ("So far the total looks like {x}.", "slot"),
    ("That means the result should be {x}.", "slot"),
    ("Let me verify: the total is {x}.", "slot"),
    ("Checking again, I get {x}.", "slot"),
)
_YESNO = (
    ("The passage says this happened in {a}.", ""),
    ("Let me look at the passage again.", ""),
    ("The question asks whether the statement is true.", ""),
    ("It mentions the second part only briefly.", ""),
    ("Hmm, the wording is a little ambiguous here.", ""),
    ("Wait, maybe I misread that sentence.", ""),
    ("Option A means yes and option B means no.", ""),
    ("So the answer might be {x}.", "slot"),
    ("That points to {x}.", "slot"),
)
_CHOICE = (
    ("首先看选项{l}，这个说法不太准确。", ""),
    ("再看选项{l}，好像也有问题。", ""),
    ("题目问的是哪一项正确。", ""),
    ("等等，我再确认一下。", ""),
    ("根据相关规定，应该这样理解。", ""),
    ("这里涉及的数字是{a}。", ""),
    ("嗯，这个概念需要仔细区分。", ""),
    ("所以答案可能是{x}。", "slot"),
    ("看来应该选{x}。", "slot"),
)
# A flavour is the kind of answer a task asks for, named by its spec's `sim_flavour`.
FLAVOURS = {
    "number": _NUMBER, "yesno": _YESNO, "choice": _CHOICE, "math": maths.REASONING, "code": _NUMBER
}  # fmt: skip
OPENERS = {"number": "Okay.", "yesno": "Okay.", "choice": "嗯，", "math": "Okay.", "code": "Okay."}


@dataclass(frozen=True)
class Pool:
    """A long, fixed stream of reasoning tokens and the positions of its restatement slots."""

    flavour: str
    tokens: list[str]
    slots: list[int]  # indices of restatement slots
    starts: list[int]  # indices where a sentence starts

    def take(self, offset: int, count: int, mention_from: int | None, mention: str) -> list[str]:
        """`count` tokens from the sentence start at or after `offset`, wrapping around.

        Restatement slots at index `mention_from` or later (relative to the result) say `mention`.
        """
        size = len(self.tokens)
        out: list[str] = []
        starts = self.starts
        pos = starts[bisect.bisect_left(starts, offset % size) % len(starts)]
        while len(out) < count:
            end = min(size, pos + count - len(out))
            base = len(out)
            out += self.tokens[pos:end]
            if mention_from is not None:
                lo = bisect.bisect_left(self.slots, pos)
                hi = bisect.bisect_left(self.slots, end)
                for slot in self.slots[lo:hi]:
                    rel = base + slot - pos
                    if rel >= mention_from:
                        out[rel] = mention
            pos = 0
        if out and self.flavour != "choice" and not out[0].startswith((" ", "\n")):
            out[0] = " " + out[0]  # a paragraph's first word, now following the opener
        return out


def format_slot(flavour: str, value: str) -> str:
    """How a value appears as a token inside the flavour's reasoning."""
    return value if flavour == "choice" else " " + value


@cache
def pool(flavour: str) -> Pool:
    """The reasoning pool of a flavour, built once per process (about 50 ms)."""
    rng = random.Random(f"thinkeval-sim-{flavour}")
    templates = [(tokenize(text), kind) for text, kind in FLAVOURS[flavour]]
    intern: dict[str, str] = {}
    tokens: list[str] = []
    slots: list[int] = []
    starts: list[int] = []
    since_break = 0
    while len(tokens) < POOL_TOKENS:
        if since_break >= rng.randint(4, 9):
            tokens.append("\n\n")
            since_break = 0
        since_break += 1
        parts, kind = templates[rng.randrange(len(templates))]
        starts.append(len(tokens))
        a, b = rng.randint(2, 60), rng.randint(2, 30)
        c = a * b if kind == "mul" else (2 * a if kind == "half" else a + b)
        values = {"a": str(a), "b": str(b), "c": str(c), "l": rng.choice("ABCD")}
        values["x"] = _slot_value(flavour, rng)
        for index, part in enumerate(parts):
            token = part
            if "{" in part:
                name = part.strip()[1]
                token = part.replace("{" + name + "}", values[name])
                if name == "x":
                    slots.append(len(tokens))
            if index == 0 and tokens and tokens[-1] == "\n\n":
                token = token.lstrip(" ")  # a paragraph starts without a space
            elif index == 0 and flavour != "choice" and not token.startswith(" "):
                token = " " + token
            tokens.append(intern.setdefault(token, token))
    del tokens[POOL_TOKENS:]
    return Pool(
        flavour,
        tokens,
        [s for s in slots if s < POOL_TOKENS],
        [s for s in starts if s < POOL_TOKENS],
    )


def _slot_value(flavour: str, rng: random.Random) -> str:
    if flavour == "choice":
        return rng.choice("ABCD")
    if flavour == "yesno":
        return rng.choice("AB")
    return str(rng.randint(2, 400))


def conclusion(flavour: str, value: str) -> list[str]:
    """The closing sentence of a finished think block."""
    if flavour == "choice":
        return ["所以", "答案", "是", value, "。"]
    if flavour == "math":
        return [" So", " the", " answer", " is", " $", value, "$", "."]
    if flavour == "code":
        return [" So", " the", " code", " is", " ready", "."]
    return [" So", " the", " answer", " is", " " + value, "."]


# Final-answer phrasings per flavour, as a Qwen3 model varies them. `{v}` is the answer. A number
# reply restates its solution before the answer, as real ones do, so a budget can end inside it.
_RECAP = (
    "To solve this, we work through the quantities in the question one at a time. "
    "First we find each intermediate amount from the numbers given, then we combine them, "
    "and finally we check the arithmetic once more so that nothing is counted twice.\n\n"
)
NUMBER_FORMS = (
    _RECAP + "So the total is {v}.\n\nThe answer is {v}",
    _RECAP + "Putting it all together gives {v}.\n\n\\boxed{{{v}}}",
    _RECAP + "That makes {v} in total.\n\nFinal answer: {v}",
    _RECAP + "Therefore the result is {v}.\n\n#### {v}",
)
YESNO_FORMS = ("{v}", "Answer: {v}", "{v}. {word}")
CHOICE_FORMS = (
    "分析：根据题干信息，选项{v}的说法符合题意，其余选项均有错误。\n\nanswer:{v}",
    "分析：逐一排除错误的选项后，只有{v}是正确的。\n\nanswer: {v}",
)

# Replies that finish but state no legal final answer: mid-calculation prose for numbers, and no
# option letter at all for choice tasks.
NUMBER_MALFORMED = (
    "First, {a} + {b} = {c}, and then we need to multiply that by the number of",
    "Let me compute the total: {a} times {b} is {c}, then subtract the",
    "The cost per item is {a}, so for all of them together we get",
)
YESNO_MALFORMED = (
    "The passage does not state this directly, so it is hard to tell.",
    "It depends on how the question is read; the passage is not conclusive.",
)
CHOICE_MALFORMED = (
    "分析：这道题考查相关知识点，需要结合题干综合判断，各个说法都有一定道理。",
    "分析：题目信息不足，暂时无法确定哪一项最准确。",
)


def answer_text(flavour: str, value: str, form: int) -> str:
    """The reply after the think block for a final answer `value` in the flavour's style."""
    if flavour == "yesno":
        word = "Yes" if value == "A" else "No"
        return YESNO_FORMS[form % len(YESNO_FORMS)].format(v=value, word=word)
    if flavour == "choice":
        return CHOICE_FORMS[form % len(CHOICE_FORMS)].format(v=value)
    if flavour == "math":
        return maths.FORMS[form % len(maths.FORMS)].format(v=value)
    if flavour == "code":
        return code_answer(value)
    return NUMBER_FORMS[form % len(NUMBER_FORMS)].format(v=value)


def malformed_text(flavour: str, form: int, numbers: Sequence[int]) -> str:
    """A finished reply without a legal final answer."""
    if flavour == "yesno":
        return YESNO_MALFORMED[form % len(YESNO_MALFORMED)]
    if flavour == "choice":
        return CHOICE_MALFORMED[form % len(CHOICE_MALFORMED)]
    if flavour == "code":
        return malformed_code(form)
    a, b = numbers[0], numbers[1]
    forms = maths.MALFORMED if flavour == "math" else NUMBER_MALFORMED
    return forms[form % len(forms)].format(a=a, b=b, c=a + b)
