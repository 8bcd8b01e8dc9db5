"""Finding opponents, over real SMTP: seekers paired into games, open challenges joined.

``seek USERID PASSWORD N`` asks for N more games; the server pairs seekers of
the same game whose options agree, the longest waiting first and then the
nearest rating, and starts the game. ``challenge alice open`` leaves a seat
free for the first ``join``; one nobody joins is called off when it expires.
"""

from __future__ import annotations

import time

import pytest
from sqlalchemy import select

from pbm.store.models import Board, OpenChallenge, Seek
from tests.e2e.club import ADDRESSES, send, signed_up, to
from tests.support import body_of


def boards(server) -> list[tuple[int, list[str]]]:
    with server.server.database.reading() as session:
        found = session.scalars(select(Board).order_by(Board.board)).all()
        return [(b.board, [seat.player.userid for seat in b.seats]) for b in found]


def seeking(server) -> dict[str, int]:
    with server.server.database.reading() as session:
        return {seek.player.userid: seek.wanted for seek in session.scalars(select(Seek))}


# -- seek -------------------------------------------------------------------------------------


def test_a_seek_waits_until_a_second_seeker_comes_and_then_both_are_paired(server, sink):
    signed_up(server, sink, "alice", "bob")
    send(server, "alice", "cephalopod seek alice alice-pw 1")
    (told,) = sink.wait(1)
    assert told["To"].addresses[0].addr_spec == ADDRESSES["alice"]
    assert told["Subject"] == "Cephalopod seek of alice"
    assert "alice seeks 1 more Cephalopod game (any options)," in body_of(told)
    assert boards(server) == []

    send(server, "bob", "cephalopod seek bob bob-pw 1")
    mails = sink.wait(3)  # the new game's board to each, and bob's answer
    assert boards(server) == [(101, ["alice", "bob"])]  # alice waited longer: she moves first
    for userid in ("alice", "bob"):
        (board,) = [m for m in mails if m["To"].addresses[0].addr_spec == ADDRESSES[userid] and "Board" in m["Subject"]]
        assert board["Subject"] == "New Cephalopod Board 101 alice"
        assert body_of(board).startswith("The server paired alice and bob, who both seek Cephalopod games.\n")
    answer = next(m for m in mails if m["Subject"] == "Cephalopod seek of bob")
    assert "Paired at once:\n    Cephalopod board 101 with alice\n" in body_of(answer)
    assert "bob seeks no Cephalopod games." in body_of(answer)
    assert seeking(server) == {}


def test_the_longest_waiting_seeker_is_paired_first_then_the_nearest_rating(server, sink):
    signed_up(server, sink, "alice", "bob", "carol")
    send(server, "carol", "cephalopod seek carol carol-pw 1")
    sink.wait(1)
    send(server, "bob", "cephalopod seek bob bob-pw 1 -size=7")  # options carol's seek takes (she named none)
    sink.wait(3)
    assert boards(server) == [(101, ["carol", "bob"])]
    with server.server.database.reading() as session:
        assert session.scalars(select(Board.options)).one() == {"size": 7}
    send(server, "alice", "cephalopod seek alice alice-pw 2")
    assert "alice seeks 2 more Cephalopod games" in body_of(sink.wait(1)[0])
    assert seeking(server) == {"alice": 2}


def test_seekers_whose_options_disagree_are_not_paired(server, sink):
    signed_up(server, sink, "alice", "bob")
    send(server, "alice", "cephalopod seek alice alice-pw 1 -size=5")
    sink.wait(1)
    send(server, "bob", "cephalopod seek bob bob-pw 1 -size=7")
    assert "(-size=7)" in body_of(sink.wait(1)[0])
    assert boards(server) == []
    assert seeking(server) == {"alice": 1, "bob": 1}


def test_a_seeker_at_their_limit_is_not_paired_and_is_told_why(server, sink):
    signed_up(server, sink, "alice", "bob")
    send(server, "alice", "cephalopod limit alice alice-pw 0")
    sink.wait(1)
    send(server, "alice", "cephalopod seek alice alice-pw 1")
    said = " ".join(body_of(sink.wait(1)[0]).split())  # the paragraph is wrapped to the mail's width
    assert "No game can start now: alice plays 0 Cephalopod games, as many as alice takes at once." in said
    send(server, "bob", "cephalopod seek bob bob-pw 1")
    sink.wait(1)
    assert boards(server) == []


