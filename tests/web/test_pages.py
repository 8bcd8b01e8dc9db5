"""The HTML pages, route by route, on games made as mail makes them (SQLite and PostgreSQL)."""

from __future__ import annotations

import html
import re
from html import unescape

import pytest

import pbm.bots
import pbm.games
from pbm.views.ladders import WIDE_ELO
from pbm.web.app import create_app
from pbm.words.templating import Templates
from tests.support import end_words
from tests.web.conftest import TestClient


def text_of(page: str) -> str:
    """The page's words without tags, white space collapsed (what a reader sees)."""
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", page))).strip()


@pytest.fixture
def played(club):
    club.signup("alice", "bob", "carol")
    club.challenge("cephalopod", "alice", "bob")
    club.play("cephalopod", 101, 4)
    club.challenge("dodeca", "bob", "carol")
    club.play("dodeca", 101, 3)
    club.challenge("cubeo", "carol", "alice")
    club.play("cubeo", 101, 5)
    return club


# -- the front page -----------------------------------------------------------


def test_front_page_lists_each_game_type_with_its_designer(client):
    page = client.get("/")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    for engine in pbm.games.all_games():
        assert f'<a href="/{engine.name}">{engine.title}</a></h2>' in page.text
    assert "A game by Mark Steere" in page.text
    assert "From the Warpspawn games pages" in page.text


def test_front_page_shows_a_current_game_with_players_moves_and_whose_turn(client, played):
    row = re.search(r"<tr>\s*<th scope=\"row\"><a href=\"/cephalopod/101\">.*?</tr>", client.get("/").text, re.S)
    assert row is not None
    words = text_of(row.group(0))
    assert "Cephalopod 101" in words
    assert "alice" in words and "bob" in words
    assert re.search(r'<td class="num">4</td>', row.group(0)), "the number of moves"
    assert "alice to move" in words


def test_front_page_says_how_to_play_by_mail_and_where_to_write(client):
    section = re.search(r'<section class="how-to-play".*?</section>', client.get("/").text, re.S)
    assert section is not None
    words = text_of(section.group(0))
    assert "How to play by mail Write to pbm@games.test" in words
    assert '<a href="mailto:pbm@games.test">' in section.group(0)
    assert "signup YOURID PASSWORD" in words
    assert "challenge YOURID THEIRID" in words
    assert "reply to your latest board mail with the move on the first line" in words


def test_game_page_tells_a_player_how_to_move_by_mail(client, played):
    words = text_of(client.get("/cephalopod/101").text)
    assert "or write cephalopod move 101 USERID PASSWORD MOVE to pbm@games.test" in words


def test_pages_name_the_administrators_address_when_the_server_has_one(database, changes):
    app = create_app(database, Templates(admin_contact="ops@games.test"), changes, address="pbm@games.test")
    with TestClient(app) as client:
        words = text_of(client.get("/").text)
    assert "About the server itself, write to its administrator at ops@games.test" in words


def test_front_page_leaves_out_games_that_are_over(client, club):
    club.signup("alice", "bob")
    club.challenge("cephalopod", "alice", "bob")
    club.play_out("cephalopod", 101)
    club.challenge("cephalopod", "bob", "alice")
    page = client.get("/").text
    assert 'href="/cephalopod/102"' in page
    assert 'href="/cephalopod/101"' not in page
    assert "1 active, 1 over" in page


def test_front_page_says_when_a_type_has_no_game(client):
    assert "No Cubeo game is being played right now" in client.get("/").text


def test_front_page_shows_the_most_recently_active_games_first(client, club):
    club.signup("alice", "bob")
    for _ in range(3):
        club.challenge("cephalopod", "alice", "bob")
    club.move("cephalopod", 102, "alice", "c3")
    boards = re.findall(r'href="/cephalopod/(\d+)"', client.get("/").text)
    assert boards == ["102", "103", "101"]


# -- a type's boards --------------------------------------------------------------


def test_type_page_lists_active_boards_highest_first(client, played):
    played.challenge("cephalopod", "carol", "bob")
    page = client.get("/cephalopod")
    assert page.status_code == 200
    assert re.findall(r'href="/cephalopod/(\d+)"', page.text) == ["102", "101"]
    assert "2 active games" in text_of(page.text)


