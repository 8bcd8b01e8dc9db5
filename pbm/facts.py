"""Facts, and the words made of them at the edge.

Engines, handlers and the store decide *facts*: a code and its parameters (the cell, the
pips, the userid). They never write a sentence. A *catalogue* maps each code to its
English message; a *voice* says a fact's parameters in one language (how a list is
joined, how a span of time is said). Only the edge (templates, mails, pages) turns a fact
into words, for the reader it is for, so rewording a message or adding a language
changes a catalogue, never a handler, an engine or a stored row.

>>> CATALOGUE = {
...     "occupied": "{cell} is not empty",
...     "gone": Plural("count", "{count} piece went", "{count} pieces went"),
... }
>>> english(Fact("occupied", cell="c3"), CATALOGUE)
'c3 is not empty'
>>> english(Fact("gone", count=1), CATALOGUE), english(Fact("gone", count=0), CATALOGUE)
('1 piece went', '0 pieces went')

A parameter may be a list (said as a list), a span of time, a moment (said in the reader's
zone: ``{until:moment}``, see `MOMENT_SPECS`), or a fact of its own, said with the same
catalogue. Facts are values: they compare, hash, and go to and from JSON for the
store.

>>> Fact.from_json(Fact("gone", count=2).to_json()) == Fact("gone", count=2)
True

This module is pure: no other part of pbm, so every layer may use it.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any


class Fact:
    """A code and its parameters: what an engine, a handler or the store decided, with no words.

    The code is a short stable name (``cell-occupied``); its catalogue entry says it. Parameters
    are plain values (str, int, bool, None), lists of them, spans of time, times (UTC), or facts.
    """

    __slots__ = ("code", "params")

    code: str
    params: Mapping[str, Any]

    def __init__(self, code: str, /, **params: Any) -> None:
        object.__setattr__(self, "code", code)
        object.__setattr__(self, "params", dict(params))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("a fact does not change")

    def __getitem__(self, name: str) -> Any:
        return self.params[name]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Fact) and (self.code, self.params) == (other.code, other.params)

    def __hash__(self) -> int:
        return hash((self.code, tuple(sorted((key, _hashable(value)) for key, value in self.params.items()))))

    def __repr__(self) -> str:
        shown = "".join(f", {key}={value!r}" for key, value in self.params.items())
        return f"Fact({self.code!r}{shown})"

    def __reduce__(self) -> tuple[Callable[..., Fact], tuple[str, dict[str, Any]]]:
        # Pickle (the bots' process sends facts back) would otherwise set the slots one by one,
        # which a fact refuses: rebuild it whole, as its constructor does.
        return _rebuilt_fact, (self.code, dict(self.params))

    def to_json(self) -> dict[str, Any]:
        """The fact as JSON for the store: ``{"code": ..., "params": {...}}``; spans of time in seconds."""
        return {"code": self.code, "params": {key: _to_json(value) for key, value in self.params.items()}}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Fact:
        """The fact `to_json` wrote."""
        return cls(data["code"], **{key: _from_json(value) for key, value in data.get("params", {}).items()})


def _rebuilt_fact(code: str, params: dict[str, Any]) -> Fact:
    return Fact(code, **params)


def _hashable(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_hashable(item) for item in value)
    if isinstance(value, dict):
        return tuple(sorted((key, _hashable(item)) for key, item in value.items()))
    return value


def _to_json(value: Any) -> Any:
    if isinstance(value, Fact):
        return {"fact": value.to_json()}
    if isinstance(value, timedelta):
        return {"seconds": value.total_seconds()}
    if isinstance(value, datetime):
        return {"utc": value.isoformat()}
    if isinstance(value, (list, tuple)):
        return [_to_json(item) for item in value]
    return value


def _from_json(value: Any) -> Any:
    if isinstance(value, dict) and set(value) == {"fact"}:
        return Fact.from_json(value["fact"])
    if isinstance(value, dict) and set(value) == {"seconds"}:
        return timedelta(seconds=value["seconds"])
    if isinstance(value, dict) and set(value) == {"utc"}:
        return datetime.fromisoformat(value["utc"])
    if isinstance(value, list):
        return [_from_json(item) for item in value]
    return value


@dataclass(frozen=True)
class Plural:
    """A message whose words depend on a number: `count` names the parameter that chooses.

    English says `one` for exactly 1 and `other` for every other number; a language with other
    plural rules chooses in its own voice.
    """

    count: str
    one: str
    other: str


Message = str | Plural
"""A catalogue entry: a ``str.format`` template over the fact's parameter names, or a `Plural`."""

