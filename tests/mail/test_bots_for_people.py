"""Bots think for people, through the mail workers as `pbm serve` runs them: the order the bots
think in (`pbm.store.bot_players.to_act`, `pbm.mail.bot_turns.BotTurns`), since one thinker serves
the whole club: games with a person come before games of bots alone, and the players the games
are for take turns, so one player's many games hold up another's bot for one answer at most; and
what a person who takes digests is sent while bots play.

Every test runs on SQLite and, when configured, on PostgreSQL.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from sqlalchemy import select

import pbm.bots
import pbm.games
from pbm.bots.answers import Question, answer
from pbm.mail.bot_turns import BotTurns
from pbm.store.models import Board, HoldReason, OutboxMessage
from tests.support import mail

CEPHALOPOD = pbm.games.get("cephalopod")
ADDRESSES = {"alice": "alice@example.org", "mallory": "mallory@example.net", "root": "root@example.org"}


def quick(question: Question, seconds: float) -> str:
    return answer(replace(question, level=1), seconds)


def board_of(question: Question) -> int:
    """The board number a question is about (its seed begins with the board's id; boards here
    are numbered from 101 in the order of their ids)."""
    return 100 + int(question.seed.split(":")[0])


def send(room, userid: str, text: str) -> None:
    room.send(mail(ADDRESSES[userid], text))


def starts_and_moves(room, userid: str, *bots: str) -> int:
    """`userid` challenges `bots` on a 3x3 board and makes the first move; returns the board's number."""
    send(room, userid, f"cephalopod challenge -size=3 {userid} {' '.join(bots)}")
    with room.database.reading() as session:
        row = session.query(Board).order_by(Board.id.desc()).first()
        number, state = row.board, CEPHALOPOD.resume(row.state, row.secret)
    move = pbm.bots.choose("cephalopod", state, 1, seed=number)
    send(room, userid, f"cephalopod move {number} {userid} {userid}-pw {move}")
    return number


@pytest.fixture
def room(make_mailroom):
    room = make_mailroom(think=quick, admins="root")
    for userid in ADDRESSES:
        send(room, userid, f"signup {userid} {userid}-pw")
    return room


def test_the_players_the_games_are_for_take_turns_and_exhibitions_come_last(room):
    send(room, "root", "cephalopod challenge -size=3 bot1 bot2")  # 101: waited longest, no person in it
    mallorys = [starts_and_moves(room, "mallory", "bot1") for _ in range(3)]  # 102, 103, 104
    alices = starts_and_moves(room, "alice", "bot2")  # 105: waited least
    asked: list[int] = []

    def think(question: Question, seconds: float) -> str:
        asked.append(board_of(question))
        return quick(question, seconds)

    assert BotTurns(room.database, think, seconds=30).play_due() == 5
    assert asked == [mallorys[0], alices, mallorys[1], mallorys[2], 101]


def test_a_turn_that_comes_due_while_a_bot_thinks_waits_for_one_answer_at_most(room):
    mallorys = [starts_and_moves(room, "mallory", "bot1") for _ in range(3)]
    asked: list[int] = []
    alices: list[int] = []

    def think(question: Question, seconds: float) -> str:
        if not asked:
            # While mallory's first is thought about, with bot2, named for the first time:
            alices.append(starts_and_moves(room, "alice", "bot2"))
        asked.append(board_of(question))
        return quick(question, seconds)

    BotTurns(room.database, think, seconds=30).play_due()
    assert asked[:3] == [mallorys[0], alices[0], mallorys[1]]


def test_a_player_who_takes_digests_is_sent_nothing_while_the_bots_play_and_finds_the_game_in_the_digest(room):
    send(room, "alice", "digest alice alice-pw 07:30")
    number = starts_and_moves(room, "alice", "bot1", "bot2")
    with room.database.reading() as session:
        before = session.scalar(select(OutboxMessage.id).order_by(OutboxMessage.id.desc()).limit(1))
    assert room.play_bots() == 1  # bot1
    assert room.play_bots() == 1  # bot2: alice's turn again
    with room.database.reading() as session:
        query = select(OutboxMessage.kind, OutboxMessage.hold_reason).where(OutboxMessage.id > before)
        since = session.execute(query.where(OutboxMessage.recipient == ADDRESSES["alice"])).all()
    assert since == [("board", HoldReason.DIGEST)], f"board {number}: one mail, and it waits for her digest"
