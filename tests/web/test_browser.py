"""A real browser on a real server: a game page shows a move mailed over SMTP without a reload.

Headless Chromium from the system (Debian's ``chromium``), driven by Playwright
without a browser download of its own. Screenshots of the pages go to
``test-artifacts/`` for people to look at.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import mail

sync_api = pytest.importorskip("playwright.sync_api", reason="the browser tests need the playwright package")
expect, sync_playwright = sync_api.expect, sync_api.sync_playwright

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
LAUNCH_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ALICE, BOB = "alice@example.org", "bob@example.net"

pytestmark = [
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Chromium at /usr/bin/chromium (apt-get install chromium)"),
    pytest.mark.parametrize("database_url", ["sqlite"], indirect=True),
]


@pytest.fixture(scope="module")
def browser() -> Iterator:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    yield page
    context.close()


def test_a_game_page_shows_a_mailed_move_without_a_reload(server, sink, page):
    server.send(mail(ALICE, "signup alice alice-pw"), ALICE)
    server.send(mail(BOB, "signup bob bob-pw"), BOB)
    sink.wait(2)
    server.send(mail(ALICE, "cephalopod challenge alice bob"), ALICE)
    sink.wait(2)
    base = f"http://127.0.0.1:{server.http_port}"

    page.goto(f"{base}/cephalopod/101")
    page.wait_for_selector("main[data-live-connected=true]")
    assert page.inner_text("p.summary") == "It is alice's turn (Paren)."
    assert page.locator("table.board .die").count() == 0
    page.evaluate("window.notReloaded = true")

    server.send(mail(ALICE, "cephalopod move 101 alice alice-pw c3"), ALICE)
    expect(page.locator("p.summary")).to_have_text("It is bob's turn (Angle).", timeout=10000)

    assert page.evaluate("window.notReloaded") is True
    assert page.locator("table.board .die").count() == 1
    assert page.locator("table.moves tbody code").all_inner_texts() == ["c3"]
    assert "Paren (alice) showing 1" in page.locator("table.board .die").inner_text()
    expect(page.locator("[role=status]")).to_contain_text("It is bob's turn (Angle). Updated at")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "game-page.png"), full_page=True)


def test_the_front_page_adds_a_new_game_without_a_reload(server, sink, page):
    server.send(mail(ALICE, "signup alice alice-pw"), ALICE)
    server.send(mail(BOB, "signup bob bob-pw"), BOB)
    sink.wait(2)
    base = f"http://127.0.0.1:{server.http_port}"

    page.goto(base + "/")
    page.wait_for_selector("main[data-live-connected=true]")
    assert page.locator("a[href='/dodeca/101']").count() == 0
    page.evaluate("window.notReloaded = true")

    server.send(mail(ALICE, "dodeca challenge alice bob"), ALICE)
    page.wait_for_selector("a[href='/dodeca/101']", timeout=10000)

    assert page.evaluate("window.notReloaded") is True
    section = page.locator("section[aria-labelledby=type-dodeca]").inner_text()
    assert "Dodeca 101" in section and "1 active, 0 over" in section
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "front-page.png"), full_page=True)


def test_a_list_page_waits_for_the_reader_to_leave_the_filter_field(server, sink, page):
    server.send(mail(ALICE, "signup alice alice-pw"), ALICE)
    server.send(mail(BOB, "signup bob bob-pw"), BOB)
    sink.wait(2)
    page.goto(f"http://127.0.0.1:{server.http_port}/cubeo")
    page.wait_for_selector("main[data-live-connected=true]")
    page.locator("#player").press_sequentially("al")

    server.send(mail(ALICE, "cubeo challenge alice bob"), ALICE)
    sink.wait(2)
    page.wait_for_timeout(1500)
    assert page.locator("a[href='/cubeo/101']").count() == 0
    assert page.locator("#player").input_value() == "al"
    assert page.evaluate("document.activeElement.id") == "player"

    page.locator("#player").blur()
    expect(page.locator("a[href='/cubeo/101']")).to_have_count(1, timeout=10000)


def test_the_language_switch_turns_a_game_page_french_and_the_choice_stays(server, sink, page):
    server.send(mail(ALICE, "signup alice alice-pw"), ALICE)
    server.send(mail(BOB, "signup bob bob-pw"), BOB)
    sink.wait(2)
    server.send(mail(ALICE, "cephalopod challenge alice bob"), ALICE)
    sink.wait(2)
    base = f"http://127.0.0.1:{server.http_port}"

    page.goto(f"{base}/cephalopod/101")
    page.get_by_role("link", name="Français").click()
    expect(page.locator("html")).to_have_attribute("lang", "fr")
    assert page.inner_text("p.summary") == "C’est à alice de jouer (Paren)."
    page.wait_for_selector("main[data-live-connected=true]")

    server.send(mail(ALICE, "cephalopod move 101 alice alice-pw c3"), ALICE)
    expect(page.locator("p.summary")).to_have_text("C’est à bob de jouer (Angle).", timeout=10000)
    expect(page.locator("[role=status]")).to_contain_text("C’est à bob de jouer (Angle). Mis à jour à")

    page.goto(f"{base}/")  # no ?lang: the cookie remembers French
    expect(page.locator("h1")).to_have_text("Parties en cours")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "front-page-fr.png"), full_page=True)


def _a_game_of_moves(server, sink, moves: list[str]) -> str:
    """Cephalopod board 101 between alice and bob with `moves` played by mail; its page's URL."""
    server.send(mail(ALICE, "signup alice alice-pw"), ALICE)
    server.send(mail(BOB, "signup bob bob-pw"), BOB)
    sink.wait(2)
    server.send(mail(ALICE, "cephalopod challenge alice bob"), ALICE)
    for number, move in enumerate(moves):
        player, address = ("alice", ALICE) if number % 2 == 0 else ("bob", BOB)
        server.send(mail(address, f"cephalopod move 101 {player} {player}-pw {move}"), address)
    sink.wait(2 + 2 * len(moves))
    return f"http://127.0.0.1:{server.http_port}/cephalopod/101"