def test_seek_without_a_number_says_what_is_sought_and_zero_stops(server, sink):
    signed_up(server, sink, "alice")
    send(server, "alice", "cephalopod seek alice alice-pw 3")
    sink.wait(1)
    send(server, "alice", "cephalopod seek alice alice-pw")
    assert "alice seeks 3 more Cephalopod games (any options)" in body_of(sink.wait(1)[0])
    send(server, "alice", "cephalopod seek alice alice-pw 0")
    assert "alice seeks no Cephalopod games." in body_of(sink.wait(1)[0])
    assert seeking(server) == {}


def test_the_standings_show_what_each_player_seeks(server, sink):
    signed_up(server, sink, "alice", "bob")
    send(server, "alice", "cephalopod seek alice alice-pw 2 -size=5")
    sink.wait(1)
    send(server, "bob", "cephalopod standings")
    text = body_of(sink.wait(1)[0])
    assert "Seeking games, not yet rated: alice (2)" in text


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("cephalopod seek alice wrong 1", "Wrong password for alice."),
        ("cephalopod seek alice alice-pw many", "'many' is not a number of games: write 0 to 20 (0 stops seeking)."),
        ("cephalopod seek alice alice-pw 21", "'21' is not a number of games: write 0 to 20 (0 stops seeking)."),
        ("cephalopod seek nobody pw 1", "There is no player 'nobody' (sign up with: signup userid password)."),
        ("cephalopod seek alice", "Usage: cephalopod seek USERID PASSWORD [N] [-options]."),
    ],
)
def test_a_bad_seek_is_refused_and_changes_nothing(server, sink, line, reason):
    signed_up(server, sink, "alice")
    send(server, "alice", line)
    (error,) = sink.wait(1)
    assert error["Subject"].endswith("Error")
    assert reason in body_of(error)
    assert "alice-pw" not in body_of(error)
    assert seeking(server) == {}


# -- open challenges --------------------------------------------------------------------------


def test_an_open_challenge_is_joined_by_the_first_player_and_the_game_begins(server, sink):
    signed_up(server, sink, "alice", "bob", "carol")
    send(server, "alice", "cephalopod challenge -size=7 alice open")
    (opened,) = sink.wait(1)
    assert opened["To"].addresses[0].addr_spec == ADDRESSES["alice"]
    assert opened["Subject"] == "Open Cephalopod Board 101"
    text = body_of(opened)
    assert "Seats, in order of play:  alice, (open)" in text
    assert "Options:  -size=7" in text
    assert "cephalopod join 101 USERID PASSWORD" in text
    assert boards(server) == []

    send(server, "carol", "cephalopod games open")
    listing = body_of(sink.wait(1)[0])
    assert "   101  " in listing and "alice, (open)  -size=7" in listing

    send(server, "bob", "cephalopod join 101 bob bob-pw")
    mails = sink.wait(2)
    assert boards(server) == [(101, ["alice", "bob"])]
    for userid in ("alice", "bob"):
        board = to(mails, userid)
        assert board["Subject"] == "New Cephalopod Board 101 alice"
        assert body_of(board).startswith("bob joined alice's open challenge, and the game begins.\n")

    send(server, "carol", "cephalopod join 101 carol carol-pw")
    assert "Cephalopod board 101 is not an open challenge" in body_of(sink.wait(1)[0])
    assert boards(server) == [(101, ["alice", "bob"])]


def test_an_open_seat_may_come_first_and_a_game_of_three_waits_for_both_seats(server, sink):
    signed_up(server, sink, "alice", "bob", "carol")
    send(server, "alice", "cephalopod challenge open alice open")
    sink.wait(1)
    send(server, "carol", "cephalopod join 101 carol carol-pw")
    mails = sink.wait(2)  # alice and carol hear that one seat is still free
    assert "carol joined the open challenge at Cephalopod board 101." in body_of(to(mails, "alice"))
    assert "Seats, in order of play:  carol, alice, (open)" in body_of(to(mails, "carol"))
    send(server, "carol", "cephalopod join 101 carol carol-pw")
    assert "carol has a seat at Cephalopod board 101 already" in body_of(sink.wait(1)[0])
    send(server, "bob", "cephalopod join 101 bob bob-pw")
    sink.wait(3)
    assert boards(server) == [(101, ["carol", "alice", "bob"])]


