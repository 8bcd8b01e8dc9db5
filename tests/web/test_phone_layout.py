"""The front page and a player's page on a phone held upright (390 px), in both languages, in a
real browser: no table wider than its box (each game a card, its values under their column's
names), the page never scrolls sideways, and the language switch stands in the footer's column.

Headless Chromium from the system, as tests/web/test_browser.py drives it. Screenshots at 1280 and
390 px go to ``test-artifacts/`` for people to look at.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pbm.resources import resource_dir
from tests.support import mail
from tests.web.test_browser import ARTIFACTS, CHROMIUM, LAUNCH_ARGS
from tests.web.test_french import club_with_everything  # noqa: F401  (games of every kind, one over: ratings)

sync_api = pytest.importorskip("playwright.sync_api", reason="the browser tests need the playwright package")

pytestmark = [
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Chromium at /usr/bin/chromium (apt-get install chromium)"),
    pytest.mark.parametrize("database_url", ["sqlite"], indirect=True),
]

PLAYERS = ("alice", "bob", "carol")
PAGES = {"front": "/", "player": "/players/alice"}
WIDER_THAN_ITS_BOX = """() => [...document.querySelectorAll('.table-wrap, main, .footer-column')]
    .filter(box => box.scrollWidth > box.clientWidth + 1)
    .map(box => `${box.className || box.tagName}: ${box.scrollWidth} in ${box.clientWidth}`)"""
SWITCH_IN_COLUMN = """() => {
    const text = document.querySelector('.site-footer p');
    const box = text.getBoundingClientRect(), style = getComputedStyle(text);
    const left = box.left + parseFloat(style.paddingLeft), right = box.right - parseFloat(style.paddingRight);
    const nav = document.querySelector('.site-footer nav.languages').getBoundingClientRect();
    return nav.left >= left - 1 && nav.right <= right + 1;
}"""
"""The language switch starts where the footer's text starts, and ends within its column."""


@pytest.fixture(scope="module")
def browser() -> Iterator:
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def club_online(server, sink):
    """Three players by mail, with games of all three kinds under way and one over."""
    for userid in PLAYERS:
        address = f"{userid}@example.org"
        server.send(mail(address, f"signup {userid} {userid}-pw"), address)
    sink.wait(len(PLAYERS))
    for line in ["cephalopod challenge alice bob carol", "cubeo challenge alice bob", "dodeca challenge alice carol"]:
        server.send(mail("alice@example.org", line), "alice@example.org")
    sink.wait(7)
    server.send(mail("alice@example.org", "cephalopod move 101 alice alice-pw c3"), "alice@example.org")
    sink.wait(3)
    return f"http://127.0.0.1:{server.http_port}"


@pytest.mark.parametrize("language", ["fr", "en"])
def test_tables_fit_a_phone_and_the_switch_stays_in_the_column(browser, club_online, language):
    for width in (1280, 390):
        context = browser.new_context(viewport={"width": width, "height": 900}, locale=language)
        page = context.new_page()
        for name, url in PAGES.items():
            page.goto(f"{club_online}{url}?lang={language}")
            ARTIFACTS.mkdir(exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / f"{name}-{language}-{width}.png"), full_page=True)
            wide = page.evaluate(WIDER_THAN_ITS_BOX)
            scrolls = page.evaluate("document.documentElement.scrollWidth") > width
            assert (wide, scrolls) == ([], False), f"{url} at {width} px"
            assert page.evaluate(SWITCH_IN_COLUMN), f"{url} at {width} px: the language switch left the column"
        if width == 390:
            # Each value under its column's name, in the page's language.
            label = page.evaluate(
                "getComputedStyle(document.querySelector('table.games td[data-label]'), '::before').content"
            )
            assert label.strip('"') in ("Status", "Statut", "Players", "Joueurs", "Moves", "Coups")
        context.close()


@pytest.mark.parametrize("language", ["fr", "en"])
def test_a_players_ratings_and_finished_games_fit_a_phone(browser, client, club_with_everything, language):  # noqa: F811
    """The pages of a club with a game over (ratings, finished games), served in process and shown
    with the site's style sheet at 390 px."""
    style = (resource_dir("templates") / "web" / "static" / "site.css").read_text()
    page = browser.new_page(viewport={"width": 390, "height": 900})
    for url in ["/", "/players/alice", "/players/bob", "/cephalopod?status=all"]:
        html = client.get(url, params={"lang": language}).text
        page.set_content(html.replace('<link rel="stylesheet" href="/static/site.css">', f"<style>{style}</style>"))
        assert page.locator("table.ratings, table.games").count() > 0, url
        wide, width = page.evaluate(WIDER_THAN_ITS_BOX), page.evaluate("document.documentElement.scrollWidth")
        assert (wide, width) == ([], 390), url
    page.close()
