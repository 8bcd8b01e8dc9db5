"""The move list: each move as played (`MoveView`) with what it did as facts (`move_report`),
and what happened between moves (`EventView`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pbm.facts import Fact
from pbm.games import FORFEIT, RESIGN, UNDO, MoveReport

TALLY_UNITS = ("cell",)
"""The tally units the catalogue has words for (``tally-cells``): Cephalopod's."""

NUMBER_WIDTH = 5
"""Characters before each move in the move list: its number, right-aligned in four, and a space."""


@dataclass(frozen=True)
class EventView:
    after_move: int
    fact: Fact
    """What happened (``event-away``): the move list says it."""
    at: datetime


@dataclass(frozen=True)
class MoveView:
    number: int
    seat: int
    notation: str
    comment: str
    played_at: datetime
    report: MoveReport | None = None
    """What the move did, as the engine said when it was played (None for moves recorded before)."""
    auto: bool = False
    """Played from the player's queue."""

    @property
    def did(self) -> Fact:
        """What the move did, after the mover's name: ``played c3=b3+d3, capturing 2 dice (...)``,
        and ``(Auto)`` when the queue played it."""
        if self.report is not None:
            did = self.report.fact
        else:
            did = {RESIGN: Fact("resigned"), FORFEIT: Fact("forfeited")}.get(self.notation) or Fact(
                "played", move=self.notation
            )
        return Fact("played-from-queue", did=did) if self.auto else did

    @property
    def shown_fact(self) -> Fact:
        """`shown` for a reader: ``resign`` is ``abandon`` in French, whatever the player wrote."""
        code = {RESIGN: "move-list-resign", FORFEIT: "move-list-forfeit", UNDO: "move-list-undo"}.get(self.notation)
        entry = Fact(code) if code is not None else Fact("move-list-move", move=self.notation)
        return Fact("move-list-auto", entry=entry) if self.auto else entry

    @property
    def shown(self) -> str:
        """The move as the move list writes it: its notation, ``resign``, ``Forfeit`` or ``UNDO``; pbmserv's
        ``(Auto)`` after a move played from the queue."""
        shown = {UNDO: "UNDO", FORFEIT: "Forfeit"}.get(self.notation, self.notation)
        return f"{shown} (Auto)" if self.auto else shown


def move_report(data: dict[str, Any] | None) -> MoveReport | None:
    """A `MoveReport` from the JSON a move row keeps (`report_data` wrote it)."""
    if data is None:
        return None
    tally, why = data.get("tally"), data.get("why")
    return MoveReport(
        Fact.from_json(data["fact"]),
        tuple(data.get("eliminated", ())),
        Fact.from_json(why) if why is not None else None,
        tuple(tally) if tally else None,
    )


def report_data(report: MoveReport) -> dict[str, Any]:
    """The JSON a move row keeps of `report`: facts, never words (``{"fact": ..., "why": ...}``)."""
    data: dict[str, Any] = {"fact": report.fact.to_json()}
    if report.eliminated:
        data["eliminated"] = list(report.eliminated)
    if report.why is not None:
        data["why"] = report.why.to_json()
    if report.tally is not None:
        data["tally"] = list(report.tally)
    return data
