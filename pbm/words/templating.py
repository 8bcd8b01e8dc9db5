"""The jinja2 environments for mails (``templates/mail``, ``templates/help``) and pages: one
per language, each speaking it.

Templates are written in English; jinja2's i18n extension (``{% trans %}``, ``_()``) passes
their words through the reader's gettext catalogue, and ``say(fact)`` says a fact in the
reader's language. The language of a mail or a page is chosen when it is rendered, by asking
`Templates` for that language's environment: nothing switches a language for the process.

Plain-text templates are not escaped; HTML templates always are (``.html``).
Undefined names are errors, so a template typo fails a test instead of
mailing a blank.
"""

from __future__ import annotations

from typing import Any

import jinja2

from pbm import elo
from pbm.commands import verbs
from pbm.crypto.keys import SigningKeys
from pbm.facts import Fact
from pbm.games import Game
from pbm.i18n import languages
from pbm.i18n.text import sentence
from pbm.resources import resource_dir
from pbm.views.board import BoardView
from pbm.views.ratings import INACTIVE_AFTER
from pbm.words import Words
from pbm.words.links import Links


class _CompiledOnce(jinja2.BytecodeCache):
    """Templates compiled once per process, whichever environment asks: every environment
    `make_environment` makes compiles a template to the same code (same options, same
    extensions), and a template takes tens of milliseconds to compile. A template whose file
    changed has another checksum, and is compiled again."""

    def __init__(self) -> None:
        self._code: dict[str, tuple[str, object]] = {}

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        found = self._code.get(bucket.key)
        if found is not None and found[0] == bucket.checksum:
            bucket.code = found[1]  # type: ignore[assignment]  # a code object, as the bucket holds it

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self._code[bucket.key] = (bucket.checksum, bucket.code)


_COMPILED = _CompiledOnce()


def make_environment(
    *,
    links: Links | None = None,
    admin_contact: str | None = None,
    language: str = languages.DEFAULT,
    zone: str | None = None,
    signing: SigningKeys | None = None,
) -> jinja2.Environment:
    """The environment of one language, writing moments on the wall clock of `zone` (an IANA
    name; None: UTC, as the pages write them); `links` to the web pages (`PBM_PUBLIC_URL`) and
    `admin_contact` (`PBM_ADMIN_CONTACT`) are the server's, the same in every mail and page;
    `signing`, the server's keys, signs the receipt a board mail carries (none without them)."""
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(resource_dir("templates")),
        autoescape=jinja2.select_autoescape(["html"], default_for_string=False, default=False),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        bytecode_cache=_COMPILED,
        extensions=["jinja2.ext.i18n"],
    )
    if language == "en":
        environment.install_null_translations(newstyle=True)  # type: ignore[attr-defined]
    else:
        environment.install_gettext_translations(languages.translations(language), newstyle=True)  # type: ignore[attr-defined]
    environment.globals["language"] = language
    environment.globals["languages"] = languages.LANGUAGES
    _add_words(environment, Words(language, zone=zone), zone)
    _add_games(environment, language)
    environment.globals["links"] = links or Links()
    environment.globals["admin_contact"] = admin_contact
    # A fact a template decides itself (``say(fact("replay-next"))``): words still come from a catalogue.
    environment.globals["fact"] = Fact

    def receipt(view: BoardView) -> Fact | None:
        """The signed receipt of the board `view` shows, when it is the current one."""
        if signing is None or view.chain_hash is None:
            return None
        return signing.receipt(view.game_type, view.board, view.move_count, view.chain_hash)

    environment.globals["receipt"] = receipt
    return environment


def _add_words(environment: jinja2.Environment, words: Words, zone: str | None) -> None:
    """Facts, spans, dates and numbers in `words`' language, as a template says them."""
    # Facts become words here, in this environment's language: `say(fact)` in a template.
    environment.globals["say"] = words.say
    # A fact said in another language, the one it speaks of (a welcome names each other language in it).
    environment.globals["say_in"] = lambda other, said: Words(other, zone=zone).say(said)
    # Spans of time, dates and numbers as the reader writes them; dates in the reader's zone.
    environment.filters["duration"] = words.duration
    environment.filters["moment"] = words.moment
    environment.filters["day"] = words.day
    environment.filters["when"] = words.moment
    # A date and time without its zone, and the zone alone: a column or a span names it once.
    environment.filters["clock"] = words.clock
    environment.filters["zone"] = words.zone_at
    environment.filters["number"] = words.number
    environment.filters["joined"] = words.join
    environment.filters["seconds"] = lambda value: typical_seconds(value, words)
    # A reason said as a sentence of its own (an error mail's): ending in a full stop.
    environment.filters["sentence"] = sentence


