"""A verb is one entry: its usage line is the spec its arguments are read by, its secrets and the
keys it is ordered by come from its argument kinds, and its help text is in its entry, said under a
code of the catalogue."""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest

import pbm.games
from pbm.commands import language as lang
from pbm.commands import verbs
from pbm.commands.language import CommandError
from pbm.commands.plan import conflict_keys, plan_mail
from pbm.commands.usage import KINDS, Spec, secret_count
from pbm.facts import Fact
from pbm.words import Words, every_catalogue

GAME = pbm.games.names()[0]
EVERY_VERB = [*verbs.ACCOUNT_VERBS, *verbs.GAME_VERBS]


def _written(verb: verbs.Verb, arguments: str) -> str:
    return " ".join(word for word in (GAME if verb in verbs.GAME_VERBS else "", verb.name, arguments) if word)


# -- the spec ----------------------------------------------------------------------------------


def test_a_spec_reads_each_word_into_the_field_its_kind_fills():
    assert Spec("BOARD USERID PASSWORD").read("101 Alice pw") == {"board": 101, "userid": "alice", "secret": "pw"}


def test_an_optional_argument_may_be_left_out_and_a_repeated_one_takes_every_word():
    spec = Spec("USERID PASSWORD [ADDRESS...]")
    assert spec.read("alice pw") == {"userid": "alice", "secret": "pw"}
    assert spec.read("alice pw a@Example.org b@example.org a@example.org") == {
        "userid": "alice",
        "secret": "pw",
        "addresses": ("a@example.org", "b@example.org"),
    }


def test_words_that_fit_no_shape_read_as_nothing_and_the_verb_answers_with_its_usage():
    assert Spec("USERID PASSWORD").read("alice") is None
    assert Spec("USERID PASSWORD").read("alice pw more") is None
    with pytest.raises(CommandError) as raised:
        verbs.parse_command("signoff alice")
    assert raised.value.fact == Fact("usage", usage=verbs.ACCOUNT["signoff"].usage_said())
    assert str(raised.value) == "Usage: signoff USERID PASSWORD"


def test_a_word_in_its_place_but_of_the_wrong_kind_is_told_so():
    with pytest.raises(CommandError) as raised:
        Spec("BOARD USERID PASSWORD").read("x101 alice pw")
    assert raised.value.fact == Fact("not-a-board", word="x101")


def test_a_move_takes_the_rest_of_the_line():
    assert Spec("BOARD USERID PASSWORD MOVE[#N]").read("101 alice pw c3 d4#7")["move"] == "c3 d4#7"


def test_alternatives_are_told_apart_by_their_words():
    spec = Spec("USERID PASSWORD | BOARD USERID PASSWORD")
    assert spec.read("alice pw") == {"userid": "alice", "secret": "pw"}
    assert spec.read("101 alice pw") == {"board": 101, "userid": "alice", "secret": "pw"}


def test_a_word_that_can_be_a_literal_is_read_as_one():
    games = Spec("[USERID...] [active|next|all] | open")
    assert games.read("alice all") == {"userids": ("alice",), "which": "all"}
    assert games.read("alice bob") == {"userids": ("alice", "bob")}
    assert games.read("Open") == {"open": True}
    watch = Spec("BOARD USERID PASSWORD | USERID PASSWORD all")
    assert watch.read("alice pw ALL") == {"userid": "alice", "secret": "pw", "all": True}


def test_a_choice_of_a_kind_or_a_literal():
    notify = Spec("USERID PASSWORD [BOARD...|off]")
    assert notify.read("alice pw 101 102")["boards"] == (101, 102)
    assert notify.read("alice pw off")["off"] is True
    limit = Spec("USERID PASSWORD [N|inf]")
    assert limit.read("alice pw 3")["most"] == 3
    assert limit.read("alice pw inf")["most"] is None
    with pytest.raises(CommandError) as raised:
        limit.read("alice pw lots")
    assert raised.value.fact == Fact("not-a-limit")


def test_a_spec_naming_no_known_kind_is_a_programming_error():
    with pytest.raises(ValueError, match="WHATEVER"):
        Spec("USERID WHATEVER")


@pytest.mark.parametrize("verb", [v for v in EVERY_VERB if v.parse is None], ids=lambda v: v.name)
def test_every_regular_verbs_usage_line_is_a_spec(verb):
    assert verb.spec.alternatives


