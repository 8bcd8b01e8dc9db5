"""The languages' catalogues: every translation says what its English says, with the same
placeholders, in its language's typography."""

from __future__ import annotations

import re
import string

import pytest
from babel.messages.pofile import read_po

from pbm.i18n import languages
from pbm.words.translating import DOMAINS, _po_path

TRANSLATED = [language for language in languages.LANGUAGES if language != "en"]


def _messages(language: str, domain: str):
    with _po_path(language, domain).open("rb") as file:
        catalog = read_po(file, locale=language, domain=domain)
    for message in catalog:
        if not message.id:
            continue
        english = message.id if isinstance(message.id, (list, tuple)) else (message.id,)
        translated = message.string if isinstance(message.string, (list, tuple)) else (message.string,)
        yield message, english, [text for text in translated if text]


def _brace_fields(text: str) -> set[str]:
    try:
        return {field for _, field, _, _ in string.Formatter().parse(text) if field}
    except ValueError:
        return {"<unbalanced braces>"}


def _percent_fields(text: str) -> set[str]:
    return set(re.findall(r"%\((\w+)\)s", text))


@pytest.mark.parametrize("language", TRANSLATED)
@pytest.mark.parametrize("domain", [domain.name for domain in DOMAINS])
def test_a_translation_keeps_every_placeholder_of_its_english(language, domain):
    wrong = []
    for message, english, translated in _messages(language, domain):
        fields = _brace_fields if domain == "facts" else _percent_fields
        wanted = set().union(*(fields(text) for text in english))
        for text in translated:
            if fields(text) != wanted and not (len(english) > 1 and fields(text) <= wanted):
                wrong.append(f"{message.context or ''} {english[0]!r}: {text!r}")
    assert not wrong, "\n".join(wrong)


FRENCH_SPACE_BEFORE = re.compile(r"(?<=[^\s\u202f\u00a0])[;!?]|(?<=\w):(?=\s|$)| [;:!?»]|« ")
"""French typography: a narrow no-break space before : ; ! ? and inside
« guillemets »; never a plain space that a line may break at, never none."""


@pytest.mark.parametrize("domain", [domain.name for domain in DOMAINS])
def test_french_keeps_french_typography(domain):
    wrong = []
    for message, _, translated in _messages("fr", domain):
        if (message.context or "").startswith("arguments-"):
            continue  # a usage line's arguments: the server's notation (if MOVES then MOVE; else MOVE)
        for text in translated:
            plain = re.sub(r"https?://\S+|\{[^}]*\}|%\(\w+\)s|\b\d{1,2}:\d{2}\b|[A-Za-z]+://", "", text)
            # Commands quoted in French text keep the server's notation (c3!, "if a then b; c").
            plain = re.sub(r"\b(?:GAME|JEU|[a-z]+) (?:move|queue|preview|if)\b[^\n«»]*", "", plain)
            if FRENCH_SPACE_BEFORE.search(plain) or '"' in plain:
                wrong.append(f"{message.context or ''}: {text!r}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("language", TRANSLATED)
@pytest.mark.parametrize("domain", [domain.name for domain in DOMAINS])
def test_every_message_of_the_code_and_templates_has_its_translation(language, domain):
    """What the code and templates say today (extracted afresh), each translated and none fuzzy:
    a sentence added or reworded in English fails here until its translation follows."""
    from pbm.words.translating import missing

    assert missing(language, domain) == []
