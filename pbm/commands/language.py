"""The command language: one line of text in, one typed `Command` out.

This is the pbmserv language: words separated by white space, verbs
case-insensitive, ``**`` tokens ignored (old clients wrapped commands in them)::

    signup alice secret alice@example.org
    cephalopod challenge -size=7 alice bob
    cephalopod move 101 alice secret c3=b3+c2#7
    cephalopod show 101 102#5

Parsing is pure: no database, no mail. It knows the verbs and their arguments;
whether a password is right or a move legal is decided when the command runs.
The games come from the engine registry, so a new game needs no change here.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, field, fields
from typing import Any

import pbm.games


class CommandError(ValueError):
    """The line is not a command we understand; the message says what would be."""

    def __init__(self, message: str, line: str = "") -> None:
        super().__init__(message)
        self.line = line


USERID = re.compile(r"^[a-z][a-z0-9_.-]{1,31}$")
ADDRESS = re.compile(
    r"^[^@\s<>()\[\],;:\"]+@[^@\s<>()\[\],;:\"]+\.[^@\s<>()\[\],;:\".]+$|^[^@\s]+@localhost$"
)


def secret() -> Any:
    """A field holding a password: never printed, and masked wherever the mail is quoted."""
    return field(repr=False, metadata={"secret": True})


@dataclass(frozen=True)
class Command:
    """Base of all commands. `line` is the text as the player wrote it."""

    line: str = field(default="", compare=False, repr=False, kw_only=True)

    def secrets(self) -> tuple[str, ...]:
        """The passwords this command carries."""
        return tuple(getattr(self, f.name) for f in fields(self) if f.metadata.get("secret"))


# -- account commands --------------------------------------------------------


@dataclass(frozen=True)
class Help(Command):
    topic: str | None = None


@dataclass(frozen=True)
class Signup(Command):
    userid: str
    secret: str = secret()
    addresses: tuple[str, ...] = ()


@dataclass(frozen=True)
class ChangePassword(Command):
    userid: str
    old: str = secret()
    new: str = secret()


@dataclass(frozen=True)
class ChangeAddress(Command):
    userid: str
    secret: str = secret()
    addresses: tuple[str, ...]


@dataclass(frozen=True)
class Signoff(Command):
    userid: str
    secret: str = secret()


@dataclass(frozen=True)
class ListGames(Command):
    """``list``: the games this server plays."""


# -- per-game commands -------------------------------------------------------


@dataclass(frozen=True)
class GameHelp(Command):
    game: str


@dataclass(frozen=True)
class Challenge(Command):
    game: str
    userids: tuple[str, ...]
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Move(Command):
    game: str
    board: int
    userid: str
    secret: str = secret()
    move: str
    """The move as written, possibly with a ``#N`` guard; the engine parses it."""


@dataclass(frozen=True)
class Show(Command):
    game: str
    boards: tuple[tuple[int, int | None], ...]
    """(board, N) pairs; N asks for the board as it stood after move N."""


@dataclass(frozen=True)
class Games(Command):
    game: str
    userids: tuple[str, ...] = ()
    which: str = "active"  # active, next or all


@dataclass(frozen=True)
class Resign(Command):
    game: str
    board: int
    userid: str
    secret: str = secret()


@dataclass(frozen=True)
class History(Command):
    game: str
    userids: tuple[str, ...] = ()


@dataclass(frozen=True)
class Standings(Command):
    game: str


# -- the parser --------------------------------------------------------------

ACCOUNT_USAGE = {
    "help": "help [topic]",
    "signup": "signup userid password [address...]",
    "change": "change password userid old new  |  change address userid password address...",
    "signoff": "signoff userid password",
    "list": "list",
}

GAME_USAGE = {
    "help": "{game} help",
    "challenge": "{game} challenge [-options] userid1 userid2 [...]",
    "move": "{game} move board userid password move[#N]",
    "show": "{game} show board[#N] [board...]",
    "games": "{game} games [userid...] [active|next|all]",
    "resign": "{game} resign board userid password",
    "history": "{game} history [userid...]",
    "standings": "{game} standings",
}


