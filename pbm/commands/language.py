"""The command language's nouns: what each command is, and the readers of its words.

This is the pbmserv language: words separated by white space, verbs
case-insensitive, ``**`` tokens ignored (old clients wrapped commands in them)::

    signup alice secret alice@example.org
    cephalopod challenge -size=7 alice bob
    cephalopod move 101 alice secret c3=b3+c2#7
    cephalopod show 101 102#5

Everything here is pure: no database, no mail. A `Command` says what a line
asks for; whether a password is right or a move legal is decided when it runs.
`pbm.commands.verbs` holds the verbs themselves: how each is parsed, written,
explained and run, `pbm.commands.reading` the readers of its words (a userid, a board, a zone ...)
and the error of words that cannot be read, which this module names too.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from datetime import date, time
from typing import Any

# The readers of the nouns' words, named here as they always were (and re-exported: see pyproject's mypy).
from pbm.commands.reading import (  # noqa: F401
    ADDRESS,
    GREETING_WORDS,
    LARGEST_NUMBER,
    USERID,
    CommandError,
    addresses,
    board,
    board_at,
    digest_times,
    is_greeting,
    local_hours,
    options,
    time_rules,
    userid,
    whole_number,
    words_of,
    zone,
)
from pbm.timekeeping import local_time

WHICH_GAMES = ("active", "next", "all")
"""The filters of ``GAME games``: the games going on, those waiting for the player, all of them."""


SECRET = {"secret": True}
"""The metadata of a field holding a password: it is never printed (``repr=False`` too), and it is
masked wherever the mail is quoted."""


@dataclass(frozen=True)
class Command:
    """Base of all commands. `line` is the text as the player wrote it."""

    line: str = field(default="", compare=False, repr=False, kw_only=True)

    def secrets(self) -> tuple[str, ...]:
        """The passwords this command carries."""
        found = (getattr(self, f.name) for f in fields(self) if f.metadata.get("secret"))
        return tuple(value for value in found if value)

    def credentials(self) -> tuple[str, str] | None:
        """The (userid, password) a command of one player's is checked by; None for commands that
        carry no password, or (a reply to a board mail) are checked by their reply address."""
        player, password = getattr(self, "userid", None), getattr(self, "secret", None)
        if isinstance(player, str) and isinstance(password, str) and password:
            return player, password
        return None


@dataclass(frozen=True)
class GameCommand(Command):
    """A command about one game type: ``cephalopod ...``."""

    game: str


@dataclass(frozen=True)
class BoardCommand(GameCommand):
    """A command about one board of a game type: ``cephalopod move 101 ...``."""

    board: int


@dataclass(frozen=True)
class WithPassword(Command):
    """A command a player sends with their password, as ``USERID PASSWORD`` in its usage line: the
    one place its fields are written. A command of a game or a board names it first, so that its
    own fields come before these (``class Join(WithPassword, BoardCommand)``: game, board, userid,
    secret)."""

    userid: str
    secret: str = field(repr=False, metadata=SECRET)


# -- account commands --------------------------------------------------------


@dataclass(frozen=True)
class Help(Command):
    topic: str | None = None


@dataclass(frozen=True)
class Signup(WithPassword):
    addresses: tuple[str, ...] = ()


@dataclass(frozen=True)
class ChangePassword(Command):
    userid: str
    old: str = field(repr=False, metadata=SECRET)
    new: str = field(repr=False, metadata=SECRET)


@dataclass(frozen=True)
class ChangeAddress(WithPassword):
    addresses: tuple[str, ...]


@dataclass(frozen=True)
class ChooseLanguage(WithPassword):
    """``language USERID PASSWORD fr``: every mail to the player in that language (`pbm.i18n.languages`)."""

    language: str


@dataclass(frozen=True)
class AddAddress(WithPassword):
    addresses: tuple[str, ...]


@dataclass(frozen=True)
class AllGames(Command):
    """``all show USERID [active|next|all]``: the player's boards of every game type."""

    userid: str
    which: str = "active"


@dataclass(frozen=True)
class Deadlines(Command):
    """``deadlines USERID``: the player's games of every kind waiting for their move, by their deadline."""

    userid: str


@dataclass(frozen=True)
class Vacation(WithPassword):
    """``vacation USERID PASSWORD [FROM UNTIL | off]``: book time away, end it, or (neither) see it."""

    starts: date | None = None
    """The first day away; None with `until` set: from now."""
    until: date | None = None
    """The last day away (the vacation ends when it does, at midnight UTC)."""
    days: int | None = None
    """Instead of `until`: this many days from the start."""
    off: bool = False

    @property
    def books(self) -> bool:
        return self.until is not None or self.days is not None


@dataclass(frozen=True)
class TimeZone(WithPassword):
    """``timezone USERID PASSWORD [ZONE]``: the zone the player lives in (an IANA name), in which they
    read dates and keep their quiet hours and digests; without one, which it is."""

    zone: str | None = None


