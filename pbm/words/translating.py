"""The translators' tools: what there is to translate, each language's catalogues kept up to
date with it, and compiled for the server.

    python -m pbm.translating extract    # pbm/locale/<domain>.pot from the code and templates
    python -m pbm.translating update     # every language's .po brought up to date with them
    python -m pbm.translating compile    # the .mo files the server reads (run by the build)
    python -m pbm.translating check      # what is left to translate, per language
    python -m pbm.translating merge FILE # translations from FILE (a .po) into the catalogues

Three domains, each a catalogue of its own for translators (`DOMAINS`): ``facts``, every
catalogue entry of every layer (its code is the message's context, so one English message
used by two codes is translated twice, once for each meaning); ``mails``, the words of the
mail and help templates and of the Python edge (`pbm.i18n.languages`); ``web``, the pages.

Translating pbm
---------------

pbm speaks English and French. Each player chooses (`language USERID PASSWORD fr`, or `en`);
a player who has not chosen reads the club's language, `PBM_LANGUAGE` (default `en`). In one
game each player reads their own language; comments and chat pass as written. Commands stay
the server's notation in every language. The web follows the visitor's switch at the foot of
every page (remembered in a cookie), else the browser's `Accept-Language`.

Engines and handlers decide facts (a code and its parameters); the English of every fact is in
its layer's catalogue (`pbm/*/messages.py`), and every template is written in English with
jinja2's i18n tags (`{% trans %}`, `_()`). A language's words are gettext catalogues in
`pbm/locale/<code>/LC_MESSAGES/`, one per domain: `facts.po` (every catalogue entry; its code is
the message's context), `mails.po` (mail and help templates), `web.po` (the pages). Beside them:
the game rules (`rules/`), the challenge options (`options.txt`) and the glossary every message
follows (`glossaire.md` for French).

A new language is one folder and one line:

1. Add the line to `LANGUAGES` in `pbm/i18n/languages.py` (its code and its own name), and the words
   players write for it to `_NAMES`.
2. `make messages` creates `pbm/locale/<code>/LC_MESSAGES/*.po` from the code and templates;
   translate every entry (keep each `{placeholder}` and `%(name)s`), and the rules in
   `pbm/locale/<code>/rules/`.
3. `python -m pbm.translating check` says what is left; `make test` checks placeholders and,
   for French, typography (`tests/i18n`). The build compiles the catalogues (`.mo`).

When code or templates change, `make messages` brings every catalogue up to date: new messages
arrive untranslated, changed English is marked fuzzy (and read as English until a translator
looks at it again). Several translators can work at once and bring their files together with
`python -m pbm.translating merge FILE.po`.
"""

from __future__ import annotations

import io
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from babel.messages.catalog import Catalog, Message
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

from pbm.facts import Plural
from pbm.i18n import languages
from pbm.resources import resource_dir

PROJECT = "pbm"
KEYWORDS = {
    "_": None,
    "gettext": None,
    "ngettext": (1, 2),
    "pgettext": ((1, "c"), 2),
    "npgettext": ((1, "c"), 2, 3),
}
JINJA = ("jinja2.ext:babel_extract", {"extensions": "jinja2.ext.i18n", "trim_blocks": "true", "lstrip_blocks": "true"})


@dataclass(frozen=True)
class Domain:
    name: str
    about: str


DOMAINS = (
    Domain("facts", "every fact a player may read: errors, refusals, what a move did, help lines"),
    Domain("mails", "the mails and the help texts"),
    Domain("web", "the web pages"),
)


def _facts() -> Iterator[tuple[str, str | tuple[str, str]]]:
    """(code, message) for every catalogue entry there is."""
    from pbm.words import every_catalogue  # the edge gathers every layer's catalogue

    for code, message in sorted(every_catalogue().items()):
        if code == "unconverted-words":
            continue
        yield code, (message.one, message.other) if isinstance(message, Plural) else message


