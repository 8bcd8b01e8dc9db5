"""A game after any ply, on the page and in the JSON, and its record: the URL of every ply
shows the board, whose turn and the moves up to it; the record downloaded verifies."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pbm.games
from pbm.crypto.keys import SigningKeys
from pbm.records import verify
from pbm.web.app import create_app
from pbm.words.templating import Templates
from tests.web.conftest import TestClient

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


@pytest.fixture
def keys(tmp_path: Path) -> SigningKeys:
    return SigningKeys(tmp_path / "signing")


@pytest.fixture
def signed_client(database, changes, keys) -> Iterator[TestClient]:
    app = create_app(database, Templates(), changes, address="pbm@games.test", signing=keys)
    with TestClient(app) as client:
        yield client


@pytest.fixture
def game(club):
    club.signup("alice", "bob")
    board = club.challenge("cephalopod", "alice", "bob")
    played = club.play("cephalopod", board, 6, seed=7)
    return board, played


def test_the_api_after_n_plies_gives_the_position_whose_turn_and_the_moves_up_to_there(client, game):
    board, played = game
    engine = pbm.games.get("cephalopod")
    state = engine.new(players=2)
    for n in range(len(played) + 1):
        data = client.get(f"/api/cephalopod/{board}?ply={n}").json()
        assert data["ply"] == n and data["plies"] == len(played)
        assert data["position"] == engine.to_position(state)
        assert data["turn"] == ("alice", "bob")[state.to_move]
        assert [m["notation"] for m in data["moves"]] == played[:n]
        if n < len(played):
            state = engine.play(state, played[n])


def test_without_a_ply_the_api_is_the_game_as_it_stands(client, game):
    board, played = game
    data = client.get(f"/api/cephalopod/{board}").json()
    assert data["ply"] == data["plies"] == len(played) and data["move_count"] == len(played)


def test_a_ply_past_the_last_is_not_found_and_a_ply_that_is_no_number_a_bad_request(client, game):
    board, played = game
    assert client.get(f"/api/cephalopod/{board}?ply={len(played) + 1}").status_code == 404
    assert client.get(f"/cephalopod/{board}?ply={len(played) + 1}").status_code == 404
    assert client.get(f"/api/cephalopod/{board}?ply=-1").status_code == 400


def test_the_page_after_a_ply_links_every_step_and_is_not_live(client, game):
    board, played = game
    html = client.get(f"/cephalopod/{board}?ply=3").text
    assert "data-live-events" not in html, "a reader looking back is never moved on by a new move"
    assert f'href="/cephalopod/{board}?ply=2"' in html and f'href="/cephalopod/{board}?ply=4"' in html
    assert f'href="/cephalopod/{board}?ply=0"' in html, "first"
    assert re.search(rf'rel="last" data-replay="last" href="/cephalopod/{board}"', html), "last is the live page"
    assert "The board after move 3 of 6." in html
    assert len(re.findall(r'class="ply-link"', html)) == 3, "the move list up to there"


def test_the_page_as_it_stands_is_live_and_has_nowhere_further_to_go(client, game):
    board, _ = game
    html = client.get(f"/cephalopod/{board}").text
    assert "data-live-events" in html
    assert '<span class="replay-step" aria-disabled="true">Next</span>' in html
    assert 'aria-current="step"' in html


def test_the_record_downloaded_verifies_with_its_proof_and_names_the_pages_key(signed_client, game, keys):
    board, played = game
    response = signed_client.get(f"/cephalopod/{board}/record.json")
    assert response.status_code == 200
    record = response.json()
    assert set(record) == {"header", "moves"}, "an APGameRecord as Abstract Play's schema allows it"
    proof = signed_client.get(f"/cephalopod/{board}/record.proof.json")
    assert proof.status_code == 200
    assert proof.headers["content-disposition"] == f'inline; filename="cephalopod-{board}.proof.json"'
    assert [link["move"] for link in proof.json()["chain"]] == played
    assert record["header"]["site"] == {"name": "games.test", "gameid": f"cephalopod/{board}"}
    assert verify.verify(verify.combined(record, proof.json()), known_keys=keys.public_keys()).genuine
    for path in (f"/cephalopod/{board}", "/"):
        page = signed_client.get(path).text
        assert keys.key_id in page and keys.public_keys()[keys.key_id] in page, f"{path} shows the server's key"


def test_no_record_for_a_board_that_is_not_there(client):
    response = client.get("/cephalopod/999/record.json")
    assert response.status_code == 404 and "error" in response.json()
    response = client.get("/cephalopod/999/record.proof.json")
    assert response.status_code == 404 and "error" in response.json()


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(min_value=0, max_value=10_000), plies=st.integers(min_value=0, max_value=8))
def test_a_dodeca_game_under_way_shows_its_seed_at_no_ply(club, signed_client, seed, plies):
    """Every ply's page and JSON and the record of a Dodeca game not over: never its seed."""
    from pbm.config import Settings
    from pbm.store.players import find

    club.limits = Settings(max_challenges_per_sender_per_hour=1000).limits  # a game per example
    with club.database.reading() as session:
        signed_up = find(session, "alice") is not None
    if not signed_up:
        club.signup("alice", "bob")
    board = club.challenge("dodeca", "alice", "bob")
    club.play("dodeca", board, plies, seed=seed)
    game = club.game("dodeca", board)
    if game.status != "active":
        return
    secret = game.secret.hex()
    texts = [signed_client.get(f"/dodeca/{board}/record.json").text]
    for ply in range(game.move_count + 1):
        texts.append(signed_client.get(f"/api/dodeca/{board}?ply={ply}").text)
        texts.append(signed_client.get(f"/dodeca/{board}?ply={ply}").text)
    for text in texts:
        assert secret not in text.lower()
