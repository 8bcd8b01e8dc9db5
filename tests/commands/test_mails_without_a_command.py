"""What one mail asks for: which lines are its commands, and what a mail without one is told."""

from pbm.commands import language as lang
from pbm.commands.plan import plan_mail


def the_only_error(text: str, subject: str = "") -> lang.CommandError:
    (step,) = plan_mail(subject, text, max_commands=5).steps
    assert isinstance(step, lang.CommandError)
    return step


def test_a_misspelt_verb_after_a_games_name_is_answered_with_the_verb_meant():
    error = the_only_error("Hi,\n\ncephalopod mov 108 ivan pw a1\n\nThanks")
    assert str(error) == "'mov' is not a cephalopod command; did you mean move?"
    assert error.line == "cephalopod mov 108 ivan pw a1"


def test_a_mail_that_is_only_a_misspelt_verb_is_answered_with_the_verb_meant():
    assert str(the_only_error("hepl")) == "'hepl' is not a command; did you mean help?"


def test_a_misspelt_verb_in_the_subject_is_answered_with_the_verb_meant():
    assert str(the_only_error("", subject="hepl")) == "'hepl' is not a command; did you mean help?"


def test_a_mail_that_starts_with_a_games_name_but_holds_no_command_is_told_that_games_commands():
    error = the_only_error("Cephalopod is hard, right?")
    assert str(error).startswith("'is' is not a cephalopod command; the cephalopod commands are: help, challenge")


def test_a_letter_without_a_command_is_told_what_a_command_starts_with():
    error = the_only_error("Hello there,\nhow do I play?")
    assert str(error).startswith("No command found in your mail. A command is a line that starts with one of: help")
    assert error.line == "Hello there,"