def test_stepping_through_a_game_with_the_keys_and_the_move_list(server, sink, page):
    url = _a_game_of_moves(server, sink, ["c3", "b2", "d4", "a1"])
    page.goto(url)
    page.wait_for_selector("main[data-live-connected=true]")

    page.keyboard.press("ArrowLeft")
    page.wait_for_url(url + "?ply=3")
    expect(page.locator("p.summary")).to_have_text("This is the board after move 3.")
    expect(page.locator("p.replay-where")).to_contain_text("The board after move 3 of 4. bob to move.")
    assert page.locator("table.moves tbody code").all_inner_texts() == ["d4", "b2", "c3"]

    page.keyboard.press("Home")
    page.wait_for_url(url + "?ply=0")
    assert page.locator("table.board .die").count() == 0
    page.keyboard.press("ArrowRight")
    page.wait_for_url(url + "?ply=1")
    assert page.locator("table.board .die").count() == 1

    page.keyboard.press("End")
    page.wait_for_url(url)
    page.locator("table.moves a.ply-link", has_text="2").click()
    page.wait_for_url(url + "?ply=2")
    expect(page.locator("tr.current-ply")).to_contain_text("b2")
    page.get_by_role("link", name="Next").click()
    page.wait_for_url(url + "?ply=3")


def test_a_reader_looking_back_is_not_moved_on_by_a_new_move(server, sink, page):
    url = _a_game_of_moves(server, sink, ["c3", "b2"])
    page.goto(url + "?ply=1")
    assert page.locator("main[data-live-events]").count() == 0
    server.send(mail(ALICE, "cephalopod move 101 alice alice-pw d4"), ALICE)
    sink.wait(2)
    page.wait_for_timeout(1500)
    assert page.url == url + "?ply=1"
    expect(page.locator("p.summary")).to_have_text("This is the board after move 1.")
    page.keyboard.press("End")
    page.wait_for_url(url)
    assert page.locator("table.moves tbody code").all_inner_texts() == ["d4", "b2", "c3"]


PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


@pytest.mark.parametrize(("width_name", "viewport"), [("phone", PHONE), ("desktop", DESKTOP)])
def test_every_page_is_readable_without_scrolling_sideways(server, sink, browser, width_name, viewport):
    """At a phone's width (390 px) and a desktop's: no page scrolls sideways, and the replay's
    steps and the move numbers are targets a thumb can hit (44 px)."""
    url = _a_game_of_moves(server, sink, ["c3", "b2", "d4", "a1", "e5", "c1"])
    server.send(mail(ALICE, "dodeca challenge alice bob"), ALICE)
    sink.wait(2)
    base = url.rsplit("/cephalopod", 1)[0]
    context = browser.new_context(viewport=viewport, is_mobile=width_name == "phone", has_touch=width_name == "phone")
    page = context.new_page()
    ARTIFACTS.mkdir(exist_ok=True)
    try:
        for name, path in [
            ("front", "/"),
            ("list", "/cephalopod?status=all"),
            ("game", "/cephalopod/101"),
            ("game-ply-3", "/cephalopod/101?ply=3"),
            ("dodeca", "/dodeca/101"),
            ("standings", "/cephalopod/standings"),
            ("rules", "/dodeca/rules"),
            ("player", "/players/alice"),
        ]:
            page.goto(base + path)
            overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
            assert overflow <= 0, f"{path} scrolls sideways by {overflow} px at {viewport['width']} px"
            page.screenshot(path=str(ARTIFACTS / f"{width_name}-{name}.png"), full_page=True)
            if path.startswith("/cephalopod/101") and width_name == "phone":
                for target in page.locator("nav.replay .replay-step, table.moves a.ply-link").all():
                    box = target.bounding_box()
                    assert box is not None and box["height"] >= 44 and box["width"] >= 44, (path, box)
    finally:
        context.close()
