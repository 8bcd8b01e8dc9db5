"""Processing mail: each command and each mistake, as a player meets them by mail.

Every test runs on SQLite and, when configured, on PostgreSQL.
"""

from __future__ import annotations

import threading

import pytest
from argon2 import PasswordHasher
from sqlalchemy import func, select, text

import pbm.games
from pbm.crypto.passwords import Passwords
from pbm.store.inbox import save_inbound
from pbm.store.models import Board, InboundMessage, MoveRecord, OutboxMessage, Player, Rating
from tests.mail.mailroom import Mailroom
from tests.support import body_of, end_words, mail, reply_to_board

ALICE, BOB, CAROL = "alice@example.org", "bob@example.net", "carol@example.com"
ADDRESSES = {"alice": ALICE, "bob": BOB, "carol": CAROL}


@pytest.fixture
def room(make_mailroom) -> Mailroom:
    return make_mailroom()


@pytest.fixture
def players(room: Mailroom) -> Mailroom:
    for address, userid in ((ALICE, "alice"), (BOB, "bob"), (CAROL, "carol")):
        room.send(mail(address, f"signup {userid} {userid}-pw"))
    room.replies()
    return room


@pytest.fixture
def game(players: Mailroom) -> Mailroom:
    players.send(mail(ALICE, "cephalopod challenge alice bob"))
    players.replies()
    return players


def count(room: Mailroom, model) -> int:
    with room.database.reading() as session:
        return session.scalar(select(func.count()).select_from(model))


def stored_game(room: Mailroom, board: int = 101) -> Board:
    with room.database.reading() as session:
        return session.scalar(select(Board).where(Board.board == board))


def play_out(room: Mailroom, board: int = 101) -> Board:
    """Play the game to its end, each player mailing the engine's first legal move."""
    engine = pbm.games.get("cephalopod")
    while (game := stored_game(room, board)).status == "active":
        state = engine.load(game.state)
        userid = game.seats[state.to_move].player.userid
        move = engine.legal_moves(state)[0]
        room.send(mail(ADDRESSES[userid], f"cephalopod move {board} {userid} {userid}-pw {move}"))
    return game


def the_only(messages):
    assert len(messages) == 1, [m["Subject"] for m in messages]
    return messages[0]


# -- accounts -----------------------------------------------------------------


def test_signup_welcomes_the_player_and_stores_only_a_password_hash(room):
    room.send(mail(ALICE, "signup alice s3cret-pw"))
    welcome = the_only(room.replies())
    assert welcome["To"].addresses[0].addr_spec == ALICE
    assert welcome["Subject"] == "Welcome to the PBeM Server, alice"
    assert "s3cret-pw" not in body_of(welcome)
    with room.database.reading() as session:
        player = session.scalar(select(Player))
        assert player.userid == "alice" and player.password_hash.startswith("$argon2id$")
        assert [a.address for a in player.addresses] == [ALICE]


def test_signup_with_a_taken_userid_is_refused_and_changes_nothing(players):
    players.send(mail("mallory@evil.example", "signup alice other-pw"))
    error = the_only(players.replies())
    assert error["Subject"] == "PBeM Server Error"
    assert "The userid 'alice' is taken" in body_of(error)
    assert "other-pw" not in body_of(error)
    assert count(players, Player) == 3


def test_signup_with_a_too_short_password_is_refused(room):
    room.send(mail(ALICE, "signup alice pw"))
    assert "A password must be 4 to 128 characters long" in body_of(the_only(room.replies()))
    assert count(room, Player) == 0


def test_change_password_needs_the_old_one(players):
    players.send(mail(ALICE, "change password alice wrong new-pw"))
    assert "Wrong password for alice" in body_of(the_only(players.replies()))
    players.send(mail(ALICE, "change password alice alice-pw new-pw"))
    assert the_only(players.replies())["Subject"] == "Password changed for alice"
    players.send(mail(ALICE, "cephalopod challenge alice bob"))
    players.replies()
    players.send(mail(ALICE, "cephalopod move 101 alice new-pw c3"))
    assert [m["Subject"] for m in players.replies()] == ["Cephalopod Board 101 bob"] * 2


