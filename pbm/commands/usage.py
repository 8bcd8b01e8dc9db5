"""A verb's usage line read as the spec of its arguments: what each word of a command is, what it
becomes, and what it orders the command by.

The usage line a help mail shows is the spec the parser reads, so the two never disagree::

    signup USERID PASSWORD [ADDRESS...]
    accept USERID PASSWORD | BOARD USERID PASSWORD
    notify USERID PASSWORD [BOARD...|off]

The grammar, in the words of the usage lines themselves:

- ``A | B``: alternatives (a space on each side of the bar);
- ``KIND``: one argument of a kind in `KINDS` (upper case: ``BOARD``, ``USERID``);
  ``KIND...``: one or more of them; a kind that `Kind.rest` (``MOVE``) takes the rest of the line;
- ``word``: a literal word (lower case), said as written in any case. It becomes the noun's field
  of the same name, True, when the noun has one (``off``); otherwise the line need only say it;
- ``[X]`` and ``[X|Y]``: at most one of these. A bracketed choice that `KINDS` names as a whole
  (``[active|next|all]``, ``[N|inf]``) is one argument of that kind.

Where a line fits several ways, the reading that gives more words to literals and closed choices
wins: ``games alice all`` is alice's games, all of them, not the games of players alice and all.

>>> Spec("BOARD USERID PASSWORD MOVE[#N]").read("101 Alice pw c3 d4")
{'board': 101, 'userid': 'alice', 'secret': 'pw', 'move': 'c3 d4'}
>>> Spec("[USERID...] [active|next|all] | open").read("alice all")
{'userids': ('alice',), 'which': 'all'}

Every argument kind that names a player or a board orders the command by it (`ordering_keys`):
mails that name the same player or board are applied in the order received, whatever the number
of workers. Pure: no database, no mail.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, fields
from typing import Any

from pbm.commands import language as lang
from pbm.commands.language import CommandError
from pbm.i18n import languages
from pbm.store import inbox

Keys = Callable[[str, Any], Iterator[str]]
"""The ordering keys of an argument's value, for a game (empty for account commands)."""


def player_keys(game: str, userids: Any) -> Iterator[str]:
    for userid in userids if isinstance(userids, tuple) else (userids,):
        if userid is not None:
            yield f"player:{userid}"


def board_keys(game: str, boards: Any) -> Iterator[str]:
    """Boards as numbers, or (board, move) pairs as ``show 101#5`` names them."""
    for board in boards if isinstance(boards, tuple) else (boards,):
        number = board[0] if isinstance(board, tuple) else board
        if number is not None:
            yield inbox.board_key(game, number)


@dataclass(frozen=True)
class Kind:
    """One kind of argument: the noun's field it fills, how a word becomes its value, whether it is a
    secret (starred wherever quoted), and what it orders the command by."""

    field: str
    convert: Callable[[str], Any] = str
    secret: bool = False
    orders: Keys | None = None
    rest: bool = False
    """The argument takes every word left on the line (a move may be written in several words)."""
    words: frozenset[str] | None = None
    """A closed choice: only these words (lower case) are arguments of the kind."""

    def fits(self, word: str) -> bool:
        return self.words is None or word.lower() in self.words


def _lower(word: str) -> str:
    return word.lower()


def _limit(word: str) -> int | None:
    value = word.lower()
    if value in ("inf", "none", "unlimited"):
        return None
    limit = lang.whole_number(value)
    if limit is None:
        # Not quoted: a player who wrote a board number first put their password here.
        raise CommandError("not-a-limit")
    return limit


def _language(word: str) -> str:
    code = languages.language_named(word)
    if code is None:
        raise CommandError("not-a-language", word=word, known=list(languages.LANGUAGES))
    return code


KINDS: dict[str, Kind] = {
    "USERID": Kind("userid", lang.userid, orders=player_keys),
    "USERID...": Kind("userids", lang.userid, orders=player_keys),
    "TO...": Kind("to", lang.userid, orders=player_keys),
    "PASSWORD": Kind("secret", secret=True),
    "OLD": Kind("old", secret=True),
    "NEW": Kind("new", secret=True),
    "ADDRESS...": Kind("addresses"),
    "BOARD": Kind("board", lang.board, orders=board_keys),
    "BOARD...": Kind("boards", lang.board, orders=board_keys),
    "BOARD[#N]": Kind("boards", lang.board_at, orders=board_keys),
    "MOVE": Kind("move", rest=True),
    "MOVE[#N]": Kind("move", rest=True),
    "GAME": Kind("topic", _lower),
    "N|inf": Kind("most", _limit),
    "active|next|all": Kind("which", _lower, words=frozenset(lang.WHICH_GAMES)),
    "ZONE": Kind("zone", lang.zone),
    "HH:MM-HH:MM": Kind("hours", lang.local_hours),
    "HH:MM[,HH:MM...]": Kind("times", lang.digest_times),
    "LANGUAGE": Kind("language", _language),
}
"""The argument kinds a usage line may name. ``KIND...`` is its own entry (its value is a tuple),
so that the field it fills is named here too. ``ADDRESS...`` are read together (`lang.addresses`:
each mailbox once)."""