# -- the converters ----------------------------------------------------------------------------


def test_the_converters_say_which_word_is_wrong_and_why():
    cases = {
        "Zoë": Fact("userid-not-ascii", word="Zoë", character="ë"),
        "1alice": Fact("not-a-userid", word="1alice"),
    }
    for word, fact in cases.items():
        with pytest.raises(CommandError) as raised:
            lang.userid(word)
        assert raised.value.fact == fact
    assert lang.userid("Alice") == "alice"
    assert lang.board_at("101#5") == (101, 5) and lang.board_at("101") == (101, None)
    for convert, word, code in [(lang.board, "x", "not-a-board"), (lang.board_at, "101#x", "not-a-board-at")]:
        with pytest.raises(CommandError) as raised:
            convert(word)
        assert raised.value.fact == Fact(code, word=word)
    with pytest.raises(CommandError) as raised:
        lang.addresses(["nobody"])
    assert raised.value.fact == Fact("not-an-address", word="nobody")


# -- what a verb is ordered by, for every verb ---------------------------------------------------

SAMPLES = {
    "USERID": "alice",
    "USERID...": "alice bob",
    "TO...": "bob carol",
    "PASSWORD": "alice-pw",
    "OLD": "alice-pw",
    "NEW": "alice-pw2",
    "ADDRESS...": "alice@example.org",
    "BOARD": "101",
    "BOARD...": "101 102",
    "BOARD[#N]": "101#3",
    "MOVE": "c3",
    "MOVE[#N]": "c3",
    "GAME": GAME,
    "N|inf": "inf",
    "LANGUAGE": "fr",
    "active|next|all": "next",
    "ZONE": "Europe/Paris",
    "HH:MM-HH:MM": "22:00-07:00",
    "HH:MM[,HH:MM...]": "07:30,19:00",
}
"""A word of each kind: every kind a usage line may name has one."""

PLAYER_KINDS = {"USERID", "USERID...", "TO..."}
BOARD_KINDS = {"BOARD", "BOARD...", "BOARD[#N]"}


@dataclass(frozen=True)
class Sample:
    """A line of a verb, and the players and boards it names."""

    line: str
    players: frozenset[str] = frozenset()
    boards: frozenset[int] = frozenset()


IRREGULAR = {
    "vacation": [Sample("vacation alice alice-pw now 14d", frozenset({"alice"}))],
    "challenge": [Sample(f"{GAME} challenge alice bob", frozenset({"alice", "bob"}))],
    "seek": [Sample(f"{GAME} seek alice alice-pw 1", frozenset({"alice"}))],
    "queue": [
        Sample(f"{GAME} queue 101 alice alice-pw c3", frozenset({"alice"}), frozenset({101})),
        Sample(f"{GAME} queue 101 alice alice-pw off", frozenset({"alice"}), frozenset({101})),
    ],
    "preview": [Sample(f"{GAME} preview 101#3 c3", boards=frozenset({101}))],
    "show": [
        Sample(f"{GAME} show 101 102#5", boards=frozenset({101, 102})),
        Sample(f"{GAME} show alice next", frozenset({"alice"})),
    ],
    # pbmserv's pass and swap are answered whatever follows: they name nobody
    "pass": [Sample(f"{GAME} pass 101 alice alice-pw")],
    "swap": [Sample(f"{GAME} swap 101 alice alice-pw")],
}
"""Lines of the verbs that keep a parser of their own, each shape of their usage."""


def _samples(verb: verbs.Verb) -> list[Sample]:
    """A line for every shape of the verb's usage, each optional argument given and left out, with
    the players and boards its arguments name."""
    if verb.parse is not None:
        return IRREGULAR[verb.name]
    samples = []
    for alternative in verb.arguments.split(" | "):
        for given in (True, False):
            words, players, boards = [], set(), set()
            for token in alternative.split():
                bracketed = token.startswith("[") and token.endswith("]") and token not in KINDS
                if bracketed and not given:
                    continue
                inner = token[1:-1] if bracketed else token
                kind = inner if inner in KINDS else inner.split("|")[0]
                sample = SAMPLES.get(kind, kind)
                words.append(sample)
                players.update(sample.split() if kind in PLAYER_KINDS else ())
                boards.update(int(board.partition("#")[0]) for board in sample.split() if kind in BOARD_KINDS)
            samples.append(Sample(_written(verb, " ".join(words)), frozenset(players), frozenset(boards)))
    return list(dict.fromkeys(samples))


