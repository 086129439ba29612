"""Section: what the requests cost the server, against a single run at B2."""

from __future__ import annotations

from thinkeval.report._format import Section
from thinkeval.report._model import Report, TokenRow
from thinkeval.report._section import ReportSection, SectionInputs, SectionNumbers
from thinkeval.report._tables_usage import tokens_section
from thinkeval.report._tokens import token_rows


class TokensNumbers(SectionNumbers, frozen=True):
    tokens: list[TokenRow]  # per model and task, then per model over every task


def tokens_numbers(inputs: SectionInputs) -> TokensNumbers:
    return TokensNumbers(token_rows(inputs.data))


def shown(report: Report) -> Section | None:
    return tokens_section(SECTION.numbers(report).tokens)


SECTION = ReportSection(key="tokens", place=100, shown=shown, data=tokens_numbers)