Catalogue = Mapping[str, Message]
"""Codes and their messages, one catalogue per layer (``pbm.games.messages`` and so on)."""


MOMENT_SPECS = ("moment", "clock", "zone", "day")
"""How a message says a moment (``{until:moment}``), in the reader's zone and language: ``moment``
its date, time and zone (``2026-11-26 14:30 UTC``), ``clock`` the date and time alone, ``zone``
the zone alone (``UTC``, ``CET``; a span written ``from {start:clock} until {end:clock}
{end:zone}`` names it once), ``day`` the date alone. Any other spec is a `strftime` format, in the
reader's zone."""


def utc_moment(when: datetime, spec: str) -> str:
    """A moment as English says it in UTC, for `spec` (`MOMENT_SPECS`): what a log or a record says
    (a reader's voice says it in their language and zone: `pbm.i18n.languages.voice`).

    >>> at = datetime(2026, 11, 26, 13, 30, tzinfo=timezone(timedelta(hours=-1)))
    >>> utc_moment(at, "moment"), utc_moment(at, "day"), utc_moment(at, "%H:%M")
    ('2026-11-26 14:30 UTC', '2026-11-26', '14:30')
    """
    utc = when.astimezone(timezone.utc) if when.tzinfo is not None else when  # naive: UTC already
    said = {"moment": "%Y-%m-%d %H:%M UTC", "clock": "%Y-%m-%d %H:%M", "zone": "UTC", "day": "%Y-%m-%d"}
    return utc.strftime(said.get(spec or "moment", spec))


@dataclass(frozen=True)
class Voice:
    """How one language says a fact: its messages (the catalogue's English, translated), its
    plurals, and how it says a fact's parameters (lists, spans of time, numbers).

    `message(code, english)` is the message of `code` in this language (the catalogue gives its
    English); `plural(code, message, count)` chooses and translates one form of a `Plural` by the
    language's own plural rules; `number(value, spec)` formats a number as ``format`` would with
    `spec` (``","`` groups digits as the language does); `moment(when, spec)` says a moment as
    `spec` asks (`MOMENT_SPECS`) in the language and in the reader's zone.
    """

    join: Callable[[list[str]], str]
    duration: Callable[[timedelta], str]
    plural: Callable[[str, Plural, int], str]
    message: Callable[[str, str], str] = lambda code, english: english
    number: Callable[[int | float, str], str] = format
    language: str = "en"
    moment: Callable[[datetime, str], str] = utc_moment


def english_list(words: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``; nothing for no words.

    >>> english_list(["alice"]), english_list(["alice", "bob", "carol"])
    ('alice', 'alice, bob and carol')
    """
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


_UNITS = (("day", 86400), ("hour", 3600), ("minute", 60))


def english_duration(span: timedelta) -> str:
    """A span of time in its two largest units, as a person says it.

    >>> english_duration(timedelta(days=2, hours=3, minutes=4))
    '2 days 3 hours'
    >>> english_duration(timedelta(hours=1, minutes=1)), english_duration(timedelta(seconds=20))
    ('1 hour 1 minute', 'under a minute')
    """
    seconds = int(span.total_seconds())
    words: list[str] = []
    for unit, size in _UNITS:
        count, seconds = divmod(seconds, size)
        if count or words:
            words.append(f"{count} {unit}{'s' if count != 1 else ''}")
    words = [word for word in words[:2] if not word.startswith("0 ")]
    return " ".join(words) or "under a minute"


ENGLISH = Voice(
    join=english_list,
    duration=english_duration,
    plural=lambda code, message, count: message.one if count == 1 else message.other,
)
"""English, as the catalogues write it: the voice every other language is translated from."""


class UnknownCode(KeyError):
    """A fact whose code no catalogue has: a programming error, caught by the catalogue tests."""


def say(fact: Fact, catalogue: Catalogue, voice: Voice = ENGLISH) -> str:
    """The words of `fact` in `voice`'s language: its message from `catalogue` (translated by the
    voice), filled with its parameters said in that voice."""
    try:
        message = catalogue[fact.code]
    except KeyError:
        raise UnknownCode(fact.code) from None
    if isinstance(message, Plural):
        template = voice.plural(fact.code, message, int(fact.params[message.count]))
    else:
        template = voice.message(fact.code, message)
    words = {key: _said(value, catalogue, voice) for key, value in fact.params.items()}
    return template.format_map(words)


class _Moment:
    """A moment in a message, said by the voice in its reader's zone: ``{until:moment}`` (`MOMENT_SPECS`)."""

    __slots__ = ("value", "voice")

    def __init__(self, value: datetime, voice: Voice) -> None:
        self.value, self.voice = value, voice

    def __format__(self, spec: str) -> str:
        return self.voice.moment(self.value, spec or "moment")

    def __str__(self) -> str:
        return self.voice.moment(self.value, "moment")


