"""Ordinary habits of mail users, over real SMTP: each gives the result the player meant.

A reply to an old board mail, a comment that starts like a command, a board
mail passed on to a friend, a typo in a game's name: every one of these once
gave a wrong or confusing result.
"""

from __future__ import annotations

import pytest
from sqlalchemy import select

from pbm.store.models import Board, MoveRecord
from tests.support import body_of, mail, reply_to_board

ALICE, BOB, CAROL = "alice@example.org", "bob@example.net", "carol@example.com"


def to(messages, address):
    return [m for m in messages if m["To"].addresses[0].addr_spec == address]


def reply_address(board) -> str:
    return board["Reply-To"].addresses[0].addr_spec


def moves(server) -> list[str]:
    with server.server.database.reading() as session:
        return list(session.scalars(select(MoveRecord.notation).order_by(MoveRecord.number)))


def test_a_reply_to_an_old_board_mail_is_refused_with_the_board_as_it_is(server, sink):
    for address, userid in ((ALICE, "alice"), (BOB, "bob")):
        server.send(mail(address, f"signup {userid} {userid}-pw"), address)
    sink.wait(2)
    server.send(mail(ALICE, "cephalopod challenge alice bob"), ALICE)
    bobs_first_board = to(sink.wait(2), BOB)[0]
    server.send(mail(ALICE, "cephalopod move 101 alice alice-pw c3"), ALICE)
    sink.wait(2)
    server.send(mail(BOB, "cephalopod move 101 bob bob-pw b3"), BOB)
    sink.wait(2)
    server.send(mail(ALICE, "cephalopod move 101 alice alice-pw d3"), ALICE)
    sink.wait(2)
    assert moves(server) == ["c3", "b3", "d3"]

    # bob answers his *first* board mail, drawn before any move.
    server.send(reply_to_board(bobs_first_board, BOB, "e5"), BOB, [reply_address(bobs_first_board)])
    (refusal,) = sink.wait(1)
    assert refusal["To"].addresses[0].addr_spec == BOB
    assert refusal["Subject"] == "Cephalopod Board 101 Error"
    text = body_of(refusal)
    assert "Your reply answers the board after move 0, but the game has moved on since" in text
    assert "Reply to the newest board mail" in text
    assert "3  ... <1> (1) (1) ...  3" in text  # the board as it stands
    assert moves(server) == ["c3", "b3", "d3"]

    # The refusal itself may be answered with the move, as a board mail may.
    server.send(reply_to_board(refusal, BOB, "e5"), BOB, [reply_address(refusal)])
    assert {m["Subject"] for m in sink.wait(2)} == {"Cephalopod Board 101 alice"}
    assert moves(server) == ["c3", "b3", "d3", "e5"]


def test_a_board_mail_passed_on_does_not_let_another_address_play(server, sink):
    for address, userid in ((ALICE, "alice"), (BOB, "bob"), (CAROL, "carol")):
        server.send(mail(address, f"signup {userid} {userid}-pw"), address)
    sink.wait(3)
    server.send(mail(ALICE, "cephalopod challenge alice bob"), ALICE)
    alices_board = to(sink.wait(2), ALICE)[0]

    # alice forwards her board mail to carol, who replies to it.
    server.send(reply_to_board(alices_board, CAROL, "c3"), CAROL, [reply_address(alices_board)])
    (refusal,) = sink.wait(1)
    assert refusal["To"].addresses[0].addr_spec == CAROL
    text = body_of(refusal)
    assert "This reply address is alice's, and works only from an address alice registered" in text
    assert "cephalopod move 101 alice PASSWORD MOVE" in text
    assert moves(server) == []
    with server.server.database.reading() as session:
        assert session.scalar(select(Board.move_count)) == 0


@pytest.fixture
def board_101(server, sink):
    """alice and bob at Cephalopod board 101, alice to move."""
    for address, userid in ((ALICE, "alice"), (BOB, "bob")):
        server.send(mail(address, f"signup {userid} {userid}-pw"), address)
    sink.wait(2)
    server.send(mail(ALICE, "cephalopod challenge alice bob"), ALICE)
    sink.wait(2)
    return server


def test_a_comment_that_begins_with_the_games_name_is_sent_as_a_comment(board_101, sink):
    board_101.send(mail(ALICE, "cephalopod move 101 alice alice-pw e1\n\nCephalopod is hard, right?"), ALICE)
    boards = sink.wait(2)
    assert {m["Subject"] for m in boards} == {"Cephalopod Board 101 bob **"}
    assert "alice writes:\n\nCephalopod is hard, right?" in body_of(to(boards, BOB)[0])
    assert sink.once_settled(board_101) == []  # no error for the comment
    assert moves(board_101) == ["e1"]


def test_a_comment_right_under_a_challenge_that_names_the_game_is_a_comment(board_101, sink):
    board_101.send(mail(ALICE, "cubeo challenge -dice=8 -remove alice bob\nCubeo with eight d8s and removal."), ALICE)
    boards = sink.wait(2)
    assert {m["Subject"] for m in boards} == {"New Cubeo Board 101 alice **"}
    assert "alice writes:\n\nCubeo with eight d8s and removal." in body_of(to(boards, BOB)[0])
    assert sink.once_settled(board_101) == []