def _from_files(folder: Path, method_map: list[tuple[str, str]], options: dict[str, Any]) -> Iterator[Any]:
    yield from extract_from_dir(folder, method_map, options, keywords=KEYWORDS, comment_tags=("Translators:",))


def template(domain: str) -> Catalog:
    """The catalogue of every message of `domain`, untranslated (what ``.pot`` holds)."""
    catalog = Catalog(project=PROJECT, domain=domain, fuzzy=False)
    if domain == "facts":
        for code, message in _facts():
            catalog.add(message, context=code)
        catalog.add("under a minute", context="duration-under-a-minute")
        catalog.add("{day} at {time}", context="moment")
        return catalog
    templates = resource_dir("templates")
    if domain == "mails":
        found = _from_files(
            templates,
            [("mail/**.txt", JINJA[0]), ("help/**.txt", JINJA[0])],
            {"mail/**.txt": JINJA[1], "help/**.txt": JINJA[1]},
        )
    else:
        found = _from_files(templates, [("web/**.html", JINJA[0])], {"web/**.html": {**JINJA[1], "autoescape": "true"}})
    for filename, lineno, message, comments, context in found:
        catalog.add(message, locations=[(f"templates/{filename}", lineno)], auto_comments=comments, context=context)
    return catalog


def _po_path(language: str, domain: str) -> Path:
    return languages.LOCALE_DIR / language / "LC_MESSAGES" / f"{domain}.po"


def extract() -> None:
    for domain in DOMAINS:
        path = languages.LOCALE_DIR / f"{domain.name}.pot"
        with path.open("wb") as file:
            write_po(file, template(domain.name), width=100, sort_output=False, omit_header=False)
        print(f"{path}: {len(template(domain.name))} messages")


def update() -> None:
    """Every language's catalogues brought up to date with the code: new messages added
    untranslated, gone ones dropped, changed English under the same context (a fact's code)
    marked fuzzy with its old translation (which must be looked at again, `_reworded`)."""
    for domain in DOMAINS:
        fresh = template(domain.name)
        for language in languages.LANGUAGES:
            if language == "en":
                continue
            path = _po_path(language, domain.name)
            path.parent.mkdir(parents=True, exist_ok=True)
            if path.exists():
                with path.open("rb") as file:
                    catalog = read_po(file, locale=language, domain=domain.name)
            else:
                catalog = Catalog(locale=language, project=PROJECT, domain=domain.name, fuzzy=False)
            catalog.fuzzy = False
            _plural_forms(catalog, language)
            _reworded(catalog, fresh)
            catalog.update(fresh, no_fuzzy_matching=True)
            catalog.obsolete.clear()
            with path.open("wb") as file:
                write_po(file, catalog, width=100, sort_output=False, include_previous=False)
            print(f"{path}: {len(catalog)} messages, {len(missing(language, domain.name))} left to translate")


def _reworded(catalog: Catalog, fresh: Catalog) -> None:
    """Where the code changed a message's English but not its context (a fact's code), the old
    translation is kept for the new English, marked fuzzy: its translator looks at it again
    rather than starting over. Only a context that names one message on both sides counts (a
    template's context names several). Babel's own fuzzy matching is not used: it matches the
    English alone, across contexts."""

    def alone(messages: Catalog) -> dict[str | None, Message]:
        counts = Counter(message.context for message in messages if message.id)
        return {m.context: m for m in messages if m.id and m.context and counts[m.context] == 1}

    new = alone(fresh)
    for context, old in alone(catalog).items():
        english = new.get(context)
        if english is None or english.id == old.id or english.pluralizable != old.pluralizable:
            continue
        if not _translated(old.string):
            continue
        catalog.delete(old.id, context=context)
        old.id, old.flags = english.id, old.flags | {"fuzzy"}
        catalog[old.id] = old  # update() then finds it under its new English


PLURAL_FORMS = {"fr": "nplurals=2; plural=(n > 1);"}
"""Plural rules where gettext's custom differs from CLDR's: CLDR gives French a third form for
millions ("de millions"), which no message of ours needs; French players expect 0 and 1 singular."""


