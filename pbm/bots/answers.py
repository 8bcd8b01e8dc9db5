"""What the server asks a bot, and what the bot answers: the work of the process bots think in.

`pbm.mail.bot_turns` asks, from the board as a player may see it; `answer` decides, with
`pbm.bots.choose` for a move and `pbm.bots.outlook.outlook` for a draw. This module imports
only the bots and the engines, so the thinking process starts quickly and holds nothing of
the server's.

Between the server and its thinking process a question crosses as `encoded` bytes, read back by
`decoded` (a property test proves every reachable position of every game comes back with the
same moves, result and player to move), and what comes back is plain data, never an exception
(`thought`): an object the server cannot rebuild must not be able to stop its bots.

A bot says yes to a draw only when it judges itself losing: when its search gives it less
than half an even share of the win (with two players, under one chance in four).

>>> import pbm.games
>>> game = pbm.games.get("cephalopod")
>>> lost = game.from_position("a6a6b6/a6a6b6/a6b6. b")  # b fills the last cell: a holds 5 of 9
>>> answer(Question("cephalopod", lost, level=2, seat=1, seed="7", draw=True), seconds=5.0)
'accept'
"""

from __future__ import annotations

import json
import os
import pickle
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any, Literal

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


Outcome = tuple[Literal["ok"], str] | tuple[Literal["error"], str, str]
"""What the thinking process sends back: ``("ok", said)``, or ``("error", code, text)`` with the
error's fact code (or its class's name) and its English."""

MOST_ERROR_TEXT = 500
"""Characters of an error's words sent back: enough for the log."""


def encoded(question: Question) -> bytes:
    """The question as it crosses to the thinking process (`decoded` reads it there)."""
    return pickle.dumps(question, protocol=pickle.HIGHEST_PROTOCOL)


def decoded(data: bytes) -> Question:
    """The question `encoded` wrote. Only the server's own bytes come here, never a player's."""
    question = pickle.loads(data)
    if not isinstance(question, Question):
        raise TypeError(f"not a question: {type(question).__name__}")
    return question


def thought(data: bytes, seconds: float) -> Outcome:
    """`answer` to the `encoded` question, as plain data whatever happens: what the thinking process
    runs, so that no error of a search (an illegal position, a bug) crosses back as an object."""
    try:
        return ("ok", answer(decoded(data), seconds))
    except Exception as error:  # every error: it goes back as words, and the server decides
        fact = getattr(error, "fact", None)
        code = str(getattr(fact, "code", "")) or type(error).__name__
        return ("error", code, f"{type(error).__name__}: {error}"[:MOST_ERROR_TEXT])


MIN_SEARCH_SECONDS = 0.5
"""The least a question is thought about, however late it came."""


def think_forever(connection: Connection, niceness: int) -> None:
    """The thinking process: at `niceness` below the server, answer each question that comes on
    `connection` (``(until, encoded question)``, `until` a `time.time` by which to answer) with its
    `thought` outcome as JSON, so nothing but plain data can come back; until the server closes its
    end. The deadline is the server's clock, not this process's: the time it took to start, after
    its predecessor was lost, comes out of the question's seconds."""
    os.nice(niceness)
    while True:
        try:
            until, data = connection.recv()
        except (EOFError, OSError):
            return
        seconds = max(MIN_SEARCH_SECONDS, until - time.time())
        connection.send_bytes(json.dumps(thought(data, seconds)).encode())
