"""The other words long-time pbmserv players write, over real SMTP: aliases, and moves these games lack."""

from __future__ import annotations

import pytest

from tests.support import body_of, mail

ALICE, BOB = "alice@example.org", "bob@example.net"


@pytest.fixture
def board_101(server, sink):
    for address, userid in ((ALICE, "alice"), (BOB, "bob")):
        server.send(mail(address, f"signup {userid} {userid}-pw"), address)
    sink.wait(2)
    server.send(mail(ALICE, "cephalopod chall alice bob"), ALICE)
    assert {m["Subject"] for m in sink.wait(2)} == {"New Cephalopod Board 101 alice"}
    return server


@pytest.mark.parametrize(
    ("word", "answer"),
    [
        ("pass", "Cephalopod does not allow passing: every turn must be played."),
        ("swap", "Cephalopod has no swap: the first player named in the challenge moves first."),
    ],
)
def test_pass_and_swap_are_answered_as_moves_these_games_do_not_have(board_101, sink, word, answer):
    board_101.send(mail(ALICE, f"cephalopod {word} 101 alice alice-pw"), ALICE)
    (refusal,) = sink.wait(1)
    assert answer in body_of(refusal)


def test_mvoe_is_a_move(board_101, sink):
    board_101.send(mail(ALICE, "cephalopod mvoe 101 alice alice-pw c3"), ALICE)
    assert {m["Subject"] for m in sink.wait(2)} == {"Cephalopod Board 101 bob"}


@pytest.mark.parametrize("line", ["cephalopod board 101", "cephalopod show board 101", "cephalopod showas 101 bob"])
def test_board_show_board_and_showas_show_a_board(board_101, sink, line):
    board_101.send(mail(ALICE, line), ALICE)
    (shown,) = sink.wait(1)
    assert shown["Subject"] == "Cephalopod Board 101 alice"
    assert "Summary of Cephalopod Board 101" in body_of(shown)


def test_show_with_a_userid_lists_that_players_games(board_101, sink):
    board_101.send(mail(BOB, "cephalopod show alice next"), BOB)
    (listed,) = sink.wait(1)
    assert listed["Subject"] == "Cephalopod games"
    assert "   101     0  active     alice         alice, bob" in body_of(listed)


def test_ratings_are_the_standings(board_101, sink):
    board_101.send(mail(BOB, "cephalopod ratings"), BOB)
    assert sink.wait(1)[0]["Subject"] == "Cephalopod standings"
