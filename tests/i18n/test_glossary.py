"""The French glossary is a contract: the forms its « Formes écartées » section rejects (calques,
variants of one term, placeholders of another shape, word orders that read as translated) appear in
no French catalogue. The list is read from the glossary itself, so the translators' document and
the check cannot drift apart."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from pbm.i18n import languages
from pbm.words.translating import DOMAINS, _po_path

GLOSSARY = Path(languages.LOCALE_DIR) / "fr" / "glossaire.md"


def rejected_forms(text: str) -> dict[str, str]:
    """The rejected forms of the glossary's « Formes écartées » section, each with what is written
    instead: ``- `siège` → `place` : why``."""
    section = text.split("## Formes écartées", 1)[1].split("\n## ", 1)[0]
    return dict(re.findall(r"^- `([^`]+)` → `([^`]+)`", section, flags=re.M))


def pattern(form: str) -> re.Pattern[str]:
    """`form` as written, as a whole word where it begins or ends with a letter (``jet``, not ``projet``)."""
    before = r"(?<!\w)" if form[0].isalnum() else ""
    after = r"(?!\w)" if form[-1].isalnum() else ""
    return re.compile(before + re.escape(form) + after)


def french_strings(domain: str) -> list[tuple[str, str]]:
    with _po_path("fr", domain).open("rb") as file:
        catalog = read_po(file, locale="fr", domain=domain)
    found = []
    for message in catalog:
        if not message.id:
            continue
        strings = message.string if isinstance(message.string, (list, tuple)) else (message.string,)
        found += [(message.context or str(message.id)[:40], text) for text in strings if text]
    return found


FORMS = rejected_forms(GLOSSARY.read_text())


def test_the_glossary_lists_what_it_rejects():
    assert len(FORMS) >= 30
    assert FORMS["siège"] == "place" and FORMS["VOTREIDENTIFIANT"] == "IDENTIFIANT"


@pytest.mark.parametrize("domain", [domain.name for domain in DOMAINS])
def test_no_french_catalogue_uses_a_form_the_glossary_rejects(domain):
    used = [
        f"{where}: `{form}` (write `{instead}`): {text!r}"
        for where, text in french_strings(domain)
        for form, instead in FORMS.items()
        if pattern(form).search(text)
    ]
    assert used == [], "\n".join(used)


def test_the_check_finds_a_rejected_form_as_a_word():
    assert pattern("siège").search("son coup, son siège, son joueur")
    assert pattern("jet").search("jet 3 (Tetra)") and not pattern("jet").search("un projet")
    assert pattern("%(game)s partie %(board)s").search("Résumé de %(game)s partie %(board)s")
