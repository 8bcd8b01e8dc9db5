"""The web in French: a browser that prefers French, or a visitor who picks it, reads every page
in French; English stays the default, and whatever a visitor sends changes nothing but the language.

Every page and every error page is read whole, as a reader reads it: its own words, the facts it
says (how a game ended, why a forfeit is due), the words engines and clocks give (a game's notes,
its time rules, its options) and the rules text. No English word may be left outside names and
notation (`tests.i18n.english`).
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pbm.bots
from pbm.commands import language as lang
from pbm.i18n import languages
from pbm.store.models import utcnow
from pbm.web.app import create_app
from pbm.web.pages import LANGUAGE_COOKIE
from pbm.words.templating import Templates
from tests.conftest import ON_SQLITE_ONLY
from tests.i18n.english import english_words, page_text
from tests.web.conftest import TestClient

pytestmark = ON_SQLITE_ONLY  # the French of pages

FRENCH_BROWSER = {"Accept-Language": "fr-FR,fr;q=0.9,en;q=0.5"}


def english_in(page: str) -> set[str]:
    """The English words of the whole page a reader sees and hears (`tests.i18n.english`)."""
    return set(english_words(page_text(page), PLAYERS))


PLAYERS = {"alice", "bob", "carol", "nobody", "lost"}
"""The club's userids, and what the error pages' URLs ask for (``/players/nobody``, ``?status=lost``), shown back."""


@pytest.fixture
def templates() -> Templates:
    return Templates()


@pytest.fixture
def client(database, changes, templates):
    with TestClient(create_app(database, templates, changes, address="pbm@games.test")) as client:
        yield client


@pytest.fixture
def club_with_everything(club):
    """Games of every type under way, one over (so ratings and standings), one player away."""
    club.signup("alice", "bob", "carol")
    club.challenge("cephalopod", "alice", "bob")
    club.play_out("cephalopod", 101)
    club.challenge("cephalopod", "alice", "bob")
    club.play("cephalopod", 102, 3)
    club.challenge("dodeca", "bob", "carol")
    club.play("dodeca", 101, 3)
    club.challenge("cubeo", "carol", "alice")
    club.play("cubeo", 101, 5)
    return club


PAGES = [
    "/",
    "/cephalopod",
    "/cubeo",
    "/dodeca",
    "/cephalopod/101?ply=3",
    "/cubeo/standings",
    "/players/bob",
    "/cephalopod?status=finished",
    "/cephalopod?status=all&player=alice",
    "/dodeca?status=cancelled",
    "/cephalopod/101",
    "/cephalopod/102",
    "/dodeca/101",
    "/cubeo/101",
    "/players/alice",
    "/players/carol",
    "/cephalopod/standings",
    "/dodeca/standings",
    "/cephalopod/rules",
    "/cubeo/rules",
    "/dodeca/rules",
    "/bots",
    "/help",
    *(f"/help/{topic}" for topic in ("commands", "tutorial", "time", "queue", "ratings", "bots")),
]
ERRORS = {
    "/cephalopod/999": 404,
    "/chess": 404,
    "/players/nobody": 404,
    "/help/nothing": 404,
    "/cephalopod/101/moves": 404,
    "/cephalopod?before=x": 400,
    "/cephalopod?status=lost": 400,  # says which values ?status= takes: active, finished, cancelled, all
    "/cephalopod?before=1&after=2": 400,
}


def test_a_browser_preferring_french_gets_every_page_in_french(client, club_with_everything):
    for url, status in [*((url, 200) for url in PAGES), *ERRORS.items()]:
        answer = client.get(url, headers=FRENCH_BROWSER)
        assert answer.status_code == status, url
        assert '<html lang="fr">' in answer.text, url
        assert answer.headers["content-language"] == "fr", url
        english = english_in(answer.text)
        assert not english, f"{url}: {sorted(english)}"


def test_the_check_finds_english_on_the_english_pages(client, club_with_everything):
    """The word list catches English: every English page has some (or the test above proves nothing)."""
    for url in [*PAGES, *ERRORS]:
        assert english_in(client.get(url).text), url


def test_dates_and_durations_are_french(database, changes, templates, club_with_everything):
    later = lambda: utcnow() + timedelta(hours=2, minutes=5)  # noqa: E731
    with TestClient(create_app(database, templates, changes, now=later)) as client:
        page = client.get("/cephalopod/102", headers=FRENCH_BROWSER).text
    months = "janvier|février|mars|avril|mai|juin|juillet|août|septembre|octobre|novembre|décembre"
    assert re.search(rf"commencée le <time [^>]*>\d{{1,2}} ({months}) \d{{4}} à \d\d:\d\d UTC</time>", page)
    assert not re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d", re.sub(r'datetime="[^"]*"', "", page))
    waiting = r"bob doit jouer depuis 2\sheures 5\sminutes\u202f; sans coup d’ici le"
    assert re.search(waiting, page), re.findall("bob doit jouer[^<]*", page)


def test_the_rules_page_gives_the_french_rules_and_options(client):
    page = client.get("/cephalopod/rules", headers=FRENCH_BROWSER).text
    assert "Cephalopod, un jeu de Mark Steere · de 2 à 6 joueurs" in page
    assert "Placement avec capture" in page and "=====" not in page
    assert "<dd>Des dés à douze faces avec -dice=12\u202f: un groupe" in page
    assert "Dodeca, d’après les pages de jeux Warpspawn" in client.get("/dodeca/rules", headers=FRENCH_BROWSER).text


def test_the_bots_page_gives_the_table_in_french(client):
    page = client.get("/bots", headers=FRENCH_BROWSER).text
    assert "<h1>Robots</h1>" in page
    assert '<th scope="col" class="num">Intervalle à 95\u00a0%</th>' in page
    assert '<th scope="col" class="num">Secondes par coup</th>' in page
    low, high = pbm.bots.strength("cephalopod")["levels"][1]["elo_95"]
    assert f'<td class="num">{low} à {high}</td>' in page
    assert re.search(r'<td class="num">(&lt; )?\d+,\d+</td>', page) and not re.search(
        r'<td class="num">[^<]*\d\.\d', page
    )
    challenge = "<code>cephalopod challenge IDENTIFIANT bot3</code>"
    assert f"Défiez un robot par courriel comme n’importe quel joueur\u202f: {challenge}" in page
    assert re.search(r"Mesuré le <time [^>]*>\d+ \w+ \d{4}</time> sur \d+ parties\u202f: trop peu", page)


def test_error_pages_say_what_is_missing_in_french(client, club_with_everything):
    page = client.get("/cephalopod/999", headers=FRENCH_BROWSER).text
    assert "<h1>Page introuvable</h1>" in page
    assert "Il n’y a pas de partie 999 de Cephalopod." in page
    page = client.get("/cephalopod?before=1&after=2", headers=FRENCH_BROWSER).text
    assert "<h1>Requête incorrecte</h1>" in page
    assert "Donnez «\u202fbefore\u202f» ou «\u202fafter\u202f», pas les deux." in page


def test_the_live_scripts_sentences_come_from_the_page_in_its_language(client, club_with_everything):
    page = client.get("/cephalopod/102", headers=FRENCH_BROWSER).text
    assert 'data-live-updated="Mis à jour à {time}."' in page
    assert 'data-live-failed="Impossible d’actualiser la page\u202f; nouvel essai au prochain coup."' in page
    english = client.get("/cephalopod/102").text
    assert 'data-live-updated="Updated at {time}."' in english


def test_english_stays_the_default(client, club_with_everything):
    for headers in [{}, {"Accept-Language": "de-DE, es;q=0.8"}, {"Accept-Language": "*"}]:
        answer = client.get("/", headers=headers)
        assert '<html lang="en">' in answer.text
        assert "<h1>Current games</h1>" in answer.text
        assert "set-cookie" not in answer.headers


def test_the_club_may_speak_french_by_default(database, changes):
    with TestClient(create_app(database, Templates(default_language="fr"), changes)) as client:
        assert "<h1>Parties en cours</h1>" in client.get("/").text
        assert "<h1>Current games</h1>" in client.get("/", headers={"Accept-Language": "en-GB"}).text


def test_pages_say_they_vary_with_the_language(client, club_with_everything):
    for url in ["/", "/cephalopod/102", "/chess", "/players/alice/deadlines.ics"]:
        vary = client.get(url).headers["vary"]
        assert "Accept-Language" in vary and "Cookie" in vary, url


def test_the_switch_chooses_french_and_a_cookie_remembers_it(client, club_with_everything):
    english = client.get("/cephalopod/102")
    assert '<a href="/cephalopod/102?lang=fr" lang="fr" hreflang="fr">Français</a>' in english.text

    chosen = client.get("/cephalopod/102?lang=fr")
    assert '<html lang="fr">' in chosen.text
    assert chosen.cookies[LANGUAGE_COOKIE] == "fr"
    assert '<html lang="fr">' in client.get("/cephalopod").text  # no parameter: the cookie says French
    assert '<html lang="fr">' in client.get("/", headers={"Accept-Language": "en"}).text  # a choice beats the browser

    back = client.get("/?lang=en")
    assert '<html lang="en">' in back.text and back.cookies[LANGUAGE_COOKIE] == "en"
    assert '<html lang="en">' in client.get("/", headers=FRENCH_BROWSER).text


def test_the_switch_keeps_the_pages_query(client, club_with_everything):
    page = client.get("/cephalopod?status=all&player=alice").text
    assert 'href="/cephalopod?status=all&amp;player=alice&amp;lang=fr"' in page


def test_the_deadlines_calendar_follows_the_language(client, club_with_everything):
    french = client.get("/players/alice/deadlines.ics?lang=fr").text
    english = client.get("/players/alice/deadlines.ics").text
    assert "Jouer dans la partie 102 de Cephalopod" in french or "Jouer dans la partie 101 de Cubeo" in french
    assert "Move in " in english and "Jouer" not in english
    browser = client.get("/players/alice/deadlines.ics", headers=FRENCH_BROWSER)
    assert browser.headers["content-language"] == "fr"
    # The player's page links the calendar in the page's language, for a calendar app that sends none.
    assert "/players/alice/deadlines.ics?lang=fr" in client.get("/players/alice", headers=FRENCH_BROWSER).text
    assert "/players/alice/deadlines.ics?lang=en" in client.get("/players/alice").text


def test_a_players_calendar_is_in_the_players_language_unless_asked_otherwise(client, club_with_everything):
    club_with_everything.run(lang.ChooseLanguage("alice", "alice-pw", "fr"), "alice")
    assert "Jouer dans la partie" in client.get("/players/alice/deadlines.ics").text
    assert "Jouer dans la partie" in client.get("/players/alice/deadlines.ics", headers={"Accept-Language": "en"}).text
    assert "Move in " in client.get("/players/alice/deadlines.ics?lang=en").text


VISITOR_TEXT = st.text(st.characters(min_codepoint=32, max_codepoint=126, exclude_characters=';\\",\x7f'), max_size=40)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    lang=st.text(max_size=40) | st.sampled_from(["fr", "EN", "Français", "fr-FR", "klingon"]),
    cookie=VISITOR_TEXT | st.sampled_from(["fr", "en", "francais"]),
    accept=VISITOR_TEXT | st.sampled_from(["fr", "fr;q=0", "de, fr;q=nan", "fr;q=1e9", "*"]),
)
def test_whatever_a_visitor_sends_changes_nothing_but_the_language(client, lang, cookie, accept):
    """A hostile ``?lang=``, cookie or ``Accept-Language`` yields the page as a clean request for
    one of our languages gets it, and never comes back in a header."""
    client.cookies.clear()
    answer = client.get(
        "/cephalopod/rules",
        params={"lang": lang},
        headers={"Accept-Language": accept, "Cookie": f"{LANGUAGE_COOKIE}={cookie}"},
    )
    assert answer.status_code == 200
    language = answer.headers["content-language"]
    assert language in languages.LANGUAGES
    client.cookies.clear()
    clean = client.get("/cephalopod/rules", params={"lang": language})
    assert answer.text == clean.text
    cookie_set = answer.headers.get("set-cookie")
    assert cookie_set is None or cookie_set.startswith(f"{LANGUAGE_COOKIE}={language};")
    for value in (lang, cookie, accept):
        if len(value) > 3 and value.lower() not in {"fr", "en", "français", "francais"}:
            assert value not in answer.headers.get("set-cookie", "")
