"""Masking passwords in what is quoted or passed on: every password a command line carries is
starred however the line was broken, and nothing else is, whatever prose or board it stands among."""

from __future__ import annotations

import pathlib
import string

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import pbm.games
from pbm.commands.masking import MASK, mask_passwords, password_candidates
from pbm.commands.verbs import ACCOUNT_VERBS, GAME, GAME_VERBS, Verb, near_miss
from pbm.crypto.passwords import MIN_LENGTH

GOLDEN = pathlib.Path(__file__).parent.parent / "mail" / "golden"

PASSWORDS = st.text(st.sampled_from(string.ascii_letters + string.digits + string.punctuation), min_size=MIN_LENGTH)
USERIDS = st.from_regex(r"[a-z][a-z0-9_.-]{1,12}", fullmatch=True)

BOARDS = st.sampled_from(["{n}", "x{n}", "#{n}", "board {n}", "{n},", "({n})", "no. {n}", "{n}#5", "Board: {n}", ""])
"""A board as players write it, right and wrong; empty: left out."""
STRAY_BOARDS = st.sampled_from(["", "", "{n}", "#{n}"])
"""A board before the userid of a verb that takes none: the player thought of another verb."""

WITH_PASSWORDS = [
    (verb, account)
    for verbs, account in ((ACCOUNT_VERBS, True), (GAME_VERBS, False))
    for verb in verbs
    if verb.passwords
]
"""Every verb that carries a password, built or reserved (pass, swap), and whether it is an account verb."""

FILLERS = {
    "MOVE": st.sampled_from(["c3", "a4=a3+a5", "roll", "e6xe1=4"]),
    "MOVE[#N]": st.sampled_from(["c3", "c3#7", "a4=a3+a5 #9", "roll"]),
    "ADDRESS...": st.just("someone@example.org"),
    "[ADDRESS...]": st.sampled_from(["", "someone@example.org"]),
    "TO...": st.sampled_from(["bob", "bob carol"]),
    "[N]": st.sampled_from(["", "3"]),
    "[-options]": st.sampled_from(["", "-size=5"]),
    "[N|inf]": st.sampled_from(["", "4", "inf"]),
    "[FROM": st.sampled_from(["now", "2026-12-20"]),
    "UNTIL": st.sampled_from(["14d", "2027-01-04"]),
    "all": st.just("all"),
    "[BOARD...|off]": st.sampled_from(["", "101 102", "off"]),
    "[ZONE]": st.sampled_from(["", "Europe/Paris", "europe/nowhere"]),
    "[HH:MM-HH:MM|off]": st.sampled_from(["", "22:00-07:00", "off", "25:00"]),
    "[HH:MM[,HH:MM...]|off]": st.sampled_from(["", "07:30,19:00", "off", "7h"]),
    "LANGUAGE": st.sampled_from(["fr", "en", "Français", "klingon"]),
}
"""What a player writes for each argument of a usage after the password (a new one fails here first)."""


def usage_shapes(verb: Verb) -> list[list[str]]:
    """The shapes of a verb's arguments that carry its passwords, as its usage writes them."""
    return [shape.split() for shape in verb.arguments.split(" | ") if "USERID" in shape.split()]


@st.composite
def broken_commands(draw, password: str) -> str:
    """A line of a verb with a password, its password in place and the rest written as players do, right
    or wrong: its game's name in any case, misspelt or left out; its verb misspelt after a game's name;
    its board in many forms or left out, or a board where none belongs; a word too many; quoted,
    indented, between ``**``.
    """
    verb, account = draw(st.sampled_from(WITH_PASSWORDS))
    shape = draw(st.sampled_from(usage_shapes(verb)))
    userid = draw(USERIDS)
    name = draw(st.sampled_from([verb.name, *verb.aliases]))
    game = "" if account else draw(st.sampled_from([*pbm.games.names(), "cephalpod", "cubo", "dodeka", ""]))
    if game and len(name) >= 5 and draw(st.booleans()):
        typo = name[0] + name[2] + name[1] + name[3:]
        assume(GAME.get(near_miss(typo, GAME) or "") is verb)
        name = typo
    words = [draw(st.sampled_from([game, game.upper(), game.title()])), draw(st.sampled_from([name, name.title()]))]
    board = draw(BOARDS if shape[0] == "BOARD" else STRAY_BOARDS).format(n=draw(st.integers(101, 999)))
    for placeholder in shape:
        if placeholder == "USERID" and shape[0] != "BOARD":
            words.append(board)
        if placeholder == "BOARD":
            words.append(board)
        elif placeholder == "USERID":
            words.append(draw(st.sampled_from([userid, userid.title()])))
        elif placeholder in ("PASSWORD", "OLD", "NEW"):
            words.append(password)
        else:
            words.append(draw(FILLERS[placeholder]))
    extra = draw(st.sampled_from(["", "please"]))
    if not game and not account:
        # A game's verb with its game left out reads as a command before a board, however written,
        # or before a userid in a line no longer than its usage.
        assume(any(c.isdigit() for c in board) or (shape[0] == "USERID" and not extra))
    words.append(extra)
    line = " ".join(word for word in words if word)
    return draw(st.sampled_from(["{}", "** {} **", "  {}", "> {}"])).format(line)