@dataclass(frozen=True)
class QuietHours(WithPassword):
    """``quiet USERID PASSWORD [HH:MM-HH:MM|off]``: the hours of the player's day in which no mail goes
    to them (it waits), ``off`` for none; with neither, what they are."""

    hours: local_time.LocalHours | None = None
    off: bool = False


@dataclass(frozen=True)
class Digest(WithPassword):
    """``digest USERID PASSWORD [HH:MM[,HH:MM...]|off]``: one mail at each of those local times
    listing the games waiting for the player, instead of a mail for each move; ``off`` for a mail
    for each again; with neither, what they are."""

    times: tuple[time, ...] | None = None
    off: bool = False


@dataclass(frozen=True)
class Signoff(WithPassword):
    """``signoff USERID PASSWORD``: the player leaves the server."""


@dataclass(frozen=True)
class Message(WithPassword):
    """`userid` sends the mail's comment to the players named, whose addresses stay unknown to them."""

    to: tuple[str, ...]


@dataclass(frozen=True)
class Broadcast(WithPassword):
    """An administrator sends the mail's comment to every player."""


@dataclass(frozen=True)
class AskPasswordReset(Command):
    """``password reset USERID``: mail the player's registered addresses a one-time reset address."""

    userid: str


@dataclass(frozen=True)
class ResetPassword(Command):
    """A reply to a password reset mail: `secret` is the new password, `token` the reset it answers,
    `userid` the player it was mailed to (when the mail was read)."""

    userid: str
    token: str = field(repr=False, metadata=SECRET)
    secret: str = field(repr=False, metadata=SECRET)

    def credentials(self) -> tuple[str, str] | None:
        return None  # the reset address stands for the old password


@dataclass(frozen=True)
class ConfirmAddress(Command):
    """A reply to a mail that asks to confirm an address: `token` the request it answers, `userid`
    the player it was mailed for (when the mail was read)."""

    userid: str
    token: str = field(repr=False, metadata=SECRET)


@dataclass(frozen=True)
class ListGames(Command):
    """``list``: the games this server plays."""


# -- per-game commands -------------------------------------------------------


@dataclass(frozen=True)
class GameHelp(GameCommand):
    pass


OPEN_SEAT = "open"
"""The word a challenge names a free seat with, for anyone to ``join``: ``challenge alice open``."""


@dataclass(frozen=True)
class Challenge(GameCommand):
    userids: tuple[str, ...]
    """The players in order of play; `OPEN_SEAT` where a seat is free."""
    options: dict[str, Any] = field(default_factory=dict)
    time_words: tuple[str, ...] = ()
    """The challenge's time rules as written (``--nagtime=3``): read over the club's defaults
    (`pbm.timekeeping.clocks.parse`) when the game starts."""

    @property
    def is_open(self) -> bool:
        return OPEN_SEAT in self.userids


@dataclass(frozen=True)
class Join(WithPassword, BoardCommand):
    """`userid` takes a free seat of an open challenge."""


@dataclass(frozen=True)
class OpenChallenges(GameCommand):
    """``games open``: the open challenges anyone may join."""


@dataclass(frozen=True)
class Seek(WithPassword, GameCommand):
    """`userid` wants `wanted` more games (0: no more; None: only say how many), with `options` or any."""

    wanted: int | None = None
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ReplyableCommand(BoardCommand):
    """What a player does at their board that a reply to a board mail may carry, without a
    password (`secret` None): a move, resigning, a proposal, a vote, a chat."""

    userid: str
    secret: str | None = field(repr=False, metadata=SECRET)
    replied_at: int | None = field(default=None, kw_only=True)
    """By a reply: the move number of the board the answered mail showed (None in older mails)."""

    @property
    def by_reply(self) -> bool:
        return self.secret is None


@dataclass(frozen=True)
class Move(ReplyableCommand):
    """A move for `userid`: with their password, or by a reply to a board mail."""

    move: str
    """The move as written, possibly with a ``#N`` guard; the engine parses it."""


@dataclass(frozen=True)
class Resign(ReplyableCommand):
    """`userid` resigns: with their password, or by a reply to a board mail."""


OFFER_WORDS = {"propose": "draw", "draw": "draw", "undo": "undo"}
"""Words that, where a move would stand, propose to the other players: a draw, or taking back the last move."""
VOTE_WORDS = {"accept": True, "reject": False}
"""Words that, where a move would stand, answer a pending proposal."""


@dataclass(frozen=True)
class Propose(ReplyableCommand):
    """`userid` proposes a draw, or to take back the last move: ``move 101 alice pw propose``."""

    kind: str
    """``draw`` or ``undo``."""