def test_change_address_tells_both_the_old_and_the_new_address(players):
    players.send(mail(ALICE, "change address alice alice-pw alice@new.example"))
    recipients = sorted(m["To"].addresses[0].addr_spec for m in players.replies())
    assert recipients == [ALICE, "alice@new.example"]


def test_signing_off_in_the_first_round_calls_the_game_off_unrated_as_resigning_does(game):
    game.send(mail(ALICE, "cephalopod move 101 alice alice-pw c3"))
    game.replies()
    game.send(mail(BOB, "signoff bob bob-pw"))
    mails = game.replies()
    assert sorted(m["Subject"] for m in mails) == ["Cephalopod Board 101 cancelled"] * 2 + ["Goodbye, bob"]
    assert end_words(stored_game(game)) == "bob forfeited by signing off in the first round"
    assert count(game, Rating) == 0
    goodbye = next(m for m in mails if m["Subject"] == "Goodbye, bob")
    assert "The games still in their first round are called off, unrated: Cephalopod board 101." in body_of(goodbye)


def test_signing_off_after_the_first_round_forfeits_rated(game):
    for address, line in ((ALICE, "move 101 alice alice-pw c3"), (BOB, "move 101 bob bob-pw a1")):
        game.send(mail(address, "cephalopod " + line))
    game.replies()
    game.send(mail(BOB, "signoff bob bob-pw"))
    subjects = sorted(m["Subject"] for m in game.replies())
    assert subjects == ["Cephalopod Board 101 won by alice"] * 2 + ["Goodbye, bob"]
    assert end_words(stored_game(game)) == "won when bob forfeited by signing off"
    assert count(game, Rating) == 2


def test_help_list_and_game_help_answer_the_sender(room):
    room.send(mail(CAROL, "help"))
    assert "signup USERID PASSWORD" in body_of(the_only(room.replies()))
    room.send(mail(CAROL, "list"))
    assert "Cephalopod, a game by Mark Steere" in body_of(the_only(room.replies()))
    room.send(mail(CAROL, "cephalopod help"))
    help_mail = the_only(room.replies())
    assert help_mail["Subject"] == "Help for Cephalopod"
    assert "Cephalopod, a game by Mark Steere" in body_of(help_mail)
    assert "-size=3..9" in body_of(help_mail)


def test_help_does_not_list_the_moves_no_game_here_has(room):
    room.send(mail(CAROL, "help"))
    general = body_of(the_only(room.replies()))
    room.send(mail(CAROL, "cephalopod help"))
    of_a_game = body_of(the_only(room.replies()))
    assert "GAME move BOARD" in general and "cephalopod move BOARD" in of_a_game
    for verb in ("pass", "swap"):
        assert f"GAME {verb} BOARD" not in general
        assert f"cephalopod {verb} BOARD" not in of_a_game


def test_the_tutorials_commands_and_what_they_do_stand_in_two_columns(room):
    room.send(mail(CAROL, "help tutorial"))
    text = body_of(the_only(room.replies()))
    step = text[text.index("4. Whenever you like:") : text.index("5. ")]
    lines = [line for line in step.splitlines()[1:] if line.strip()]
    said = ["the board as it stands", "the games waiting for your move", "the rules of Cephalopod", "every command"]
    assert len({line.index(what) for line, what in zip(lines, said, strict=True)}) == 1, step


def test_an_error_in_a_mail_whose_other_command_worked_does_not_say_nothing_was_changed(players):
    players.send(mail(ALICE, "cephalopod challenge alice bob\ncephalopod move 101 alice wrong-pw c3"))
    error = next(m for m in players.replies() if "Error" in m["Subject"])
    text = body_of(error)
    assert "nothing was changed" not in text
    assert text.startswith("One command of your mail could not be carried out, and it changed nothing;")


