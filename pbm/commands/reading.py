"""The readers of the command language's words: a userid, a board, an address, a zone, a
challenge's options ..., each raising `CommandError` with a fact when the word is not one.

The nouns (`pbm.commands.language`) and the verbs' parsers (`pbm.commands.verbs`) read their
arguments with these. Everything here is pure: no database, no mail.
"""

from __future__ import annotations

import re
from datetime import time, timedelta
from typing import Any

import pbm.games
from pbm.addresses import distinct
from pbm.commands import messages
from pbm.facts import Catalogue, Fact, Factual
from pbm.timekeeping import clocks, local_time


class CommandError(Factual, ValueError):
    """The line is not a command we understand; `fact` says what would be (its words are in
    `pbm.commands.messages`)."""

    def __init__(self, fact: Fact | str, /, line: str = "", **params: Any) -> None:
        super().__init__(fact, **params)
        self.line = line

    def english_catalogue(self) -> Catalogue:
        return messages.catalogue()


USERID = re.compile(r"^[a-z][a-z0-9_.-]{1,31}$")
ADDRESS = re.compile(r"^[^@\s<>()\[\],;:\"]+@[^@\s<>()\[\],;:\"]+\.[^@\s<>()\[\],;:\".]+$|^[^@\s]+@localhost$")


def words_of(line: str) -> list[str]:
    return [word for word in line.split() if word != "**"]


GREETING_WORDS = frozenset(
    "hi hello hey hiya howdy dear greetings morning evening afternoon yo "
    "hallo hullo moin servus hej hei bonjour bonsoir salut coucou ciao hola ola".split()
)
"""Words a salutation starts with, in the languages players write (``good morning`` too)."""


def is_greeting(line: str) -> bool:
    """Whether `line` is a salutation, which a reply may put above its move as a mail may put
    any text above its commands: at most four words, starting with a greeting (``Hi Zoe,``,
    ``Good morning Bob``), or a name or two and a comma (``Zoe,``). No move of a game reads so.

    >>> [is_greeting(line) for line in ("Hi Zoe,", "Hello!", "Zoe,", "Good morning, Bob!", "dear bob")]
    [True, True, True, True, True]
    >>> [is_greeting(line) for line in ("c3", "1,-1,-1+>-1,0", "Good move, Bob", "Hi, I resign now then")]
    [False, False, False, False]
    """
    words = line.lower().split()
    if not 0 < len(words) <= 4:
        return False
    first, second = (word.strip(",.!:;") for word in [*words[:2], ""][:2])
    if first in GREETING_WORDS or (first == "good" and second in ("morning", "afternoon", "evening", "day")):
        return True
    return line.rstrip().endswith(",") and len(words) <= 2 and all(word.rstrip(",").isalpha() for word in words)


def userid(word: str) -> str:
    lowered = word.lower()
    if not USERID.match(lowered):
        foreign = next((character for character in word if not character.isascii()), None)
        if foreign is not None:
            raise CommandError("userid-not-ascii", word=word, character=foreign)
        raise CommandError("not-a-userid", word=word)
    return lowered


LARGEST_NUMBER = 2**31 - 1
"""No board, move or count is larger: the database's integers hold no more, and no club comes near."""


def whole_number(word: str) -> int | None:
    """`word` as a whole number up to `LARGEST_NUMBER`; None when it is none, or larger (a word of
    thousands of digits is not even turned into an int)."""
    if not word.isdecimal() or len(word) > len(str(LARGEST_NUMBER)):
        return None
    number = int(word)
    return number if number <= LARGEST_NUMBER else None


def board(word: str) -> int:
    number = whole_number(word)
    if number is None:
        raise CommandError("not-a-board", word=word)
    return number


def board_at(word: str) -> tuple[int, int | None]:
    """``101`` or ``101#5``: a board, and the move after which to show it."""
    number, sep, move = word.partition("#")
    at_move = whole_number(move)
    if sep and at_move is None:
        raise CommandError("not-a-board-at", word=word)
    return board(number), at_move


def addresses(words: list[str]) -> tuple[str, ...]:
    """Mail addresses, their domains lower-cased, each mailbox once (`pbm.addresses`)."""
    found = []
    for word in words:
        address = word.strip("<>,;")
        if not ADDRESS.match(address):
            raise CommandError("not-an-address", word=word)
        local, _, domain = address.rpartition("@")
        found.append(f"{local}@{domain.lower()}")
    return tuple(distinct(found))


def zone(word: str) -> str:
    """An IANA time zone's name, in any letter case: ``europe/paris`` is ``Europe/Paris``."""
    name = local_time.zone_name(word)
    if name is None:
        raise CommandError("not-a-zone", word=word)
    return name


def local_hours(word: str) -> local_time.LocalHours:
    """``22:00-07:00``: hours of the day, local time, running over midnight when they end earlier."""
    hours = local_time.LocalHours.parse(word)
    if hours is None:
        raise CommandError("not-local-hours", word=word)
    return hours


def digest_times(word: str) -> tuple[time, ...]:
    """``07:30,19:00``: the local times of a player's digests."""
    times = local_time.clock_times(word)
    if times is None:
        raise CommandError("not-digest-times", word=word, most=local_time.MOST_DIGEST_TIMES)
    return times


def time_rules(words: list[str]) -> tuple[str, ...]:
    """A challenge's ``--name=value`` time rules, checked as far as they can be without the club's defaults."""
    lenient = clocks.TimeControl(nag=timedelta(0), forfeit=clocks.LONGEST)
    try:
        clocks.parse(words, lenient)
    except clocks.InvalidTimeRule as error:
        raise CommandError(error.fact) from None
    return tuple(words)


def options(game: str, words: list[str]) -> dict[str, Any]:
    """A challenge's ``-name=value`` words, checked by the game's engine."""
    try:
        return pbm.games.get(game).parse_options(words)
    except pbm.games.InvalidOptions as error:
        raise CommandError(error.fact) from None
