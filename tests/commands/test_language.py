"""The command language: what each line means, and what a wrong line is told."""

import re

import pytest

from pbm.commands import language as lang
from pbm.commands.language import CommandError
from pbm.commands.masking import mask_passwords
from pbm.commands.verbs import is_command_line, parse_command


def test_verbs_and_game_names_are_case_insensitive_but_passwords_are_not():
    command = parse_command("CEPHALOPOD Move 101 Alice PassWord c3")
    assert command == lang.Move("cephalopod", 101, "alice", "PassWord", "c3")


def test_double_star_tokens_are_ignored():
    assert parse_command("** cephalopod show 101 **") == lang.Show("cephalopod", ((101, None),))


def test_a_move_keeps_everything_after_the_password_including_spaces_and_guard():
    command = parse_command("cephalopod move 101 alice pw c3=b3+c2 #7")
    assert command.move == "c3=b3+c2 #7"


def test_signup_takes_optional_addresses_and_lower_cases_their_domains():
    command = parse_command("signup alice pw1234 Alice@Example.ORG <alice@work.example>")
    assert command == lang.Signup("alice", "pw1234", ("Alice@example.org", "alice@work.example"))


def test_challenge_parses_options_through_the_engine():
    command = parse_command("cephalopod challenge -size=7 -dice=12 alice bob carol")
    assert command == lang.Challenge("cephalopod", ("alice", "bob", "carol"), {"size": 7, "dice": 12})


def test_challenge_with_an_unknown_option_is_refused_naming_the_options():
    with pytest.raises(CommandError, match="no option -colour.*-size="):
        parse_command("cephalopod challenge -colour=red alice bob")


def test_challenge_with_an_option_out_of_range_is_refused():
    with pytest.raises(CommandError, match="-size=12 is out of range"):
        parse_command("cephalopod challenge -size=12 alice bob")


def test_show_takes_several_boards_each_with_an_optional_move_number():
    assert parse_command("cephalopod show 101 102#5").boards == ((101, None), (102, 5))


@pytest.mark.parametrize(
    ("line", "which", "userids"),
    [
        ("cephalopod games", "active", ()),
        ("cephalopod games alice next", "next", ("alice",)),
        ("cephalopod games alice bob all", "all", ("alice", "bob")),
    ],
)
def test_games_takes_userids_and_a_filter(line, which, userids):
    command = parse_command(line)
    assert (command.which, command.userids) == (which, userids)


def test_change_password_and_change_address():
    assert parse_command("change password alice old new") == lang.ChangePassword("alice", "old", "new")
    assert parse_command("change address alice pw a@b.example") == lang.ChangeAddress(
        "alice", "pw", ("a@b.example",)
    )


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("frobnicate 101", "'frobnicate' is not a command; a command starts with one of: help, signup"),
        ("cephalopod frob 101", "'frob' is not a cephalopod command"),
        ("cephalopod move 101 alice", "Usage: cephalopod move BOARD USERID PASSWORD MOVE"),
        ("cephalopod move abc alice pw c3", "'abc' is not a board number"),
        ("signup 1alice pw", "'1alice' is not a userid"),
        ("signup zoë pw1234", "'zoë' is not a userid: 'ë' is not an ASCII letter; a userid is 2 to 32 letters a-z"),
        ("signup alice pw not-an-address", "'not-an-address' is not a mail address"),
        ("cephalopod show 101#x", "write board#N"),
        ("change colour alice", "Usage: change password"),
        ("cephalopod", "What should cephalopod do?"),
    ],
)
def test_a_wrong_line_is_told_what_would_be_right(line, message):
    with pytest.raises(CommandError, match=message.replace("?", r"\?").replace("[", r"\[")) as caught:
        parse_command(line)
    assert caught.value.line == line


def test_passwords_never_show_in_a_command_repr():
    assert "s3cret" not in repr(parse_command("cephalopod move 101 alice s3cret c3"))
    assert "s3cret" not in repr(parse_command("change password alice s3cret n3w"))