@pytest.mark.parametrize(
    "line",
    ["cephalopod seek carol carol-pw 2 -size=5 -dice=12", "cephalopod subscribe carol carol-pw all"],
)
def test_a_seek_or_subscribe_answer_is_wrapped_as_a_letter_is(room, line):
    room.send(mail(CAROL, "signup carol carol-pw"))
    room.replies()
    room.send(mail(CAROL, line))
    text = body_of(the_only(room.replies()))
    assert max(len(line) for line in text.splitlines()) <= 76, text


# -- challenges ---------------------------------------------------------------


def test_a_challenge_mails_the_new_board_to_every_player(players):
    players.send(mail(ALICE, "cephalopod challenge alice bob carol\n\nThree-way, anyone?"))
    boards = players.replies()
    assert sorted(m["To"].addresses[0].addr_spec for m in boards) == sorted([ALICE, BOB, CAROL])
    for board in boards:
        assert board["Subject"] == "New Cephalopod Board 101 alice **"  # ' **': it carries a comment
        text = body_of(board)
        assert "Summary of Cephalopod Board 101" in text
        assert "alice writes:\n\nThree-way, anyone?" in text
        assert board["Reply-To"] is not None and "+" in board["Reply-To"].addresses[0].addr_spec
        assert board["Auto-Submitted"] == "auto-replied"


def test_boards_are_numbered_per_game_type_from_101(players):
    players.send(mail(ALICE, "cephalopod challenge alice bob"))
    players.send(mail(BOB, "cephalopod challenge bob carol -size=3"))
    with players.database.reading() as session:
        assert [(g.board, g.options) for g in session.scalars(select(Board).order_by(Board.id))] == [
            (101, {}),
            (102, {"size": 3}),
        ]


def test_only_a_named_player_may_challenge_from_their_registered_address(players):
    players.send(mail(CAROL, "cephalopod challenge alice bob"))
    assert "you can only start a game you play in" in body_of(the_only(players.replies())).lower()
    players.send(mail("alice@elsewhere.example", "cephalopod challenge alice bob"))
    assert "registered address of one of alice, bob" in body_of(the_only(players.replies()))
    assert count(players, Board) == 0


class NotingHasher(PasswordHasher):
    """Cheap argon2 that notes which thread made each check."""

    def __init__(self) -> None:
        super().__init__(time_cost=1, memory_cost=8, parallelism=1)
        self.checked_on: list[str] = []

    def verify(self, hash: str | bytes, password: str | bytes) -> bool:
        self.checked_on.append(threading.current_thread().name)
        return super().verify(hash, password)


def test_a_batchs_password_checks_are_made_once_each_on_threads_of_their_own(make_mailroom):
    # argon2 lets go of the GIL: made on other threads, a player's first check (20 ms at
    # production cost) runs beside the reading of the next mails, and never inside the
    # write transaction, where it would hold up every other writer.
    hasher = NotingHasher()
    room = make_mailroom(passwords=Passwords(hasher))
    for address, userid in ((ALICE, "alice"), (BOB, "bob")):
        room.send(mail(address, f"signup {userid} {userid}-pw"))
    room.send(mail(ALICE, "cephalopod challenge alice bob"))
    batch = [(ALICE, "cephalopod move 101 alice alice-pw b3"), (BOB, "cephalopod move 101 bob bob-pw d3"),
             (ALICE, "cephalopod move 101 alice alice-pw c3")]  # fmt: skip
    for sender, line in batch:
        save_inbound(room.database, mail(sender, line), envelope_from=sender, envelope_to=["pbm@localhost"])
    room.server.processor.process_pending()

    assert stored_game(room).move_count == 3
    assert len(hasher.checked_on) == 2  # alice's once, bob's once
    assert all(name.startswith("pbm-password") for name in hasher.checked_on), hasher.checked_on


