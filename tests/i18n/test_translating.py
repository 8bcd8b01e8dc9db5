"""The translators' tool (`python -m pbm.translating`), as a translator and the lead use it: the
catalogues kept up to date with the code, translators' files merged in, the ``.mo`` files the
server reads, the ``.pot`` templates, and ``check`` saying what is left.

Every test runs the real tool on a copy of ``pbm/locale`` (`locale`): nothing here writes into
the repository's catalogues.
"""

from __future__ import annotations

import copy
import gettext
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog, Message
from babel.messages.pofile import read_po, write_po

import pbm
from pbm.i18n import languages
from pbm.words import translating
from pbm.words.translating import DOMAINS, compile_all, extract, main, merge, missing, update

FRENCH_PLURALS = "nplurals=2; plural=(n > 1);"


@pytest.fixture(scope="module")
def templates() -> dict[str, Catalog]:
    """Every domain's messages as the code and templates say them, extracted once for the module:
    extracting the mail and web templates' words takes 0.15 s, and `update` extracts twice."""
    return {domain.name: translating.template(domain.name) for domain in DOMAINS}


def template(domain: str) -> Catalog:
    """What the tool extracts for `domain`: in a test, a copy of the module's extraction (`locale`)."""
    return translating.template(domain)


@pytest.fixture
def locale(tmp_path, monkeypatch, templates) -> Path:
    """A copy of ``pbm/locale`` (without compiled ``.mo``), which the tool works on instead.

    `pbm.words.translating` finds every file through ``languages.LOCALE_DIR``, read at each call; its
    `template` gives a copy of the module's extraction (`update` adds the template's messages
    themselves to a catalogue)."""
    folder = tmp_path / "locale"
    shutil.copytree(languages.LOCALE_DIR, folder, ignore=shutil.ignore_patterns("*.mo"))
    monkeypatch.setattr(languages, "LOCALE_DIR", folder)
    monkeypatch.setattr(translating, "template", lambda domain: copy.deepcopy(templates[domain]))
    return folder


def _po(language: str, domain: str) -> Catalog:
    with translating._po_path(language, domain).open("rb") as file:
        return read_po(file, locale=language, domain=domain)


def _save(catalog: Catalog, language: str, domain: str) -> None:
    with translating._po_path(language, domain).open("wb") as file:
        write_po(file, catalog, width=100, sort_output=False, include_previous=False)


def _translated(string: str | tuple[str, ...] | list[str] | None) -> bool:
    return all(string) if isinstance(string, (list, tuple)) else bool(string)


def _a_translated_message(domain: str, *, plural: bool = False, after: int = 0) -> Message:
    """A message of French's `domain` catalogue (of the copy) that has its translation, with a
    context where `domain` is ``facts``, and that no other domain holds (a merge would take it
    into both); the `after`-th such one."""
    elsewhere = {
        (message.context, message.id)
        for other in ("facts", "mails", "web")
        if other != domain
        for message in _po("fr", other)
    }
    found = [
        message
        for message in _po("fr", domain)
        if message.id
        and (message.context or domain != "facts")
        and message.pluralizable == plural
        and not message.fuzzy
        and _translated(message.string)
        and (message.context, message.id) not in elsewhere
    ]
    return found[after]


def _as_missing(message: Message) -> str:
    """How `missing` names `message`."""
    english = message.id if isinstance(message.id, str) else message.id[0]
    return f"{message.context or ''}: {english}"


def _strings(catalog: Catalog) -> dict:
    return {
        (message.context, message.id if isinstance(message.id, str) else message.id[0]): message.string
        for message in catalog
        if message.id
    }


def _incoming(path: Path, entries: list[tuple], *, language: str | None = "fr") -> Path:
    """A translator's file at `path`: (context, English, translation, flags) per entry."""
    catalog = Catalog(locale=language)
    for context, english, string, flags in entries:
        catalog.add(english, string, context=context, flags=flags)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as file:
        write_po(file, catalog)
    return path


def _translate_everything(language: str) -> None:
    """Every message of the code translated in `language`'s catalogues (its English for words)."""
    update()
    for domain in DOMAINS:
        catalog = _po(language, domain.name)
        for message in catalog:
            if message.id and (message.fuzzy or not _translated(message.string)):
                message.string = message.id
                message.flags.discard("fuzzy")
        _save(catalog, language, domain.name)


# update: every language's catalogues brought up to date with the code