def test_every_kind_has_a_sample_word():
    assert set(SAMPLES) == set(KINDS)


def test_every_irregular_verb_has_sample_lines():
    assert {verb.name for verb in EVERY_VERB if verb.parse is not None} == set(IRREGULAR)


@pytest.mark.parametrize("verb", EVERY_VERB, ids=lambda v: v.help)
def test_every_verb_naming_a_player_or_a_board_is_ordered_by_it(verb):
    for sample in _samples(verb):
        keys = conflict_keys(plan_mail("", sample.line, max_commands=5), sender="someone@example.org")
        assert {f"player:{userid}" for userid in sample.players} <= keys, sample.line
        assert {f"board:{GAME}:{board}" for board in sample.boards} <= keys, sample.line


@pytest.mark.parametrize(
    "line",
    [
        "add alice alice-pw alice@work.example.org",
        f"{GAME} limit alice alice-pw 3",
        f"{GAME} accept alice alice-pw",
        f"{GAME} reject alice alice-pw",
        "all show alice",
    ],
)
def test_the_verbs_once_ordered_by_their_sender_alone_are_ordered_by_their_player(line):
    keys = conflict_keys(plan_mail("", line, max_commands=5), sender="someone@example.org")
    assert keys == {"sender:someone@example.org", "player:alice"}


def test_what_a_verb_shares_beyond_its_arguments_orders_it_too():
    assert verbs.ordering_keys(verbs.parse_command(f"{GAME} seek alice pw 1")) == {
        "player:alice",
        f"seek:{GAME}",
        f"counter:{GAME}",
    }
    assert verbs.ordering_keys(verbs.parse_command(f"{GAME} challenge alice bob")) == {
        "player:alice",
        "player:bob",
        f"counter:{GAME}",
    }


def test_a_reply_to_a_board_mail_is_ordered_by_its_board_and_player_as_the_written_move_is():
    from pbm.commands.plan import ReplyFacts

    reply = plan_mail("", "c3", reply=ReplyFacts("bob", GAME, 101, 4), max_commands=5)
    written = plan_mail("", f"{GAME} move 101 bob bob-pw c3", max_commands=5)
    assert conflict_keys(reply, sender="b@example.org") == conflict_keys(written, sender="b@example.org")


# -- secrets and help --------------------------------------------------------------------------


@pytest.mark.parametrize("verb", [v for v in EVERY_VERB if v.parse is None], ids=lambda v: v.name)
def test_the_secrets_a_line_carries_are_the_words_its_usage_calls_secret(verb):
    for sample in _samples(verb):
        command = verbs.parse_command(sample.line)
        written = [word for word in sample.line.split() if word.startswith("alice-pw")]
        assert sorted(command.secrets()) == sorted(written), sample.line
    assert verb.passwords == secret_count(verb.arguments)


def test_every_verb_says_what_it_does_by_a_code_of_the_help_catalogue():
    codes = [verb.help for verb in EVERY_VERB]
    help_codes = [code for code in every_catalogue() if code.startswith("about-")]
    assert sorted(codes) == sorted(help_codes), "one help code per verb, and no other"
    for verb in EVERY_VERB:
        assert re.fullmatch(r"about-[a-z-]+", verb.help)
        assert Words().say(verb.about) == verb.does, "the words of its own entry"


def test_verbs_that_take_the_same_arguments_share_their_names_in_the_catalogue():
    """A new verb whose arguments another verb takes needs no translation of them: its one new
    catalogue line is what it does."""
    codes: dict[str, set[str]] = {}
    for verb in EVERY_VERB:
        if verb.arguments:
            codes.setdefault(verb.arguments, set()).add(verb.arguments_code)
    assert all(len(shared) == 1 for shared in codes.values())
    assert len({code for shared in codes.values() for code in shared}) == len(codes), "one code, one shape"
    assert verbs.ACCOUNT["deadlines"].arguments_code == verbs.ACCOUNT["password reset"].arguments_code
