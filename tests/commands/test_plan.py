"""Planning a mail: which lines are its commands, what is its comment, and what an error quotes."""

import random

import pytest

import pbm.games
from pbm.commands import language as lang
from pbm.commands.plan import AnsweredFacts, ReplyFacts, plan_mail

TO_ALICE = ReplyFacts("alice", "cephalopod", 101, at_ply=4)
"""A reply to alice's mail of Cephalopod board 101, drawn after move 4."""


def test_a_reply_may_greet_before_its_move_as_a_command_mail_may():
    plan = plan_mail("Re: Cephalopod Board 101 alice", "Hi Zoe,\n\nd4\n\nGood luck!", reply=TO_ALICE, max_commands=5)
    assert plan.steps == [lang.Move("cephalopod", 101, "alice", None, "d4", replied_at=4)]
    assert plan.comment == "Good luck!"


def test_a_greeting_on_the_line_above_the_move_is_passed_over_too():
    plan = plan_mail("", "Dear Bob\nresign\nWell played.", reply=TO_ALICE, max_commands=5)
    assert plan.steps == [lang.Resign("cephalopod", 101, "alice", None, replied_at=4)]
    assert plan.comment == "Well played."


def test_a_reply_that_only_greets_has_no_move_and_is_told_of_chat():
    (error,) = plan_mail("", "Hello Bob!", reply=TO_ALICE, max_commands=5).steps
    assert isinstance(error, lang.CommandError)
    assert "Your reply has no move in it" in str(error)
    assert 'write "chat" there and your words below it' in str(error)
    assert error.line == "Hello Bob!"


def test_every_reply_word_carries_the_move_number_of_the_board_it_answers():
    for word in ("resign", "propose", "accept", "chat", "c3"):
        (command,) = plan_mail("", word, reply=TO_ALICE, max_commands=5).steps
        assert isinstance(command, lang.ReplyableCommand) and command.by_reply
        assert command.replied_at == 4, word


@pytest.mark.parametrize("game", pbm.games.names())
def test_no_move_of_any_game_reads_as_a_greeting(game):
    engine = pbm.games.get(game)
    rng = random.Random(game)
    state = engine.new(players=2, options={}, seed=bytes(32))
    for _ in range(30):
        moves = engine.legal_moves(state)
        if not moves or engine.result(state) is not None:
            break
        assert not any(lang.is_greeting(move) for move in moves)
        state = engine.play(state, rng.choice(moves))


def test_a_command_in_the_subject_is_kept_for_the_error_to_quote():
    subject = "cephalopod move 101 alice pw q9"
    assert plan_mail(subject, "Thanks,\nAlice", max_commands=5).subject == subject


def test_a_subject_is_kept_for_the_error_to_quote_when_no_command_was_found():
    subject = "cephalopod mov 101 alice pw c3"
    plan = plan_mail(subject, "Thanks,\nAlice", max_commands=5)
    (error,) = plan.steps
    assert isinstance(error, lang.CommandError) and error.line == subject  # the line meant as a command
    assert plan.subject == subject


def test_a_subject_that_is_no_command_is_not_quoted_when_the_body_holds_the_commands():
    assert plan_mail("pbm", "cephalopod show 101", max_commands=5).subject == ""


def test_a_mail_to_the_plain_address_that_answers_a_board_mail_without_a_command_is_told_what_to_do():
    answered = AnsweredFacts("board", "cephalopod", 101, "alice")
    (error,) = plan_mail("Re: Cephalopod Board 101 alice", "Hi,\n\nc3", answered=answered, max_commands=5).steps
    assert isinstance(error, lang.CommandError) and error.line == "Hi,"
    assert "Your mail answers a mail about Cephalopod board 101" in str(error)
    assert "cephalopod move 101 alice PASSWORD MOVE" in str(error)
    assert "cephalopod chat 101 alice PASSWORD" in str(error)


def test_a_mail_to_the_plain_address_that_answers_a_message_is_told_how_to_answer_its_author():
    for kind in ("message", "broadcast"):
        (error,) = plan_mail("Re: x", "Sure!", answered=AnsweredFacts(kind), max_commands=5).steps
        assert "To answer its author, send: message YOURID PASSWORD AUTHOR" in str(error)


def test_a_mail_to_the_plain_address_that_answers_a_board_mail_with_a_command_runs_it():
    answered = AnsweredFacts("board", "cephalopod", 101, "alice")
    plan = plan_mail("Re: Cephalopod Board 101 alice", "cephalopod show 101", answered=answered, max_commands=5)
    assert plan.steps == [lang.Show("cephalopod", ((101, None),))]
