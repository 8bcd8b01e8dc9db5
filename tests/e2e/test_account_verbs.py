"""The account verbs a club needs beyond signing up, over real SMTP."""

from __future__ import annotations

import pytest

from tests.support import body_of, mail, reply_to_board

ALICE, ALICE_WORK, BOB = "alice@example.org", "alice@work.example", "bob@example.net"


def to(messages, address: str):
    (message,) = [m for m in messages if m["To"].addresses[0].addr_spec == address]
    return message


@pytest.fixture
def playing(server, sink):
    """alice and bob at Cephalopod board 101, after alice's c3 and bob's b3."""
    for address, userid in ((ALICE, "alice"), (BOB, "bob")):
        server.send(mail(address, f"signup {userid} {userid}-pw"), address)
    sink.wait(2)
    server.send(mail(ALICE, "cephalopod challenge alice bob"), ALICE)
    sink.wait(2)
    server.send(mail(ALICE, "cephalopod move 101 alice alice-pw c3"), ALICE)
    sink.wait(2)
    server.send(mail(BOB, "cephalopod move 101 bob bob-pw b3"), BOB)
    return sink.wait(2)


def test_an_added_address_may_answer_board_mails_too(server, sink, playing):
    server.send(mail(ALICE, f"add alice alice-pw {ALICE_WORK}"), ALICE)
    told = sink.wait(2)
    assert {m["To"].addresses[0].addr_spec for m in told} == {ALICE, ALICE_WORK}
    assert ALICE_WORK in body_of(told[0])
    board = to(playing, ALICE)
    server.send(reply_to_board(board, ALICE_WORK, "d3"), ALICE_WORK, [board["Reply-To"].addresses[0].addr_spec])
    assert {m["Subject"] for m in sink.wait(2)} == {"Cephalopod Board 101 bob"}


def test_signing_off_forfeits_the_games_still_played_and_keeps_the_userid(server, sink, playing):
    server.send(mail(ALICE, "signoff alice alice-pw"), ALICE)
    answers = sink.wait(3)
    bobs = to(answers, BOB)
    assert bobs["Subject"] == "Cephalopod Board 101 won by bob"
    assert body_of(bobs).startswith("alice forfeited by signing off.\n")
    assert "\nbob won when alice forfeited by signing off.\n" in body_of(bobs)
    goodbye = [m for m in answers if m["Subject"] == "Goodbye, alice"][0]
    assert "The games it was still playing are forfeited: Cephalopod board 101." in body_of(goodbye)
    server.send(mail(ALICE_WORK, "signup alice another-password"), ALICE_WORK)
    assert "The userid 'alice' is taken" in body_of(sink.wait(1)[0])


def test_delete_is_signoff(server, sink):
    server.send(mail(BOB, "signup bob bob-pw"), BOB)
    sink.wait(1)
    server.send(mail(BOB, "delete bob bob-pw"), BOB)
    assert sink.wait(1)[0]["Subject"] == "Goodbye, bob"


def test_all_show_lists_a_players_games_of_every_kind(server, sink, playing):
    server.send(mail(BOB, "dodeca challenge bob alice"), BOB)
    sink.wait(2)
    server.send(mail(BOB, "all show alice"), BOB)
    listed = body_of(sink.wait(1)[0])
    assert " Cephalopod    101     2  active     alice" in listed
    assert " Dodeca        101     0  active" in listed


@pytest.mark.parametrize(
    ("topic", "subject", "words"),
    [
        ("tutorial", "A first game on the PBeM Server", "signup alice my-secret-password"),
        ("ratings", "How ratings are kept on the PBeM Server", "K = 32"),
    ],
)
def test_help_topics(server, sink, topic, subject, words):
    server.send(mail(BOB, f"help {topic}"), BOB)
    (answer,) = sink.wait(1)
    assert answer["Subject"] == subject
    assert words in body_of(answer)
