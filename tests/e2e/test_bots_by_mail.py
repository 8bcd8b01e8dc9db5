"""A game against a bot over real SMTP, and mail answered while a bot thinks.

The bot's searching runs where `pbm serve` runs it: in a process of its own (`Thinking`), or,
to hold it on purpose, in a thinking the test controls.
"""

from __future__ import annotations

import threading
from dataclasses import replace

from sqlalchemy import select

import pbm.bots
import pbm.games
from pbm.bots.answers import Question, answer
from pbm.passwords import fast_passwords
from pbm.server import Server, ServerThread
from pbm.store.models import Board
from tests.e2e.conftest import Running, loopback_settings
from tests.support import body_of, mail, reply_to_board, shared_reader

ALICE, BOB = "alice@example.org", "bob@example.net"
CEPHALOPOD = pbm.games.get("cephalopod")


def position(server: Server):
    with server.database.reading() as session:
        row = session.scalar(select(Board))
        return CEPHALOPOD.resume(row.state, row.secret), row.status


def test_a_game_against_a_bot_by_mail(server, sink):
    """Alice plays by replying to her board mails, bot1 by itself in its thinking process, until
    alice has seen three of its moves and resigns (`tests.mail.test_bots_as_players` plays games
    to the end the rules give)."""
    server.send(mail(ALICE, "signup alice alice-pw"), ALICE)
    sink.wait(1)
    server.send(mail(ALICE, "cephalopod challenge -size=3 alice bot1"), ALICE)
    (latest,) = sink.wait(1)
    assert "alice challenged bot1 (computer, level 1) to a new game." in body_of(latest)
    for _ in range(3):
        state, _ = position(server.server)
        move = pbm.bots.choose("cephalopod", state, 1, seed=state.ply)
        server.send(reply_to_board(latest, ALICE, move), ALICE, [latest["Reply-To"].addresses[0].addr_spec])
        (played,) = sink.wait(1)
        assert played["Subject"] == "Cephalopod Board 101 bot1"
        (latest,) = sink.wait(1, timeout=60)  # the first waits for the thinking process to start
        assert body_of(latest).startswith("bot1 (computer, level 1) played ")
        assert latest["Subject"] == "Cephalopod Board 101 alice"
    server.send(reply_to_board(latest, ALICE, "resign"), ALICE, [latest["Reply-To"].addresses[0].addr_spec])
    (ended,) = sink.wait(1)
    assert ended["Subject"] == "Cephalopod Board 101 won by bot1"
    assert position(server.server)[1] == "finished"
    assert sink.quiet(0.5) == [], "bot1 is mailed nothing"


def test_mail_is_answered_while_a_bot_thinks(database_url, sink, tmp_path):
    thinking, done = threading.Event(), threading.Event()

    def slow(question: Question, seconds: float) -> str:
        thinking.set()
        done.wait(30)  # a search that takes its time
        return answer(replace(question, level=1), seconds)

    settings = loopback_settings(database_url, f"smtp://127.0.0.1:{sink.port}", "e2e")
    server = Server(settings, passwords=fast_passwords(), var_dir=tmp_path, reader=shared_reader(settings), think=slow)
    thread = ServerThread(server, timeout=30)
    with thread as running:
        sink.confirm_for(running.smtp_port)
        try:
            client = Running(thread)
            client.send(mail(ALICE, "signup alice alice-pw"), ALICE)
            client.send(mail(BOB, "signup bob bob-pw"), BOB)
            sink.wait(2)
            client.send(mail(ALICE, "cephalopod challenge -size=3 alice bot1"), ALICE)
            sink.wait(1)
            client.send(mail(ALICE, "cephalopod move 101 alice alice-pw b2"), ALICE)
            sink.wait(1)
            assert thinking.wait(15), "the bot is thinking"
            client.send(mail(BOB, "cephalopod help"), BOB)
            (answered,) = sink.wait(1)
            assert answered["To"].addresses[0].addr_spec == BOB
            assert not done.is_set(), "bob's mail was answered while the bot still thought"
        finally:
            done.set()
        (bot_move,) = sink.wait(1)
        assert body_of(bot_move).startswith("bot1 (computer, level 1) played ")