def test_a_mail_whose_reading_fails_is_answered_and_the_rest_of_its_batch_read(make_mailroom, monkeypatch):
    # A batch's lookups share one reading session. A failed statement aborts a PostgreSQL
    # transaction; the next mail's lookups must not inherit it. The failed mail's sender is
    # told, as for a failure while applying.
    from pbm.store import players as stored_players

    real = stored_players.checkable_password_hash

    def breaking_on_bob(session, userid, address, *, now):
        if userid == "bob":
            session.execute(text("SELECT 1 / 0"))  # PostgreSQL: division_by_zero; SQLite: NULL
            raise ValueError("simulated failure while reading")
        return real(session, userid, address, now=now)

    room = make_mailroom()
    for address, userid in ((ALICE, "alice"), (BOB, "bob")):
        room.send(mail(address, f"signup {userid} {userid}-pw"))
    room.send(mail(ALICE, "cephalopod challenge alice bob"))
    room.replies()
    monkeypatch.setattr(stored_players, "checkable_password_hash", breaking_on_bob)
    for sender, line in ((BOB, "cephalopod move 101 bob bob-pw d3"), (ALICE, "cephalopod move 101 alice alice-pw b3")):
        save_inbound(room.database, mail(sender, line), envelope_from=sender, envelope_to=["pbm@localhost"])
    room.server.processor.process_pending()

    with room.database.reading() as session:
        statuses = [status for (status,) in session.execute(select(InboundMessage.status).order_by(InboundMessage.id))]
    assert statuses[-2:] == ["failed", "processed"]
    assert stored_game(room).move_count == 1
    told, board = sorted(room.replies_to(BOB), key=lambda reply: "played" in body_of(reply))
    assert "The server failed while reading your message" in body_of(told)
    assert "cephalopod move 101 bob" in body_of(told)  # the mail is quoted...
    assert "bob-pw" not in body_of(told)  # ...but a password never is
    assert body_of(board).startswith("alice played b3.")


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("cephalopod challenge alice nobody", "No player is signed up as nobody"),
        ("cephalopod challenge alice alice", "each player can take only one seat"),
        ("cephalopod challenge alice", "Cephalopod is played by 2 to 6 players, not 1"),
        ("cephalopod challenge -size=2 alice bob", "-size=2 is out of range"),
    ],
)
def test_a_bad_challenge_is_refused_and_starts_no_game(players, line, reason):
    players.send(mail(ALICE, line))
    assert reason.lower() in body_of(the_only(players.replies())).lower()
    assert count(players, Board) == 0


# -- moves ----------------------------------------------------------------------


def test_a_move_is_applied_and_mailed_to_both_players_with_the_comment(game):
    game.send(mail(ALICE, "cephalopod move 101 alice alice-pw c3\nYour turn, Bob."))
    boards = game.replies()
    assert [m["Subject"] for m in boards] == ["Cephalopod Board 101 bob **"] * 2
    text = body_of(boards[0])
    assert text.startswith("alice played c3.\n")
    assert "It is bob's turn (Angle)." in text
    assert "\n   1 c3\n" in text
    assert "3  ... ... (1) ... ...  3" in text
    assert "alice writes:\n\nYour turn, Bob." in text
    assert "alice-pw" not in text
    with game.database.reading() as session:
        move = session.scalar(select(MoveRecord))
        assert (move.number, move.seat, move.notation, move.comment) == (1, 0, "c3", "Your turn, Bob.")


def test_the_record_keeps_the_canonical_notation_whatever_was_typed(game):
    for line in (
        "cephalopod move 101 alice alice-pw B3",
        "cephalopod move 101 bob bob-pw D3",
        "cephalopod move 101 alice alice-pw C3",
    ):
        game.send(mail(ALICE if "alice" in line else BOB, line))
    with game.database.reading() as session:
        assert [m.notation for m in session.scalars(select(MoveRecord).order_by(MoveRecord.number))] == [
            "b3",
            "d3",
            "c3=b3+d3",
        ]