class _Number:
    """A number in a message, formatted by the voice: ``{count:,}`` groups digits as its language does."""

    __slots__ = ("value", "voice")

    def __init__(self, value: int | float, voice: Voice) -> None:
        self.value, self.voice = value, voice

    def __format__(self, spec: str) -> str:
        return self.voice.number(self.value, spec)

    def __str__(self) -> str:
        return self.voice.number(self.value, "")


def _said(value: Any, catalogue: Catalogue, voice: Voice) -> Any:
    if isinstance(value, Fact):
        return say(value, catalogue, voice)
    if isinstance(value, timedelta):
        return voice.duration(value)
    if isinstance(value, datetime):
        return _Moment(value, voice)
    if isinstance(value, (list, tuple)):
        return voice.join([str(_said(item, catalogue, voice)) for item in value])
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return _Number(value, voice)
    return value  # strings are as given


def english(fact: Fact, catalogue: Catalogue) -> str:
    """The English words of `fact` (what `str()` of an error carrying it gives)."""
    return say(fact, catalogue)


def placeholders(message: Message) -> set[str]:
    """The parameter names a message uses: what every fact of its code must carry.

    >>> sorted(placeholders(Plural("count", "{count} piece at {cell}", "{count} pieces")))
    ['cell', 'count']
    """
    templates = [message.one, message.other] if isinstance(message, Plural) else [message]
    fields = [field for template in templates for _, field, _, _ in string.Formatter().parse(template) if field]
    names = {field.split(".")[0].split("[")[0] for field in fields}
    if isinstance(message, Plural):
        names.add(message.count)
    return names


def merged(catalogues: Iterable[Catalogue]) -> dict[str, Message]:
    """One catalogue of several; a code in two of them is an error (one code, one message)."""
    every: dict[str, Message] = {}
    for catalogue in catalogues:
        for code, message in catalogue.items():
            if code in every and every[code] != message:
                raise ValueError(f"the code {code!r} has two messages")
            every[code] = message
    return every


_CODE = re.compile(r"^[a-z0-9]+(?:[.-][a-z0-9]+)*$")


class Factual(Exception):
    """An exception that carries a fact: its `str()` is the fact's English, from its layer's catalogue.

    Raise with a code and its parameters, or a ready fact: ``raise IllegalMove("cell-occupied",
    cell="c3")``. Subclasses say which catalogue is theirs in `english_catalogue`.
    """

    def __init__(self, fact: Fact | str, /, **params: Any) -> None:
        if isinstance(fact, str) and not _CODE.match(fact):
            # Words written before facts (being converted): kept as they are, under a code of their own.
            fact = Fact(UNCONVERTED, text=fact)
        self.fact = fact if isinstance(fact, Fact) else Fact(fact, **params)
        super().__init__(self.fact.code)

    def english_catalogue(self) -> Catalogue:
        raise NotImplementedError

    def __reduce__(self) -> tuple[Any, ...]:
        # An exception pickles as its class called with `args` (here the code alone, which would
        # lose the parameters): call it with the whole fact, then restore any other attribute.
        return type(self), (self.fact,), dict(self.__dict__)

    def __str__(self) -> str:
        if self.fact.code == UNCONVERTED:
            return str(self.fact["text"])
        return english(self.fact, self.english_catalogue())


UNCONVERTED = "unconverted-words"
"""The code of an error raised with a sentence rather than a code: the catalogue tests list them
until none is left."""
