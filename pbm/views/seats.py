"""A seat at a board as mails and pages show it: its name (a proper name, or a word of a
language such as Dodeca's South), its player, and whether a bot sits there."""

from __future__ import annotations

from dataclasses import dataclass

from pbm.facts import Fact

SEAT_WORDS = {"South": "dodeca-south", "North": "dodeca-north"}
"""Seat names that are words of a language (Dodeca's South and North), by their catalogue code;
every other seat name (Paren, Angle ...) is a proper name, said as it is in every language."""


@dataclass(frozen=True)
class SeatView:
    index: int
    name: str
    """The seat's name in the game: Paren, Angle, South ..."""
    userid: str
    out: bool = False
    """Out before the game's end: eliminated, or resigned from a game the others play on."""
    bot_level: int | None = None
    """The level of the bot in this seat (`pbm.store.bot_players`); None for a person."""

    @property
    def named(self) -> str | Fact:
        """The player as a mail names them in a sentence: the userid, or for a bot that it is one
        (``bot3 (computer, level 3)``)."""
        return self.userid if self.bot_level is None else Fact("bot-named", userid=self.userid, level=self.bot_level)

    @property
    def said_name(self) -> Fact:
        """The seat's name as a reader's language says it: ``South`` is ``Sud`` in French, ``Paren`` stays."""
        code = SEAT_WORDS.get(self.name)
        return Fact(code) if code is not None else Fact("seat-name", name=self.name)

    @property
    def heading(self) -> Fact:
        """The seat's name as the move list heads its column: ``Angle``, ``Angle (out)``."""
        return Fact("seat-out", seat=self.said_name) if self.out else self.said_name