@pytest.mark.parametrize(
    ("sender", "line", "reason"),
    [
        (ALICE, "cephalopod move 101 alice wrong-pw c3", "Wrong password for alice"),
        (BOB, "cephalopod move 101 bob bob-pw c3", "It is not your turn: alice is to move"),
        (CAROL, "cephalopod move 101 carol carol-pw c3", "carol does not play in Cephalopod board 101"),
        (ALICE, "cephalopod move 109 alice alice-pw c3", "There is no Cephalopod board 109"),
        (ALICE, "cephalopod move 101 alice alice-pw z9", "z9 is not on the board"),
        (ALICE, "cephalopod move 101 alice alice-pw c3#4", "this move was written for move 4"),
    ],
)
def test_a_refused_move_explains_itself_and_changes_nothing(game, sender, line, reason):
    before = stored_game(game)
    game.send(mail(sender, line))
    error = the_only(game.replies())
    assert error["To"].addresses[0].addr_spec == sender
    assert reason.lower() in body_of(error).lower()
    assert "-pw" not in body_of(error)
    after = stored_game(game)
    assert (after.state, after.move_count) == (before.state, before.move_count)
    assert count(game, MoveRecord) == 0


def test_an_illegal_move_error_shows_the_board_and_quotes_the_mail(game):
    game.send(mail(ALICE, "cephalopod move 101 alice alice-pw c3"))
    game.replies()
    game.send(mail(BOB, "cephalopod move 101 bob bob-pw c3\nOops?"))
    error = the_only(game.replies())
    assert error["Subject"] == "Cephalopod Board 101 Error"
    text = body_of(error)
    assert "c3 is occupied" in text
    assert "3  ... ... (1) ... ...  3" in text
    assert "> cephalopod move 101 bob ******** c3\n> Oops?" in text
    assert error["In-Reply-To"] is not None


def test_a_correct_guard_lets_the_move_through(game):
    game.send(mail(ALICE, "cephalopod move 101 alice alice-pw c3#1"))
    assert [m["Subject"] for m in game.replies()] == ["Cephalopod Board 101 bob"] * 2


def test_several_commands_in_one_mail_each_stand_or_fall_alone(game):
    game.send(
        mail(
            ALICE,
            "cephalopod move 101 alice alice-pw c3\ncephalopod move 101 alice alice-pw c4\ncephalopod show 101",
        )
    )
    subjects = [m["Subject"] for m in game.replies()]
    assert subjects == ["Cephalopod Board 101 bob"] * 2 + [
        "Cephalopod Board 101 Error",
        "Cephalopod Board 101 bob",
    ]
    assert stored_game(game).move_count == 1


def test_a_command_in_the_subject_takes_the_body_as_its_comment(game):
    game.send(mail(ALICE, "Good luck!", subject="cephalopod move 101 alice alice-pw c3"))
    boards = game.replies()
    assert "alice writes:\n\nGood luck!" in body_of(boards[0])


def test_an_error_quotes_the_subject_a_command_was_looked_for_in(game):
    game.send(mail(ALICE, "Thanks,\nAlice", subject="cephalopod mov 101 alice alice-pw c3"))
    text = body_of(the_only(game.replies()))
    assert "---------- your message ----------\nSubject: cephalopod mov " in text
    assert "alice-pw" not in text


def test_a_greeting_before_the_commands_is_passed_over(game):
    game.send(mail(ALICE, "Hi Bob,\n\ncephalopod move 101 alice alice-pw c3\n\nSee you."))
    assert "alice writes:\n\nSee you." in body_of(game.replies()[0])


def test_a_mail_without_any_command_gets_the_list_of_verbs(room):
    room.send(mail(ALICE, "signup alice alice-pw"))  # a confirmed address: its mail is quoted back to it
    room.replies()
    room.send(mail(ALICE, "frobnicate 101"))
    error = the_only(room.replies())
    assert "No command found in your mail" in body_of(error)
    assert "    frobnicate 101" in body_of(error)


