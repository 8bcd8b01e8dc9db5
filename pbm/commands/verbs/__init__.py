"""The verbs of the language, each defined once: how it is parsed, written, explained, ordered and run.

`ACCOUNT_VERBS` and `GAME_VERBS` are the one table the parser
(`parse_command`), the help mails and the rules page (their usage lines and
help texts), the password masking (`pbm.commands.masking`), the ordering of
mails between workers (`ordering_keys`) and the executor (each verb's handler)
all read. A verb's usage line is also the spec of its arguments
(`pbm.commands.usage`): ``BOARD USERID PASSWORD`` reads a board number, a
userid and a password into the fields of the same names of its noun
(`pbm.commands.language`), says the password is a secret, and orders the
command by the board and the player. A verb's entry holds all its words: its
name and aliases, its usage line, what it does (the help text), and through the
usage line its secrets; `verb_catalogue` gives them to the translators. A new
verb is one entry, one handler and its test (see `pbm.commands`).

The table is kept in three modules: `verb` (the machinery every entry shares: `Verb`),
`account` (the account's verbs) and `game` (the games' verbs); this module lists them in order
and reads lines with them. It is above the handlers it names, and the command layer's catalogue
(`pbm.commands.messages`) below them: the verbs' words reach the translators from here
(`verb_catalogue`, which `pbm.words` merges), and a usage error carries its verb's own.

Parsing is pure: no database, no mail.

>>> parse_command("Cephalopod MOVE 101 Alice pw c3")
Move(game='cephalopod', board=101, userid='alice', replied_at=None, move='c3')
>>> sorted(ordering_keys(parse_command("cephalopod limit alice pw 3")))
['player:alice']
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

import pbm.games
from pbm.commands import language as lang
from pbm.commands.context import Context
from pbm.commands.effects import OutgoingMail
from pbm.commands.language import CommandError
from pbm.commands.usage import ordering_keys as argument_keys
from pbm.commands.verbs import account, game
from pbm.commands.verbs.game import MOST_SOUGHT
from pbm.commands.verbs.verb import Build, Handler, Parse, Unfit, UsageError, Verb, noun
from pbm.facts import Catalogue, Fact

__all__ = [
    "ACCOUNT",
    "ACCOUNT_VERBS",
    "GAME",
    "GAME_VERBS",
    "MOST_SOUGHT",
    "Build",
    "CommandError",
    "Handler",
    "Parse",
    "Unfit",
    "UsageError",
    "Verb",
    "account_commands",
    "is_command_line",
    "looks_like_a_command",
    "near_miss",
    "noun",
    "ordering_keys",
    "parse_command",
    "run",
    "verb_catalogue",
]

ACCOUNT_VERBS = account.VERBS
GAME_VERBS = game.VERBS
ACCOUNT = {name: verb for verb in ACCOUNT_VERBS for name in (verb.name, *verb.aliases)}
GAME = {name: verb for verb in GAME_VERBS for name in (verb.name, *verb.aliases)}
_FIRST_ACCOUNT_WORDS = {name.split()[0] for name in ACCOUNT}
_OPENING_WORDS = [*dict.fromkeys(verb.name.split()[0] for verb in ACCOUNT_VERBS), *pbm.games.names()]
"""The words a command may start with, as a near miss of one is answered (``hepl``: did you mean help?)."""
_HANDLERS: dict[type[lang.Command], Handler] = {
    **{verb.command: verb.run for verb in (*ACCOUNT_VERBS, *GAME_VERBS)},
    **{command: run for verb in (*ACCOUNT_VERBS, *GAME_VERBS) for command, run in verb.also},
}
_VERB_OF: dict[type[lang.Command], Verb] = {
    command: verb
    for verb in reversed((*ACCOUNT_VERBS, *GAME_VERBS))
    for command in (verb.command, *(command for command, _ in verb.also))
}
"""The verb each noun belongs to (the first that names it)."""


def account_commands() -> list[str]:
    """The words an account command starts with, as an error mail lists them."""
    return list(dict.fromkeys(verb.name.split()[0] for verb in ACCOUNT_VERBS))


# -- parsing a line -------------------------------------------------------------------------


def parse_command(line: str) -> lang.Command:
    """Parse one line; raises `CommandError` with a message for the player."""
    try:
        words = lang.words_of(line)
        if not words:
            raise CommandError("empty-line")
        first = words[0].lower()
        if first in pbm.games.names():
            command = _per_game(first, words[1:])
        else:
            command = _account(words)
        return _with_line(command, line)
    except CommandError as error:
        error.line = line
        raise


def _with_line(command: lang.Command, line: str) -> lang.Command:
    object.__setattr__(command, "line", line)  # frozen: the line is set once, here
    return command


def _account(words: list[str]) -> lang.Command:
    first = words[0].lower()
    verb = _account_verb([w.lower() for w in words])
    if verb is not None:
        return verb.read("", words[len(verb.name.split()) :])
    if first == "change":
        password, address = (v for v in ACCOUNT_VERBS if v.name.startswith("change "))
        either = Fact("usage-either", first=password.usage_said(), other=address.usage_said())
        raise UsageError(Fact("usage", usage=either), words={**password.words, **address.words})
    if first in GAME:
        example = f"{pbm.games.names()[0]} {' '.join(words[:2])} ..."  # not the rest: it may hold a password
        raise CommandError("game-name-first", word=words[0], example=example)
    meant = near_miss(first, _OPENING_WORDS)
    if meant is not None:
        raise CommandError("not-a-command-near", word=words[0], meant=meant)
    known = ", ".join([*account_commands(), *pbm.games.names()])
    raise CommandError("not-a-command", word=words[0], known=known)


def _account_verb(lowered: list[str]) -> Verb | None:
    """The account verb a line's first word (or first two words) name."""
    return ACCOUNT.get(" ".join(lowered[:2])) or ACCOUNT.get(lowered[0])