def test_type_page_filters_finished_games(client, club):
    club.signup("alice", "bob")
    club.challenge("cephalopod", "alice", "bob")
    club.play_out("cephalopod", 101)
    club.challenge("cephalopod", "alice", "bob")
    assert re.findall(r'href="/cephalopod/(\d+)"', client.get("/cephalopod?status=finished").text) == ["101"]
    assert re.findall(r'href="/cephalopod/(\d+)"', client.get("/cephalopod").text) == ["102"]
    assert re.findall(r'href="/cephalopod/(\d+)"', client.get("/cephalopod?status=all").text) == ["102", "101"]


def test_type_page_filters_cancelled_games(client, club):
    club.signup("alice", "bob")
    club.challenge("dodeca", "alice", "bob")
    club.resign("dodeca", 101, "bob")
    page = client.get("/dodeca?status=cancelled").text
    assert 'href="/dodeca/101"' in page
    assert "cancelled" in text_of(page)


def test_type_page_filters_by_player(client, played):
    played.challenge("cephalopod", "carol", "bob")
    page = client.get("/cephalopod?player=carol").text
    assert re.findall(r'href="/cephalopod/(\d+)"', page) == ["102"]
    assert "1 active game with carol" in text_of(page)


def test_type_page_player_filter_ignores_case(client, played):
    assert re.findall(r'href="/cephalopod/(\d+)"', client.get("/cephalopod?player=ALICE").text) == ["101"]


def test_type_page_marks_the_chosen_filter_for_assistive_technology(client):
    page = client.get("/cubeo?status=finished").text
    assert '<a href="/cubeo?status=finished" aria-current="page">Finished</a>' in page


def test_type_page_pages_through_boards_by_number(client, club, monkeypatch):
    from pbm.web.reads import Reads

    monkeypatch.setattr(Reads, "page_size", 2)
    club.signup("alice", "bob")
    for _ in range(5):
        club.challenge("cubeo", "alice", "bob")
    first = client.get("/cubeo").text
    assert re.findall(r'href="/cubeo/(\d+)"', first) == ["105", "104"]
    older = re.search(r'href="(/cubeo\?before=\d+)" rel="next"', first).group(1)
    second = client.get(older).text
    assert re.findall(r'href="/cubeo/(\d+)"', second) == ["103", "102"]
    newer = re.search(r'href="(/cubeo\?after=\d+)" rel="prev"', second).group(1)
    assert re.findall(r'href="/cubeo/(\d+)"', client.get(newer).text) == ["105", "104"]
    last = client.get(re.search(r'href="(/cubeo\?before=\d+)" rel="next"', second).group(1)).text
    assert re.findall(r'href="/cubeo/(\d+)"', last) == ["101"]
    assert 'rel="next"' not in last


def test_type_page_refuses_an_unknown_filter(client):
    page = client.get("/cephalopod?status=secret")
    assert page.status_code == 400
    assert "&#39;status&#39; must be one of active, finished, cancelled, all" in page.text


def test_type_page_refuses_a_board_cursor_that_is_not_a_number(client):
    assert client.get("/cephalopod?before=abc").status_code == 400


def test_unknown_game_type_is_not_found(client):
    page = client.get("/chess")
    assert page.status_code == 404
    assert "There is no game called &#39;chess&#39; here." in page.text


def test_filtering_by_an_unknown_player_is_not_found(client):
    assert client.get("/cephalopod?player=nobody").status_code == 404


# -- one game ------------------------------------------------------------------------------


def test_game_page_shows_status_players_and_every_move(client, played):
    page = client.get("/cephalopod/101")
    assert page.status_code == 200
    words = text_of(page.text)
    assert "Cephalopod board 101" in words
    assert "It is alice's turn (Paren)." in words
    assert "Paren alice to move" in words
    assert "Angle bob" in words
    game = played.game("cephalopod", 101)
    with played.database.reading() as session:
        from pbm.store.boards import moves_of

        notations = [m.notation for m in moves_of(session, game)]
    assert re.findall(r"<th scope=\"row\"><code>([^<]*)</code></th>", page.text) == notations[::-1]


