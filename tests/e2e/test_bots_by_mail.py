"""A game against a bot over real SMTP, and mail answered while a bot thinks.

The bot's searching runs where `pbm serve` runs it: in a process of its own (`Thinking`), or,
to hold it on purpose, in a thinking the test controls.
"""

from __future__ import annotations

import threading
import time
from dataclasses import replace

from sqlalchemy import select

import pbm.bots
import pbm.games
from pbm.bots.answers import Question, answer
from pbm.crypto.passwords import fast_passwords
from pbm.serving.server import Server, ServerThread
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
    assert sink.once_settled(server) == [], "bot1 is mailed nothing"


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


CAROL = "carol@example.com"


def turn_mails(sink, mails: list, *, timeout: float = 60.0) -> list:
    """The mails that arrive until one is carol's turn (that one last), kept in `mails` too."""
    got = []
    while not got or got[-1]["Subject"] != "Cephalopod Board 101 carol":
        got += sink.wait(1, timeout=timeout)
    mails += got
    return got


def test_a_person_among_two_bots_hears_once_a_turn_and_at_the_end(server, sink):
    """carol plays two rounds against bot1 and bot2 by replying to her board mails, then resigns:
    she is mailed her own moves, one mail each time her turn comes back (naming both bots' moves),
    and the end, which comes at once: no person is left in the game (before: 149 mails for a
    game on the full board, most of them after she resigned)."""
    server.send(mail(CAROL, "signup carol carol-pw"), CAROL)
    sink.wait(1)
    server.send(mail(CAROL, "cephalopod challenge -size=4 carol bot1 bot2"), CAROL)
    mails = sink.wait(1)
    latest = mails[0]
    for _ in range(2):
        state, _ = position(server.server)
        move = pbm.bots.choose("cephalopod", state, 1, seed=state.ply)
        server.send(reply_to_board(latest, CAROL, move), CAROL, [latest["Reply-To"].addresses[0].addr_spec])
        latest = turn_mails(sink, mails)[-1]
        said = body_of(latest)
        assert "bot1 (computer, level 1) played " in said and "bot2 (computer, level 2) played " in said
    server.send(reply_to_board(latest, CAROL, "resign"), CAROL, [latest["Reply-To"].addresses[0].addr_spec])
    mails += sink.wait(1)  # the end: with no person left in it, no bot moves again
    assert position(server.server)[1] == "finished"
    mails += sink.once_settled(server)
    assert {m["To"].addresses[0].addr_spec for m in mails} == {CAROL}
    assert [m["Subject"] for m in mails] == [
        "New Cephalopod Board 101 carol",
        "Cephalopod Board 101 bot1",
        "Cephalopod Board 101 carol",
        "Cephalopod Board 101 bot1",
        "Cephalopod Board 101 carol",
        "Cephalopod Board 101 tie: bot1 and bot2",
    ], f"{len(mails)} mails"
    assert position(server.server)[1] == "finished"


MALLORY = "mallory@example.net"


def boards_of(server: Server) -> dict[int, tuple[str, int]]:
    with server.database.reading() as session:
        return {row.board: (row.status, row.move_count) for row in session.scalars(select(Board))}


def test_a_players_games_with_bots_end_when_they_resign_and_a_fifth_is_refused(server, sink):
    """The four-games attack: mallory plays four games against bot1 to bot4, resigns each after one
    round, and the bots would play on among themselves (before: 55.7 s of thinking in 90 s on 9x9
    boards). Each game ends with her resignation; no bot moves after it; a fifth is refused."""
    server.send(mail(MALLORY, "signup mallory mallory-pw"), MALLORY)
    sink.wait(1)
    for _ in range(5):
        server.send(mail(MALLORY, "cephalopod challenge -size=4 mallory bot1 bot2 bot3 bot4"), MALLORY)
    started = sink.wait(5)
    (refused,) = [m for m in started if "New Cephalopod" not in m["Subject"]]
    assert "one player may have 4 at once" in body_of(refused)
    for number in boards_of(server.server):
        state = CEPHALOPOD.resume(*_state_and_secret(server.server, number))
        move = pbm.bots.choose("cephalopod", state, 1, seed=number)
        server.send(mail(MALLORY, f"cephalopod move {number} mallory mallory-pw {move}"), MALLORY)
    deadline = time.monotonic() + 120
    while any(moves < 5 for _, moves in boards_of(server.server).values()):  # a round: her move, four bots'
        assert time.monotonic() < deadline, boards_of(server.server)
        time.sleep(0.2)
    for number in boards_of(server.server):
        server.send(mail(MALLORY, f"cephalopod resign {number} mallory mallory-pw"), MALLORY)
    server.settled()  # her resignations applied; it was her turn on every board, so no bot was thinking
    assert boards_of(server.server) == {number: ("finished", 6) for number in range(101, 105)}


def _state_and_secret(server: Server, number: int):
    with server.database.reading() as session:
        row = session.scalar(select(Board).where(Board.board == number))
        return row.state, row.secret