def _add_games(environment: jinja2.Environment, language: str) -> None:
    """The games' credits, rules and options in `language`, the ratings' numbers and the commands' help."""
    # A game's credit (``Cephalopod, a game by Mark Steere``) as its rules in this language write it.
    environment.globals["credit"] = lambda engine: credit(engine, language)
    # What a game's challenge options do, as this language's options.txt says it.
    environment.globals["option_help"] = lambda engine, option: languages.option_help(engine.title, language).get(
        option.usage(), option.help
    )
    # What the standings say of ratings: where everyone starts, how long a rating is provisional.
    environment.globals["elo"] = {"start": round(elo.START), "provisional_games": elo.PROVISIONAL_GAMES, "k": elo.K}
    environment.globals["inactive_days"] = INACTIVE_AFTER.days
    # The commands' usage lines and help texts, as the help mails and the rules page list them.
    environment.globals["verbs"] = verbs
    # A game's rules and challenge options as this language writes them; None where only the
    # engine's English ones exist (a game installed as a plugin).
    environment.globals["rules_in_language"] = lambda engine: languages.rules(engine.name, language)
    environment.globals["options_in_language"] = lambda engine: languages.options(engine.title, language)


def typical_seconds(value: float, words: Words) -> str:
    """A bot's time for a move as the help and the page show it, to two significant figures in the
    reader's way of writing numbers: what is typical, not the ladder's four decimals.

    >>> english = Words("en")
    >>> [typical_seconds(s, english) for s in (0.0005, 0.2945, 5.8167, 10.9349, 1.9601)]
    ['< 0.01', '0.29', '5.8', '11', '2']
    """
    if value < 0.01:
        return "< " + words.number(0.01)
    rounded = float(f"{value:.2g}")
    return words.number(int(rounded) if rounded.is_integer() else rounded)


def credit(engine: Game[Any], language: str) -> str:
    """`engine`'s attribution in `language`: the title of its rules in that language, else its own."""
    translated = languages.rules(engine.name, language)
    return translated.splitlines()[0].strip() if translated else engine.attribution


class Templates:
    """The templates in every language: an environment per language, made at its first use.

    `default_language` is the club's (`PBM_LANGUAGE`): the language of a reader who chose none.
    """

    def __init__(
        self,
        *,
        links: Links | None = None,
        admin_contact: str | None = None,
        default_language: str = languages.DEFAULT,
        signing: SigningKeys | None = None,
    ) -> None:
        self.links = links
        self.admin_contact = admin_contact
        self.default_language = default_language
        self.signing = signing
        """The server's keys: every language's board mails carry a signed receipt."""
        self._environments: dict[tuple[str, str | None], jinja2.Environment] = {}

    def speaking(self, language: str | None = None, zone: str | None = None) -> jinja2.Environment:
        """The environment that writes in `language` (the club's default when None or unknown), its
        dates on the wall clock of `zone` (a reader's IANA zone; None: UTC)."""
        if language not in languages.LANGUAGES:
            language = self.default_language
        assert language is not None
        key = (language, zone)
        environment = self._environments.get(key)
        if environment is None:
            environment = make_environment(
                links=self.links, admin_contact=self.admin_contact, language=language, zone=zone, signing=self.signing
            )
            self._environments[key] = environment
        return environment

    def load(self, *folders: str) -> None:
        """Compile every template of `folders` in every language now (see `load_templates`)."""
        for language in languages.LANGUAGES:
            load_templates(self.speaking(language), *folders)


def load_templates(environment: jinja2.Environment, *folders: str) -> None:
    """Compile every template in `folders` now (jinja compiles one at its first use).

    A template takes tens of milliseconds to compile: done at start-up, the
    first player after a restart is not the one who waits for it.
    """
    prefixes = tuple(f"{folder}/" for folder in folders)
    for name in environment.list_templates():
        if name.startswith(prefixes):
            environment.get_template(name)
