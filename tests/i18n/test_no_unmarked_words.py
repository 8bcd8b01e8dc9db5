"""No template writes a word a reader reads outside the catalogues: every sentence of every
mail, help text and page goes through gettext (``{% trans %}``, ``_()``) or is a fact said
in the reader's language (``say(...)``). Read from each template's syntax tree, so a sentence
added without marking fails here before any translator could miss it."""

from __future__ import annotations

import re
from collections.abc import Iterator

import jinja2
import pytest
from jinja2 import nodes

from pbm.words.templating import Templates

ENVIRONMENT = Templates().speaking("en")
TEMPLATES = [name for name in ENVIRONMENT.list_templates() if name.endswith((".txt", ".html"))]
MARKING = {"_", "gettext", "ngettext", "pgettext", "npgettext", "fact"}
"""Calls whose string arguments are messages: gettext's, and a fact's code."""
WORD = re.compile(r"\b[A-Za-z][a-z]{2,}\b")
COMMAND = re.compile(r"^\s*(?:pbm|games|help|GAME|cephalopod|cubeo|dodeca)\b")
"""A string that is a command a reader copies (``pbm verify FILE``, `` games alice next``): the server's words."""


def _unmarked(node: nodes.Node, marked: bool = False) -> Iterator[str]:
    if isinstance(node, nodes.TemplateData):
        yield node.data
        return
    if isinstance(node, nodes.Const) and isinstance(node.value, str) and not marked:
        if re.search(r"[A-Za-z]{3,}\s+[a-z]{2,}", node.value) and not COMMAND.match(node.value):
            yield node.value
        return
    if isinstance(node, nodes.Call) and isinstance(node.node, nodes.Name) and node.node.name in MARKING:
        marked = True
    if isinstance(node, nodes.Dict):
        # {"Established": _("Established")}: a key that only looks its translation up.
        for pair in node.items:
            yield from _unmarked(pair.value, marked)
        return
    for child in node.iter_child_nodes():
        yield from _unmarked(child, marked)


def unmarked_words(source: str) -> list[str]:
    """The words of `source` (a template) that no catalogue marks: in its text outside
    ``{% trans %}``, and in its strings outside gettext's calls (HTML's tags and attributes
    are markup, not words)."""
    # The text between expressions, in order, joined where an expression stood, so that a tag
    # split by an expression (<a href="{{ url }}">) is still one tag.
    text = "\x00".join(_unmarked(ENVIRONMENT.parse(source)))
    text = re.sub(r"<[^>]*>|<!doctype html>|&\w+;", " ", text, flags=re.I)
    return WORD.findall(text)


@pytest.mark.parametrize("name", TEMPLATES)
def test_every_word_of_a_template_goes_through_the_catalogues(name):
    source = ENVIRONMENT.loader.get_source(ENVIRONMENT, name)[0]
    assert unmarked_words(source) == []


def test_the_check_sees_an_unmarked_sentence():
    source = '{% trans %}Marked{% endtrans %} <a href="{{ url }}" title="x">{{ _("marked too") }}</a>\nYour turn.\n'
    assert unmarked_words(source) == ["Your", "turn"]
    assert unmarked_words('{{ "Each address was" if many }}') == ["Each", "address", "was"]


def test_templates_are_found():
    assert len(TEMPLATES) > 50 and jinja2.__version__