def words_of(line: str) -> list[str]:
    return [word for word in line.split() if word != "**"]


def parse_command(line: str) -> Command:
    """Parse one line; raises `CommandError` with a message for the player.

    >>> parse_command("Cephalopod MOVE 101 Alice pw c3")
    Move(game='cephalopod', board=101, userid='alice', move='c3')
    """
    try:
        words = words_of(line)
        if not words:
            raise CommandError("The line is empty")
        verb = words[0].lower()
        if verb in ACCOUNT_USAGE:
            return _account(verb, words[1:], line)
        if verb in pbm.games.names():
            return _per_game(verb, words[1:], line)
        known = ", ".join(list(ACCOUNT_USAGE) + pbm.games.names())
        raise CommandError(f"'{words[0]}' is not a command; a command starts with one of: {known}")
    except CommandError as error:
        error.line = line
        raise


def _account(verb: str, args: list[str], line: str) -> Command:
    usage = ACCOUNT_USAGE[verb]
    if verb == "help":
        if len(args) > 1:
            raise _usage(usage)
        return Help(args[0].lower() if args else None, line=line)
    if verb == "list":
        if args:
            raise _usage(usage)
        return ListGames(line=line)
    if verb == "signup":
        if len(args) < 2:
            raise _usage(usage)
        return Signup(_userid(args[0]), args[1], _addresses(args[2:]), line=line)
    if verb == "signoff":
        if len(args) != 2:
            raise _usage(usage)
        return Signoff(_userid(args[0]), args[1], line=line)
    # change password | change address
    what = args[0].lower() if args else ""
    if what == "password" and len(args) == 4:
        return ChangePassword(_userid(args[1]), args[2], args[3], line=line)
    if what == "address" and len(args) >= 4:
        return ChangeAddress(_userid(args[1]), args[2], _addresses(args[3:]), line=line)
    raise _usage(usage)


def _per_game(game: str, args: list[str], line: str) -> Command:
    if not args:
        raise CommandError(f"What should {game} do? Try: {game} help")
    verb, rest = args[0].lower(), args[1:]
    usage = GAME_USAGE.get(verb, "").format(game=game)
    if verb == "help":
        return GameHelp(game, line=line)
    if verb == "standings":
        return Standings(game, line=line)
    if verb == "challenge":
        options = [w for w in rest if w.startswith("-")]
        userids = tuple(_userid(w) for w in rest if not w.startswith("-"))
        if not userids:
            raise _usage(usage)
        try:
            parsed = pbm.games.get(game).parse_options(options)
        except pbm.games.InvalidOptions as error:
            raise CommandError(str(error)) from None
        return Challenge(game, userids, parsed, line=line)
    if verb == "move":
        if len(rest) < 4:
            raise _usage(usage)
        return Move(game, _board(rest[0]), _userid(rest[1]), rest[2], " ".join(rest[3:]), line=line)
    if verb == "resign":
        if len(rest) != 3:
            raise _usage(usage)
        return Resign(game, _board(rest[0]), _userid(rest[1]), rest[2], line=line)
    if verb == "show":
        if not rest:
            raise _usage(usage)
        return Show(game, tuple(_board_at(w) for w in rest), line=line)
    if verb == "games":
        which = "active"
        if rest and rest[-1].lower() in ("active", "next", "all"):
            which = rest[-1].lower()
            rest = rest[:-1]
        return Games(game, tuple(_userid(w) for w in rest), which, line=line)
    if verb == "history":
        return History(game, tuple(_userid(w) for w in rest), line=line)
    verbs = ", ".join(GAME_USAGE)
    raise CommandError(f"'{args[0]}' is not a {game} command; the {game} commands are: {verbs}")


def _usage(usage: str) -> CommandError:
    return CommandError(f"Usage: {usage}")


def _userid(word: str) -> str:
    userid = word.lower()
    if not USERID.match(userid):
        raise CommandError(
            f"'{word}' is not a userid: a userid is 2 to 32 letters, digits, '.', '_' or '-', starting with a letter"
        )
    return userid


