"""No password reaches another player, whatever the mail around a command looks like.

The comment sent with a board, and an error's quote of the mail, star every
password the mail's commands carry wherever it stands, and the password
positions of anything shaped like a command, parsed or not.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import ON_SQLITE_ONLY
from tests.support import body_of, mail, reply_to_board

pytestmark = ON_SQLITE_ONLY  # what mails show

ALICE, BOB = "alice@example.org", "bob@example.net"


@pytest.fixture
def game(make_mailroom):
    room = make_mailroom()
    room.send(mail(ALICE, "signup alice alice-pw"))
    room.send(mail(BOB, "signup bob bob-pw"))
    room.send(mail(ALICE, "cephalopod challenge alice bob"))
    room.replies()
    return room


def everything_sent(room) -> str:
    return "\n".join(f"{m}\n{body_of(m)}" for m in room.replies())


def test_a_move_in_the_subject_repeated_in_the_body_does_not_send_the_password(game):
    command = "cephalopod move 101 alice alice-pw c3"
    game.send(mail(ALICE, f"{command}\n\nGood luck!", subject=command))
    sent = everything_sent(game)
    assert "alice writes:\n\nGood luck!" in sent
    assert "alice-pw" not in sent


def test_a_full_command_under_a_replied_move_does_not_send_the_password(game):
    game.send(mail(ALICE, "cephalopod move 101 alice alice-pw c3"))
    board = next(m for m in game.replies() if m["To"].addresses[0].addr_spec == BOB)
    comment = "cephalopod move 101 bob bob-pw b3\nOops, that was for the record."
    reply = reply_to_board(board, BOB, "b3", comment=comment)
    game.send(reply, to=board["Reply-To"].addresses[0].addr_spec)
    sent = everything_sent(game)
    assert "Oops, that was for the record." in sent
    assert "bob-pw" not in sent


def test_a_move_written_without_the_game_name_does_not_send_the_password(game):
    game.send(mail(ALICE, "cephalopod move 101 alice alice-pw c3"))
    game.replies()
    game.send(mail(BOB, "cephalopod show 101\nmove 101 bob bob-pw b3 was what I meant"))
    game.send(mail(BOB, "move 101 bob bob-pw b3"))
    assert "bob-pw" not in everything_sent(game)


DAVE, DAVES_PASSWORD = "dave@example.com", "Tr0ub4dor&3"


@pytest.fixture
def dave_plays_alice(make_mailroom):
    """A game whose second player's password holds nothing else the mails show (not his userid)."""
    room = make_mailroom()
    room.send(mail(ALICE, "signup alice alice-pw"))
    room.send(mail(DAVE, f"signup dave {DAVES_PASSWORD}"))
    room.send(mail(ALICE, "cephalopod challenge alice dave"))
    room.send(mail(ALICE, "cephalopod move 101 alice alice-pw c3"))
    return room


@pytest.mark.parametrize("board", ["x101", "#101", "board 101", "101,"])
def test_a_command_with_its_board_written_wrongly_under_a_chat_does_not_send_the_password(dave_plays_alice, board):
    room = dave_plays_alice
    board_mail = next(m for m in room.replies() if m["To"].addresses[0].addr_spec == DAVE and "c3" in body_of(m))
    comment = f"cephalopod move {board} dave {DAVES_PASSWORD} b3\nDid that work?"
    room.send(
        reply_to_board(board_mail, DAVE, "chat", comment=comment), to=board_mail["Reply-To"].addresses[0].addr_spec
    )
    sent = everything_sent(room)
    assert "Did that work?" in sent
    assert DAVES_PASSWORD not in sent


@pytest.mark.parametrize("board", ["x101", "#101", "board 101", "101,"])
def test_an_error_answer_to_a_command_with_its_board_written_wrongly_does_not_quote_the_password(
    dave_plays_alice, board
):
    room = dave_plays_alice
    room.replies()
    room.send(mail(DAVE, f"cephalopod move {board} dave {DAVES_PASSWORD} b3"))
    (answer,) = room.replies()
    assert "Error" in answer["Subject"]
    assert DAVES_PASSWORD not in body_of(answer)


