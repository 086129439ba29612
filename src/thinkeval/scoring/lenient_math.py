"""AISBench's scoring of AIME and MATH-500, reproduced step for step (docs/scoring.md).

* `aime` (AIME 2024/2025 chat configs): `math_postprocess_v2` picks the last `\\boxed{}` (else
  the first sentence saying "final answer" or "answer is", else the first sentence) and
  `MATHEvaluator(version="v2").is_equiv` compares it with the gold after a chain of string
  rewrites. The rewrites are AISBench's, oddities included (`"and"` is deleted anywhere, a
  `\\fbox{}` or `\\boxed\\text{}` makes AISBench raise, `0.5` is not `1/2`).
* `math` (MATH-500's chat config): no post-processor; Math-Verify parses the gold and the
  prediction exactly as AISBench's `MATHEvaluator` calls it, and `verify` decides.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from thinkeval.records import Status, Verdict

# normalize_final_answer's literal substitutions and deletions, in order.
_SUBSTITUTIONS = (
    ("an ", ""), ("a ", ""), (".$", "$"), ("\\$", ""), ("\\ ", ""), (" ", ""), ("mbox", "text"),
    (",\\text{and}", ","), ("\\text{and}", ","), ("\\text{m}", "\\text{}"), ("\\le", "<"),
)  # fmt: skip
_DELETIONS = (
    "square", "ways", "integers", "dollars", "mph", "inches", "ft", "hours", "km", "units",
    "\\ldots", "sue", "points", "feet", "minutes", "digits", "cents", "degrees", "cm", "gm",
    "pounds", "meters", "meals", "edges", "students", "childrentickets", "multiples", "\\text{s}",
    "\\text{.}", "\\text{\ns}", "\\text{}^2", "\\text{}^3", "\\text{\n}", "\\text{}",
    r"\mathrm{th}", r"^\circ", r"^{\circ}", r"\;", r",\!", "{,}", '"', "\\dots", "\n", "\r", "\f",
)  # fmt: skip
_UNWRAP = tuple(
    (re.compile(pattern), r"\2")
    for pattern in (
        r"(\\text\{)\((.*?)\)(\})",
        r"(\\text\{)(.*?)(\})",
        r"(\\textbf\{)(.*?)(\})",
        r"(\\overline\{)(.*?)(\})",
        r"(\\boxed\{)(.*)(\})",
    )
)
_LAST_OF = tuple(
    re.compile(pattern)
    for pattern in (r"finalansweris(.*)", r"answer?is:?(.*)", r"oxed\{(.*?)\}", r"\$(.*?)\$")
)
_FRAC_SHORTHAND = re.compile(r"(frac)([^{])(.)")
_SQRT_SHORTHAND = re.compile(r"(sqrt)([^{])")
_ANSWER_SENTENCE = re.compile("final answer|answer is")
_DOUBLE_BRACES = re.compile(r"^\{(.*)\}$")
_TRAILING_TEXT = re.compile(r"\\text{.*?}$")
_MBOX = re.compile(r"\\mbox{.*?}")
_POINT_ZEROS = re.compile(r"(\d+)\.0+([^\d])")
_POINT_ZEROS_END = re.compile(r"(\d+)\.0+$")
_SQRT_WORD = re.compile(r"\\sqrt(\w+)")


class AisbenchRaises(Exception):
    """AISBench's own code raises on this prediction (its evaluation of the dataset fails)."""


def normalize_final_answer(answer: str) -> str:
    """AISBench's (Minerva's) `normalize_final_answer`."""
    for before, after in _SUBSTITUTIONS:
        answer = answer.replace(before, after)
    for deleted in _DELETIONS:
        answer = answer.replace(deleted, "")
    for pattern, replacement in _UNWRAP:
        answer = pattern.sub(replacement, answer)
    for pattern in _LAST_OF:
        found = pattern.findall(answer)
        if found:
            answer = found[-1]
    answer = answer.strip()
    if "rac" in answer and "\\frac" not in answer:
        answer = answer.replace("rac", "\\frac")
    answer = _FRAC_SHORTHAND.sub("frac{\\2}{\\3}", answer)
    answer = _SQRT_SHORTHAND.sub("sqrt{\\2}", answer).replace("$", "")
    if answer.replace(",", "").isdigit():
        answer = answer.replace(",", "")
    return answer


def last_boxed(text: str) -> str | None:
    """The last `\\boxed{...}` (else `\\fbox`) with balanced braces, or None."""
    start = text.rfind("\\boxed")
    if start < 0:
        start = text.rfind("\\fbox")
        if start < 0:
            return None
    depth = 0
    for index in range(start, len(text)):
        char = text[index]
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return text[start : index + 1]
    return None


def math_postprocess_v2(text: str) -> str:
    """AISBench's `math_postprocess_v2`; raises `AisbenchRaises` where AISBench raises."""
    boxed = last_boxed(text)
    if boxed is not None:
        if not (boxed.startswith("\\boxed{") and boxed.endswith("}")):
            raise AisbenchRaises("remove_boxed: not of the form \\boxed{...}")
        inner = boxed[len("\\boxed{") : -1]
        doubled = _DOUBLE_BRACES.match(inner)
        if doubled:
            inner = doubled.group(1)
        if inner:
            return inner
    for sentence in text.split("."):
        if _ANSWER_SENTENCE.search(sentence.lower()):
            return normalize_final_answer(sentence)
    return normalize_final_answer(text.split(".")[0])