def _per_game(game: str, args: list[str]) -> lang.Command:
    if not args:
        raise CommandError("game-without-verb", game=game)
    verb = GAME.get(args[0].lower())
    if verb is not None:
        return verb.read(game, args[1:])
    near = near_miss(args[0].lower(), GAME)
    if near is not None:
        raise CommandError("not-a-game-command-near", word=args[0], game=game, meant=GAME[near].name)
    verbs = ", ".join(verb.name for verb in GAME_VERBS if verb.offered)
    raise CommandError("not-a-game-command", word=args[0], game=game, verbs=verbs)


def is_command_line(line: str) -> bool:
    """Whether a line of a mail is meant as a command (and so is answered, even when wrong).

    It is when it starts with a verb or a game name, or with a near miss of a
    game name followed by one of its verbs (``cephalopd move ...``), or with a
    game's verb and a board number but no game (``move 103 ...``): those are
    answered with what to write instead. A line that starts like a command but
    cannot be one is text, so that a comment may begin with a game's name:
    a game name followed by a word that is neither one of its verbs nor a near
    miss of one (``cephalopod mov 108 ...`` is one) unless a board number
    follows it (``cephalopod frobnicate 101 ...``), as in ``Cephalopod is
    hard``; ``help`` followed by more than one word, ``list`` followed by anything.

    >>> [is_command_line(line) for line in ("cephalopod show 101", "Cephalopod is hard, right?", "help me understand")]
    [True, False, False]
    >>> [is_command_line(line) for line in ("cephalopod mov 108 ivan pw a1", "cephalopod frob 101 ivan pw")]
    [True, True]
    >>> [is_command_line(line) for line in ("cephalopd move 101 alice pw c3", "move 101 alice pw c3", "Move on!")]
    [True, True, False]
    """
    words = [word.lower() for word in lang.words_of(line)]
    if not words:
        return False
    first, rest = words[0], words[1:]
    if ACCOUNT.get(first) is ACCOUNT["help"]:
        return len(rest) <= 1
    if ACCOUNT.get(first) is ACCOUNT["list"]:
        return not rest
    if first in _FIRST_ACCOUNT_WORDS:
        return True
    second = rest[0] if rest else ""
    if first in pbm.games.names():
        return not rest or second in GAME or near_miss(second, GAME) is not None or _is_board(rest[1:2])
    if first in GAME:
        return _is_board(rest[:1])
    return second in GAME and near_miss(first, pbm.games.names()) is not None


def _is_board(words: list[str]) -> bool:
    """Whether `words` is one word that is a board number (``101``, ``101#5``)."""
    return len(words) == 1 and words[0].partition("#")[0].isdecimal()


def looks_like_a_command(line: str) -> bool:
    """Whether a line that is no command line was still meant as one: it starts with a game's name
    (``Cephalopod rules``), or with a near miss of a word a command starts with (``hepl``).

    A mail without a command is answered about the first such line, rather than with
    a list of the commands that contradicts it or misses the typo.

    >>> [looks_like_a_command(line) for line in ("hepl", "Cephalopod rules", "Hello, Zoe", "Move on!")]
    [True, True, False, False]
    """
    words = [word.lower() for word in lang.words_of(line)]
    if not words or is_command_line(line):
        return False
    first = words[0]
    if first in pbm.games.names():
        return True
    return first not in _FIRST_ACCOUNT_WORDS and first not in GAME and near_miss(first, _OPENING_WORDS) is not None


def near_miss(word: str, known: Iterable[str]) -> str | None:
    """The one known word `word` is a likely typo of, if any (``cephalopd`` -> ``cephalopod``).

    Only a word of letters is a typo of a name (``cephalopod,`` is prose), and a word of three
    letters only as the start of one (``mov`` for ``move``): prose is full of short words one
    letter away from a verb (``how``, ``hat``).
    """
    if len(word) < 3 or not word.isalpha():
        return None
    candidates = [name for name in known if len(word) > 3 or name.startswith(word)]
    close = difflib.get_close_matches(word, candidates, n=1, cutoff=0.75)
    return close[0] if close else None


def run(ctx: Context, command: lang.Command) -> list[OutgoingMail]:
    """Run `command` by its verb's handler, in `ctx`'s transaction (the caller's savepoint)."""
    return _HANDLERS[type(command)](ctx, command)


def ordering_keys(command: lang.Command) -> set[str]:
    """What applying `command` touches, which mails that touch it too are ordered by: every player
    and board its arguments name (`usage.ordering_keys`), and what its verb shares."""
    keys = set(argument_keys(command))
    verb = _VERB_OF.get(type(command))
    game = command.game if isinstance(command, lang.GameCommand) else ""
    keys.update(f"{shared}:{game}" for shared in (verb.shared if verb is not None else ()))
    return keys


def verb_catalogue() -> Catalogue:
    """The English of every verb's words, read from the table itself, so that a new verb needs no
    entry elsewhere: what it does under ``about-<verb>``, and its arguments as its usage writes them
    under ``arguments-<verb>`` (the usage lines' facts)."""
    every = (*ACCOUNT_VERBS, *GAME_VERBS)
    return {
        **{verb.help: verb.does for verb in every},
        **{verb.arguments_code: verb.arguments for verb in every if verb.arguments},
    }
