"""What the server asks a bot, and what the bot answers: the work of the process bots think in.

`pbm.mail.bot_turns` asks, from the board as a player may see it; `answer` decides, with
`pbm.bots.choose` for a move and `pbm.bots.outlook.outlook` for a draw. This module imports
only the bots and the engines, so the thinking process starts quickly and holds nothing of
the server's.

A bot says yes to a draw only when it judges itself losing: when its search gives it less
than half an even share of the win (with two players, under one chance in four).

>>> import pbm.games
>>> game = pbm.games.get("cephalopod")
>>> lost = game.from_position("a6a6b6/a6a6b6/a6b6. b")  # b fills the last cell: a holds 5 of 9
>>> answer(Question("cephalopod", lost, level=2, seat=1, seed="7", draw=True), seconds=5.0)
'accept'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pbm.bots
from pbm.bots.outlook import outlook

ACCEPT, REJECT = "accept", "reject"


@dataclass(frozen=True)
class Question:
    """What a bot is asked: a move (`draw` False) or whether to accept a draw, from what it may see."""

    game: str
    state: Any
    """The position; any secret of it (a Dodeca dice seed) replaced by a stand-in."""
    level: int
    seat: int
    seed: str
    """A choice is the same for the same question (`pbm.bots.choose`)."""
    draw: bool = False
    in_play: int = 2
    """Players still in the game: a draw shares the win among them."""


def answer(question: Question, seconds: float) -> str:
    """What the bot says, thinking `seconds` at most: its move in the game's notation, or `ACCEPT`
    or `REJECT` for a draw."""
    game, state, level, seed = question.game, question.state, question.level, question.seed
    if question.draw:
        chances = outlook(game, state, level, question.seat, seed=seed, seconds=seconds)
        return ACCEPT if chances < 1 / (2 * question.in_play) else REJECT
    return pbm.bots.choose(game, state, level, seed=seed, seconds=seconds)