def test_an_error_answer_quotes_the_senders_own_words_as_they_were_written(game):
    letter = "Hello, Zoe would like to play Cephalopod with you all.\nShe is new here, be kind to her!"
    game.send(mail(ALICE, letter))
    (answer,) = game.replies()
    assert "> Hello, Zoe would like to play Cephalopod with you all.\n> She is new here, be kind to her!" in body_of(
        answer
    )


PASSWORDS = st.text(alphabet="ABCDEFGHJKLMNPQRSTUVWXYZabcdefghjkmnpqrstuvwxyz23456789", min_size=6, max_size=14).map(
    lambda s: "Zq" + s  # never a word of a board mail by chance
)
EXAMPLES = itertools.count()
NOISE = st.sampled_from(["Hi!", "", "Thanks.", "Good game", "> quoted", "-- ", "ok", "c3"])


@st.composite
def mails_carrying(draw, password: str, userid: str, board: int) -> str:
    """A body with a move using `password`, and the password again in many shapes around it."""
    shapes = [
        f"cephalopod move {board} {userid} {password} c3",
        f"move {board} {userid} {password} c3",
        f"Cephalopod MOVE {board} {userid} {password} c4",
        f"cephalopd move {board} {userid} {password} c3",
        f"cephalopod mvoe {board} {userid} {password} c3",
        f"cephalopod move x{board} {userid} {password} c3",
        f"cephalopod chat #{board} {userid} {password}",
        f"Cephalopod resign board {board} {userid} {password}",
        f"move {board}, {userid} {password} c3",
        f"signup someone {password}",
        f"change password {userid} {password} other-pw",
        f"my password is {password}.",
        f"({password})",
        password,
    ]
    before = draw(st.lists(NOISE, max_size=2))
    after = draw(st.lists(st.one_of(NOISE, st.sampled_from(shapes)), max_size=6))
    return "\n".join([*before, f"cephalopod move {board} {userid} {password} c3", *after])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_the_password_a_mail_carries_is_in_no_mail_the_server_sends(game, data):
    # One database for every example: each plays a new game between a new player and bob.
    password = data.draw(PASSWORDS)
    userid = f"player{next(EXAMPLES)}"
    game.send(mail(f"{userid}@example.org", f"signup {userid} {password}"))
    game.send(mail(f"{userid}@example.org", f"cephalopod challenge {userid} bob"))
    (board,) = {int(m["Subject"].split()[3]) for m in game.replies() if m["Subject"].startswith("New ")}
    body = data.draw(mails_carrying(password, userid, board))
    game.send(mail(f"{userid}@example.org", body, subject=data.draw(st.sampled_from(["", "my move"]))))
    sent = everything_sent(game)
    assert sent  # the move's boards, or an error
    assert password not in sent


# -- the author's password, wherever the mail writes it (issue 42) -------------------------------

CAROL, CAROLS_PASSWORD = "carol@example.org", "Tr0ub4dor"


@pytest.fixture
def carol_plays_alice(make_mailroom):
    """A game where it is carol's move, and carol's board mail to reply to."""
    room = make_mailroom()
    room.send(mail(ALICE, "signup alice alice-pw"))
    room.send(mail(CAROL, f"signup carol {CAROLS_PASSWORD}"))
    room.send(mail(ALICE, "cephalopod challenge alice carol"))
    room.send(mail(ALICE, "cephalopod move 101 alice alice-pw c3"))
    return room


def carols_reply(room, comment: str, move: str = "b3") -> str:
    """Carol replies to her board mail with `move` and `comment`; everything the server sent since."""
    board_mail = next(m for m in room.replies() if m["To"].addresses[0].addr_spec == CAROL and "c3" in body_of(m))
    room.send(
        reply_to_board(board_mail, CAROL, move, comment=comment), to=board_mail["Reply-To"].addresses[0].addr_spec
    )
    return everything_sent(room)