def test_a_comment_that_begins_with_help_is_not_a_help_request(board_101, sink):
    board_101.send(mail(ALICE, "cephalopod move 101 alice alice-pw c3\nhelp me understand the captures"), ALICE)
    boards = sink.wait(2)
    assert "alice writes:\n\nhelp me understand the captures" in body_of(to(boards, BOB)[0])
    assert sink.once_settled(board_101) == []


def test_several_commands_in_one_block_all_run_and_a_blank_line_ends_the_block(board_101, sink):
    board_101.send(
        mail(ALICE, "cephalopod move 101 alice alice-pw c3\ncephalopod show 101\n\ncephalopod show 101 is a comment"),
        ALICE,
    )
    answers = sink.wait(3)
    # The move's two mails carry the comment (' **'); the board `show` sends alice does not.
    assert sorted(m["Subject"] for m in answers) == ["Cephalopod Board 101 bob"] + ["Cephalopod Board 101 bob **"] * 2
    assert "alice writes:\n\ncephalopod show 101 is a comment" in body_of(to(answers, BOB)[0])
    assert sink.once_settled(board_101) == []


def test_a_mistyped_game_name_is_answered_with_the_name_it_meant(board_101, sink):
    board_101.send(mail(ALICE, "cephalopd move 101 alice alice-pw c3"), ALICE)
    (error,) = sink.wait(1)
    assert "'cephalopd' is not a command; did you mean cephalopod?" in body_of(error)
    assert "alice-pw" not in body_of(error)
    assert moves(board_101) == []


@pytest.mark.parametrize(
    "line",
    [
        "cephalopod notify carol SECRET-pw",
        "cephalopod accept carol SECRET-pw",
        "add carol SECRET-pw carol@elsewhere.example",
        "message carol SECRET-pw bob",
        "broadcast carol SECRET-pw",
        "cephalopod limit carol SECRET-pw 3",
        "cephalopod frobnicate 101 carol SECRET-pw c3",
        "frobnicate carol SECRET-pw",
    ],
)
def test_a_password_in_a_command_not_understood_is_not_echoed(server, sink, line):
    server.send(mail(CAROL, line), CAROL)
    (answer,) = sink.wait(1)
    assert "SECRET-pw" not in body_of(answer)
    assert "********" in body_of(answer)


ENCRYPTED = f"""From: {ALICE}
To: pbm@localhost
Subject: my move
MIME-Version: 1.0
Content-Type: multipart/encrypted; protocol="application/pgp-encrypted"; boundary="B"

--B
Content-Type: application/pgp-encrypted

Version: 1
--B
Content-Type: application/octet-stream

-----BEGIN PGP MESSAGE-----
hQEMA5vY
-----END PGP MESSAGE-----
--B--
"""


def test_an_encrypted_mail_is_told_why_it_could_not_be_read(server, sink):
    server.send(ENCRYPTED.encode(), ALICE)
    (answer,) = sink.wait(1)
    text = body_of(answer)
    assert "Your mail has no text the server could read (the message is encrypted and could not be read)" in text
    assert "Send your commands as plain text" in text
    assert "No command found" not in text


def test_what_reading_the_mail_noticed_is_told_to_its_sender_only(board_101, sink):
    from email.message import EmailMessage

    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = ALICE, "pbm@localhost", "my move"
    message.set_content("cephalopod move 101 alice alice-pw c3\n")
    message.add_alternative("<p>cephalopod move 101 alice alice-pw c3</p>", subtype="html")
    message.add_attachment(b"\x89PNG...", maintype="image", subtype="png", filename="board.png")
    board_101.send(bytes(message), ALICE)
    boards = sink.wait(2)
    alices, bobs = body_of(to(boards, ALICE)[0]), body_of(to(boards, BOB)[0])
    assert "About your mail:\n  - 1 attachment was ignored." in alices
    assert "About your mail" not in bobs


def test_a_mail_in_latin_1_without_a_charset_is_told_how_it_was_read(server, sink):
    raw = f"From: {ALICE}\nTo: pbm@localhost\nSubject: hi\n\nhelp\nTr\xe8s bien\n".encode("latin-1")
    server.send(raw, ALICE)
    (answer,) = sink.wait(1)
    assert "  - The text has no charset; it was read as Latin-1." in body_of(answer)


def test_a_reply_without_a_move_is_answered_about_its_game(server, sink):
    for address, userid in ((ALICE, "alice"), (BOB, "bob")):
        server.send(mail(address, f"signup {userid} {userid}-pw"), address)
    sink.wait(2)
    server.send(mail(ALICE, "cephalopod challenge alice bob"), ALICE)
    board = to(sink.wait(2), ALICE)[0]
    server.send(reply_to_board(board, ALICE, ""), ALICE, [reply_address(board)])
    (answer,) = sink.wait(1)
    assert answer["Subject"] == "Cephalopod Board 101 Error"
    text = body_of(answer)
    assert text.startswith("Nothing was carried out, and nothing was changed:\n\nYour reply has no move in it")