def test_update_gives_back_untranslated_a_message_the_code_has_and_the_catalogue_lacks(locale):
    before = missing("fr", "facts")
    lost = _a_translated_message("facts")
    catalog = _po("fr", "facts")
    catalog.delete(lost.id, context=lost.context)
    _save(catalog, "fr", "facts")
    kept = _strings(catalog)

    update()

    back = _po("fr", "facts").get(lost.id, context=lost.context)
    assert back is not None and back.string == "" and not back.fuzzy
    assert missing("fr", "facts") == sorted([*before, _as_missing(lost)])
    after = _strings(_po("fr", "facts"))
    assert {key: string for key, string in after.items() if key in kept} == kept


def test_update_drops_a_message_the_code_no_longer_has(locale):
    catalog = _po("fr", "facts")
    catalog.add("A sentence no code says any more", "Une phrase que plus aucun code ne dit", context="gone-code")
    _save(catalog, "fr", "facts")

    update()

    assert _po("fr", "facts").get("A sentence no code says any more", context="gone-code") is None
    assert "no code says" not in translating._po_path("fr", "facts").read_text(encoding="utf-8")


def test_update_keeps_the_translation_of_changed_english_but_marks_it_fuzzy(locale):
    """A fact whose English the code rewords keeps its code (the context): its old translation
    stays for the translator to look at again, fuzzy, so it is still to translate."""
    reworded = _a_translated_message("facts")
    catalog = _po("fr", "facts")
    catalog.delete(reworded.id, context=reworded.context)
    catalog.add(f"{reworded.id} (as it once said)", reworded.string, context=reworded.context)
    _save(catalog, "fr", "facts")

    update()

    catalog = _po("fr", "facts")
    assert catalog.get(f"{reworded.id} (as it once said)", context=reworded.context) is None
    now = catalog.get(reworded.id, context=reworded.context)
    assert (now.string, now.fuzzy) == (reworded.string, True)
    assert _as_missing(reworded) in missing("fr", "facts")


def test_update_gives_a_reworded_message_that_had_no_translation_untranslated_not_fuzzy(locale):
    reworded = _a_translated_message("facts")
    catalog = _po("fr", "facts")
    catalog.delete(reworded.id, context=reworded.context)
    catalog.add(f"{reworded.id} (as it once said)", "", context=reworded.context)
    _save(catalog, "fr", "facts")

    update()

    now = _po("fr", "facts").get(reworded.id, context=reworded.context)
    assert (now.string, now.fuzzy) == ("", False)


def test_update_takes_a_reworded_sentence_under_a_context_of_several_sentences_for_a_new_one(locale):
    """A template's context (``pgettext("game status", ...)``) names several sentences: which one
    was reworded cannot be told, so none lends its translation."""
    before = missing("fr", "mails")
    catalog = _po("fr", "mails")
    contexts = [message.context for message in catalog if message.id and message.context]
    shared = next(context for context in contexts if contexts.count(context) > 1)
    reworded = next(m for m in catalog if m.context == shared and not m.pluralizable and _translated(m.string))
    catalog.delete(reworded.id, context=shared)
    catalog.add(f"{reworded.id} (as it once said)", reworded.string, context=shared)
    _save(catalog, "fr", "mails")

    update()

    catalog = _po("fr", "mails")
    assert catalog.get(f"{reworded.id} (as it once said)", context=shared) is None
    now = catalog.get(reworded.id, context=shared)
    assert (now.string, now.fuzzy) == ("", False)
    assert missing("fr", "mails") == sorted([*before, _as_missing(reworded)])


def test_update_makes_a_french_catalogue_that_is_missing_with_frenchs_plural_rule(locale):
    translating._po_path("fr", "facts").unlink()

    update()

    catalog = _po("fr", "facts")
    assert dict(catalog.mime_headers)["Plural-Forms"] == FRENCH_PLURALS  # CLDR would give 3 forms
    assert catalog.num_plurals == 2
    assert {(m.context, m.id) for m in catalog if m.id} == {(m.context, m.id) for m in template("facts") if m.id}
    assert not any(_translated(message.string) for message in catalog if message.id)
    assert len(missing("fr", "facts")) == len([message for message in template("facts") if message.id])


def test_update_makes_every_catalogue_of_a_new_language_named_in_languages(locale, monkeypatch):
    monkeypatch.setitem(languages.LANGUAGES, "de", "Deutsch")

    update()

    for domain in DOMAINS:
        catalog = _po("de", domain.name)
        assert str(catalog.locale) == "de"
        assert len([message for message in catalog if message.id]) == len(template(domain.name))
        assert len(missing("de", domain.name)) == len(template(domain.name))


# merge: the translations of a translator's file taken into the language's catalogues