@dataclass(frozen=True)
class Vote(ReplyableCommand):
    """`userid` answers the pending proposal at a board: ``move 101 bob pw accept``."""

    accept: bool


@dataclass(frozen=True)
class Chat(ReplyableCommand):
    """`userid` sends the mail's comment to the board's players, without moving."""


@dataclass(frozen=True)
class Subscribe(WithPassword, GameCommand):
    """`userid` watches a board, or (`board` None) every game of the type that starts from now on."""

    board: int | None = None


@dataclass(frozen=True)
class Unsubscribe(WithPassword, GameCommand):
    """`userid` stops watching a board, or (`board` None) the games of the type yet to start."""

    board: int | None = None


@dataclass(frozen=True)
class Notify(WithPassword, GameCommand):
    """`userid` asks for a mail when these boards end, or (none named) when any game of the type ends;
    `off` takes every such request of the type back."""

    boards: tuple[int, ...] = ()
    off: bool = False


@dataclass(frozen=True)
class TakeChallenges(WithPassword, GameCommand):
    """`userid` takes (``accept``) or refuses (``reject``) every challenge to this game type."""

    takes: bool


@dataclass(frozen=True)
class Limit(WithPassword, GameCommand):
    """`userid` plays at most `most` games of this type at once (None: no limit); `asked`: only say the limit."""

    most: int | None = None
    asked: bool = False


@dataclass(frozen=True)
class NotAllowed(GameCommand):
    """A pbmserv move word these games have no use for: ``pass`` or ``swap``."""

    word: str


@dataclass(frozen=True)
class Submit(WithPassword, BoardCommand):
    """`userid` sees privately the board after `move`, which counts only once confirmed."""

    move: str


@dataclass(frozen=True)
class Confirm(WithPassword, BoardCommand):
    """`userid` plays the move submitted before, if the board has not changed since."""


@dataclass(frozen=True)
class QueueLine:
    """One line of a queue: play `then` if the others' next moves are `when` (words as written),
    or whatever they play when `when` is None."""

    when: str | None
    then: str


@dataclass(frozen=True)
class Queue(WithPassword, BoardCommand):
    """`userid` queues `lines` to be played for them when their turn comes; no lines shows what is
    queued, and `clear` forgets it."""

    lines: tuple[QueueLine, ...] = ()
    clear: bool = False


QUEUE_CLEAR_WORDS = frozenset({"off", "clear", "none"})


def queue_lines(text: str) -> tuple[QueueLine, ...]:
    """The lines of a queue as written: ``MOVE``, or ``if MOVES then MOVE; ...; else MOVE``.

    >>> queue_lines("if b3 then c3; if a1 then e5; else d4")  # doctest: +NORMALIZE_WHITESPACE
    (QueueLine(when='b3', then='c3'), QueueLine(when='a1', then='e5'), QueueLine(when=None, then='d4'))
    """
    lines = []
    for part in (p.strip() for p in text.split(";")):
        words = part.split()
        if not words:
            continue
        first = words[0].lower()
        if first == "if":
            lowered = [w.lower() for w in words]
            if "then" not in lowered:
                raise CommandError("queue-line-without-then", part=part)
            at = lowered.index("then")
            when, then = " ".join(words[1:at]), " ".join(words[at + 1 :])
            if not when or not then:
                raise CommandError("queue-line-incomplete", part=part)
            lines.append(QueueLine(when, then))
        else:
            then = " ".join(words[1:] if first in ("else", "otherwise") else words)
            if not then:
                raise CommandError("queue-line-without-move", part=part, word=words[0])
            lines.append(QueueLine(None, then))
    if sum(line.when is None for line in lines) > 1:
        raise CommandError("queue-two-fallbacks")
    if not lines:
        raise CommandError("queue-empty")
    return tuple(lines)


@dataclass(frozen=True)
class Preview(GameCommand):
    """Moves played on a copy of a board (`board` as it stands, or after move `at_move`), or of a
    new game of `players` with `options` (`board` None); nothing is saved."""

    moves: str
    board: int | None = None
    at_move: int | None = None
    players: int = 2
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Show(GameCommand):
    boards: tuple[tuple[int, int | None], ...]
    """(board, N) pairs; N asks for the board as it stood after move N."""
    userid: str | None = None
    """``showas``: the player the board is asked for as (these games hide nothing from anyone)."""

    @property
    def as_userid(self) -> str | None:
        return self.userid


@dataclass(frozen=True)
class Games(GameCommand):
    userids: tuple[str, ...] = ()
    which: str = "active"
    """One of `WHICH_GAMES`."""


@dataclass(frozen=True)
class History(GameCommand):
    userids: tuple[str, ...] = ()


@dataclass(frozen=True)
class Standings(GameCommand):
    pass


@dataclass(frozen=True)
class Record(BoardCommand):
    """``GAME record BOARD``: the game's record, attached (`pbm.views.record`)."""
