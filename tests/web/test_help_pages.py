"""The player's guide on the web (`pbm.web.help`): ``/help`` lists the help topics the ``help`` verb
mails, and ``/help/<topic>`` shows each from the same template as the mail, in English or French
as every page chooses (``Accept-Language``, ``?lang=``); a name that is no topic is a 404."""

from __future__ import annotations

import html
import re

import pytest

import pbm.games
from pbm.commands import accounts, verbs
from pbm.config import Club
from pbm.mail.compose import Composer
from pbm.mail.tokens import Addressing, ReplyTokens
from pbm.views.ladders import bot_ladders
from pbm.words.templating import Templates
from tests.conftest import ON_SQLITE_ONLY

pytestmark = ON_SQLITE_ONLY  # pages of texts: no query of their own

TOPICS = sorted(set(accounts.HELP_TOPICS) - {"help"})
"""What ``help TOPIC`` mails (``help help`` is the commands again)."""


def pre(page: str) -> str:
    """The text of the page's help, as a reader sees it."""
    (text,) = re.findall(r'<pre class="rules-text">(.*?)</pre>', page, re.S)
    return html.unescape(text)


def mailed(topic: str, language: str) -> str:
    """The body of the mail ``help <topic>`` sends a reader of `language`."""
    composer = Composer(Templates(), Addressing("pbm@games.test"), ReplyTokens(b"k" * 32), b"t" * 32)
    club = Club()
    context = {
        "games": pbm.games.all_games(),
        "defaults": club.time_control,
        "allowance": club.vacation_allowance,
        "ladders": bot_ladders(),
    }
    return composer.render(accounts.HELP_TOPICS[topic], context, language)[1]


def words(text: str) -> str:
    return " ".join(text.split())


def test_the_index_lists_every_topic_the_help_verb_mails_and_every_games_rules(client):
    page = client.get("/help")
    assert page.status_code == 200
    for topic in TOPICS:
        assert f'<a href="/help/{topic}">' in page.text and f"<code>help {topic}</code>" in page.text
    for engine in pbm.games.all_games():
        assert f'<a href="/{engine.name}/rules">' in page.text
    assert re.findall(r'<a href="/help/([a-z]+)">', page.text) == ["commands", *(t for t in TOPICS if t != "commands")]


@pytest.mark.parametrize("topic", TOPICS)
@pytest.mark.parametrize("language", ["en", "fr"])
def test_each_topic_is_the_text_its_mail_gives(client, topic, language):
    page = client.get(f"/help/{topic}", headers={"Accept-Language": language})
    assert page.status_code == 200 and page.headers["content-language"] == language
    text = pre(page.text)
    assert len(text) > 300
    assert words(text) in words(mailed(topic, language))


def test_the_language_may_be_chosen_in_the_address_as_on_every_page(client):
    french = client.get("/help/time?lang=fr")
    assert french.headers["content-language"] == "fr" and '<html lang="fr">' in french.text
    assert words(pre(french.text)) in words(mailed("time", "fr"))


def test_the_player_guide_lists_every_command_as_help_writes_it(client):
    """Moved from the README, which no longer lists the commands: the guide the help mails is it,
    and pbmserv's pass and swap, which no game here has, are on each game's rules page."""
    guide = html.unescape(client.get("/help/commands").text)
    rules = html.unescape(client.get("/cephalopod/rules").text)
    for verb in verbs.ACCOUNT_VERBS:
        assert verb.usage() in guide
    for verb in verbs.GAME_VERBS:
        assert verb.usage("GAME") in guide if verb.offered else verb.usage("cephalopod") in rules


@pytest.mark.parametrize("path", ["/help/nothing", "/help/help_time", "/help/..%2fmail%2fhelp", "/help/" + "x" * 300])
def test_a_name_that_is_no_topic_is_not_found(client, path):
    page = client.get(path)
    assert page.status_code == 404
    assert "There is no page at this address." in page.text