def test_game_page_draws_the_board_as_a_grid_with_dice_and_words(client, club):
    club.signup("alice", "bob")
    club.challenge("cephalopod", "alice", "bob")
    club.move("cephalopod", 101, "alice", "c3")
    page = client.get("/cephalopod/101").text
    assert page.count('<td class="cell') == 25
    cell = re.search(r'<td class="cell">(.*?)</td>', page, re.S).group(1)
    assert 'class="die die-plain seat-0"' in cell
    assert '<span class="pips face-1" aria-hidden="true"><i></i></span>' in cell
    assert '<span class="sr-only">Paren (alice) showing 1</span>' in cell
    assert '<span class="sr-only">c4 empty</span>' in page


def test_game_page_shows_the_ascii_board_of_the_mails(client, club):
    club.signup("alice", "bob")
    club.challenge("cephalopod", "alice", "bob")
    club.move("cephalopod", 101, "alice", "c3")
    engine = pbm.games.get("cephalopod")
    board = engine.render(engine.play(engine.new(players=2), "c3"))
    assert f"<pre>{html.escape(board)}</pre>" in client.get("/cephalopod/101").text


def test_dodeca_page_names_each_die_type_and_the_dice_commitment(client, played):
    page = client.get("/dodeca/101").text
    assert re.search(r'class="die die-(tetra|cube|octo|dodeca) seat-[01]"', page)
    assert "Tetra (d4)" in page and "Cube (d6)" in page and "Octo (d8)" in page and "Dodeca (d10)" in page
    assert "Dice commitment: SHA-256 of the secret dice seed is" in page


def test_cubeo_page_labels_the_grid_with_absolute_coordinates(client, club):
    club.signup("alice", "bob")
    club.challenge("cubeo", "alice", "bob")
    club.move("cubeo", 101, "alice", "0,0->1,1")
    page = client.get("/cubeo/101").text
    columns = re.search(r"<thead>\s*<tr><td></td>(.*?)</tr>", page, re.S).group(1)
    assert re.findall(r'<th scope="col">(-?\d+)</th>', columns) == ["0", "1", "2"]
    assert re.findall(r'<th scope="row">(-?\d+)</th>', page) == ["2", "1", "0", "-1"]
    assert '<span class="sr-only">1,1 empty</span>' not in page
    assert '<span class="sr-only">0,0 empty</span>' in page


def test_a_finished_dodeca_page_offers_its_dice_record(client, club):
    club.signup("alice", "bob")
    club.challenge("dodeca", "alice", "bob")
    club.play("dodeca", 101, 2)
    assert "/api/dodeca/101/dice" not in client.get("/dodeca/101").text
    club.resign("dodeca", 101, "bob")
    assert '<a href="/api/dodeca/101/dice" download="dodeca-101-dice.json">' in client.get("/dodeca/101").text


def test_finished_game_page_gives_the_result(client, club):
    club.signup("alice", "bob")
    club.challenge("cephalopod", "alice", "bob")
    club.play_out("cephalopod", 101)
    game = club.game("cephalopod", 101)
    words = text_of(client.get("/cephalopod/101").text)
    winner = game.seats[game.winners[0]].player.userid
    assert f"{winner} {end_words(game)}." in words
    assert "Cells at the end: " in words


def test_game_page_puts_an_elimination_under_the_move_that_caused_it(client, club):
    club.signup("alice", "bob", "carol")
    club.challenge("cephalopod", "alice", "bob", "carol", options={"size": 3})
    club.play("cephalopod", 101, 38, seed=0)  # the 38th move of this game puts alice out
    with club.database.reading() as session:
        from pbm.store.boards import moves_of

        (cause,) = [m.number for m in moves_of(session, club.game("cephalopod", 101)) if m.report.get("eliminated")]
    club.play("cephalopod", 101, 2, seed=1)
    rows = re.findall(r"<tr( class=\"elimination\")?>(.*?)</tr>", client.get("/cephalopod/101").text, re.S)
    (at,) = [i for i, (elimination, _) in enumerate(rows) if elimination]
    assert "alice is out" in text_of(rows[at][1])
    number = rf'<td class="num"><a class="ply-link" href="[^"]*">{cause}</a></td>'
    assert re.search(number, rows[at - 1][1]), "the row above is the move that caused it"


