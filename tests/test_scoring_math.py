"""The math answer kind: where the final answer is, and Math-Verify equivalence with the gold."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from thinkeval.api import score
from thinkeval.records import Sample
from thinkeval.scoring.kinds import make_kind
from thinkeval.scoring.kinds import math as math_kind
from thinkeval.scoring.strict import strict_verdict
from thinkeval.tasks import get_task, load_samples

KIND = make_kind("math")

# (gold, answer): equivalent forms that must count as correct.
EQUIVALENT = [
    ("\\frac12", "0.5"),
    ("\\frac{1}{2}", "0.5"),
    ("0.5", "\\frac{1}{2}"),
    ("\\frac{14}{3}", "\\dfrac{14}{3}"),
    ("\\frac{14}{3}", "\\tfrac{14}{3}"),
    ("\\frac{14}{3}", "14/3"),
    ("90^\\circ", "90"),
    ("90", "90^\\circ"),
    ("(1,2]", "(1, 2]"),
    ("[-2, 5)", "[-2,5)"),
    ("(-\\infty, 3)", "(-\\infty,3)"),
    ("3", "x=3"),
    ("x=3", "3"),
    ("\\text{(B)}", "B"),
    ("B", "\\text{(B)}"),
    ("025", "25"),
    ("25", "025"),
    ("\\left( 3, \\frac{\\pi}{2} \\right)", "(3, \\frac{\\pi}{2})"),
    ("\\left( 3, \\frac{\\pi}{2} \\right)", "\\left(3,\\pi/2\\right)"),
    ("\\text{Evelyn}", "Evelyn"),
    ("\\text{Evelyn}", "\\text{Evelyn}"),
    ("6 - 5i", "6-5i"),
    ("\\frac{\\sqrt{2}}{2}", "\\sqrt{2}/2"),
    ("\\frac{\\sqrt{2}}{2}", "\\frac{1}{\\sqrt{2}}"),
    ("2\\sqrt{3}", "\\sqrt{12}"),
    ("1200", "1,200"),
    ("\\$18", "18"),
    ("\\frac{\\sqrt{6}}{3}", "\\sqrt{\\frac{2}{3}}"),
    ("x^2+1", "1+x^2"),
    ("\\{1,2\\}", "\\{2,1\\}"),
    ("1,2", "2, 1"),
    ("\\infty", "\\infty"),
    ("\\pi", "\\pi"),
    ("5\\text{ cm}", "5"),
    ("-\\frac{1}{3}", "\\frac{-1}{3}"),
    ("\\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix}", "\\begin{pmatrix}1\\\\2\\end{pmatrix}"),
]

# (gold, answer): close but wrong, or a different kind of object.
NOT_EQUIVALENT = [
    ("\\frac{14}{3}", "4.67"),
    ("\\frac{14}{3}", "\\frac{3}{14}"),
    ("5", "4.9"),
    ("25", "250"),
    ("025", "52"),
    ("[1,2)", "(1,2)"),
    ("(-\\infty, 3)", "(-\\infty,3]"),
    ("\\pi", "3.14159"),
    ("\\frac{\\sqrt{3}}{2}", "0.866"),
    ("6-5i", "6+5i"),
    ("\\text{(B)}", "C"),
    ("\\text{Evelyn}", "Emily"),
    ("x=3", "4"),
    ("2\\sqrt{3}", "\\sqrt{3}"),
    ("-\\frac{1}{3}", "\\frac{1}{3}"),
    ("\\left( 3, \\frac{\\pi}{2} \\right)", "(3, \\pi)"),
]


@pytest.mark.parametrize(("gold", "answer"), EQUIVALENT)
def test_equivalent_forms_are_correct(gold: str, answer: str) -> None:
    assert KIND.matches(answer, gold)
    verdict = strict_verdict(KIND, f"So the answer is $\\boxed{{{answer}}}$.", "stop", gold)
    assert (verdict.status, verdict.answer, verdict.rule) == ("correct", answer, "boxed")


@pytest.mark.parametrize(("gold", "answer"), NOT_EQUIVALENT)
def test_close_but_different_answers_are_wrong(gold: str, answer: str) -> None:
    assert not KIND.matches(answer, gold)
    verdict = strict_verdict(KIND, f"Therefore $\\boxed{{{answer}}}$.", "stop", gold)
    assert (verdict.status, verdict.answer) == ("wrong", answer)


def test_pair_lists_hold_at_least_forty_pairs() -> None:
    assert len(EQUIVALENT) + len(NOT_EQUIVALENT) >= 40


@pytest.mark.parametrize(
    ("gold", "answer"),
    [*EQUIVALENT, *NOT_EQUIVALENT, ("025", "25"), ("073", "73"), ("204", "240"), ("-3", "3"),
     ("\\frac{1}{2}", "\\frac{1}{2}"), ("\\text{Evelyn}", "\\text{Evelyn} ")],
)  # fmt: skip
def test_the_quick_path_agrees_with_math_verify(gold: str, answer: str) -> None:
    quick = math_kind.quick_match(answer, gold)
    if quick is not None:
        assert quick == math_kind.equivalent(answer, gold)


def math_samples(data_dir: Path) -> list[Sample]:
    return [s for task in ("math500", "aime24", "aime25") for s in load_samples(task, data_dir)]


def assert_every_gold_equals_itself_and_its_own_boxed_reply(samples: list[Sample]) -> None:
    for sample in samples:
        assert KIND.check_gold(sample.gold) is None, sample.id
        assert KIND.matches(sample.gold, sample.gold), sample.id
        reply = f"<think>\nWork it out.\n</think>\n\nThe result is $\\boxed{{{sample.gold}}}$."
        verdict = score(sample.task, reply, "stop", sample.gold)
        assert verdict.status == "correct", (sample.id, verdict)
        assert verdict.answer == sample.gold


def test_every_gold_equals_itself_and_its_own_boxed_reply(data_dir: Path) -> None:
    assert_every_gold_equals_itself_and_its_own_boxed_reply(math_samples(data_dir))


@pytest.mark.real_data
def test_every_real_gold_equals_itself_and_its_own_boxed_reply(real_data_dir: Path) -> None:
    samples = math_samples(real_data_dir)
    assert len(samples) == 560
    assert_every_gold_equals_itself_and_its_own_boxed_reply(samples)


# (content, answer, rule): where the final answer is read.
FINDING = [
    ("First \\boxed{2}, then corrected: \\boxed{3}.", "3", "boxed"),
    ("The answer is 5, so $\\boxed{6}$ after all.", "6", "boxed"),
    ("\\boxed{\\frac{1}{2}} ... and an unclosed \\boxed{", "\\frac{1}{2}", "boxed"),
    ("\\boxed{ } was empty, earlier \\boxed{7}", "7", "boxed"),
    ("\\fbox{12}", "12", "boxed"),
    ("Final Answer: $\\dfrac{14}{3}$", "\\dfrac{14}{3}", "final-answer"),
    (
        "**Final Answer**\n\nThe final answer is $(3, \\frac{\\pi}{2})$. I hope it is correct.",
        "(3, \\frac{\\pi}{2})",
        "final-answer",
    ),
    ("So the answer is \\( 2\\sqrt{3} \\).", "2\\sqrt{3}", "final-answer"),
    ("**Answer:** 204", "204", "final-answer"),
    ("答案是 $5$。", "5", "final-answer"),
    # issue #33: words after the value, modals, cues that end their sentence, closing sentences
    ("Therefore, the answer is 9 customers.", "9", "final-answer"),
    ("So, the final answer should be 284.", "284", "final-answer"),
    (
        "So the point is (15, -29). I think that's the final answer. Unless I slipped.",
        "(15, -29)",
        "cue-refers-back",
    ),
    (
        "Is that the final answer? No: it simplifies to $\\frac{3}{4}$.",
        "\\frac{3}{4}",
        "last-sentence",
    ),
    ("We get x = 3 and y = 4, so x + y = 7.", "7", "last-sentence"),
    (
        '```json\n{"reasoning": "...", "answer": "\\\\frac{3}{4}"}\n```',
        "\\frac{3}{4}",
        "json-answer",
    ),
]


@pytest.mark.parametrize(("content", "answer", "rule"), FINDING)
def test_the_final_answer_is_the_last_box_else_an_explicit_statement(
    content: str, answer: str, rule: str
) -> None:
    found = KIND.find(content)
    assert found is not None and (found.answer, found.rule) == (answer, rule)


@pytest.mark.parametrize(
    "content",
    [
        "We get x = 3 and y = 4, so x + y = 7",  # no statement, no box, no closing full stop
        "Let me compute 2 + 2 = 4. Hmm.",  # the closing sentence states no value
        "The roots are 2 and 3.",  # two numbers: no single value
        "Is the answer 7?",  # a question concludes nothing
        "The answer is",
    ],
)
def test_no_statement_no_answer(content: str) -> None:
    assert strict_verdict(KIND, content, "stop", "7").status == "no_answer"


def test_cut_off_and_empty_replies_are_never_parsed() -> None:
    assert strict_verdict(KIND, "So $\\boxed{7}$", "length", "7").status == "unfinished"
    assert strict_verdict(KIND, "<think>\\boxed{7}", "stop", "7").status == "unfinished"
    assert strict_verdict(KIND, "<think>\\boxed{7}</think>\n", "stop", "7").status == "empty"
    assert strict_verdict(KIND, None, "length", "7").status == "empty"


def test_a_check_past_its_time_limit_is_no_answer_saying_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def endless(text: str) -> tuple[object, ...]:
        while True:  # a runaway simplification, burning CPU
            pass

    monkeypatch.setattr(math_kind, "MATCH_TIME_LIMIT_S", 0.05)
    monkeypatch.setattr(math_kind, "parsed", endless)
    verdict = strict_verdict(KIND, "\\boxed{\\frac{3331}{7771}}", "stop", "\\frac{6662}{15542}")
    assert (verdict.status, verdict.answer) == ("no_answer", "\\frac{3331}{7771}")
    assert verdict.rule == "timeout: Math-Verify gave no verdict within 0.05 s"


def test_math_verify_is_refused_outside_a_main_thread() -> None:
    # Its step timers are signals: in another thread it would fail quietly and read nothing.
    with ThreadPoolExecutor(1) as other:
        running = other.submit(math_kind.equivalent, "0.5", "\\frac12")
        with pytest.raises(RuntimeError, match=r"scoring\.pool"):
            running.result()


def test_math_verify_0_5_2_cannot_tell_set_memberships_apart() -> None:
    # A limitation of the Math-Verify that AISBench pins (0.5.2): x \in I equals x \in J for any
    # intervals, so MATH-500's one such gold (algebra/101) counts every interval answer written
    # that way as correct. Revisit when the pin moves: this test then fails.
    assert math_kind.equivalent("x \\in [-5,7]", "x \\in [-2,7]")
    assert not math_kind.equivalent("[-5,7]", "x \\in [-2,7]")


def test_a_gold_math_verify_cannot_read_is_reported() -> None:
    assert KIND.check_gold("") == "gold '' is empty"
    assert KIND.check_gold("\\frac{1}{2}") is None


def test_the_lenient_rules_are_aisbench_s_for_aime_and_math500() -> None:
    rules = [get_task(task).lenient for task in ("aime24", "aime25", "math500")]
    assert rules == ["aime", "aime", "math"]
    # AISBench scores a cut-off reply's reasoning: the last box there counts.
    cut = score("aime25", None, "length", "25", reasoning="so it is \\boxed{25}", scorer="lenient")
    assert cut.status == "correct"
    assert score("aime25", None, "length", "25", reasoning="so it is \\boxed{25}").status == "empty"


@pytest.mark.timeout(10)
@pytest.mark.parametrize(
    "text",
    [
        "Is the final answer 5? " * 20_000,
        "So 5. That's the final answer. " * 20_000,  # valueless back-referring cues
        "{\n" * 50_000,  # JSON nested past Python's stack
        '{"answer": ' * 20_000,
        "The answer is " + "9 customers, " * 20_000,
        "x is " * 50_000 + ".",
        "答案是 12 吗？" * 20_000,
    ],
    ids=range(7),
)
def test_adversarial_replies_are_located_fast(text: str) -> None:
    started = time.perf_counter()
    KIND.find(text)
    assert time.perf_counter() - started < 2