@settings(max_examples=400)
@given(data=st.data(), password=PASSWORDS, unparsed=st.booleans())
def test_the_password_of_a_broken_command_line_is_starred(data, password, unparsed):
    line = data.draw(broken_commands(password))
    others = line.split()
    others.remove(password)
    assume(not any(password in word for word in others))
    assert password not in mask_passwords(line, unparsed=unparsed)


@settings(max_examples=200)
@given(data=st.data(), password=PASSWORDS)
def test_the_password_of_a_broken_command_line_is_starred_wherever_it_stands_again(data, password):
    line = data.draw(broken_commands(password))
    assume(password.strip(string.punctuation))
    others = line.split()
    others.remove(password)
    assume(not any(password in word for word in others))
    prose = "Hi, Sorry, I wrote my password twice:"
    assume(password not in prose)  # the prose's own words are no password ('pass' in 'password')
    text = f"Hi,\n\n{line}\n\nSorry, I wrote my password {password} twice:\n{password}"
    assert password not in mask_passwords(text)


@given(password=PASSWORDS, userid=USERIDS, verb=st.sampled_from(["frobnicate", "login", "passwd", "reisgn"]))
def test_a_verb_nobody_knows_before_a_userid_and_a_password_is_starred_in_a_mail_without_a_command(
    password, userid, verb
):
    assume(password not in f"{verb} {userid}")
    assert password not in mask_passwords(f"Hi!\n\n{verb} {userid} {password}", unparsed=True)


STARTERS = [
    "I",
    "We",
    "Thanks,",
    "Good",
    "Hello,",
    "Hi",
    "Sorry,",
    "That",
    "Your",
    "My",
    "Well,",
    "Nice",
    "It",
    "Zoe",
    "Dear",
    "PS:",
    "Yesterday",
    "Honestly,",
]
WORDS = [
    "the",
    "a",
    "game",
    "was",
    "really",
    "close",
    "and",
    "to",
    "my",
    "move",
    "resign",
    "join",
    "signup",
    "chat",
    "show",
    "password",
    "board",
    "101",
    "103,",
    "alice",
    "bob",
    "zoe",
    "would",
    "like",
    "play",
    "again",
    "tomorrow",
    "cephalopod",
    "Cubeo",
    "dodeca",
    "at",
    "3",
    "pm",
    "is",
    "not",
    "your",
    "turn",
    "won",
    "lost",
    "change",
    "message",
    "me",
    "with",
    "in",
    "for",
    "it",
    "-",
    "c3",
    "a4=a3+a5",
    "d8s",
    "(1)",
    "ok",
    "!",
]
NOT_VERBS = ["is", "was", "really", "takes", "feels", "with", "and", "has"]


@st.composite
def prose(draw) -> str:
    """A line of a letter: a sentence that may name verbs, games, players and boards, but not start a command."""
    first = draw(st.sampled_from([*STARTERS, *(title for name in pbm.games.names() for title in (name, name.title()))]))
    second = [draw(st.sampled_from(NOT_VERBS))] if first.lower() in pbm.games.names() else []
    rest = draw(st.lists(st.sampled_from(WORDS), min_size=5, max_size=12))
    return " ".join([first, *second, *rest]) + draw(st.sampled_from([".", "!", "?", "", ","]))


@given(lines=st.lists(prose(), min_size=1, max_size=6), unparsed=st.booleans())
def test_prose_is_left_as_it_was_written(lines, unparsed):
    text = "\n".join(lines)
    assert mask_passwords(text, unparsed=unparsed) == text


@given(lines=st.lists(prose(), min_size=1, max_size=4), password=PASSWORDS, unparsed=st.booleans())
def test_prose_around_a_command_keeps_every_word_but_the_password(lines, password, unparsed):
    assume(not any(password in line for line in lines))
    text = "\n".join(["cephalopod move 101 alice " + password + " c3", *lines])
    assert mask_passwords(text, {password}, unparsed=unparsed).split("\n")[1:] == lines


@pytest.mark.parametrize(
    "line",
    [
        "Hello, Zoe would like to play",
        "Hi Zoe,",
        "See you soon",
        "It is your turn.",
        "Move on!",
        "Join us tomorrow at noon",
        "Cephalopod is hard, right?",
        "Cephalopod, see you tomorrow",
        "Change of plans: I cannot play tonight",
        "Summary of Cephalopod Board 101",
    ],
)
@pytest.mark.parametrize("unparsed", [False, True])
def test_a_line_of_a_letter_is_left_as_it_was_written(line, unparsed):
    assert mask_passwords(line, unparsed=unparsed) == line


@pytest.mark.parametrize("path", sorted(GOLDEN.glob("*.txt")), ids=lambda path: path.stem)
@pytest.mark.parametrize("quote", ["", "> ", "  "])
@pytest.mark.parametrize("unparsed", [False, True])
def test_a_quoted_board_mail_is_left_as_it_was_written(path, quote, unparsed):
    text = "\n".join(quote + line for line in path.read_text().splitlines())
    assert mask_passwords(text, unparsed=unparsed) == text