def test_a_game_played_to_the_end_announces_the_winner_and_rates_it(players):
    players.send(mail(ALICE, "cephalopod challenge -size=3 alice bob"))
    players.replies()
    game = play_out(players)
    final = players.replies()[-2:]
    winner = ["alice", "bob"][game.winners[0]]
    assert [m["Subject"] for m in final] == [f"Cephalopod Board 101 won by {winner}"] * 2
    assert f"\n{winner} won, holding " in body_of(final[0])
    assert final[0]["Reply-To"] is None
    with players.database.reading() as session:
        ratings = {r.player.userid: r for r in session.scalars(select(Rating))}
    assert ratings[winner].rating == pytest.approx(1616.0)
    assert ratings[winner].wins == 1 and ratings[winner].games == 1
    players.send(mail(BOB, "cephalopod standings"))
    standings = body_of(the_only(players.replies()))
    assert f"    1  {winner}" in standings


def test_a_move_on_a_finished_game_is_refused(players):
    players.send(mail(ALICE, "cephalopod challenge -size=3 alice bob"))
    play_out(players)
    players.replies()
    players.send(mail(ALICE, "cephalopod move 101 alice alice-pw a1"))
    assert "Cephalopod board 101 is over" in body_of(the_only(players.replies()))


# -- resigning ----------------------------------------------------------------


def test_resigning_in_the_first_round_cancels_the_game_unrated(game):
    game.send(mail(ALICE, "cephalopod move 101 alice alice-pw c3"))
    game.send(mail(BOB, "cephalopod resign 101 bob bob-pw"))
    final = game.replies()[-2:]
    assert [m["Subject"] for m in final] == ["Cephalopod Board 101 cancelled"] * 2
    assert "bob resigned in the first round" in body_of(final[0])
    assert stored_game(game).status == "cancelled"
    assert count(game, Rating) == 0


def test_a_draw_agreed_in_the_first_round_calls_the_game_off_unrated(game):
    game.send(mail(ALICE, "cephalopod move 101 alice alice-pw c3"))
    game.send(mail(ALICE, "cephalopod move 101 alice alice-pw propose"))
    game.send(mail(BOB, "cephalopod accept 101 bob bob-pw"))
    final = game.replies()[-2:]
    assert [m["Subject"] for m in final] == ["Cephalopod Board 101 cancelled"] * 2
    assert "The game was cancelled: a draw was agreed in the first round." in body_of(final[0])
    assert count(game, Rating) == 0


def test_a_move_taken_back_leaves_the_game_in_its_first_round(game):
    for address, line in (
        (ALICE, "move 101 alice alice-pw c3"),
        (BOB, "move 101 bob bob-pw a1"),
        (ALICE, "move 101 alice alice-pw undo"),
        (BOB, "accept 101 bob bob-pw"),
        (BOB, "resign 101 bob bob-pw"),
    ):
        game.send(mail(address, "cephalopod " + line))
    assert stored_game(game).status == "cancelled"
    assert count(game, Rating) == 0


def test_resigning_later_gives_the_game_to_the_opponent(game):
    for address, line in (
        (ALICE, "move 101 alice alice-pw c3"),
        (BOB, "move 101 bob bob-pw a1"),
        (ALICE, "resign 101 alice alice-pw"),
    ):
        game.send(mail(address, "cephalopod " + line))
    final = game.replies()[-2:]
    assert [m["Subject"] for m in final] == ["Cephalopod Board 101 won by bob"] * 2
    assert body_of(final[0]).startswith("alice resigned.\n")
    assert "\nbob won when alice resigned.\n" in body_of(final[0])


# -- replying to a board mail ---------------------------------------------------


def test_replying_to_a_board_mail_plays_the_first_line_without_a_password(players):
    players.send(mail(ALICE, "cephalopod challenge alice bob"))
    alice_board = players.replies_to(ALICE)[0]
    players.send(
        reply_to_board(alice_board, ALICE, "c3", comment="Over to you."),
        to=alice_board["Reply-To"].addresses[0].addr_spec,
    )
    boards = players.replies()
    assert [m["Subject"] for m in boards] == ["Cephalopod Board 101 bob **"] * 2
    assert "alice writes:\n\nOver to you." in body_of(boards[0])
    bob_board = [m for m in boards if m["To"].addresses[0].addr_spec == BOB][0]
    assert bob_board["In-Reply-To"] == players.server.composer.thread_root(1, 2)
    players.send(reply_to_board(bob_board, BOB, "b3"), to=bob_board["Reply-To"].addresses[0].addr_spec)
    assert stored_game(players).move_count == 2