def test_merge_takes_the_translations_with_the_same_context_and_english_into_each_domain(locale, capsys):
    fact, plural, mail = (
        _a_translated_message("facts"),
        _a_translated_message("facts", plural=True),
        _a_translated_message("mails"),
    )
    other_fact = _a_translated_message("facts", after=1)
    incoming = _incoming(
        locale / "incoming" / "anne.po",
        [
            (fact.context, fact.id, "Une traduction revue", []),
            (plural.context, plural.id, ("une forme revue", "des formes revues"), []),
            (mail.context, mail.id, "Un courriel revu", []),
            ("no-such-code", other_fact.id, "Sous un autre code", []),
            (other_fact.context, f"{other_fact.id} (other English)", "Pour un autre anglais", []),
        ],
    )

    merge(incoming)

    facts, mails = _po("fr", "facts"), _po("fr", "mails")
    assert facts.get(fact.id, context=fact.context).string == "Une traduction revue"
    assert facts.get(plural.id, context=plural.context).string == ("une forme revue", "des formes revues")
    assert mails.get(mail.id, context=mail.context).string == "Un courriel revu"
    assert facts.get(other_fact.id, context=other_fact.context).string == other_fact.string
    assert facts.get("no-such-code") is None
    printed = capsys.readouterr().out.splitlines()
    assert printed == [
        f"{translating._po_path('fr', 'facts')}: 2 translations taken from {incoming}",
        f"{translating._po_path('fr', 'mails')}: 1 translations taken from {incoming}",
        f"{translating._po_path('fr', 'web')}: 0 translations taken from {incoming}",
    ]


def test_merge_clears_the_fuzzy_flag_of_the_message_it_fills(locale):
    doubtful = _a_translated_message("facts")
    catalog = _po("fr", "facts")
    catalog.get(doubtful.id, context=doubtful.context).flags.add("fuzzy")
    _save(catalog, "fr", "facts")
    assert _as_missing(doubtful) in missing("fr", "facts")

    merge(_incoming(locale / "incoming" / "anne.po", [(doubtful.context, doubtful.id, "Relu et revu", [])]))

    now = _po("fr", "facts").get(doubtful.id, context=doubtful.context)
    assert (now.string, now.fuzzy) == ("Relu et revu", False)
    assert _as_missing(doubtful) not in missing("fr", "facts")


@pytest.mark.parametrize(
    ("plural", "string", "flags"),
    [
        (False, "Une traduction douteuse", ["fuzzy"]),
        (False, "", []),
        (True, ("", ""), []),
        (True, ("une forme", ""), []),
        (True, ("une forme", "des formes"), ["fuzzy"]),
    ],
    ids=["fuzzy", "empty", "empty-plural", "half-plural", "fuzzy-plural"],
)
def test_merge_leaves_a_translation_alone_where_the_file_has_it_fuzzy_or_empty(locale, plural, string, flags):
    """A translator's file holds every message, translated or not (or not surely): only what
    it translates for sure replaces what the catalogue has."""
    kept = _a_translated_message("facts", plural=plural)

    merge(_incoming(locale / "incoming" / "anne.po", [(kept.context, kept.id, string, flags)]))

    now = _po("fr", "facts").get(kept.id, context=kept.context)
    assert (now.string, now.fuzzy) == (kept.string, False)


def test_merge_takes_the_language_from_the_folder_of_a_file_that_does_not_name_it(locale):
    fact = _a_translated_message("facts")
    incoming = _incoming(locale / "fr" / "incoming" / "anne.po", [(fact.context, fact.id, "Revu", [])], language=None)
    assert "Language:" not in incoming.read_text(encoding="utf-8")

    merge(incoming)

    assert _po("fr", "facts").get(fact.id, context=fact.context).string == "Revu"


def test_merge_takes_a_file_for_a_region_of_a_language_into_the_language(locale):
    """Poedit and friends write ``Language: fr_FR``: the club has one French."""
    fact = _a_translated_message("facts")
    incoming = _incoming(locale / "incoming" / "anne.po", [(fact.context, fact.id, "Revu", [])], language="fr_FR")

    merge(incoming)

    assert _po("fr", "facts").get(fact.id, context=fact.context).string == "Revu"


# compile: the .mo files the server reads


def _compiled(domain: str) -> gettext.GNUTranslations:
    with (translating._po_path("fr", domain).with_suffix(".mo")).open("rb") as file:
        return gettext.GNUTranslations(file)


def test_compile_writes_beside_each_catalogue_the_mo_gettext_reads_its_translations_from(locale):
    fact, plural = _a_translated_message("facts"), _a_translated_message("facts", plural=True)

    compile_all()

    assert sorted(path.name for path in (locale / "fr" / "LC_MESSAGES").glob("*.mo")) == [
        f"{domain.name}.mo" for domain in DOMAINS
    ]
    compiled = _compiled("facts")
    assert compiled.pgettext(fact.context, fact.id) == fact.string
    one, other = plural.id
    # French's rule: 0 and 1 take the singular (English's rule would say the plural for 0).
    assert [compiled.npgettext(plural.context, one, other, count) for count in (0, 1, 2)] == [
        plural.string[0],
        plural.string[0],
        plural.string[1],
    ]
    mail, mails = _a_translated_message("mails"), _compiled("mails")
    said = mails.pgettext(mail.context, mail.id) if mail.context else mails.gettext(mail.id)
    assert said == mail.string


