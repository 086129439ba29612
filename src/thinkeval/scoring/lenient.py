"""The lenient scorer: exactly what AISBench 3.1 reports, truncated replies included.

AISBench turns a chat reply into one prediction and scores it in three steps, each reproduced
here with its odd parts (docs/scoring.md lists them with examples):

1. `Output.get_prediction`: content and reasoning are kept only when non-empty (a content of
   blanks *is* content); the prediction is `reasoning + "</think>" + content`, the reasoning
   alone when there is no content, the content alone when there is no reasoning.
2. The chat model config's `extract_non_reasoning_content`: without `<think>` but with
   `</think>`, what follows the last `</think>`; otherwise every `<think>…</think>` pair is
   removed and the text around it kept. Then stripped.
3. The dataset's post-processor and evaluator, named by the task spec's `lenient` rule (`RULES`).

`finish_reason` is ignored, so lenient never says `unfinished`. Statuses: `correct` when AISBench
counts the reply correct; otherwise `empty` when the text it scored is empty, `no_answer` when
its post-processor extracted nothing, else `wrong`.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable

from thinkeval.records import Status, Verdict

OPEN_THINK, CLOSE_THINK = "<think>", "</think>"
# OpenCompass gsm8k_postprocess: r"\-?\d+\.\d+|\-?\d+" after cutting at "Question:". No comma
# stripping, so "1,200" reads as 200. The same matches, written to start with a digit or a sign
# followed by one, which the regex engine scans about four times faster.
_OC_NUMBER = re.compile(r"(?:-\d|\d)\d*(?:\.\d+)?")
_TAIL_WINDOW = 512


def aisbench_prediction(content: str | None, reasoning: str | None) -> str:
    """The prediction AISBench stores for a reply (`Output.get_prediction`).

    >>> aisbench_prediction("  ", "R"), aisbench_prediction(None, "R"), aisbench_prediction("C", "")
    ('R</think>  ', 'R', 'C')
    """
    content, reasoning = content or "", reasoning or ""
    if not reasoning:
        return content
    return f"{reasoning}{CLOSE_THINK}{content}" if content else reasoning


def extract_non_reasoning(text: str) -> str:
    """AISBench's `extract_non_reasoning_content`, in linear time.

    >>> extract_non_reasoning("R</think> 18 "), extract_non_reasoning("a<think>R</think>b")
    ('18', 'ab')
    >>> extract_non_reasoning("<think>R</think>x</think>y"), extract_non_reasoning("<think>R")
    ('x</think>y', '<think>R')
    """
    if OPEN_THINK not in text and CLOSE_THINK in text:
        return text.rsplit(CLOSE_THINK, 1)[1].strip()
    # re.sub(r"<think>(.*?)</think>", "", text, flags=re.DOTALL): each leftmost <think> with a
    # </think> after it goes, up to the first such </think>; a <think> without one ends the
    # search, since no later <think> has one either.
    kept, position = [], 0
    while True:
        start = text.find(OPEN_THINK, position)
        end = text.find(CLOSE_THINK, start + len(OPEN_THINK)) if start >= 0 else -1
        if end < 0:
            break
        kept.append(text[position:start])
        position = end + len(CLOSE_THINK)
    kept.append(text[position:])
    return "".join(kept).strip()


def lenient_text(content: str | None, reasoning: str | None) -> str:
    """The text AISBench's post-processors read for a reply.

    >>> lenient_text("x</think> 18 ", "R"), lenient_text(" 18 ", "R<think>S")
    ('18', 'R 18')
    """
    if content and reasoning and OPEN_THINK not in reasoning and OPEN_THINK not in content:
        # The usual thinking reply: what follows the prediction's last </think>, found without
        # copying a long reasoning into the prediction first.
        return content.rsplit(CLOSE_THINK, 1)[-1].strip()
    return extract_non_reasoning(aisbench_prediction(content, reasoning))


def lenient_verdict(rule: str, content: str | None, reasoning: str | None, gold: str) -> Verdict:
    """Score like AISBench with post-processor `rule` (see `RULES`); `finish_reason` is ignored
    on purpose.

    >>> lenient_verdict("gsm8k", None, "Okay, 2+2 is 4, so the answer", "4").status
    'correct'
    """
    return lenient_text_verdict(rule, lenient_text(content, reasoning), gold)


def lenient_text_verdict(rule: str, text: str, gold: str) -> Verdict:
    """`lenient_verdict` of the text AISBench scores (`lenient_text`), already extracted: the
    scoring pool ships only this text to its workers, not the whole reasoning."""
    postprocess = RULES.get(rule)
    if postprocess is None:
        raise ValueError(f"unknown lenient rule {rule!r}; known rules: {', '.join(RULES)}")
    if not text:
        return Verdict("empty", rule="no-content")
    return postprocess(text, gold)


def gsm8k_equal(prediction: str, reference: str) -> bool:
    """AISBench's `Gsm8kEvaluator.is_equal`: equal strings, or within 1e-6 of the reference read
    as an integer (a reference that is not an integer only matches as the same string)."""
    try:
        return prediction == reference or abs(float(prediction) - int(reference)) < 1e-6
    except (ValueError, TypeError):
        return False


def _gsm8k(text: str, gold: str) -> Verdict:
    number = _last_oc_number(text.split("Question:")[0])
    if number is None:
        return Verdict("no_answer", rule="last-number")
    status: Status = "correct" if gsm8k_equal(number, gold) else "wrong"
    return Verdict(status, number, "last-number")


def _first_capital(text: str, gold: str) -> Verdict:
    # str.isupper is Unicode-aware: "É" and the full-width "Ｂ" are capitals too.
    answer = next((char for char in text if char.isupper()), None)
    return _letter_verdict(answer, gold, "first-capital")


def _last_option_abcd(text: str, gold: str) -> Verdict:
    # re.findall("([ABCD])", text)[-1]: the last A-D anywhere, inside words too.
    position = max(text.rfind(letter) for letter in "ABCD")
    return _letter_verdict(text[position] if position >= 0 else None, gold, "last-letter")


def _last_option_a_j(text: str, gold: str) -> Verdict:
    # The C-Eval rule widened to MMLU-Pro's ten letters: the last A-J anywhere.
    position = max(text.rfind(letter) for letter in "ABCDEFGHIJ")
    return _letter_verdict(text[position] if position >= 0 else None, gold, "last-letter")


# simple-evals' ANSWER_PATTERN_MULTICHOICE, searched once (its first match), as for GPQA.
_SIMPLE_EVALS = re.compile(r"(?i)Answer[ \t]*:[ \t]*\$?([A-D])\$?")


def _simple_evals_abcd(text: str, gold: str) -> Verdict:
    found = _SIMPLE_EVALS.search(text)
    return _letter_verdict(found.group(1) if found else None, gold, "answer-colon")


def _letter_verdict(answer: str | None, gold: str, rule: str) -> Verdict:
    if answer is None:
        return Verdict("no_answer", rule=rule)
    return Verdict("correct" if answer == gold else "wrong", answer, rule)


def _aime(text: str, gold: str) -> Verdict:
    # The maths rules live in their own module, imported by runs that score maths only.
    from thinkeval.scoring.lenient_math import aime_verdict

    return aime_verdict(text, gold)


def _math(text: str, gold: str) -> Verdict:
    from thinkeval.scoring.lenient_math import math_verdict

    return math_verdict(text, gold)


def _ifeval(text: str, gold: str) -> Verdict:
    # IFEval's loose prompt-level reading of the text AISBench scores (which it strips).
    from thinkeval.scoring.kinds.instructions import instruction_verdict

    return instruction_verdict(text, gold, loose=True)


def _bfcl(text: str, gold: str) -> Verdict:
    # Text is never a tool call: the lenient scorer judges a tool-calling kind's parsed calls
    # before any text rule, so this is reached only for a reply read as text alone.
    return Verdict("wrong", rule="bfcl: no parsed call")


# AISBench's post-processors and evaluators by name; a task spec names the one its AISBench
# dataset config uses.
def _code(text: str, gold: str) -> Verdict:
    # The code kind on the text AISBench scores (reasoning included, truncation ignored).
    from thinkeval.scoring.kinds.code import CodeKind

    kind = CodeKind()
    found = kind.find(text)
    return kind.explain(found, gold) if found is not None else Verdict("no_answer")


RULES: dict[str, Callable[[str, str], Verdict]] = {
    "gsm8k": _gsm8k,  # gsm8k_postprocess + Gsm8kEvaluator
    "first-capital": _first_capital,  # first_capital_postprocess + AccEvaluator (BoolQ)
    "last-option-ABCD": _last_option_abcd,  # last_option_postprocess + AccEvaluator (C-Eval)
    "aime": _aime,  # math_postprocess_v2 + MATHEvaluator(version="v2") (AIME)
    "math": _math,  # Math-Verify's parse and verify, as its MATHEvaluator (MATH-500)
    "last-option-A-J": _last_option_a_j,  # MMLU-Pro: the last of its ten letters
    "simple-evals-ABCD": _simple_evals_abcd,  # simple-evals' GPQA regex (first match)
    "ifeval-loose": _ifeval,  # IFEvaluator's loose prompt-level accuracy
    "code": _code,  # the final Python block of the text, run against the tests (HumanEval)
    "bfcl": _bfcl,  # BFCL's own runner reads the parsed calls (the scorer passes them first)
}
# Rules too slow for the event loop: Math-Verify on the whole reply (MATH-500's, as AISBench
# scores it), IFEval's checkers on it, and the code rule, which runs the program. The lenient
# scorer says so (`pooled_for`), and the scoring pool runs it in a worker.
SLOW_RULES = frozenset({"math", "ifeval-loose", "code"})


def _last_oc_number(text: str) -> str | None:
    # Scanning a whole reply costs ~60 ns a character. A match holds only "-", "." and digits,
    # so a scan that starts right after any other character finds the same last match: scan
    # a tail window from such a point, widening it until a number turns up or the text runs out.
    window = _TAIL_WINDOW
    while True:
        start = max(0, len(text) - window)
        while start > 0 and _in_number(text[start - 1]):
            start -= 1
        last = deque(_OC_NUMBER.finditer(text, start), maxlen=1)
        if last:
            return last[0].group()
        if start == 0:
            return None
        window *= 4


def _in_number(char: str) -> bool:
    return char in "-." or char.isdecimal()  # \d is any Unicode decimal digit