def test_a_reply_keeps_the_layout_of_its_comment(players):
    players.send(mail(ALICE, "cephalopod challenge alice bob"))
    alice_board = players.replies_to(ALICE)[0]
    sketch = "Plan:\n   x x\n    o"
    players.send(
        reply_to_board(alice_board, ALICE, "c3", comment=sketch), to=alice_board["Reply-To"].addresses[0].addr_spec
    )
    assert "alice writes:\n\nPlan:\n   x x\n    o" in body_of(players.replies()[0])


def test_a_reply_token_works_only_for_its_own_player(players):
    players.send(mail(ALICE, "cephalopod challenge alice bob"))
    bob_board = players.replies_to(BOB)[0]
    # Bob's token is his own: used while it is Alice's turn, it cannot move for her.
    players.send(reply_to_board(bob_board, BOB, "c3"), to=bob_board["Reply-To"].addresses[0].addr_spec)
    assert "It is not your turn" in body_of(the_only(players.replies()))
    assert stored_game(players).move_count == 0


def test_a_forged_reply_token_is_refused_and_changes_nothing(game):
    forged = "pbm+1-1-aaaaaaaaaaaaaaaaaaaa@localhost"
    game.send(mail(ALICE, "c3", to=forged), to=forged)
    error = the_only(game.replies())
    assert "not a reply address of this server" in body_of(error)
    assert stored_game(game).move_count == 0


def test_a_reply_with_resign_or_show_does_just_that(players):
    players.send(mail(ALICE, "cephalopod challenge alice bob"))
    alice_board = players.replies_to(ALICE)[0]
    players.send(reply_to_board(alice_board, ALICE, "show"), to=alice_board["Reply-To"].addresses[0].addr_spec)
    assert the_only(players.replies())["Subject"] == "Cephalopod Board 101 alice"
    players.send(reply_to_board(alice_board, ALICE, "resign"), to=alice_board["Reply-To"].addresses[0].addr_spec)
    assert stored_game(players).status == "cancelled"


def test_an_illegal_move_in_a_reply_gets_the_board_back(game):
    alice_board = None
    game.send(mail(ALICE, "cephalopod show 101"))
    alice_board = the_only(game.replies())
    game.send(reply_to_board(alice_board, ALICE, "q7"), to=alice_board["Reply-To"].addresses[0].addr_spec)
    error = the_only(game.replies())
    assert error["Subject"] == "Cephalopod Board 101 Error"
    assert "q7 is not on the board" in body_of(error)


# -- looking at games -----------------------------------------------------------


def test_show_with_a_move_number_draws_the_board_as_it_was(game):
    game.send(mail(ALICE, "cephalopod move 101 alice alice-pw c3"))
    game.send(mail(BOB, "cephalopod move 101 bob bob-pw b3"))
    game.replies()
    game.send(mail(CAROL, "cephalopod show 101#1"))
    board = the_only(game.replies())
    assert board["Subject"] == "Cephalopod Board 101 after move 1"
    assert "3  ... ... (1) ... ...  3" in body_of(board)
    assert board["Reply-To"] is None
    game.send(mail(CAROL, "cephalopod show 101#9"))
    assert "has 2 moves, not 9" in body_of(the_only(game.replies()))


def test_games_lists_boards_and_next_lists_those_waiting_for_a_player(game):
    game.send(mail(BOB, "cephalopod challenge bob carol"))
    game.replies()
    game.send(mail(CAROL, "cephalopod games"))
    listing = body_of(the_only(game.replies()))
    assert "   101     0  active     alice         alice, bob" in listing
    assert "   102     0  active     bob           bob, carol" in listing
    game.send(mail(BOB, "cephalopod games next"))
    waiting = body_of(the_only(game.replies()))
    assert "   102     0  active     bob           bob, carol" in waiting
    assert "   101 " not in waiting, "alice, not bob, is to move at 101"


