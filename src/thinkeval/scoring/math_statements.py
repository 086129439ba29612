"""Where a mathematical reply states its final answer, and what that answer is. Plain string
scanning, no parsing: the math answer kind locates answers here and Math-Verify reads them.

In order, the first rule that finds an answer wins (`final_answer`):

1. `json-answer`: the answer field of a reply written as JSON (`scoring.json_answer`);
2. `boxed`: the last complete, non-empty `\\boxed{}` (or `\\fbox{}`), wherever it is;
3. `final-answer`: the last explicit statement (`The final answer is $x$`, `the answer should be
   1`, `**Answer:** 204`, `答案应该是 5`) whose value is an expression, or
   `cue-refers-back`: a cue that ends its own sentence (`So the point is $(15, -29)$. I think
   that's the final answer.`) names the sentence before it, never the next one;
4. `last-sentence`: the value the closing sentence of the reply states (`Therefore, the degree
   of $f(x)$ is 3.`, `所以排列数为 12。`).

A statement's value is a math span right after it (`$...$`, `\\(...\\)`, `\\[...\\]`), else its
clause up to the end of the sentence: kept when it reads as an expression (`(15, -29)`, `3/4`),
cut to its number when words without another number follow it (`9 customers`, `5, since ...`,
`7 个`; not `2 and 3`), a number word
read as digits (`three boxes`); anything else (`that no such integer exists`) is no value, and
the statement is passed over. A statement inside a question (`is that the final answer?`) states
nothing.
"""

from __future__ import annotations

import re

from thinkeval.scoring.json_answer import json_answer
from thinkeval.scoring.latex import last_boxed
from thinkeval.scoring.numbers import number_word_at, word_value
from thinkeval.scoring.sentences import (
    Questions,
    closing_sentence,
    refers_back,
    sentence_before,
)
from thinkeval.scoring.text import ascii_lower

# Not "would be" / "could be": a hypothesis ("if r were 2, the answer would be 4") states no answer.
_MODAL = r"(?:should|must|will)\s+be"
# Statements of a final answer, searched in the ASCII-lower-cased text.
_STATEMENT = re.compile(
    rf"final\s+answer(?:\s+(?:is|was|{_MODAL}))?|the\s+answer\s+(?:is|was|{_MODAL})"
    r"|answer\s*\**\s*:|答案\s*(?:应该|应当|应|就|也|即|便)?\s*(?:是|为|:)"
)
# What may sit between a statement and its value: markdown, colons, "is", adverbs.
_LEAD = re.compile(
    r"(?:[\s*_:]|(?:is|indeed|simply|just|clearly|actually|probably|likely|definitely"
    r"|exactly|still|then|now|therefore|thus)\b)*"
)
# What states a value inside a closing sentence; the last one counts.
_VALUE_CUE = re.compile(
    r"\b(?:is|are|was|equals|equal\s+to|becomes|simplifies\s+to|reduces\s+to|comes\s+to"
    r"|gives|get|gets|yields|obtain)\b|=|等于|得到|为|是|得"
)
_MATH_SPANS = (("$$", "$$"), ("\\[", "\\]"), ("\\(", "\\)"), ("$", "$"))
# Cues read, newest first: a statement with more than this many cues after it is not final, and
# the bound keeps a reply of thousands of valueless cues fast.
_MAX_CUES = 64
# A statement's clause ends with its sentence (a full stop before a blank, ;, !, ?, a line end;
# LaTeX's `\!` and `\;` are spacing).
_CLAUSE_END = re.compile(r"\.(?=\s|$)|(?<!\\)[;!]|[?。；！？\n]")
# A number then words: "9 customers", "5, since ...", "12 square units", "7 个".
# A blank (or a comma) parts them, except before Chinese: "0.5Yes" is no number and a word.
_NUMBER_THEN_WORDS = re.compile(
    r"(-?\d+(?:\.\d+)?(?:/\d+)?)(?=,?\s+[^\W\d_]|,[^\W\d_]|\s*[\u4e00-\u9fff])"
)
_COMMAND = re.compile(r"\\[A-Za-z]+")
# Words inside LaTeX text (`x = 2 \text{ or } x = 3`, `5\text{ cm}`) belong to the expression.
_TEXT_GROUP = re.compile(r"\\(?:text|mbox|mathrm|textrm|operatorname)\s*\{[^{}]*\}")
_WORD = re.compile(r"[A-Za-z]{2,}")
# Words an expression written without LaTeX may hold.
_MATH_WORDS = frozenset({"sqrt", "pi", "ln", "log", "sin", "cos", "tan", "inf", "infty", "mod"})
_CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff]")


def final_answer(text: str) -> tuple[str, str, bool] | None:
    """`(answer, rule, readable)` by the rules in the module doc, or None. `readable` is False
    for a JSON answer field that is no expression (`"either root works"`).

    >>> final_answer("The answer is 3, i.e. $\\\\boxed{3}$.")
    ('3', 'boxed', True)
    >>> final_answer("So the answer is 9 customers.")
    ('9', 'final-answer', True)
    >>> final_answer("No conclusion here.") is None
    True
    """
    in_json, field = json_answer(text)
    if in_json:
        if field is None:
            return None
        value = plain_value(field)
        if value is None:
            return field, "json-answer: not an expression", False
        return value, "json-answer", True
    boxed = last_boxed(text)
    if boxed is not None:
        return boxed, "boxed", True
    stated = stated_answer(text)
    if stated is not None:
        return stated[0], stated[1], True
    last_line = text.strip().rsplit("\n", 1)[-1].strip()
    sentence = closing_sentence(last_line)
    value = sentence_value(sentence) if sentence else None
    return (value, "last-sentence", True) if value is not None else None