@pytest.mark.parametrize(
    "comment",
    [
        f"cephalopod move 101 {CAROLS_PASSWORD} carol c3",
        f"sorry, I first sent: cephalopod move x101 carol {CAROLS_PASSWORD} c3",
        f'I had typed "cephalopod move 101 carol {CAROLS_PASSWORD} b3" but it failed.',
        f"désolée, j'avais écrit cephalopod move 101 carol {CAROLS_PASSWORD} b3 avant",
    ],
)
def test_the_authors_password_below_a_replied_move_reaches_no_one_in_any_shape(carol_plays_alice, comment):
    sent = carols_reply(carol_plays_alice, f"{comment}\nGood luck!")
    assert "Good luck!" in sent  # the comment went to alice
    assert CAROLS_PASSWORD not in sent


@pytest.mark.parametrize(
    "text",
    [
        f"cephalopod move 101 {CAROLS_PASSWORD} carol c3",
        f"language x101 carol {CAROLS_PASSWORD}",
        f"Hello,\nsorry, I first sent: cephalopod move x101 carol {CAROLS_PASSWORD} c3",
    ],
)
def test_an_error_answer_quotes_none_of_the_authors_passwords_in_any_shape(carol_plays_alice, text):
    room = carol_plays_alice
    room.replies()
    room.send(mail(CAROL, text))
    sent = everything_sent(room)
    assert "Error" in sent
    assert CAROLS_PASSWORD not in sent


ENGLISH = [
    "Good game, see you tomorrow.",
    "sorry, I first sent: {command}",
    'I had typed "{command}" but it failed.',
    "Thanks! My password is {password}, do not tell anyone.",
    "{password}",
    "ok {password} was it",
]
FRENCH = [
    "Bonne partie, à demain.",
    "désolée, j'avais d'abord envoyé : {command}",
    "j'avais tapé « {command} » mais ça n'a pas marché.",
    "Merci ! Mon mot de passe est {password}, ne le dis à personne.",
    "je voudrais {password}",
]
BROKEN = [
    "cephalopod move {board} {password} {userid} c3",
    "cephalopod move x{board} {userid} {password} c3",
    "cephalopod move {board} {userid} {password} c3",
    "move #{board} {userid} {password} b3",
    "language x{board} {userid} {password}",
    "cephalopod resign board {board} {userid} {password}",
]


@pytest.fixture
def many_games(make_mailroom):
    """Bob, and room for a new player and a new game with him in every example."""
    room = make_mailroom(max_confirmations_per_hour=10_000, max_mails_per_address_per_hour=100_000)
    room.send(mail(BOB, "signup bob bob-pw"))
    room.replies()
    return room


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_the_authors_password_in_any_english_or_french_line_reaches_no_one(many_games, data):
    game = many_games
    # One database for every example: each plays a new game between a new player and bob.
    password = data.draw(PASSWORDS)
    userid = f"writer{next(EXAMPLES)}"
    address = f"{userid}@example.org"
    game.send(mail(address, f"signup {userid} {password}"))
    game.send(mail(address, f"cephalopod challenge {userid} bob"))
    new = [m for m in game.replies() if m["Subject"].startswith("New ")]
    (board,) = {int(m["Subject"].split()[3]) for m in new}
    lines = data.draw(st.lists(st.sampled_from(ENGLISH + FRENCH), min_size=1, max_size=4))
    fill = {"board": board, "userid": userid, "password": password}
    text = "\n".join(line.format(command=data.draw(st.sampled_from(BROKEN)).format(**fill), **fill) for line in lines)
    if data.draw(st.booleans()):  # below a move by reply: the comment goes to bob
        board_mail = next(m for m in new if m["To"].addresses[0].addr_spec == address)
        game.send(
            reply_to_board(board_mail, address, "c3", comment=text), to=board_mail["Reply-To"].addresses[0].addr_spec
        )
    else:  # to the plain address: an error quotes it back
        game.send(mail(address, text, subject=data.draw(st.sampled_from(["", "my move", text.splitlines()[0]]))))
    sent = everything_sent(game)
    assert sent, text
    assert password not in sent, text
