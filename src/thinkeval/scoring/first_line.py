"""The `first_line` scorer: strict's rules on the first line of the answer only.

It asks whether the model *leads* with its answer: a reply that states the final answer on its
first visible line (after the think block) and then explains is correct; one that reaches it
only at the end is judged by what its first line says (`no_answer`, or a number read there).
Beside strict's numbers it tells a long-winded model from a wrong one, and it shows how a scorer
plugs in: this module is the whole of it. Register it for a run with
`thinkeval.scoring.scorers.register_scorer(FIRST_LINE)` (or `registered(FIRST_LINE)` for a
block), and its verdicts are journalled with every reply, counted into `summary.json`
(`scorers["first_line"]`), and shown as a "Strict vs first_line" section of the report.

Empty and cut-off replies get strict's verdict. Pooled answer kinds (symbolic maths, whose
checks may need a worker with a time limit) are not read: `no_answer`, rule `pooled kind`.
"""

from __future__ import annotations

from dataclasses import dataclass

from thinkeval.records import Verdict
from thinkeval.scoring.scorers import ReplyText, ScoredTask, Scorer
from thinkeval.scoring.state import reply_state
from thinkeval.scoring.strict import strict_verdict


def first_line(text: str) -> str:
    """The first line of `text` with something on it ("" when there is none).

    >>> first_line("\\n  The answer is 4.\\nBecause 2 + 2 = 4.")
    'The answer is 4.'
    """
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return ""


@dataclass(frozen=True)
class FirstLineScorer(Scorer):
    """The first_line scorer applies strict's rules to the first line of the answer only: it
    counts the replies that lead with their final answer."""

    name: str = "first_line"
    version: str = "1"
    recording: bool = True

    def score(self, spec: ScoredTask, reply: ReplyText, gold: str) -> Verdict:
        read = reply_state(reply.content, reply.finish_reason)
        state = reply.state or read.state
        if state != "finished":
            return strict_verdict(spec.answer, reply.content, reply.finish_reason, gold, state)
        if spec.answer.pooled:
            return Verdict("no_answer", rule="pooled kind")
        verdict = strict_verdict(spec.answer, first_line(read.visible), "stop", gold, "finished")
        rule = f"first line: {verdict.rule}" if verdict.rule else "first line"
        return Verdict(verdict.status, verdict.answer, rule)

    def version_for(self, spec: ScoredTask) -> str:
        return f"{self.version}/{spec.scoring_version}"


FIRST_LINE = FirstLineScorer()