def _board(word: str) -> int:
    if not word.isdecimal():
        raise CommandError(f"'{word}' is not a board number (boards are numbered from 101)")
    return int(word)


def _board_at(word: str) -> tuple[int, int | None]:
    board, sep, number = word.partition("#")
    if sep and not number.isdecimal():
        raise CommandError(f"'{word}': write board#N, where N is a move number, e.g. 101#5")
    return _board(board), int(number) if sep else None


def _addresses(words: list[str]) -> tuple[str, ...]:
    addresses = []
    for word in words:
        address = word.strip("<>,;")
        if not ADDRESS.match(address):
            raise CommandError(f"'{word}' is not a mail address")
        local, _, domain = address.rpartition("@")
        addresses.append(f"{local}@{domain.lower()}")
    return tuple(dict.fromkeys(addresses))


def looks_like_command(line: str) -> bool:
    """Whether the line is meant as a command: it starts with a verb or a game name.

    Such a line is answered even when it is wrong; any other line is text
    (a greeting, or the comment the player sends to the other players).
    """
    words = words_of(line)
    return bool(words) and (words[0].lower() in ACCOUNT_USAGE or words[0].lower() in pbm.games.names())


_WORD = re.compile(r"\S+")
MASK = "********"

# Where the passwords stand, counted from the verb: `move BOARD USERID PASSWORD MOVE`.
_SECRET_AFTER_VERB = {
    "signup": (2,),
    "signoff": (2,),
    "move": (3,),
    "resign": (3,),
}
_SECRET_AFTER_CHANGE = {"password": (3, 4), "address": (3,)}


def mask_passwords(text: str, secrets: Collection[str] = ()) -> str:
    """The text with every password starred, for quoting, comments and logs.

    A password is a word in a password position of anything shaped like a
    command (a verb first, a verb after a game name or a misspelt one, or a
    game name followed by an unknown verb), or one of `secrets` (the
    passwords the mail's commands carried). Every word containing one is
    starred wherever it stands in the text, so a password written again in
    passing is hidden too.

    >>> mask_passwords("cephalopod move 101 alice s3cret c3")
    'cephalopod move 101 alice ******** c3'
    >>> mask_passwords("change password alice old new")
    'change password alice ******** ********'
    >>> mask_passwords("move 103 bob s3cret c3\\nThanks! My password is s3cret.")
    'move 103 bob ******** c3\\nThanks! My password is ********'
    """
    lines = text.split("\n")
    found = {secret for line in lines for secret in _words_in_password_positions(line)}
    found.update(secret for secret in secrets if secret)
    return "\n".join(_mask_line(line, found) for line in lines)


def _word_spans(line: str) -> list[tuple[int, int]]:
    return [m.span() for m in _WORD.finditer(line) if m.group() != "**"]


def _words_in_password_positions(line: str) -> list[str]:
    spans = _word_spans(line)
    positions = _secret_positions([line[a:b].lower() for a, b in spans])
    return [line[a:b] for index, (a, b) in enumerate(spans) if index in positions]


def _mask_line(line: str, secrets: Collection[str]) -> str:
    spans = _word_spans(line)
    hidden = {i for i, (a, b) in enumerate(spans) if any(s in line[a:b] for s in secrets)}
    if not hidden:
        return line
    pieces, last = [], 0
    for index, (start, end) in enumerate(spans):
        if index in hidden:
            pieces.append(line[last:start] + MASK)
            last = end
    return "".join(pieces) + line[last:]


def _secret_positions(words: list[str]) -> set[int]:
    if not words:
        return set()
    first, second = words[0], words[1] if len(words) > 1 else ""
    if first == "change":
        return set(_SECRET_AFTER_CHANGE.get(second, ()))
    if first in _SECRET_AFTER_VERB:
        return set(_SECRET_AFTER_VERB[first])
    if second in _SECRET_AFTER_VERB:
        return {1 + offset for offset in _SECRET_AFTER_VERB[second]}
    if first in pbm.games.names() and second not in GAME_USAGE:
        return {4}  # a misspelt verb after a game name: hide where move and resign keep it
    return set()
