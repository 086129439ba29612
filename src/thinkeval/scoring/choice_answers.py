"""Final choices of multiple-choice replies: C-Eval letters, BoolQ letters or yes/no.

A few-shot continuation and a note after the answer are read only when nothing before them
gives an answer (`text.answer_regions`). Then, in order:

1. the last statement: an answer cue (`答案`, `选`, `正确选项`, `answer`, `final answer`, `the
   correct option is`, `I choose`, `\\boxed{}`) followed closely by one standalone option;
2. a last line that is only the option (`B`, `**B**`, `(B)`, `No.`);
3. an assessment: exactly one option called correct (`选项 B 是正确的`, `D项当选`, `Option C is
   correct`, `B is the correct answer`);
4. answer first: a first line that starts with the option (`A. Yes`, `**A**`, `Yes, it is.`),
   unless other lines start with other options (the reply lists the options, it chose none).

An option joined to another (`A or B`, `A、C`) is a hedge, never a choice. An option may be
named by its Chinese wording before its letter in brackets (`答案：错误（B）`, `是（A）`): the
letter counts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from thinkeval.scoring.text import answer_regions, ascii_lower

_YES = ("yes", "true", "是的", "是", "对", "正确")
_NO = ("no", "false", "不是", "否", "不对", "错误")
_YES_NO = {word: "A" for word in _YES} | {word: "B" for word in _NO}

# Cues, searched in the ASCII-lower-cased text; each has a literal that must occur for it to
# match, so absent cues cost one substring test. Negated verbs ("不选A", "not choose A") are no
# cue.
_NEGATIONS = ("不", "不能", "不应", "可", "候", "备", "单", "多", "勿")
_NOT_BEFORE_选 = "".join(f"(?<!{n})" for n in _NEGATIONS)
_CUES: tuple[tuple[str, str, re.Pattern[str]], ...] = (
    ("final answer", "answer", re.compile(r"final\s+answer")),
    (
        "the answer is",
        "answer",
        re.compile(r"answer\s+(?:is|would\s+be|should\s+be|seems\s+to\s+be|=)"),
    ),
    ("answer:", "answer", re.compile(r"answer[ \t*]{0,4}(?::|\n)")),
    (
        "correct option is",
        "is",
        re.compile(r"(?:correct|right|best)\s+(?:option|choice)\s+(?:is|would\s+be)"),
    ),
    (
        "choose",
        "",
        re.compile(
            r"(?<!not )(?<!n't )\b(?:choose|chose|select|pick|go\s+with)(?:\s+(?:option|choice))?"
        ),
    ),
    ("答案", "答案", re.compile(r"答案(?:选项)?\s*(?:应该?|应当)?\s*(?:[为是选]|选择|:|\n)")),
    ("正确选项", "正确", re.compile(r"正确(?:的)?(?:答案|选项|一项|项)?\s*(?:应?[为是]|:)")),
    ("选", "选", re.compile(_NOT_BEFORE_选 + r"选(?:择|定)?(?!项)(?:\s*(?:选项|项|option))?")),
    ("boxed", "\\boxed", re.compile(r"\\boxed\s*\{")),
)
# Markdown, brackets and LaTeX allowed between a cue and its option: "**Answer:** (B)",
# "答案：$\\mathrm{B}$".
_GAP = r"[\s*_:(\[{\"'“‘【$\\]{0,16}(?:(?:text|textbf|mathrm|mathbf)\s*\{[\s$]*)?"
# An option's Chinese wording before its letter in brackets: "答案：错误（B）", "是（A）".
_WORDED = r"(?:[\u4e00-\u9fff]{1,8}\s*[(\[【]\s*)?"
# Words calling an option correct, after it: "B is correct", "选项B正确", "D项当选".
_POSITIVE = (
    r"(?:正确|对的|当选|符合题意|is\s+(?:correct|right)|is\s+the\s+(?:correct|right|best)"
    r"\s+(?:answer|option|choice))(?![A-Za-z])"
)
_POSITIVE_NEEDLES = ("正确", "对的", "当选", "符合题意", "correct", "right", "best")


@dataclass(frozen=True)
class _Patterns:
    stated: re.Pattern[str]
    bare_line: re.Pattern[str]
    first_line: re.Pattern[str]
    assessment: re.Pattern[str]
    label: re.Pattern[str]


def _compile(letters: str, yes_no: bool) -> _Patterns:
    # A standalone capital: "answer: B" yes, "answer: Because" no; "A or B" is no statement.
    hedge = rf"(?!\s*(?:or|and|/|或|和|、)\s*[(\[]?(?:[A-H{letters}](?![A-Za-z0-9_])|yes|no\b))"
    letter = rf"[{letters}](?![A-Za-z0-9_]){hedge}"
    words = "|".join(_YES[:2] + _NO[:2])
    chinese = "|".join(sorted(_YES[2:] + _NO[2:], key=len, reverse=True))
    slot = letter
    if yes_no:
        slot = (
            f"(?:{letter}|(?i:{words})(?![A-Za-z]){hedge}"
            rf"|(?:{chinese})(?=[\s.,，。!！:：*)）】\"”(\[【]|$))"
        )
    stated = re.compile(f"{_GAP}{_WORDED}(?P<x>{slot})")
    # A last line that is only the answer: "B", "**B**", "(B)", "[B]", "B.", "No."
    bare_line = re.compile(rf"[*_#\s\"'“(\[【]*{_WORDED}(?P<x>{slot})[*_\s\"'”)\]】.!。]*")
    # A first line that starts with the answer: "A. Yes", "(B) Paris", "D. 成本", "Yes, it is."
    opener = r"[*_#\s\"'“(\[【]*"
    closer = r"[*_\s\"'”)\]】]*"
    first = rf"{opener}(?P<x>{letter}){closer}(?:[.:：、)．。]|$)"
    if yes_no:
        first += rf"|{opener}(?P<y>{slot}){closer}(?:[.,，:：!！。—–-]|$)"
    first_line = re.compile(first)
    assessment = re.compile(
        rf"(?<![A-Za-z0-9_])(?:选项|option\s*)?[(\[【]?(?P<x>[{letters}])(?![A-Za-z0-9_])"
        rf"[)\]】]?\s*(?:项|选项)?\s*[:：.、,，]?\s*(?:也|都|同样|亦)?\s*(?:是|为)?\s*{_POSITIVE}",
        re.IGNORECASE,
    )
    label = re.compile(rf"^[*_#\s\-(\[【]*(?P<x>[{letters}])\s*[.:：、)）]", re.MULTILINE)
    return _Patterns(stated, bare_line, first_line, assessment, label)


class ChoiceFinder:
    """Finds the final choice of one of `letters` in a reply (module doc for the rules).

    With `yes_no`, the words yes/true and no/false (是/否, ...) also count, as the first and
    second letter.

    >>> ChoiceFinder("ABCD").find("选项A错误。答案:C")
    ('C', '答案')
    >>> ChoiceFinder("ABCD").find("综上所述，选B。")
    ('B', '选')
    >>> ChoiceFinder("AB", yes_no=True).find("Yes, it is. The passage clearly states this.")
    ('A', 'option-text')
    """

    def __init__(self, letters: str, yes_no: bool = False) -> None:
        self.letters = letters
        self._yes_no = yes_no
        # Compiled on first use: every task's kind is built when the registry loads, and a run
        # of other tasks should not pay for these patterns at start-up.
        self._patterns: _Patterns | None = None

    def find(self, text: str) -> tuple[str, str] | None:
        """`(letter, rule)` of the final choice in `text`, or None."""
        if self._patterns is None:
            self._patterns = _compile(self.letters, self._yes_no)
        for region in answer_regions(text):
            found = _find(region, self._patterns)
            if found is not None:
                return found
        return None


def _find(text: str, patterns: _Patterns) -> tuple[str, str] | None:
    lowered = ascii_lower(text)
    found = _statement(text, lowered, patterns)
    if found is not None:
        return found
    lines = [line.strip() for line in text.strip().split("\n") if line.strip()]
    bare = patterns.bare_line.fullmatch(lines[-1])
    if bare:
        return _letter(bare.group("x")), "bare-answer"
    if any(needle in lowered for needle in _POSITIVE_NEEDLES):
        called = {m.group("x").upper() for m in patterns.assessment.finditer(text)}
        if len(called) == 1:
            return called.pop(), "assessment"
    first = patterns.first_line.match(lines[0])
    if first:
        answer = _letter(first.group("x") or first.groupdict()["y"])
        others = {m.group("x") for m in patterns.label.finditer(text)} - {answer}
        if not others:
            return answer, "option-text" if len(lines) == 1 else "answer-first"
    return None


def _statement(text: str, lowered: str, patterns: _Patterns) -> tuple[str, str] | None:
    best: tuple[int, int, str, str] | None = None  # (position, -priority, answer, rule)
    for priority, (rule, needle, cue) in enumerate(_CUES):
        if needle not in lowered:
            continue
        for found in cue.finditer(lowered):
            match = patterns.stated.match(text, found.end())
            if match:
                candidate = (match.start("x"), -priority, _letter(match.group("x")), rule)
                best = candidate if best is None or candidate[:2] > best[:2] else best
    return (best[2], best[3]) if best is not None else None


def _letter(word: str) -> str:
    return _YES_NO.get(word.lower(), word)
