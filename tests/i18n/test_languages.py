"""Who reads which language: a player's choice, the club's default, a visitor's switch or browser."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from starlette.requests import Request

from pbm.commands.effects import OutgoingMail
from pbm.i18n import languages
from pbm.mail.outgoing import in_their_words
from pbm.store import players
from pbm.store.database import Database
from pbm.store.models import Player
from pbm.web.pages import LANGUAGE_COOKIE, page_language
from pbm.words.templating import Templates
from tests.conftest import fresh_database
from tests.support import Clock


@pytest.fixture
def database(tmp_path, sqlite_template, postgres_databases):
    for url in fresh_database("sqlite", tmp_path, sqlite_template, postgres_databases):
        database = Database(url)
        yield database
        database.dispose()


def _alice_bob_and_their_mails(session) -> tuple[Player, list[OutgoingMail]]:
    """alice and bob, signed up, and mails to each of them, to alice's address written otherwise,
    and to a stranger."""
    now = Clock()()
    alice = players.sign_up(session, "alice", "x", ["alice@example.org"], sender="alice@example.org", now=now)
    bob = players.sign_up(session, "bob", "x", ["bob@example.org"], sender="bob@example.org", now=now)
    session.flush()
    return alice, [
        OutgoingMail("board", "alice@example.org", player_id=alice.id),
        OutgoingMail("error", "ALICE@Example.org"),  # an answer to alice's own mail, however she writes it
        OutgoingMail("board", "bob@example.org", player_id=bob.id),
        OutgoingMail("error", "stranger@example.net"),
    ]


def test_each_mail_is_in_the_language_its_reader_chose_and_anyone_else_reads_the_clubs(database):
    with database.transaction() as session:
        alice, mails = _alice_bob_and_their_mails(session)
        players.set_language(alice, "fr")
        mails.append(OutgoingMail("language", "alice@example.org", player_id=alice.id, language="en"))
        assert [m.language for m in in_their_words(session, mails)] == ["fr", "fr", None, None, "en"]


def test_each_mail_gives_its_dates_in_the_zone_its_reader_lives_in_and_utc_to_anyone_else(database):
    with database.transaction() as session:
        alice, mails = _alice_bob_and_their_mails(session)
        alice.time_zone = "Europe/Paris"
        assert [m.zone for m in in_their_words(session, mails)] == ["Europe/Paris", "Europe/Paris", None, None]


def test_a_language_nobody_speaks_falls_back_to_the_clubs():
    templates = Templates(default_language="fr")
    assert templates.speaking(None).globals["language"] == "fr"
    assert templates.speaking("klingon").globals["language"] == "fr"
    assert templates.speaking("en").globals["language"] == "en"
    assert templates.speaking("fr") is templates.speaking("fr")  # made once


def _request(query: str = "", cookie: str | None = None, accept: str | None = None) -> Request:
    headers = []
    if cookie is not None:
        headers.append((b"cookie", f"{LANGUAGE_COOKIE}={cookie}".encode("latin-1")))
    if accept is not None:
        headers.append((b"accept-language", accept.encode("latin-1")))
    return Request({"type": "http", "method": "GET", "path": "/", "query_string": query.encode(), "headers": headers})


def test_a_page_follows_the_switch_then_the_remembered_choice_then_the_browser_then_the_club():
    assert page_language(_request("lang=fr", cookie="en", accept="en"), "en") == ("fr", True)
    assert page_language(_request(cookie="fr", accept="en-GB"), "en") == ("fr", False)
    assert page_language(_request(accept="fr-CA,en;q=0.5"), "en") == ("fr", False)
    assert page_language(_request(accept="de"), "fr") == ("fr", False)
    assert page_language(_request(), "en") == ("en", False)


@given(
    query=st.text(max_size=80),
    cookie=st.text(alphabet=st.characters(max_codepoint=255), max_size=80),
    accept=st.text(alphabet=st.characters(max_codepoint=255), max_size=200),
)
def test_whatever_a_visitor_sends_names_one_of_our_languages(query, cookie, accept):
    from urllib.parse import quote

    language, _ = page_language(
        _request(
            "lang=" + quote(query), cookie=cookie.replace(";", "").replace("\r", "").replace("\n", ""), accept=accept
        ),
        "en",
    )
    assert language in languages.LANGUAGES