@pytest.mark.parametrize(
    ("line", "masked"),
    [
        ("signup alice s3cret a@b.example", "signup alice ******** a@b.example"),
        ("signoff alice s3cret", "signoff alice ********"),
        ("change password alice old new", "change password alice ******** ********"),
        ("change address alice s3cret a@b.example", "change address alice ******** a@b.example"),
        ("cephalopod move 101 alice s3cret c3", "cephalopod move 101 alice ******** c3"),
        ("cephalopod resign 101 alice s3cret", "cephalopod resign 101 alice ********"),
        ("cephalopod mvoe 101 alice s3cret c3", "cephalopod mvoe 101 alice ******** c3"),
        ("cephalopd move 101 alice s3cret c3", "cephalopd move 101 alice ******** c3"),
        ("cephalopod show 101 102", "cephalopod show 101 102"),
        ("Good luck!", "Good luck!"),
    ],
)
def test_passwords_are_masked_wherever_the_grammar_puts_them(line, masked):
    assert mask_passwords(line) == masked


def test_masking_keeps_the_layout_of_a_whole_message():
    text = "Hi,\n\n  cephalopod move 101 alice s3cret c3\n> quoted"
    assert mask_passwords(text) == "Hi,\n\n  cephalopod move 101 alice ******** c3\n> quoted"


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("help", True),
        ("help cephalopod", True),
        ("Cephalopod show 101", True),
        ("** signup a b", True),
        ("cephalopod mvoe 101 alice pw c3", True),  # a near miss is answered with "did you mean"
        ("cephalopd move 101 alice pw c3", True),
        ("move 101 alice pw c3", True),  # answered with "the game first"
        ("cephalopod mov 108 ivan pw a1", True),  # the start of a verb: answered with "did you mean"
        ("cephalopod frob 101 ivan pw a1", True),  # no verb, but before a board: answered with the verbs
        ("Hi Bob,", False),
        ("", False),
        ("Cephalopod is hard, right?", False),
        ("Cubeo with eight d8s and removal.", False),
        ("help me understand", False),
        ("list of my games, please", False),
        ("Move on!", False),
        ("Lisa, your move", False),
        ("Cephalopod how do I win?", False),
        ("Cubeo hat trick!", False),
    ],
)
def test_a_line_is_a_command_line_when_it_can_be_meant_as_one(line, expected):
    assert is_command_line(line) is expected


@pytest.mark.parametrize(
    ("line", "hint"),
    [
        ("cephalopd move 101 alice pw c3", "'cephalopd' is not a command; did you mean cephalopod?"),
        ("cephalopod moev 101 alice pw c3", "'moev' is not a cephalopod command; did you mean move?"),
        ("move 101 alice pw c3", "'move' needs the name of the game first, e.g. cephalopod move 101 ..."),
        ("cephalopod mov 108 ivan pw a1", "'mov' is not a cephalopod command; did you mean move?"),
        ("hepl", "'hepl' is not a command; did you mean help?"),
        ("singup alice pw1234", "'singup' is not a command; did you mean signup?"),
    ],
)
def test_a_near_miss_is_answered_with_what_was_meant(line, hint):
    with pytest.raises(CommandError, match=re.escape(hint)):
        parse_command(line)


@pytest.mark.parametrize("line", ["cephalopod show 1¹", "cephalopod move ²01 alice pw c3", "cephalopod show 101#³"])
def test_digits_that_are_not_decimal_are_refused_not_crashed_on(line):
    with pytest.raises(CommandError):
        parse_command(line)


HUGE = "9" * 5000
"""More digits than Python turns into an int without being asked to."""
BIG = "9" * 40
"""More than any database integer holds."""


@pytest.mark.parametrize(
    "line",
    [
        f"cephalopod show {HUGE}",
        f"cephalopod show {BIG}",
        f"cephalopod show 101#{HUGE}",
        f"cephalopod show 101#{BIG}",
        f"cephalopod move {BIG} alice pw c3",
        f"cephalopod preview {BIG} c3",
        f"cephalopod preview new {HUGE} c3",
        f"cephalopod subscribe {BIG} alice pw",
        f"cephalopod queue {BIG} alice pw c3",
        f"cephalopod join {BIG} alice pw",
        f"cephalopod seek alice pw {HUGE}",
        f"cephalopod limit alice pw {HUGE}",
        f"cephalopod challenge -size={HUGE} alice bob",
    ],
    ids=lambda line: line.replace(HUGE, "HUGE").replace(BIG, "BIG"),
)
def test_a_number_too_large_for_any_board_or_count_is_refused_as_a_wrong_word(line):
    with pytest.raises(CommandError):
        parse_command(line)