def test_compile_leaves_out_a_fuzzy_translation(locale):
    doubtful, sure = _a_translated_message("facts"), _a_translated_message("facts", after=1)
    catalog = _po("fr", "facts")
    catalog.get(doubtful.id, context=doubtful.context).flags.add("fuzzy")
    _save(catalog, "fr", "facts")

    compile_all()

    compiled = _compiled("facts")
    assert compiled.pgettext(doubtful.context, doubtful.id) == doubtful.id  # read as English
    assert compiled.pgettext(sure.context, sure.id) == sure.string


# extract: the .pot templates, one per domain


def test_extract_writes_one_pot_per_domain_listing_its_messages_untranslated(locale, capsys):
    for pot in locale.glob("*.pot"):
        pot.unlink()
    catalogues = {path: path.read_bytes() for path in locale.glob("*/LC_MESSAGES/*.po")}

    extract()

    printed = capsys.readouterr().out.splitlines()
    for domain in DOMAINS:
        path = locale / f"{domain.name}.pot"
        with path.open("rb") as file:
            pot = read_po(file)
        expected = template(domain.name)
        assert {(m.context, m.id) for m in pot if m.id} == {(m.context, m.id) for m in expected if m.id}
        assert not any(_translated(message.string) for message in pot if message.id)
        assert f"{path}: {len(expected)} messages" in printed
    assert {path: path.read_bytes() for path in locale.glob("*/LC_MESSAGES/*.po")} == catalogues


# main: the command line


def test_check_exits_0_when_nothing_is_left_to_translate(locale, capsys):
    _translate_everything("fr")
    capsys.readouterr()

    assert main(["check"]) == 0
    assert capsys.readouterr().out.splitlines() == [f"fr {domain.name}: 0 left to translate" for domain in DOMAINS]


def test_check_exits_1_and_says_how_many_are_left_when_a_translation_is_missing(locale, capsys):
    _translate_everything("fr")
    untranslated = _a_translated_message("mails")
    catalog = _po("fr", "mails")
    catalog.get(untranslated.id, context=untranslated.context).string = ""
    _save(catalog, "fr", "mails")
    capsys.readouterr()

    assert main(["check"]) == 1
    assert "fr mails: 1 left to translate" in capsys.readouterr().out.splitlines()


def test_check_counts_every_message_for_a_language_without_catalogues(locale, monkeypatch, capsys):
    monkeypatch.setitem(languages.LANGUAGES, "de", "Deutsch")

    assert main(["check"]) == 1
    printed = capsys.readouterr().out.splitlines()
    for domain in DOMAINS:
        assert f"de {domain.name}: {len(template(domain.name))} left to translate" in printed
    assert not (locale / "de").exists()


def test_merge_file_merges_it_and_exits_0(locale):
    fact = _a_translated_message("facts")
    incoming = _incoming(locale / "incoming" / "anne.po", [(fact.context, fact.id, "Revu", [])])

    assert main(["merge", str(incoming)]) == 0
    assert _po("fr", "facts").get(fact.id, context=fact.context).string == "Revu"


@pytest.mark.parametrize(
    ("action", "made"),
    [("extract", "web.pot"), ("update", "fr/LC_MESSAGES/web.po"), ("compile", "fr/LC_MESSAGES/web.mo")],
)
def test_each_action_makes_its_files_and_exits_0(locale, action, made):
    (locale / made).unlink(missing_ok=True)

    assert main([action]) == 0
    assert (locale / made).is_file()


@pytest.mark.parametrize("argv", [[], ["translate"], ["merge"], ["compile", "now"], ["extract", "--all"]])
def test_an_unknown_action_prints_the_usage_and_exits_2(locale, capsys, argv):
    assert main(argv) == 2
    out = capsys.readouterr().out
    assert "python -m pbm.translating merge FILE" in out
    assert not list(locale.glob("*/LC_MESSAGES/*.mo"))


def test_the_module_runs_as_a_command_and_exits_with_mains_status():
    """``python -m pbm.translating`` (what ``make messages`` runs): here an unknown action, which
    touches no file."""
    root = Path(pbm.__file__).parent.parent
    done = subprocess.run(
        [sys.executable, "-m", "pbm.translating", "translate"],
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "python -m pbm.translating check" in done.stdout
