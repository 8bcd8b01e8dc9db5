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

import difflib
import re
from collections.abc import Collection, Iterable
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
        if verb in GAME_USAGE:
            example = f"{pbm.games.names()[0]} {' '.join(words[:2])} ..."  # not the rest: it may hold a password
            raise CommandError(f"'{words[0]}' needs the name of the game first, e.g. {example}")
        game = _near(verb, pbm.games.names())
        if game is not None:
            raise CommandError(f"'{words[0]}' is not a command; did you mean {game}?")
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
    near = _near(verb, GAME_USAGE)
    if near is not None:
        raise CommandError(f"'{args[0]}' is not a {game} command; did you mean {near}?")
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


def is_command_line(line: str) -> bool:
    """Whether a line of a mail is meant as a command (and so is answered, even when wrong).

    It is when it starts with a verb or a game name, or with a near miss of a
    game name followed by one of its verbs (``cephalopd move ...``), or with a
    game's verb and a board number but no game (``move 103 ...``): those are
    answered with what to write instead. A line that starts like a command but
    cannot be one is text, so that a comment may begin with a game's name:
    a game name followed by a word that is neither one of its verbs nor a near
    miss of one (``Cephalopod is hard``), ``help`` followed by more than one
    word, ``list`` followed by anything.

    >>> [is_command_line(line) for line in ("cephalopod show 101", "Cephalopod is hard, right?", "help me understand")]
    [True, False, False]
    >>> [is_command_line(line) for line in ("cephalopd move 101 alice pw c3", "move 101 alice pw c3", "Move on!")]
    [True, True, False]
    """
    words = [word.lower() for word in words_of(line)]
    if not words:
        return False
    first, rest = words[0], words[1:]
    if first == "help":
        return len(rest) <= 1
    if first == "list":
        return not rest
    if first in ACCOUNT_USAGE:
        return True
    second = rest[0] if rest else ""
    if first in pbm.games.names():
        return not rest or second in GAME_USAGE or _near(second, GAME_USAGE) is not None
    if first in GAME_USAGE:
        return second.partition("#")[0].isdecimal()
    return second in GAME_USAGE and _near(first, pbm.games.names()) is not None


def _near(word: str, known: Iterable[str]) -> str | None:
    """The one known word `word` is a likely typo of, if any (``cephalopd`` -> ``cephalopod``)."""
    if len(word) < 4:
        return None
    close = difflib.get_close_matches(word, list(known), n=1, cutoff=0.75)
    return close[0] if close else None


_WORD = re.compile(r"\S+")
MASK = "********"

PASSWORD_VERBS = frozenset(
    {
        # Accounts: `signup USERID PASSWORD [ADDRESS...]`, `add USERID PASSWORD ADDRESS...` ...
        "signup", "signoff", "delete", "add", "message", "broadcast", "vacation",
        # Per game, without a board: `GAME accept USERID PASSWORD`, `GAME limit USERID PASSWORD N` ...
        "accept", "reject", "limit", "notify", "seek",
        # Per game, on a board: `GAME move BOARD USERID PASSWORD MOVE` ...
        "move", "resign", "queue", "qmove", "moveq", "qboard", "boardq", "chat",
        "subscribe", "unsubscribe", "unsub", "submit", "confirm", "join",
    }
)  # fmt: skip
"""Every verb of the pbmserv language (built here or not yet) whose command carries a password.

In all of them the password is the word right after the userid, and the userid
the first word after the verb that is not a board number. ``change`` carries
two (``change password USERID OLD NEW``) or one (``change address USERID
PASSWORD ...``); the other verbs (``show``, ``games``, ``challenge``,
``password reset USERID``, ``all show USERID`` ...) carry none."""


