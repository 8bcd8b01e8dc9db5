"""The bots' thinking process (`pbm.mail.bot_turns.Thinking`), the real one: positions of every
game cross to it and legal moves come back; an error comes back as words and leaves it
running; a process killed, crashed or stopped is replaced and the question thought again,
within the question's seconds."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

import pbm.bots
import pbm.games
from pbm.bots.answers import Question
from pbm.mail.bot_turns import WATCH_SECONDS, Thinking, ThinkingFailed

SECONDS = 20.0
"""A move's seconds here: far above what the questions below need (under 2 s each, and a few
seconds for a process to start on a busy machine), so that every answer is a whole search."""


@pytest.fixture(scope="module")
def thinking():
    replaced: list[str] = []
    thinking = Thinking(on_replaced=replaced.append)
    thinking.replaced = replaced  # type: ignore[attr-defined]
    yield thinking
    thinking.close()


def seen(game: str, plies: int = 0, **options):
    """A position of `game` after `plies` first legal moves, as a bot sees it."""
    engine = pbm.games.get(game)
    state = engine.new(options=options)
    for _ in range(plies):
        state = engine.play(state, engine.legal_moves(state)[0])
    return engine.with_stand_in_secret(state)


def asked(game: str, state, level: int, seed: str = "7") -> Question:
    return Question(game, state, level, state.to_move, seed)


@pytest.mark.parametrize(
    ("game", "plies", "options"),
    [
        ("dodeca", 0, {}),
        ("dodeca", 12, {}),
        ("cephalopod", 0, {}),
        ("cephalopod", 5, {"size": 3, "dice": 12}),
        ("cubeo", 0, {}),
        ("cubeo", 6, {"dice": 8, "remove": True}),
    ],
    ids=["dodeca new", "dodeca mid-game", "cephalopod new", "cephalopod 3x3", "cubeo new", "cubeo mid-game"],
)
def test_the_thinking_process_answers_a_legal_move_in_every_game(thinking, game, plies, options):
    state = seen(game, plies, **options)
    move = thinking(asked(game, state, 2), SECONDS)
    assert move in pbm.games.get(game).legal_moves(state)
    assert move == pbm.bots.choose(game, state, 2, seed="7")


def test_a_game_over_comes_back_as_a_failure_in_words_and_the_process_thinks_on(thinking):
    thinking(asked("cephalopod", seen("cephalopod"), 1), SECONDS)
    pid = thinking.pid
    over = pbm.games.get("cephalopod").from_position("a6a6b6/a6a6b6/a6b6b1 a")
    with pytest.raises(ThinkingFailed, match="game-over"):
        thinking(asked("cephalopod", over, 2), SECONDS)
    dodeca = seen("dodeca")
    assert thinking(asked("dodeca", dodeca, 2), SECONDS) == pbm.bots.choose("dodeca", dodeca, 2, seed="7")
    assert thinking.pid == pid, "the same process, still running"


def kill_soon(pid: int, after: float, sig: int = signal.SIGKILL) -> threading.Timer:
    timer = threading.Timer(after, os.kill, (pid, sig))
    timer.start()
    return timer


def test_a_thinking_process_killed_mid_turn_is_replaced_and_the_turn_is_searched_within_its_seconds(thinking):
    thinking(asked("cephalopod", seen("cephalopod"), 1), SECONDS)  # the process is up
    killed = thinking.pid
    assert killed is not None
    state = seen("cephalopod", 2)
    started = time.monotonic()
    kill_soon(killed, 0.3)
    move = thinking(asked("cephalopod", state, 4, "kill"), SECONDS)
    took = time.monotonic() - started
    assert move == pbm.bots.choose("cephalopod", state, 4, seed="kill"), "level 4's search, not level 1's move"
    assert thinking.pid not in (None, killed)
    assert took < SECONDS
    assert thinking.replaced[-1:] == ["died"]


def test_a_thinking_process_killed_between_turns_is_replaced_at_once(thinking):
    thinking(asked("cubeo", seen("cubeo"), 1), SECONDS)
    killed = thinking.pid
    assert killed is not None
    os.kill(killed, signal.SIGKILL)
    deadline = time.monotonic() + 3 * WATCH_SECONDS
    while thinking.pid in (None, killed) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert thinking.pid not in (None, killed), "replaced before any question came"
    state = seen("cubeo", 2)
    assert thinking(asked("cubeo", state, 3), SECONDS) == pbm.bots.choose("cubeo", state, 3, seed="7")
    assert thinking.pid not in (None, killed)


def test_a_thinking_process_that_stops_answering_is_replaced_and_the_turn_thought_again():
    """A hang is known only once the question's seconds and the grace have passed: the new process
    then thinks `MIN_RETRY_SECONDS`, a short search rather than none."""
    replaced: list[str] = []
    thinking = Thinking(hang_grace=1.0, on_replaced=replaced.append)
    try:
        thinking(asked("dodeca", seen("dodeca"), 1), 2.0)
        stopped = thinking.pid
        assert stopped is not None
        state = seen("dodeca", 4)
        kill_soon(stopped, 0.2, signal.SIGSTOP)
        started = time.monotonic()
        move = thinking(asked("dodeca", state, 4), 2.0)  # level 4 thinks longer than 0.2 s
        assert move in pbm.games.get("dodeca").legal_moves(state)
        assert replaced == ["hung"]
        assert thinking.pid not in (None, stopped)
        assert time.monotonic() - started < 2.0 + 1.0 + 10.0  # its seconds, the grace, a new process's start
    finally:
        thinking.close()
