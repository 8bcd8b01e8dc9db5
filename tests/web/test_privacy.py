"""Nothing private leaks and nothing hostile runs: escaping, secrets, comments, addresses.

Userids are restricted by the command grammar, so the hostile ones here are
written straight into the database, as a bug or a future command might.
"""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest
from sqlalchemy import select, update

import pbm.games
from pbm.facts import Fact
from pbm.store.models import Board, MoveRecord, Player, PlayerAddress
from tests.conftest import ON_SQLITE_ONLY

pytestmark = ON_SQLITE_ONLY  # what pages show and escape

HOSTILE = '<script>alert("x")</script>'
COMMENT = "<img src=x onerror=alert(1)> meet me at the usual place, my number is 555-0199"


def every_address(client, database) -> list[str]:
    """Every page and API answer there is for the stored games and players."""
    urls = ["/", "/api/games"]
    for engine in pbm.games.all_games():
        name = engine.name
        urls += [f"/{name}", f"/{name}?status=all", f"/api/{name}?status=all", f"/{name}/standings"]
        urls += [f"/api/{name}/standings", f"/{name}/rules"]
    with database.reading() as session:
        for game_type, board in session.execute(select(Board.game_type, Board.board)):
            urls += [f"/{game_type}/{board}", f"/api/{game_type}/{board}"]
        for userid in session.scalars(select(Player.userid)):
            urls += [f"/players/{quote(userid, safe='')}", f"/api/players/{quote(userid, safe='')}"]
    return urls


def crawl(client, database) -> dict[str, str]:
    pages = {}
    for url in every_address(client, database):
        answer = client.get(url)
        assert answer.status_code == 200, url
        pages[url] = answer.text
    return pages


@pytest.fixture
def hostile(club):
    """alice against a player whose userid is a script, a finished game, a comment sent along a move."""
    club.signup("alice", "bob")
    club.challenge("cephalopod", "alice", "bob")
    club.move("cephalopod", 101, "alice", "c3", comment=COMMENT)
    club.challenge("cephalopod", "bob", "alice")
    club.play_out("cephalopod", 102)
    with club.database.transaction() as session:
        session.execute(update(Player).where(Player.userid == "bob").values(userid=HOSTILE))
    return club


def test_a_hostile_userid_is_escaped_on_every_page(client, hostile, database):
    for url, text in crawl(client, database).items():
        if url.startswith("/api/"):
            continue
        assert HOSTILE not in text, url
        assert "<script>alert" not in text, url
    page = client.get("/cephalopod/101").text
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in page


def test_a_hostile_userid_is_plain_data_in_the_api(client, hostile):
    answer = client.get("/api/cephalopod/101")
    assert answer.headers["content-type"] == "application/json"
    assert [p["userid"] for p in answer.json()["players"]] == ["alice", HOSTILE]


def test_a_hostile_userid_gets_a_working_player_page(client, hostile):
    page = client.get("/players/" + quote(HOSTILE, safe=""))
    assert page.status_code == 200
    assert "&lt;script&gt;" in page.text


def test_comments_players_send_each_other_appear_on_no_page_and_in_no_answer(client, hostile, database):
    with database.reading() as session:
        assert session.scalar(select(MoveRecord.comment).where(MoveRecord.notation == "c3")) == COMMENT
    for url, text in crawl(client, database).items():
        assert "555-0199" not in text, url
        assert "onerror" not in text, url


def test_no_address_or_password_hash_appears_anywhere(client, hostile, database):
    with database.reading() as session:
        hashes = list(session.scalars(select(Player.password_hash)))
        addresses = list(session.scalars(select(PlayerAddress.address)))
    assert hashes and addresses
    for url, text in crawl(client, database).items():
        for secret in hashes + addresses + ["@example.org"]:
            assert secret not in text, (url, secret)


def test_the_dice_seed_stays_hidden_while_the_game_is_played(client, club, database):
    club.signup("alice", "bob")
    club.challenge("dodeca", "alice", "bob")
    club.play("dodeca", 101, 6)
    seed = club.game("dodeca", 101).secret
    assert seed
    pages = crawl(client, database)
    for url, text in pages.items():
        for form in (seed.hex(), seed.hex().upper(), json.dumps(list(seed))[1:-1]):
            assert form not in text, url
    assert "Dice commitment: SHA-256 of the secret dice seed is" in pages["/dodeca/101"]
    assert "Dice seed (revealed)" not in pages["/dodeca/101"]


def test_the_dice_seed_is_revealed_once_the_game_is_over(client, club):
    club.signup("alice", "bob")
    club.challenge("dodeca", "alice", "bob")
    club.play("dodeca", 101, 4)
    club.resign("dodeca", 101, "bob")
    seed = club.game("dodeca", 101).secret.hex()
    assert f"Dice seed (revealed): {seed}" in client.get("/dodeca/101").text
    assert f"Dice seed (revealed): {seed}" in client.get("/api/dodeca/101").json()["notes"]


def test_list_queries_never_read_the_secret(database, club):
    from pbm.store import board_lists

    club.signup("alice", "bob")
    club.challenge("dodeca", "alice", "bob")
    with database.reading() as session:
        [game] = board_lists.latest_games(session, ["dodeca"], "active", limit=5)["dodeca"]
        assert "secret" not in game.__dict__ and "state" not in game.__dict__


def test_every_answer_forbids_scripts_from_elsewhere_and_inline(client):
    for url in ("/", "/api/games", "/chess", "/static/site.css"):
        policy = client.get(url).headers["content-security-policy"]
        assert "script-src 'self'" in policy and "default-src 'self'" in policy
        assert client.get(url).headers["x-content-type-options"] == "nosniff"


def test_pages_carry_no_inline_script_or_style(client, hostile):
    for url in ("/", "/cephalopod/101", "/players/alice"):
        page = client.get(url).text
        assert "<script>" not in page and " style=" not in page and "<style" not in page


def test_a_hostile_game_row_cannot_break_out_of_the_status_text(client, club, database):
    club.signup("alice", "bob")
    club.challenge("cubeo", "alice", "bob")
    club.play_out("cubeo", 101)
    with database.transaction() as session:
        hostile = Fact("unconverted-words", text="</p><script>alert(2)</script>")
        session.execute(update(Board).values(end_fact=hostile.to_json()))
    for url in ("/cubeo/101", "/cubeo?status=finished", "/players/alice"):
        assert "<script>alert(2)" not in client.get(url).text