def test_unknown_board_is_not_found(client, played):
    page = client.get("/cephalopod/999")
    assert page.status_code == 404
    assert "There is no Cephalopod board 999." in page.text


def test_board_number_beyond_what_is_stored_is_not_found(client):
    assert client.get("/cephalopod/99999999999999999999").status_code == 404


def test_board_of_an_unknown_game_is_not_found(client):
    assert client.get("/chess/101").status_code == 404


def test_any_other_address_is_not_found(client):
    page = client.get("/cephalopod/101/moves")
    assert page.status_code == 404
    assert "There is no page at this address." in page.text


# -- players, standings, rules ----------------------------------------------------------------------


def test_player_page_lists_current_games_across_types(client, played):
    page = client.get("/players/alice")
    assert page.status_code == 200
    assert set(re.findall(r'href="/(\w+/\d+)"', page.text)) == {"cephalopod/101", "cubeo/101"}


def test_player_page_shows_ratings_and_finished_games(client, club):
    club.signup("alice", "bob")
    club.challenge("cephalopod", "alice", "bob")
    club.play_out("cephalopod", 101)
    page = client.get("/players/bob").text
    ratings = re.search(r'<table class="ratings">.*?</table>', page, re.S).group(0)
    assert re.search(r"Cephalopod</a></th>\s*<td class=\"num\">(1616|1584)<abbr", ratings)
    finished = page.split('id="finished-heading"')[1]
    assert 'href="/cephalopod/101"' in finished


def test_player_page_says_when_mail_to_the_player_bounces_without_the_address(client, club):
    from datetime import datetime, timezone

    from pbm.store import bounces
    from pbm.store.models import OutboxMessage

    club.signup("alice")
    page = client.get("/players/alice").text
    assert "bounced" not in page
    with club.database.transaction() as session:
        mail = OutboxMessage(recipient="alice@example.org", message_id="<b@x>", raw=b"", player_id=None)
        session.add(mail)
        session.flush()
        stopped_at = datetime(2026, 11, 22, 12, 0, tzinfo=timezone.utc)
        bounces.record(session, mail, permanent=True, status="5.1.1", now=stopped_at)
    page = client.get("/players/alice").text
    assert "Mail to one of alice&#39;s addresses has bounced since 2026-11-22 12:00 UTC" in page
    assert "alice@example.org" not in page


def test_player_page_finds_the_player_whatever_the_case(client, played):
    page = client.get("/players/Alice")
    assert page.status_code == 200
    assert "<h1>alice</h1>" in page.text
    assert 'href="/cephalopod/101"' in page.text


def test_unknown_player_is_not_found(client):
    page = client.get("/players/nobody")
    assert page.status_code == 404
    assert "There is no player &#39;nobody&#39;." in page.text


def test_standings_rank_players_by_rating(client, club):
    club.signup("alice", "bob")
    club.challenge("cephalopod", "alice", "bob")
    club.play_out("cephalopod", 101)
    game = club.game("cephalopod", 101)
    winner = game.seats[game.winners[0]].player.userid
    loser = ({"alice", "bob"} - {winner}).pop()
    page = client.get("/cephalopod/standings")
    assert page.status_code == 200
    assert re.findall(r'<a href="/players/(\w+)">', page.text.split("<tbody>")[1]) == [winner, loser]


def test_standings_say_when_nobody_is_rated(client):
    assert "No rated Dodeca game has finished yet." in client.get("/dodeca/standings").text


def test_standings_of_an_unknown_game_are_not_found(client):
    assert client.get("/chess/standings").status_code == 404


@pytest.mark.parametrize("engine", pbm.games.all_games(), ids=lambda e: e.name)
def test_rules_page_gives_the_help_text_with_the_designers_attribution(client, engine):
    page = client.get(f"/{engine.name}/rules")
    assert page.status_code == 200
    lines = engine.help_text.splitlines()
    assert f'<p class="byline attribution">{engine.attribution} ·' in page.text
    assert text_of(html.escape(lines[3])) in text_of(page.text)
    assert f"{engine.name} move BOARD USERID PASSWORD MOVE[#N]" in page.text


def test_rules_page_escapes_the_help_texts_angle_brackets(client):
    page = client.get("/cephalopod/rules").text
    assert "&lt;n&gt;" in page
    assert "<n>" not in page