_CONVERT_ALL: dict[str, Callable[[list[str]], Any]] = {"ADDRESS...": lang.addresses}
"""Kinds whose words are read together rather than one by one."""


def ordering_keys(command: lang.Command) -> Iterator[str]:
    """The keys `command` is ordered by: every player and board its arguments name, whatever
    built it (a parsed line, or a reply to a board mail)."""
    game = command.game if isinstance(command, lang.GameCommand) else ""
    for field in fields(command):
        orders = _ORDERS.get(field.name)
        if orders is not None:
            yield from orders(game, getattr(command, field.name))


_ORDERS: dict[str, Keys] = {kind.field: kind.orders for kind in KINDS.values() if kind.orders is not None}


# -- reading a spec -------------------------------------------------------------------------


@dataclass(frozen=True)
class _Argument:
    name: str
    kind: Kind

    @property
    def many(self) -> bool:
        return self.name.endswith("...") or self.kind.rest


@dataclass(frozen=True)
class _Literal:
    word: str


@dataclass(frozen=True)
class _Optional:
    choices: tuple[_Argument | _Literal, ...]


_Element = _Argument | _Literal | _Optional


def _element(token: str) -> _Element:
    if token.startswith("[") and token.endswith("]") and token not in KINDS:
        inner = token[1:-1]
        if inner in KINDS:
            return _Optional((_Argument(inner, KINDS[inner]),))
        return _Optional(tuple(_single(choice) for choice in inner.split("|")))
    return _single(token)


def _single(token: str) -> _Argument | _Literal:
    if token.islower():
        return _Literal(token)
    if token not in KINDS:
        raise ValueError(f"no argument kind {token!r} (see pbm.commands.usage.KINDS)")
    return _Argument(token, KINDS[token])


_Reading = list[tuple[_Argument | _Literal, list[str]]]


class Spec:
    """A usage line, read as the arguments a command takes."""

    def __init__(self, text: str) -> None:
        self.text = text
        parts = text.split(" | ") if text else [""]
        self.alternatives = [[_element(token) for token in part.split()] for part in parts]

    def __repr__(self) -> str:
        return f"Spec({self.text!r})"

    def read(self, words: list[str] | str) -> dict[str, Any] | None:
        """The arguments `words` give, by the noun's field names (literals said as True); None when
        the words fit no shape of the spec. Raises `CommandError` for a word of the right place
        but the wrong kind (``'x101' is not a board number``)."""
        words = words.split() if isinstance(words, str) else words
        readings = [reading for alternative in self.alternatives for reading in _fits(alternative, words)]
        if not readings:
            return None
        best = max(readings, key=_closed_words)  # the first of the best: max keeps the first
        values: dict[str, Any] = {}
        for element, said in best:
            if isinstance(element, _Literal):
                values[element.word] = True
            else:
                values[element.kind.field] = _value(element, said)
        return values


def _closed_words(reading: _Reading) -> int:
    return sum(isinstance(element, _Literal) or element.kind.words is not None for element, _ in reading)


def _value(argument: _Argument, said: list[str]) -> Any:
    kind = argument.kind
    if argument.name in _CONVERT_ALL:
        return _CONVERT_ALL[argument.name](said)
    if kind.rest:
        return " ".join(said)
    if argument.name.endswith("..."):
        return tuple(kind.convert(word) for word in said)
    return kind.convert(said[0])


def _fits(elements: list[_Element], words: list[str]) -> Iterator[_Reading]:
    """Every way `words` fit `elements`, wholly."""
    if not elements:
        if not words:
            yield []
        return
    first, rest = elements[0], elements[1:]
    if isinstance(first, _Optional):
        for choice in first.choices:
            yield from _fits([choice, *rest], words)
        yield from _fits(rest, words)
        return
    if isinstance(first, _Literal):
        if words and words[0].lower() == first.word:
            yield from ([(first, words[:1]), *after] for after in _fits(rest, words[1:]))
        return
    # How many words the argument may take, leaving the rest what it needs and no more than it can
    # take: a long line is read in time linear in its words, not tried at every split.
    most_after = _most(rest)
    longest = len(words) - _least(rest) if first.many else min(1, len(words))
    shortest = 1 if most_after is None else max(1, len(words) - most_after)
    for taken in range(longest, shortest - 1, -1):
        if first.kind.words is None or all(first.kind.fits(word) for word in words[:taken]):
            yield from ([(first, words[:taken]), *after] for after in _fits(rest, words[taken:]))


def _least(elements: list[_Element]) -> int:
    """The fewest words `elements` take."""
    return sum(not isinstance(element, _Optional) for element in elements)


def _most(elements: list[_Element]) -> int | None:
    """The most words `elements` take; None when there is no most (a repeated argument)."""
    if any(isinstance(choice, _Argument) and choice.many for element in elements for choice in _choices(element)):
        return None
    return len(elements)


def _choices(element: _Element) -> tuple[_Argument | _Literal, ...]:
    return element.choices if isinstance(element, _Optional) else (element,)


def secret_count(text: str) -> int:
    """How many secrets follow the userid in a usage line's shapes: the passwords a masked line hides."""
    return max(
        (sum(KINDS[token].secret for token in part.split() if token in KINDS) for part in text.split(" | ")),
        default=0,
    )