def test_an_open_challenge_keeps_its_number_while_other_games_start(server, sink):
    signed_up(server, sink, "alice", "bob", "carol")
    send(server, "alice", "cephalopod challenge alice open")
    sink.wait(1)
    send(server, "bob", "cephalopod challenge bob carol")
    sink.wait(2)
    send(server, "carol", "cephalopod join 101 carol carol-pw")
    sink.wait(2)
    assert boards(server) == [(101, ["alice", "carol"]), (102, ["bob", "carol"])]


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("cephalopod join 101 bob wrong", "Wrong password for bob."),
        ("cephalopod join 555 bob bob-pw", "Cephalopod board 555 is not an open challenge"),
        ("cephalopod join 101 bob", "Usage: cephalopod join BOARD USERID PASSWORD."),
    ],
)
def test_a_bad_join_is_refused_and_the_seat_stays_free(server, sink, line, reason):
    signed_up(server, sink, "alice", "bob")
    send(server, "alice", "cephalopod challenge alice open")
    sink.wait(1)
    send(server, "bob", line)
    assert reason in body_of(sink.wait(1)[0])
    with server.server.database.reading() as session:
        assert session.scalars(select(OpenChallenge.seats)).one() == [1, None]


def test_open_is_no_userid_and_a_challenge_of_open_seats_alone_is_refused(server, sink):
    send(server, "alice", "signup open open-pw")
    assert "'open' cannot be a userid" in body_of(sink.wait(1)[0])
    signed_up(server, sink, "alice")
    send(server, "alice", "cephalopod challenge open open")
    assert "Usage: cephalopod challenge" in body_of(sink.wait(1)[0])


def test_an_open_challenge_nobody_joins_expires_and_its_players_are_told(server_with, sink):
    server = server_with(open_challenge_hours=1 / 3600, time_pass_seconds=1)
    signed_up(server, sink, "alice", "bob")
    send(server, "alice", "cephalopod challenge alice open")
    sink.wait(1)
    time.sleep(1.5)
    send(server, "bob", "cephalopod join 101 bob bob-pw")  # too late; and the time pass that follows closes it
    mails = sink.wait(2)
    expired = to(mails, "alice")
    assert expired["Subject"] == "Open Cephalopod Board 101 expired"
    assert "Nobody took the free seat of the open challenge at Cephalopod board\n101" in body_of(expired)
    assert "The open challenge at Cephalopod board 101 expired at" in body_of(to(mails, "bob"))
    assert boards(server) == []
    with server.server.database.reading() as session:
        assert session.scalars(select(OpenChallenge)).all() == []


def test_the_challenger_withdraws_an_open_challenge_and_another_player_gives_a_seat_back(server, sink):
    signed_up(server, sink, "alice", "bob", "carol")
    send(server, "alice", "cephalopod challenge alice open open")
    sink.wait(1)
    send(server, "bob", "cephalopod join 101 bob bob-pw")
    sink.wait(2)
    send(server, "bob", "cephalopod resign 101 bob bob-pw")
    mails = sink.wait(2)
    assert "bob gave up their seat at the open challenge at Cephalopod board 101." in body_of(to(mails, "alice"))
    assert "Seats, in order of play:  alice, (open), (open)" in body_of(to(mails, "bob"))
    send(server, "carol", "cephalopod resign 101 carol carol-pw")
    assert "carol has no seat at the open challenge at Cephalopod board 101" in body_of(sink.wait(1)[0])
    send(server, "alice", "cephalopod resign 101 alice alice-pw")
    (withdrawn,) = sink.wait(1)
    assert withdrawn["Subject"] == "Open Cephalopod Board 101 withdrawn"
    assert "has been withdrawn by\nits challenger." in body_of(withdrawn)
    send(server, "carol", "cephalopod join 101 carol carol-pw")
    assert "Cephalopod board 101 is not an open challenge" in body_of(sink.wait(1)[0])
    assert boards(server) == []
