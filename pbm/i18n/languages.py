"""The languages pbm speaks, and how each one says things.

English is the language the catalogues and templates are written in. Every other language is
a folder ``pbm/locale/<code>/`` holding its gettext catalogues (``LC_MESSAGES/*.po``, compiled
to ``.mo`` by the build) and its rules, plus one line in `LANGUAGES`. Nothing else in pbm
names a language: a reader's language is chosen per mail and per page, never switched for the
whole process.

>>> from datetime import timedelta
>>> french = voice("fr")
>>> french.join(["alice", "bob", "carol"])
'alice, bob et carol'
>>> french.number(12345, ",") == "12\\u202f345"
True
>>> voice("en").duration(timedelta(hours=2))
'2 hours'
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from functools import cache
from pathlib import Path

import babel
import babel.dates
from babel.lists import format_list
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import format_decimal
from babel.support import Translations
from babel.units import format_unit

from pbm.facts import ENGLISH, Plural, Voice
from pbm.resources import resource_dir
from pbm.timekeeping.local_time import on_a_named_clock, zone_label, zone_or_utc

LANGUAGES: dict[str, str] = {
    "en": "English",
    "fr": "Français",
}
"""Every language a player may choose, by its code, with its own name for itself. A new language
is one line here and one folder ``pbm/locale/<code>/`` (README: "Translating pbm")."""

OWN_WORDS: dict[str, dict[str, str]] = {
    "fr": {"inscription": "signup", "aide": "help", "liste": "list", "abandon": "resign"},
}
"""The command words a language adds to the server's, each for the verb it stands for (the verbs'
aliases, `pbm.commands.verbs`): a signup written with them is met in that language."""


def written_in(line: str) -> str | None:
    """The language whose own command word opens `line` (``inscription marie ...``), or None.

    >>> written_in("inscription marie secret"), written_in("signup marie secret")
    ('fr', None)
    """
    first = line.strip().split(" ", 1)[0].lower()
    return next((language for language, words in OWN_WORDS.items() if first in words), None)


DEFAULT = "en"
"""The language of a reader nobody chose one for, unless the club says otherwise (`PBM_LANGUAGE`)."""

LOCALE_DIR = resource_dir("locale")
"""The catalogues and rules of every language, shipped inside the package (``pbm/locale``)."""

_NAMES = {
    # What a player may write for a language in `language USERID PASSWORD ...`: its code, its
    # own name and its English name, without accents or capitals.
    "en": "en",
    "english": "en",
    "anglais": "en",
    "fr": "fr",
    "francais": "fr",
    "french": "fr",
}


def language_named(word: str) -> str | None:
    """The language `word` names (``fr``, ``French``, ``français``), or None.

    >>> language_named("Français"), language_named("EN"), language_named("klingon")
    ('fr', 'en', None)
    """
    plain = word.strip().lower().translate(str.maketrans("çéè", "cee"))
    code = _NAMES.get(plain)
    return code if code in LANGUAGES else None


def negotiate(accept_language: str | None, default: str = DEFAULT) -> str:
    """The language a browser prefers among ours, from its ``Accept-Language`` header; `default`
    when it names none of ours (or the header cannot be read: it comes from anyone).

    >>> negotiate("fr-CH, fr;q=0.9, en;q=0.8"), negotiate("de-DE"), negotiate("*;q=0.1, fr;q=x")
    ('fr', 'en', 'en')
    """
    if not accept_language:
        return default
    wanted: list[tuple[float, int, str]] = []
    for index, part in enumerate(accept_language[:512].split(",")[:32]):
        tag, _, parameters = part.strip().partition(";")
        quality = 1.0
        for parameter in parameters.split(";"):
            name, _, value = parameter.strip().partition("=")
            if name.strip() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        code = tag.strip().lower().split("-")[0]
        if code in LANGUAGES and 0 < quality <= 1:
            wanted.append((-quality, index, code))
    return min(wanted)[2] if wanted else default


def _catalogue_files(language: str) -> list[Path]:
    folder = LOCALE_DIR / language / "LC_MESSAGES"
    return sorted(folder.glob("*.po")) if folder.is_dir() else []


@cache
def translations(language: str) -> Translations:
    """Every gettext catalogue of `language`, merged: the compiled ``.mo`` where the build made
    one at least as new as its ``.po``, else the ``.po`` read now (a checkout being translated).
    Read once per process: the files do not change under a running server."""
    merged = Translations()
    for po in _catalogue_files(language):
        mo = po.with_suffix(".mo")
        if mo.exists() and mo.stat().st_mtime >= po.stat().st_mtime:
            with mo.open("rb") as file:
                part = Translations(file, domain=po.stem)
        else:
            with po.open("rb") as file:
                catalogue = read_po(file, locale=language, domain=po.stem)
            compiled = io.BytesIO()
            write_mo(compiled, catalogue)
            compiled.seek(0)
            part = Translations(compiled, domain=po.stem)
        merged.merge(part)
        # merge() takes the messages but not the plural rule: without this line every language
        # would choose its plurals by English's (French says "0 coup", English "0 moves").
        merged.plural = part.plural
    return merged


_UNITS = (("day", 86400), ("hour", 3600), ("minute", 60))


@cache
def voice(language: str, zone: str | None = None) -> Voice:
    """How `language` says facts: English as written, any other through its catalogues and Babel;
    moments on the wall clock of `zone` (an IANA name; None: UTC)."""
    if language not in LANGUAGES:
        raise KeyError(language)

    def moment_as(when: datetime, spec: str) -> str:
        return say_moment(when, spec, language, zone)

    if language == "en":
        return replace(ENGLISH, moment=moment_as)
    locale = babel.Locale.parse(language)
    catalogue = translations(language)

    def message(code: str, english: str) -> str:
        return str(catalogue.pgettext(code, english))

    def plural(code: str, message: Plural, count: int) -> str:
        return str(catalogue.npgettext(code, message.one, message.other, count))

    def join(words: list[str]) -> str:
        return format_list(words, locale=locale) if words else ""

    def duration(span: timedelta) -> str:
        seconds = int(span.total_seconds())
        parts: list[tuple[int, str]] = []
        for unit, size in _UNITS:
            count, seconds = divmod(seconds, size)
            if count or parts:
                parts.append((count, unit))
        said = [
            format_unit(count, f"duration-{unit}", length="long", locale=locale) for count, unit in parts[:2] if count
        ]
        return " ".join(said) or str(catalogue.pgettext("duration-under-a-minute", "under a minute"))

    def number(value: int | float, spec: str) -> str:
        if spec in (",", ",d"):
            return format_decimal(value, locale=locale)
        return format(value, spec)

    return Voice(
        join=join,
        duration=duration,
        plural=plural,
        message=message,
        number=number,
        language=language,
        moment=moment_as,
    )


def moment(when: datetime, language: str, zone: str | None = None) -> str:
    """A date and time as a mail writes it, on the wall clock of `zone` (None: UTC), naming the
    zone: ``2026-11-26 14:30 UTC``, ``26 novembre 2026 à 15:30 CET``."""
    return f"{clock(when, language, zone)} {zone_label(local(when, zone))}"


def clock(when: datetime, language: str, zone: str | None = None) -> str:
    """A date and time on the wall clock of `zone`, without naming the zone (a column or a span
    names it once): ``2026-11-26 14:30``, ``26 novembre 2026 à 14:30``."""
    when = local(when, zone)
    if language == "en":
        return f"{when:%Y-%m-%d %H:%M}"
    day = babel.dates.format_date(when, "long", locale=language)
    at = str(translations(language).pgettext("moment", "{day} at {time}"))
    return at.format(day=day, time=f"{when:%H:%M}")


def day(when: datetime, language: str, zone: str | None = None) -> str:
    """A date as a mail writes it, the day it is in `zone` then: ``2026-11-26``, ``26 novembre 2026``."""
    when = local(when, zone)
    if language == "en":
        return f"{when:%Y-%m-%d}"
    return babel.dates.format_date(when, "long", locale=language)


def zone_at(when: datetime, zone: str | None = None) -> str:
    """The name of `zone` at `when` as a date says it: ``UTC``, ``CET``, ``CEST``, ``UTC-3``."""
    return zone_label(local(when, zone))


def say_moment(when: datetime, spec: str, language: str, zone: str | None = None) -> str:
    """`when` as a message's `spec` asks (`pbm.facts.MOMENT_SPECS`; else a `strftime` format), in
    `language`, on the wall clock of `zone`."""
    if spec in ("", "moment"):
        return moment(when, language, zone)
    if spec == "clock":
        return clock(when, language, zone)
    if spec == "zone":
        return zone_at(when, zone)
    if spec == "day":
        return day(when, language, zone)
    return local(when, zone).strftime(spec)


def local(when: datetime, zone: str | None = None) -> datetime:
    """`when` on the wall clock of `zone` (None: UTC). The store keeps UTC, and a time without a
    zone is taken for UTC; a time already on a named zone's clock (a `ZoneInfo` other than UTC:
    what time it is now where a player lives) stays on it, whoever reads it."""
    if on_a_named_clock(when):
        return when
    aware = when if when.tzinfo is not None else when.replace(tzinfo=timezone.utc)
    return aware.astimezone(zone_or_utc(zone))


@cache
def rules(game: str, language: str) -> str | None:
    """The rules of `game` written in `language` (``pbm/locale/<language>/rules/<game>.txt``), or
    None where that language has none (English: the engine's own ``help_text``). Their first line
    is the game's credit in that language, underlined: ``Cephalopod, un jeu de Mark Steere``."""
    path = LOCALE_DIR / language / "rules" / f"{game}.txt"
    return path.read_text(encoding="utf-8") if language != "en" and path.is_file() else None


@cache
def option_help(game: str, language: str) -> dict[str, str]:
    """What each challenge option of `game` (by its title: ``Cubeo``) does, in `language`, by its
    usage (``-dice=6|12``): read from the game's paragraph of the language's options (`options`),
    where each option's usage starts an indented line and its text follows. Empty where the
    language has none (English: each option's own ``help``)."""
    helps: dict[str, list[str]] = {}
    usage = None
    for line in (options(game, language) or "").splitlines():
        if line.startswith("    -"):
            usage, _, words = line.strip().partition("  ")
            helps[usage] = [words.strip()]
        elif usage is not None and line.strip():
            helps[usage].append(line.strip())
        else:
            usage = None
    return {usage: " ".join(words) for usage, words in helps.items()}


def available() -> Iterable[str]:
    """The codes of every language, English first."""
    return LANGUAGES.keys()


@cache
def options(title: str, language: str) -> str | None:
    """What `language` says of the challenge options of the game titled `title`: its paragraph of
    ``pbm/locale/<language>/options.txt`` (under the game's title, indented four spaces), or None
    in English or where the file says nothing of the game (a plugin's: its English option lines).

    >>> options("Dodeca", "fr").split("\\u202f")[0].strip()
    'Dodeca n’a pas d’option'
    >>> options("Dodeca", "en"), options("Klingon chess", "fr")
    (None, None)
    """
    path = LOCALE_DIR / language / "options.txt"
    if language == "en" or not path.is_file():
        return None
    lines = path.read_text(encoding="utf-8").splitlines()
    if title not in lines:
        return None
    section: list[str] = []
    for line in lines[lines.index(title) + 1 :]:
        if line and not line.startswith(" "):
            break  # the next game's title
        section.append(line)
    text = "\n".join(section).strip("\n")
    return text + "\n" if text else None
