"""Whom a player takes challenges from, over real SMTP: accept, reject, limit."""

from __future__ import annotations

from sqlalchemy import func, select

from pbm.store.models import Board
from tests.e2e.club import send, signed_up
from tests.support import body_of


def boards(server) -> int:
    with server.server.database.reading() as session:
        return session.scalar(select(func.count()).select_from(Board))


def test_a_player_who_rejects_challenges_gets_none_and_the_challenger_is_told(server, sink):
    signed_up(server, sink, "alice", "bob")
    send(server, "bob", "cephalopod reject bob bob-pw")
    (told,) = sink.wait(1)
    assert told["Subject"] == "Cephalopod challenges to bob"
    assert "bob takes no Cephalopod challenges." in body_of(told)
    send(server, "alice", "cephalopod challenge alice bob")
    (refusal,) = sink.wait(1)
    assert refusal["Subject"] == "Cephalopod Invalid challenge"
    assert "bob takes no Cephalopod challenges." in body_of(refusal)
    assert boards(server) == 0

    send(server, "bob", "cephalopod accept bob bob-pw")
    sink.wait(1)
    send(server, "alice", "cephalopod challenge alice bob")
    assert {m["Subject"] for m in sink.wait(2)} == {"New Cephalopod Board 101 alice"}


def test_a_limit_refuses_challenges_past_it_and_names_every_refusal(server, sink):
    signed_up(server, sink, "alice", "bob", "carol")
    send(server, "bob", "cephalopod limit bob bob-pw 1")
    assert "bob takes Cephalopod challenges, up to 1 game at once." in body_of(sink.wait(1)[0])
    send(server, "carol", "cephalopod reject carol carol-pw")
    sink.wait(1)
    send(server, "alice", "cephalopod challenge alice bob")
    sink.wait(2)
    send(server, "alice", "cephalopod challenge alice bob carol")
    (refusal,) = sink.wait(1)
    text = body_of(refusal)
    assert "bob plays 1 Cephalopod game, as many as bob takes at once" in text
    assert "carol takes no Cephalopod challenges" in text
    assert boards(server) == 1


def test_limit_without_a_value_says_the_limit_and_inf_lifts_it(server, sink):
    signed_up(server, sink, "bob")
    send(server, "bob", "cephalopod limit bob bob-pw 2")
    sink.wait(1)
    send(server, "bob", "cephalopod limit bob bob-pw")
    assert "up to 2 games at once" in body_of(sink.wait(1)[0])
    send(server, "bob", "cephalopod limit bob bob-pw inf")
    assert "with no limit on the games at once" in body_of(sink.wait(1)[0])


def test_a_limit_that_is_no_number_is_refused(server, sink):
    signed_up(server, sink, "bob")
    send(server, "bob", "cephalopod limit bob bob-pw lots")
    assert "The last word is not a limit" in body_of(sink.wait(1)[0])