def _plural_forms(catalog: Catalog, language: str) -> None:
    rule = PLURAL_FORMS.get(language)
    if rule is not None:
        headers = [(name, value) for name, value in catalog.mime_headers if name.lower() != "plural-forms"]
        catalog.mime_headers = [*headers, ("Plural-Forms", rule)]
        catalog.last_translator = "pbm translators"
        catalog.language_team = f"{languages.LANGUAGES[language]} (pbm)"


def compile_all() -> None:
    """The ``.mo`` of every ``.po``: what a server reads (`pbm.i18n.languages.translations`)."""
    for po in sorted(languages.LOCALE_DIR.glob("*/LC_MESSAGES/*.po")):
        with po.open("rb") as file:
            catalog = read_po(file, locale=po.parent.parent.name, domain=po.stem)
        compiled = io.BytesIO()
        write_mo(compiled, catalog, use_fuzzy=False)
        po.with_suffix(".mo").write_bytes(compiled.getvalue())


def _translated(string: str | tuple[str, ...] | list[str] | None) -> bool:
    """Whether a message's translation is there: every form of a plural one."""
    return all(string) if isinstance(string, (list, tuple)) else bool(string)


def missing(language: str, domain: str) -> list[str]:
    """The messages of `domain` that `language` has no translation of (or a fuzzy one)."""
    path = _po_path(language, domain)
    if not path.exists():
        return [str(message.id) for message in template(domain) if message.id]
    with path.open("rb") as file:
        catalog = read_po(file, locale=language, domain=domain)
    wanted = {(m.context, m.id if isinstance(m.id, str) else m.id[0]) for m in template(domain) if m.id}
    done = {
        (m.context, m.id if isinstance(m.id, str) else m.id[0])
        for m in catalog
        if m.id and not m.fuzzy and _translated(m.string)
    }
    return sorted(f"{context or ''}: {message}" for context, message in wanted - done)


def merge(path: Path) -> None:
    """The translations in the .po at `path` (any language, any domains mixed) copied into that
    language's catalogues wherever a message has the same context and English: how the work of
    several translators comes together."""
    with path.open("rb") as file:
        given = read_po(file)
    language = str(given.locale) if given.locale else path.parent.parent.name
    if language not in languages.LANGUAGES:
        language = language.split("_")[0]  # fr_FR, as translators' editors write it: our French
    translated = {(m.context, m.id): m.string for m in given if m.id and not m.fuzzy}
    for domain in DOMAINS:
        po = _po_path(language, domain.name)
        with po.open("rb") as file:
            catalog = read_po(file, locale=language, domain=domain.name)
        taken = 0
        for message in catalog:
            string = translated.get((message.context, message.id), "")
            if isinstance(string, (list, tuple)):
                string = tuple(string[: catalog.num_plurals])  # a file may follow CLDR's rule (3 forms in French)
            if message.id and _translated(string):
                message.string, message.flags = string, message.flags - {"fuzzy"}
                taken += 1
        catalog.fuzzy = False
        with po.open("wb") as file:
            write_po(file, catalog, width=100, sort_output=False, include_previous=False)
        print(f"{po}: {taken} translations taken from {path}")


def main(argv: list[str]) -> int:
    actions = {"extract": extract, "update": update, "compile": compile_all}
    if argv[:1] == ["check"]:
        left = 0
        for language in languages.LANGUAGES:
            for domain in DOMAINS:
                if language != "en":
                    todo = missing(language, domain.name)
                    left += len(todo)
                    print(f"{language} {domain.name}: {len(todo)} left to translate")
        return 1 if left else 0
    if len(argv) == 2 and argv[0] == "merge":
        merge(Path(argv[1]))
        return 0
    if len(argv) != 1 or argv[0] not in actions:
        print(__doc__)
        return 2
    actions[argv[0]]()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