def stated_answer(text: str) -> tuple[str, str] | None:
    """`(value, rule)` of the last explicit statement or back-referring cue with a value.

    >>> stated_answer("Thus x = 2.\\n\\n**Final Answer:** $\\\\dfrac{1}{2}$.")
    ('\\\\dfrac{1}{2}', 'final-answer')
    >>> stated_answer("So $x = 5$. That's the final answer. Unless x is 6.")
    ('5', 'cue-refers-back')
    """
    lowered = ascii_lower(text)
    cues = [(m.start(), m.end(), "final-answer") for m in _STATEMENT.finditer(lowered)]
    cues += [(m.start(), m.end(), "cue-refers-back") for m in refers_back(lowered)]
    questions = Questions(text)
    for start, end, rule in sorted(cues, reverse=True)[:_MAX_CUES]:
        if rule == "cue-refers-back":
            before = sentence_before(text, start)
            sentence = closing_sentence(before) if before else None
            value = sentence_value(sentence) if sentence else None
        else:
            lead = _LEAD.match(text, end)
            value = _value_at(text, lead.end() if lead else end)
            # "Is that the final answer? It seems ..." asks, it states nothing.
            value = None if value and questions.asks(end) else value
        if value:
            return value, rule
    return None


def sentence_value(sentence: str) -> str | None:
    """The value a sentence (without its terminator) states: after the `=` of an equation
    that ends it, else after its last cue (`is`, `equals`, `simplifies to`, `为`, `是`, ...).

    >>> sentence_value("Thus $a + b = 2 + 3 = 5$"), sentence_value("The degree of $f$ is 3")
    ('5', '3')
    >>> sentence_value("This is because the function is even") is None
    True
    """
    body = re.split(r"[;；]", sentence)[-1].rstrip()  # "... $x$ in one case; the other remains"
    span = _closing_span(body)
    if span is not None:
        inside, begin = span
        if "=" in inside and not re.search(r",|\\text\{\s*or|\bor\b", inside):
            return inside.rsplit("=", 1)[1].strip() or None
        before = ascii_lower(body[:begin]).rstrip()
        cue = _last_cue(before)
        return inside.strip() or None if cue is not None and cue.end() == len(before) else None
    cue = _last_cue(ascii_lower(body))
    if cue is None:
        return None
    lead = _LEAD.match(body, cue.end())
    return _value_at(body, lead.end() if lead else cue.end())


def plain_value(clause: str) -> str | None:
    """A clause as a value: itself when it reads as an expression, its number when words
    without another number follow it, a number word as digits; else None.

    >>> plain_value("(15, -29)"), plain_value("9 customers"), plain_value("three boxes")
    ('(15, -29)', '9', '3')
    >>> plain_value("that no such integer exists"), plain_value("2 and 3")
    (None, None)
    """
    value = clause.strip(" \t*_,.")
    if not value:
        return None
    if _reads_as_expression(value):
        return value
    number = _NUMBER_THEN_WORDS.match(value)
    if number is not None and not any(char.isdigit() for char in value[number.end() :]):
        return number.group(1)  # words with another number ("2 and 3") name no single value
    return word_value(number_word_at(ascii_lower(value), 0))


def _value_at(text: str, start: int) -> str | None:
    for opener, closer in _MATH_SPANS:
        if text.startswith(opener, start):
            begin = start + len(opener)
            end = text.find(closer, begin)
            if end < 0 or "\n\n" in text[begin:end]:
                break  # no span after all: "$721" is a price, read as the clause
            return text[begin:end].strip() or None
    clause_end = _CLAUSE_END.search(text, start)
    return plain_value(text[start : clause_end.start() if clause_end else len(text)])


def _closing_span(body: str) -> tuple[str, int] | None:
    """The math span that ends `body`, as `(content, where it opens)`, or None."""
    for opener, closer in _MATH_SPANS:
        if body.endswith(closer) and len(body) > len(opener) + len(closer):
            begin = body.rfind(opener, 0, len(body) - len(closer))
            if begin >= 0:
                return body[begin + len(opener) : len(body) - len(closer)], begin
    return None


def _last_cue(lowered: str) -> re.Match[str] | None:
    last = None
    for last in _VALUE_CUE.finditer(lowered):  # noqa: B007 - the last one is wanted
        pass
    return last


def _reads_as_expression(value: str) -> bool:
    """No prose: no CJK, and no word of two letters or more but LaTeX commands and a few
    function names (`sqrt`, `pi`, `log`)."""
    if _CJK.search(value):
        return False
    bare = _COMMAND.sub(" ", _TEXT_GROUP.sub(" ", value))
    return all(word.lower() in _MATH_WORDS for word in _WORD.findall(bare))
