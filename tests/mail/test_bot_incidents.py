"""A bot that answers without searching is an incident (`pbm.health.bot_health`): its game goes on with
level 1's move, and the server counts it in its metrics, logs it once with the board, and says
so on ``/healthz`` and ``/bots`` until a bot searches again."""

from __future__ import annotations

import logging
from dataclasses import replace

import pytest
from sqlalchemy import select

from pbm.bots.answers import Question, answer
from pbm.mail.bot_turns import ThinkingFailed
from pbm.store.models import Board
from tests.support import mail

ALICE = "alice@example.org"


class Thinker:
    """Level 1's answer, at once; or, while `failing`, no answer at all."""

    def __init__(self) -> None:
        self.failing = False

    def __call__(self, question: Question, seconds: float) -> str:
        if self.failing:
            raise ThinkingFailed("the thinking process was lost twice: it died (exit code -9)")
        return answer(replace(question, level=1), seconds)


@pytest.fixture
def thinker():
    return Thinker()


@pytest.fixture
def room(make_mailroom, thinker):
    room = make_mailroom(think=thinker)
    room.send(mail(ALICE, "signup alice alice-pw"))
    room.replies()
    return room


def unthought(room, game: str) -> float | None:
    return room.server.metrics.registry.get_sample_value("pbm_bot_unthought_answers_total", {"game": game})


def move_count(room) -> int:
    with room.database.reading() as session:
        return session.scalar(select(Board.move_count)) or 0


def test_every_game_starts_with_no_incident_counted(room):
    assert [unthought(room, game) for game in ("cephalopod", "cubeo", "dodeca")] == [0.0, 0.0, 0.0]
    assert room.server.bot_health.report().normally


def test_a_bot_answering_without_searching_is_counted_logged_with_its_board_and_reported(room, thinker, caplog):
    room.send(mail(ALICE, "cephalopod challenge -size=3 bot2 alice"))
    thinker.failing = True
    with caplog.at_level(logging.ERROR, logger="pbm.mail.bot_turns"):
        assert room.play_bots() == 1
    assert move_count(room) == 1, "the game goes on"
    assert unthought(room, "cephalopod") == 1.0
    assert unthought(room, "dodeca") == 0.0
    said = [record.getMessage() for record in caplog.records if "without searching" in record.getMessage()]
    assert said == [
        "bot2 at cephalopod 101 had no answer (the thinking process was lost twice: it died (exit code -9))"
        "; it answers without searching"
    ]
    report = room.server.bot_health.report()
    assert not report.normally and report.since is not None
    assert report.to_json() == {
        "thinking": "without searching",
        "since": report.since.isoformat(),
        "unthought_answers": 1,
        "thinking_replaced": 0,
    }


def test_thinking_is_normal_again_once_a_bot_searches_but_the_count_stays(room, thinker):
    room.send(mail(ALICE, "cephalopod challenge -size=3 bot2 alice"))
    thinker.failing = True
    room.play_bots()
    room.send(mail(ALICE, "cephalopod challenge -size=3 bot3 alice"))
    thinker.failing = False
    assert room.play_bots() == 1
    report = room.server.bot_health.report()
    assert report.normally and report.since is None and report.unthought == 1
    assert unthought(room, "cephalopod") == 1.0


def test_a_thinking_process_replaced_is_counted_by_its_reason(room):
    room.server.bot_health.replaced("died")
    room.server.bot_health.replaced("hung")
    room.server.bot_health.replaced("died")
    registry = room.server.metrics.registry
    counted = {
        reason: registry.get_sample_value("pbm_bot_thinking_replaced_total", {"reason": reason})
        for reason in ("died", "hung")
    }
    assert counted == {"died": 2.0, "hung": 1.0}
    assert room.server.bot_health.report().replaced == 3
