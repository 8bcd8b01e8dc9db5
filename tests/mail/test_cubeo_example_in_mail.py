"""Every Cubeo board mail works one legal move of the position it shows out in words."""

from __future__ import annotations

import re

from sqlalchemy import select

import pbm.games
from pbm.store.models import Board
from tests.support import body_of, mail

ALICE, BOB = "alice@example.org", "bob@example.net"
EXAMPLE = re.compile(r"Writing a move: for example, (\w+) could play (\S+), which")


def test_each_cubeo_board_mail_shows_a_legal_move_of_its_position_written_out(make_mailroom):
    room = make_mailroom()
    room.send(mail(ALICE, "signup alice alice-pw"))
    room.send(mail(BOB, "signup bob bob-pw"))
    room.send(mail(ALICE, "cubeo challenge alice bob"))
    room.replies()
    room.send(mail(ALICE, "cubeo move 101 alice alice-pw +0,-1"))
    mails = {m["To"].addresses[0].addr_spec: body_of(m) for m in room.replies()}
    engine = pbm.games.get("cubeo")
    with room.database.reading() as session:
        stored = session.scalars(select(Board)).one()
        state = engine.load(stored.state, stored.secret)
    to_bob, to_alice = EXAMPLE.search(mails[BOB]), EXAMPLE.search(mails[ALICE])
    assert to_bob is not None and to_alice is not None
    assert to_bob[1] == "you" and to_alice[1] == "bob"
    assert to_bob[2] == to_alice[2] == engine.example_move(state).notation
    assert to_bob[2] in engine.legal_moves(state)
    assert "the pips the die shows, the cell it stands on," in " ".join(mails[BOB].split())


def test_other_games_and_games_that_are_over_show_no_example(make_mailroom):
    room = make_mailroom()
    room.send(mail(ALICE, "signup alice alice-pw"))
    room.send(mail(BOB, "signup bob bob-pw"))
    room.replies()
    room.send(mail(ALICE, "cephalopod challenge alice bob"))
    room.send(mail(ALICE, "cubeo challenge alice bob"))
    room.send(mail(ALICE, "cubeo resign 101 alice alice-pw"))
    bodies = [body_of(m) for m in room.replies()]
    assert len(bodies) == 6
    assert [b for b in bodies if "Writing a move" in b] == bodies[2:4], "the new Cubeo game's two mails alone"