def test_history_lists_finished_games(game):
    game.send(mail(ALICE, "cephalopod resign 101 alice alice-pw"))
    game.replies()
    game.send(mail(CAROL, "cephalopod history alice"))
    listed = body_of(the_only(game.replies()))
    assert " Board  Moves  Ended       Players     Result\n" in listed
    assert "  alice, bob  cancelled: alice resigned in the first round" in listed


# -- mail that must not be answered, and mail seen twice -------------------------


@pytest.mark.parametrize(
    ("headers", "envelope_from"),
    [
        ({"Auto-Submitted": "auto-replied"}, ALICE),
        ({"Precedence": "bulk"}, ALICE),
        ({}, ""),
        ({"X-PBM-Loop": "pbm@localhost"}, ALICE),
    ],
)
def test_automatic_mail_is_stored_but_never_answered(room, headers, envelope_from):
    row = room.send(mail(ALICE, "signup alice alice-pw", headers=headers), envelope_from=envelope_from)
    assert row.status == "ignored" and row.note.startswith("not answered")
    assert room.replies() == []
    assert count(room, Player) == 0


def test_the_same_message_id_twice_is_applied_once(game):
    raw = mail(ALICE, "cephalopod move 101 alice alice-pw c3", message_id="<once@client.example>")
    first = game.send(raw)
    second = game.send(raw)
    assert (first.status, second.status) == ("processed", "duplicate")
    assert stored_game(game).move_count == 1
    assert len(game.replies()) == 2


def test_every_inbound_mail_is_kept_raw(room):
    raw = mail(ALICE, "help")
    room.send(raw)
    with room.database.reading() as session:
        assert session.scalar(select(InboundMessage.raw)) == raw


def test_a_failed_mail_can_be_requeued_once_the_bug_is_fixed(room, monkeypatch):
    from pbm.commands import verbs
    from pbm.store.inbox import requeue_failed

    real_run = verbs.run
    monkeypatch.setattr(verbs, "run", lambda *args, **kwargs: 1 / 0)
    row = room.send(mail(ALICE, "signup alice alice-pw"))
    assert row.status == "failed" and count(room, Player) == 0
    monkeypatch.setattr(verbs, "run", real_run)
    assert requeue_failed(room.database, [row.id, 999]) == [row.id]
    room.server.processor.process_pending()
    assert count(room, Player) == 1


def test_a_bug_while_processing_is_recorded_and_the_sender_told(room, monkeypatch):
    from pbm.commands import verbs

    def broken(*args, **kwargs):
        raise RuntimeError("simulated bug")

    monkeypatch.setattr(verbs, "run", broken)
    row = room.send(mail(ALICE, "help"))
    assert row.status == "failed" and "simulated bug" in row.note
    assert "The server failed while reading your message" in body_of(the_only(room.replies()))
    with room.database.reading() as session:
        assert session.scalar(select(func.count()).select_from(OutboxMessage)) == 1


def test_in_a_three_player_game_a_resignation_lets_the_others_play_on(players):
    players.send(mail(ALICE, "cephalopod challenge alice bob carol"))
    for address, line in (
        (ALICE, "move 101 alice alice-pw a1"),
        (BOB, "move 101 bob bob-pw c1"),
        (CAROL, "move 101 carol carol-pw e1"),
        (ALICE, "resign 101 alice alice-pw"),
    ):
        players.send(mail(address, "cephalopod " + line))
    boards = players.replies()[-3:]
    assert {m["Subject"] for m in boards} == {"Cephalopod Board 101 bob"}
    assert "1  ... ... <1> ... [1]  1" in body_of(boards[0])  # alice's die on a1 left with her
    players.send(mail(CAROL, "cephalopod resign 101 carol carol-pw"))
    final = players.replies()
    assert {m["Subject"] for m in final} == {"Cephalopod Board 101 won by bob"}
    assert stored_game(players).winners == [1]