def _fix_fracs(string: str) -> str:
    pieces = string.split("\\frac")
    rebuilt = pieces[0]
    for piece in pieces[1:]:
        rebuilt += "\\frac"
        if piece[:1] == "{":
            rebuilt += piece
            continue
        if len(piece) < 2:
            return string
        numerator, second, rest = piece[0], piece[1], piece[2:]
        if second != "{":
            rebuilt += "{" + numerator + "}{" + second + "}" + rest
        else:
            rebuilt += "{" + numerator + "}" + second + rest
    return rebuilt


def _fix_a_slash_b(string: str) -> str:
    parts = string.split("/")
    if len(parts) != 2:
        return string
    try:
        numerator, denominator = int(parts[0]), int(parts[1])
    except ValueError:
        return string
    if string != f"{numerator}/{denominator}":
        return string
    return "\\frac{" + str(numerator) + "}{" + str(denominator) + "}"


_PLAIN_STEPS: tuple[tuple[str, str], ...] = (
    ("\\!", ""), ("\\ ", ""), ("\\\\", "\\"), ("\\\\", "\\"), ("tfrac", "frac"),
    ("dfrac", "frac"), ("\\left", ""), ("\\right", ""),
)  # fmt: skip
_AFTER_TEXT_STEPS: tuple[tuple[str, str], ...] = (
    ("^{\\circ}", ""), ("^\\circ", ""), ("\\$", ""), ("$", ""), ("\\text", ""), ("x\\in", ""),
    ("\\%", ""), ("%", ""), (" .", " 0."), ("{.", "{0."), ("\\cdot", ""),
    ("infinity", "\\infty"),
)  # fmt: skip


def strip_string_v2(string: str) -> str:
    """AISBench's `MATHEvaluator._strip_string_v2`."""
    string = string.strip().replace("\n", "").rstrip(".")
    for before, after in _PLAIN_STEPS:
        string = string.replace(before, after)
    without_text = _TRAILING_TEXT.sub("", string).strip()
    if without_text not in ("", string):
        string = without_text
    for before, after in _AFTER_TEXT_STEPS:
        string = string.replace(before, after)
    if "\\infty" not in string:
        string = string.replace("inf", "\\infty")
    string = string.replace("+\\inity", "\\infty").replace("and", "").replace("\\mathbf", "")
    string = _MBOX.sub("", string)
    if "j" in string and "i" not in string:
        string = string.replace("j", "i")
    string = _POINT_ZEROS_END.sub(r"\1", _POINT_ZEROS.sub(r"\1\2", string))
    if not string:
        return string
    if string[0] == ".":
        string = "0" + string
    sides = string.split("=")
    if len(sides) == 2 and len(sides[0]) <= 2:
        string = sides[1]
    string = _SQRT_WORD.sub(r"\\sqrt{\1}", string).replace(" ", "")
    return _fix_a_slash_b(_fix_fracs(string))


def is_equiv_v2(prediction: str, gold: str) -> bool:
    """AISBench's `MATHEvaluator(version="v2").is_equiv`."""
    try:
        first, second = strip_string_v2(prediction), strip_string_v2(gold)
        if first == second or normalize_final_answer(first) == normalize_final_answer(second):
            return True
    except Exception:  # AISBench swallows every error here
        pass
    try:
        if normalize_final_answer(prediction) == normalize_final_answer(gold):
            return True
    except Exception:
        pass
    return prediction == gold


def aime_verdict(text: str, gold: str) -> Verdict:
    """The `aime` lenient rule: math_postprocess_v2, then is_equiv v2."""
    try:
        answer = math_postprocess_v2(text)
    except AisbenchRaises as exc:
        return Verdict("no_answer", rule=f"aisbench-raises: {exc}")
    status: Status = "correct" if is_equiv_v2(answer, gold) else "wrong" if answer else "no_answer"
    return Verdict(status, answer or None, "math-postprocess-v2")


_MathVerify = Callable[[str, str], tuple[bool, str | None]]
_math_verify: _MathVerify | None = None


def _load_math_verify() -> _MathVerify:
    global _math_verify
    if _math_verify is None:
        from latex2sympy2_extended import NormalizationConfig  # type: ignore[import-untyped]
        from math_verify import (  # type: ignore[import-untyped]
            ExprExtractionConfig,
            LatexExtractionConfig,
            parse,
            verify,
        )

        gold_config = [LatexExtractionConfig(), ExprExtractionConfig()]
        normalization = NormalizationConfig(
            nits=False,
            malformed_operators=False,
            basic_latex=True,
            equations=True,
            boxed="all",
            units=True,
        )
        answer_config = [
            LatexExtractionConfig(
                normalization_config=normalization,
                boxed_match_priority=0,
                try_extract_without_anchor=False,
            )
        ]

        def check(prediction: str, gold: str) -> tuple[bool, str | None]:
            parsed_gold = parse(gold, extraction_mode="first_match", extraction_config=gold_config)
            if not parsed_gold:
                parsed_gold = parse(
                    f"${gold}$", extraction_mode="first_match", extraction_config=gold_config
                )
            if not parsed_gold:
                return False, None  # AISBench counts the sample, never as correct
            parsed = parse(
                prediction, extraction_config=answer_config, extraction_mode="first_match"
            )
            answer = str(parsed[-1]) if parsed else None
            return bool(verify(parsed, parsed_gold)), answer

        _math_verify = check
    return _math_verify


def math_verdict(text: str, gold: str) -> Verdict:
    """The `math` lenient rule: Math-Verify with AISBench's MATH-500 settings."""
    correct, answer = _load_math_verify()(text, gold)
    if correct:
        return Verdict("correct", answer, "math-verify")
    return Verdict("wrong" if answer is not None else "no_answer", answer, "math-verify")