@settings(max_examples=30, deadline=None)
@given(game=st.sampled_from(pbm.games.names()), seed=st.integers(0, 1000), plies=st.integers(0, 30))
def test_a_quoted_board_is_left_as_it_was_written(game, seed, plies):
    engine = pbm.games.get(game)
    state = engine.new(players=2, options={}, seed=seed.to_bytes(32, "big"))
    for ply in range(plies):
        moves = engine.legal_moves(state)
        if not moves or engine.result(state) is not None:
            break
        state = engine.play(state, moves[(seed + ply) % len(moves)])
    text = "\n".join("> " + line for line in engine.render(state).splitlines())
    assert mask_passwords(text, unparsed=True) == text


@pytest.mark.parametrize(
    ("line", "masked"),
    [
        ("cephalopod move x101 alice s3cret c3", "cephalopod move x101 ******** ******** c3"),
        ("cephalopod move #101 alice s3cret c3", "cephalopod move #101 alice ******** c3"),
        ("cephalopod move board 101 alice s3cret c3", "cephalopod move board 101 alice ******** c3"),
        ("cephalopod move 101, alice s3cret c3", "cephalopod move 101, alice ******** c3"),
        ("cephalopod chat #101 alice s3cret", "cephalopod chat #101 alice ********"),
        ("cephalopod mov 108 ivan s3cret a1", "cephalopod mov 108 ivan ******** a1"),
        ("move #101 alice s3cret c3", "move #101 alice ******** c3"),
        ("cubeo limit alice s3cret 3", "cubeo limit alice ******** 3"),
    ],
)
def test_a_board_written_wrongly_still_leaves_the_password_starred(line, masked):
    assert mask_passwords(line) == masked


def test_a_word_too_short_to_be_a_password_is_starred_only_where_a_command_puts_one():
    assert mask_passwords("cephalopod move 101 alice pw c3\nThe pw key is broken") == (
        f"cephalopod move 101 alice {MASK} c3\nThe pw key is broken"
    )


# -- French prose, and the words the server checks against the author's password (issue 42) ---

FRENCH_STARTERS = [
    "je", "Je", "tu", "nous", "on", "il", "elle", "merci", "Merci", "bonjour", "Bonjour", "salut", "bonne",
    "oui", "non", "alors", "bravo", "désolé", "Désolée", "voilà", "encore", "demain", "c'est", "ça",
]  # fmt: skip
FRENCH_WORDS = [
    "voudrais", "rejouer", "partie", "demain", "soir", "avec", "toi", "vous", "jouer", "une", "autre", "beaucoup",
    "pour", "tout", "à", "bientôt", "bien", "joué", "coup", "très", "sympa", "plus", "tard", "la", "revanche",
    "cephalopod", "Cubeo", "c3", "tour", "ton", "!", "?", "j'ai", "gagné", "perdu", "101",
]  # fmt: skip


@st.composite
def french_prose(draw) -> str:
    """A line of a French letter, short or long, in lower case as often as not."""
    rest = draw(st.lists(st.sampled_from(FRENCH_WORDS), min_size=1, max_size=10))
    return " ".join([draw(st.sampled_from(FRENCH_STARTERS)), *rest]) + draw(st.sampled_from([".", "!", "?", "", ","]))


@given(lines=st.lists(st.one_of(french_prose(), prose()), min_size=1, max_size=6), unparsed=st.booleans())
def test_french_prose_is_left_as_it_was_written(lines, unparsed):
    text = "\n".join(lines)
    assert mask_passwords(text, unparsed=unparsed) == text


@pytest.mark.parametrize("line", ["je voudrais rejouer", "bonne partie demain soir", "merci pour tout", "salut toi"])
def test_a_short_french_line_in_lower_case_is_no_command(line):
    assert mask_passwords(line, unparsed=True) == line


def test_a_board_where_a_verb_takes_none_leaves_the_password_starred():
    assert mask_passwords("language x101 alice Tr0ub4dor", unparsed=True) == "language x101 ******** ********"


@given(
    lines=st.lists(st.one_of(french_prose(), prose()), min_size=0, max_size=4),
    shape=st.sampled_from(
        [
            "cephalopod move 101 {password} carol c3",
            "sorry, I first sent: cephalopod move x101 carol {password} c3",
            'I had typed "cephalopod move 101 carol {password} c3" but it failed',
            "désolée, j'avais écrit : cephalopod move 101 carol {password} c3",
            "Merci ! Mon mot de passe est {password}.",
            "my password is {password}",
        ]
    ),
    at=st.integers(0, 4),
    password=st.text("abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789!#%&-", min_size=6, max_size=16),
)
def test_the_authors_password_is_among_the_words_checked_wherever_a_line_puts_it(lines, shape, at, password):
    assume(not any(password.lower() in line.lower() for line in lines))
    text = "\n".join([*lines[:at], shape.format(password=password), *lines[at:]])
    checked = password_candidates(text, ignore=["carol"])
    assert password in checked or any(password == word.strip(string.punctuation) for word in checked)