def mask_passwords(text: str, secrets: Collection[str] = (), *, unparsed: bool = False) -> str:
    """The text with every password starred, for quoting, comments and logs.

    The passwords are found first, then every word containing one is starred
    wherever it stands, so a password written again in passing is hidden too:

    - `secrets`, the passwords the mail's commands carried;
    - the password of every line shaped like a command with a password, by
      the grammar of its verb (`PASSWORD_VERBS`), whether or not it parsed:
      the verb may come first, after a game's name, or after a near miss of
      one, and may itself be a near miss (``mvoe``);
    - in a line that parses as nothing, every word after its first
      userid-shaped word: in a line shaped like a command with an unknown verb
      and a board number (``cephalopod frobnicate 101 alice s3cret c3``), and,
      with `unparsed`, in every line (a mail in which no command was found).

    >>> mask_passwords("cephalopod move 101 alice s3cret c3")
    'cephalopod move 101 alice ******** c3'
    >>> mask_passwords("change password alice old new")
    'change password alice ******** ********'
    >>> mask_passwords("move 103 bob s3cret c3\\nThanks! My password is s3cret.")
    'move 103 bob ******** c3\\nThanks! My password is ********'
    >>> mask_passwords("Cubeo with eight d8s and removal.")
    'Cubeo with eight d8s and removal.'
    >>> mask_passwords("frobnicate alice s3cret", unparsed=True)
    'frobnicate alice ********'
    """
    lines = text.split("\n")
    found = {word for line in lines for word in _passwords_in(line, unparsed=unparsed)}
    found.update(secret for secret in secrets if secret)
    return "\n".join(_mask_line(line, found) for line in lines)


def _word_spans(line: str) -> list[tuple[int, int]]:
    return [m.span() for m in _WORD.finditer(line) if m.group() != "**"]


def _passwords_in(line: str, *, unparsed: bool) -> list[str]:
    """The words of `line` that stand where a password would."""
    words = [line[a:b] for a, b in _word_spans(line)]
    lowered = [word.lower() for word in words]
    verb_at = _verb_position(lowered)
    if verb_at is not None:
        verb = _canonical_verb(lowered[verb_at]) or ""
        if verb in PASSWORD_VERBS or verb == "change":
            return [words[i] for i in _grammar_positions(lowered, verb_at, verb)]
        if verb in ACCOUNT_USAGE or verb in GAME_USAGE or verb in _VERBS_WITHOUT_PASSWORD:
            return []
    if unparsed or _unknown_verb_on_a_board(lowered):
        start = next((i for i, word in enumerate(lowered) if i > 0 and USERID.match(word)), None)
        return words[start + 1 :] if start is not None else []
    return []


_VERBS_WITHOUT_PASSWORD = frozenset({"password", "all", "showas", "ratings", "chall", "board", "preview", "prev"})


def _verb_position(words: list[str]) -> int | None:
    """Where the verb of a command-shaped line stands: first, or after a game's name (or a near miss of one)."""
    if not words:
        return None
    if words[0] in _KNOWN_VERBS:
        return 0
    if len(words) > 1 and (words[0] in pbm.games.names() or _near(words[0], pbm.games.names())):
        if _canonical_verb(words[1]) is not None:
            return 1
    return None


_KNOWN_VERBS = PASSWORD_VERBS | _VERBS_WITHOUT_PASSWORD | set(ACCOUNT_USAGE) | set(GAME_USAGE) | {"change"}


def _canonical_verb(word: str) -> str | None:
    """The verb `word` is, or is a near miss of (a near miss counts only after a game's name:
    at the start of a line, ``Moved to c3`` is prose)."""
    return word if word in _KNOWN_VERBS else _near(word, PASSWORD_VERBS)


def _grammar_positions(words: list[str], verb_at: int, verb: str) -> list[int]:
    if verb == "change":
        what = words[verb_at + 1] if len(words) > verb_at + 1 else ""
        userid_at = verb_at + 2
        count = 2 if what == "password" else 1
    else:
        userid_at = verb_at + 1
        while userid_at < len(words) and words[userid_at].partition("#")[0].isdecimal():
            userid_at += 1  # the board
        count = 1
    return [i for i in range(userid_at + 1, userid_at + 1 + count) if i < len(words)]


def _unknown_verb_on_a_board(words: list[str]) -> bool:
    """``[GAME] VERB BOARD ...`` with a verb nobody knows: a command, misspelt beyond recognition."""
    offset = 1 if words and (words[0] in pbm.games.names() or _near(words[0], pbm.games.names())) else 0
    return len(words) > offset + 2 and words[offset + 1].partition("#")[0].isdecimal()


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