def test_rules_of_an_unknown_game_are_not_found(client):
    assert client.get("/chess/rules").status_code == 404


# -- the bots -------------------------------------------------------------------------------------


def bot_rows(page: str, game: str) -> list[list[str]]:
    """The cells of each row of `game`'s table on the bots page, as a reader sees them."""
    part = re.search(rf'<section class="bot-ladder" aria-labelledby="bots-{game}">.*?</section>', page, re.S)
    assert part is not None, game
    rows = re.findall(r"<tr>\s*<th scope=\"row\">.*?</tr>", part.group(0), re.S)
    return [[text_of(cell) for cell in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)] for row in rows]


@pytest.mark.parametrize("game", ["cephalopod", "cubeo", "dodeca"])
def test_bots_page_shows_each_level_with_the_strength_the_ladder_measured(client, game):
    page = client.get("/bots").text
    measured = pbm.bots.strength(game)
    assert measured is not None
    rows = bot_rows(page, game)
    assert [row[:2] for row in rows] == [[f"bot{level}", str(level)] for level in pbm.bots.levels(game)]
    for row, level in zip(rows, measured["levels"][1:]):
        elo, interval, games, seconds = row[2:]
        assert [elo, interval, games] == [str(level["elo"]), "{} to {}".format(*level["elo_95"]), str(level["games"])]
        if level["seconds_per_move"] < 0.01:
            assert seconds == "< 0.01"
        else:
            assert float(seconds) == pytest.approx(level["seconds_per_move"], rel=0.05)
    assert f"over {measured['games']} games" in text_of(page)


def test_bots_page_says_how_to_challenge_a_bot_and_how_far_the_measure_goes(client):
    words = text_of(client.get("/bots").text)
    assert "Challenge a bot by mail as you would anyone: cephalopod challenge YOURID bot3" in words
    assert "Elo is counted from the random player at 0" in words
    wide = [
        g
        for g in ("cephalopod", "cubeo", "dodeca")
        if any(row["elo_95"][1] - row["elo_95"][0] > WIDE_ELO for row in pbm.bots.strength(g)["levels"])
    ]
    assert words.count("too few to rate the levels closely, so the intervals are wide") == len(wide)


def test_every_page_leads_to_the_bots_page(client):
    page = client.get("/").text
    assert '<li><a href="/bots">Bots</a></li>' in page, "the site's navigation"
    assert "Nobody to play with? Challenge a bot, at any hour: cephalopod challenge YOURID bot1" in text_of(page)
    assert '<a href="/bots">Bots</a>' in client.get("/cubeo/rules").text


# -- frame ----------------------------------------------------------------------------------------


def test_pages_link_their_own_stylesheet_and_script(client):
    page = client.get("/").text
    assert '<link rel="stylesheet" href="/static/site.css">' in page
    assert '<script src="/static/live.js" defer></script>' in page
    assert client.get("/static/site.css").headers["content-type"].startswith("text/css")
    assert "EventSource" in client.get("/static/live.js").text


def test_the_site_has_an_icon_where_browsers_ask_for_it(client):
    icon = client.get("/favicon.ico")
    assert icon.status_code == 200
    assert icon.headers["content-type"].startswith("image/svg+xml") and icon.text.startswith("<svg")
    assert "max-age" in icon.headers["cache-control"]


def test_pages_load_nothing_from_other_sites(client, played):
    for url in ("/", "/cephalopod", "/dodeca/101", "/players/alice", "/cubeo/rules"):
        page = client.get(url).text
        assert not re.search(r'(src|href)="(https?:)?//', page), url


def test_live_pages_name_their_event_stream(client, played):
    page = client.get("/cephalopod/101").text
    main = re.search(r'<main id="main" data-live-events="([^"]*)" data-live-after="([^"]*)">', page)
    assert main is not None
    assert main.group(1) == "/api/events?game=cephalopod&amp;board=101"
    assert re.fullmatch(r"[0-9a-f]{8}-\d+", main.group(2))


def test_health_check_answers_ok_with_queue_counts(client):
    health = client.get("/healthz")
    assert health.status_code == 200
    assert health.json()["status"] == "ok"
    assert "inbound_pending" in health.json()
