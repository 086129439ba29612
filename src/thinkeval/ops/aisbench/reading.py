"""How an imported AISBench reply is read: thinking or not, and its reply state.

AISBench keeps no finish_reason and stores a thinking model's reasoning alone when its content
was empty, so both must be judged from the text (docs/aisbench-import.md).
"""

from __future__ import annotations

from collections.abc import Iterable

from thinkeval.ops.aisbench.files import CLOSE_THINK, AisbenchError
from thinkeval.ops.aisbench.settings import Settings
from thinkeval.records import ReplyState
from thinkeval.scoring.scorers import STRICT, ReplyText
from thinkeval.scoring.state import reply_state
from thinkeval.scoring.text import fold_width
from thinkeval.tasks.spec import TaskSpec


def thinking_mode(
    flag: bool | None, settings: Settings, predictions: Iterable[str | None]
) -> tuple[bool, str]:
    """Whether the predictions come from a thinking model, and what says so.

    It matters for a prediction without `</think>`: a thinking model's is its reasoning alone
    (AISBench stores that when the content is empty), a non-thinking model's is its content.
    The flag wins, then the config dump's `chat_template_kwargs.enable_thinking`, then the
    predictions themselves: one holding `</think>` shows the reasoning was stored. Without any
    of these the import refuses to guess: a wrong guess either scores empty replies as answers
    or retries every answer.
    """
    if flag is not None:
        return flag, "--thinking" if flag else "--no-thinking"
    if settings.thinking is not None:
        return settings.thinking, f"{settings.source}: chat_template_kwargs.enable_thinking"
    texts = [text or "" for text in predictions]
    if not texts or any(CLOSE_THINK in text for text in texts):
        return True, "a prediction holds </think>"
    raise AisbenchError(
        "no prediction holds </think> and the config dump does not set enable_thinking: pass "
        "--thinking if the model thinks (every reply then ran out inside its reasoning) or "
        "--no-thinking if it does not"
    )


def imported_state(
    spec: TaskSpec, content: str | None, finish_reason: str | None, gold: str
) -> ReplyState:
    """The reply state of an imported reply, whose finish_reason is unknown unless inferred.

    A finished-looking reply counts as `unfinished` when it has no legal final answer, or when
    it went on after its answer and stops mid-sentence (its last line holds no answer and ends
    open: `... Let me double-check: 16 - 3`): a reply cut by the token limit looks exactly like
    that, and a live run would have asked it again.
    """
    read = reply_state(content, finish_reason)
    if read.state == "finished" and finish_reason is None:
        verdict = STRICT.score(spec, ReplyText(content, None, None), gold)
        if verdict.status == "no_answer" or _stops_mid_sentence(spec, read.visible):
            return "unfinished"
    return read.state


# What a cut-off line ends in: a word, a number, or a symbol that needs something after it.
_OPEN_END = ",，:：;；=+-*/×÷(（[、\\"


def _stops_mid_sentence(spec: TaskSpec, visible: str) -> bool:
    last = fold_width(visible).rstrip().rsplit("\n", 1)[-1].strip()
    if not last or not (last[-1].isalnum() or last[-1] in _OPEN_END):
        return False
    return spec.answer.find(last) is None
