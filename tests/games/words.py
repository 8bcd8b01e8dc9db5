"""The English of what an engine decided, for the tests that check the words a player reads."""

from __future__ import annotations

from dataclasses import dataclass

from pbm.facts import Fact, english
from pbm.games import MoveReport
from pbm.games.base import catalogue


def said(fact: Fact | None) -> str:
    """The English of `fact` from the engines' catalogue; nothing for no fact."""
    return "" if fact is None else english(fact, catalogue())


@dataclass(frozen=True)
class ReportWords:
    """A `MoveReport` as a mail words it."""

    text: str
    eliminated: tuple[int, ...] = ()
    why: str = ""
    tally: tuple[int, ...] | None = None


def in_words(report: MoveReport) -> ReportWords:
    return ReportWords(said(report.fact), report.eliminated, said(report.why), report.tally)
