"""The JSON API: the same data as the pages, in shapes programs can rely on."""

from __future__ import annotations

import pbm.bots
import pbm.games


def test_api_games_gives_every_type_with_counts_and_current_games(client, club):
    club.signup("alice", "bob")
    club.challenge("cephalopod", "alice", "bob")
    club.move("cephalopod", 101, "alice", "c3")
    answer = client.get("/api/games")
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "application/json"
    types = {t["game"]: t for t in answer.json()["types"]}
    assert list(types) == pbm.games.names()
    ceph = types["cephalopod"]
    assert ceph["counts"] == {"active": 1, "finished": 0, "cancelled": 0}
    assert ceph["designer"] == "Mark Steere"
    assert types["dodeca"]["attribution"] == "Dodeca, from the Warpspawn games pages"
    [game] = ceph["games"]
    assert game["board"] == 101
    assert game["url"] == "/cephalopod/101"
    assert game["move_count"] == 1
    assert game["to_move"] == "bob"
    assert game["status"] == "active"
    assert game["standing"] == "bob to move"
    assert [p["userid"] for p in game["players"]] == ["alice", "bob"]
    assert [p["name"] for p in game["players"]] == ["Paren", "Angle"]
    assert types["cubeo"]["games"] == []


def test_api_board_gives_the_whole_game(client, club):
    club.signup("alice", "bob")
    club.challenge("cephalopod", "alice", "bob", options={"size": 3})
    club.move("cephalopod", 101, "alice", "b2")
    answer = client.get("/api/cephalopod/101")
    assert answer.status_code == 200
    game = answer.json()
    assert game["options"] == "-size=3"
    assert game["summary"] == "It is bob's turn (Angle)."
    assert game["moves"][0] == {
        "number": 1,
        "seat": 0,
        "userid": "alice",
        "notation": "b2",
        "did": "played b2",
        "played_at": game["moves"][0]["played_at"],
    }
    assert len(game["cells"]) == 9
    assert [c for c in game["cells"] if c["value"]] == [
        {
            "name": "b2",
            "x": 1,
            "y": 1,
            "owner": 0,
            "value": 1,
            "sides": 6,
            "kind": None,
            "piece": "die",
            "label": None,
            "exists": True,
        }
    ]
    assert "(1)" in game["board_text"]
    assert game["winners"] == [] and game["end_reason"] is None


def test_api_board_of_dodeca_carries_the_commitment_in_its_notes(client, club):
    club.signup("alice", "bob")
    club.challenge("dodeca", "alice", "bob")
    game = client.get("/api/dodeca/101").json()
    assert game["notes"][0].startswith("Dice commitment: SHA-256 of the secret dice seed is ")
    kinds = {c["kind"]: c["sides"] for c in game["cells"] if c["kind"]}
    assert kinds == {"Tetra": 4, "Cube": 6, "Octo": 8, "Dodeca": 10}


def test_api_board_list_pages_and_filters_like_the_page(client, club, monkeypatch):
    from pbm.web.reads import Reads

    monkeypatch.setattr(Reads, "page_size", 2)
    club.signup("alice", "bob", "carol")
    for _ in range(3):
        club.challenge("cubeo", "alice", "bob")
    club.challenge("cubeo", "carol", "bob")
    first = client.get("/api/cubeo?player=alice").json()
    assert [g["board"] for g in first["games"]] == [103, 102]
    assert first["total"] == 3 and first["player"] == "alice" and first["status"] == "active"
    assert first["newer"] is None
    assert first["older"] == "/api/cubeo?player=alice&before=102"
    second = client.get(first["older"]).json()
    assert [g["board"] for g in second["games"]] == [101]
    assert second["older"] is None
    assert second["newer"] == "/api/cubeo?player=alice&after=101"


def test_api_player_gives_games_and_ratings(client, club):
    club.signup("alice", "bob")
    club.challenge("cephalopod", "alice", "bob")
    club.play_out("cephalopod", 101)
    club.challenge("dodeca", "bob", "alice")
    player = client.get("/api/players/alice").json()
    assert player["userid"] == "alice" and player["signed_off"] is False
    assert [(g["game"], g["board"]) for g in player["active"]] == [("dodeca", 101)]
    assert [(g["game"], g["board"]) for g in player["finished"]] == [("cephalopod", 101)]
    [rating] = player["ratings"]
    assert rating["game"] == "cephalopod" and rating["games"] == 1 and rating["provisional"] is True


def test_api_standings_rank_from_one(client, club):
    club.signup("alice", "bob")
    club.challenge("cephalopod", "alice", "bob")
    club.play_out("cephalopod", 101)
    standings = client.get("/api/cephalopod/standings").json()
    assert [row["rank"] for row in standings["standings"]] == [1, 2]
    assert standings["standings"][0]["rating"] > standings["standings"][1]["rating"]
    assert standings["total"] == 2 and standings["pages"] == 1


def test_api_unknown_game_is_a_json_404(client):
    answer = client.get("/api/chess")
    assert answer.status_code == 404
    assert answer.json() == {"error": "There is no game called 'chess' here.", "code": "web-no-game"}


def test_api_unknown_board_is_a_json_404(client):
    answer = client.get("/api/dodeca/101")
    assert answer.status_code == 404
    assert answer.json() == {"error": "There is no Dodeca board 101.", "code": "web-no-board"}


def test_api_unknown_player_is_a_json_404(client):
    answer = client.get("/api/players/nobody").json()
    assert answer == {"error": "There is no player 'nobody'.", "code": "web-no-player"}


def test_api_unknown_address_is_a_json_404(client):
    answer = client.get("/api/cephalopod/101/moves")
    assert answer.status_code == 404
    assert answer.json() == {"error": "There is no page at this address.", "code": "web-no-page"}


def test_api_bad_query_is_a_json_400(client):
    answer = client.get("/api/cephalopod?before=1&after=2")
    assert answer.status_code == 400
    assert answer.json() == {"error": "Give 'before' or 'after', not both.", "code": "web-before-and-after"}


def test_api_errors_stay_english_for_a_french_browser(client):
    """A program reads the API: its errors are English whatever the language asked, with a code
    that stays when the English is reworded."""
    answer = client.get("/api/dodeca/101?lang=fr", headers={"Accept-Language": "fr-FR"})
    assert answer.json() == {"error": "There is no Dodeca board 101.", "code": "web-no-board"}


def test_api_events_of_an_unknown_game_are_a_json_404(client):
    assert client.get("/api/events?game=chess").status_code == 404


def test_api_dice_record_stays_unavailable_while_the_game_is_played(client, club):
    club.signup("alice", "bob")
    club.challenge("dodeca", "alice", "bob")
    club.play("dodeca", 101, 3)
    answer = client.get("/api/dodeca/101/dice")
    assert answer.status_code == 404
    assert "the seed stays secret until the game is over" in answer.json()["error"]
    assert client.get("/api/dodeca/101").json()["dice_record"] is None


def test_api_dice_record_of_a_finished_game_verifies(client, club):
    from pbm.games.fairdice import verify

    club.signup("alice", "bob")
    club.challenge("dodeca", "alice", "bob")
    club.play("dodeca", 101, 6)
    club.resign("dodeca", 101, "alice")
    assert client.get("/api/dodeca/101").json()["dice_record"] == "/api/dodeca/101/dice"
    record = client.get("/api/dodeca/101/dice").json()
    assert record["seed"] == club.game("dodeca", 101).secret.hex()
    assert verify(record).ok


def test_api_a_game_without_dice_has_no_dice_record(client, club):
    club.signup("alice", "bob")
    club.challenge("cephalopod", "alice", "bob")
    club.resign("cephalopod", 101, "alice")
    assert client.get("/api/cephalopod/101/dice").status_code == 404


def test_api_bots_gives_each_games_levels_as_the_ladder_measured_them(client):
    answer = client.get("/api/bots")
    assert answer.status_code == 200
    games = {entry["game"]: entry for entry in answer.json()["games"]}
    assert list(games) == ["cephalopod", "cubeo", "dodeca"]
    for game, entry in games.items():
        measured = pbm.bots.strength(game)
        assert measured is not None
        assert (entry["measured"], entry["games"]) == (measured["measured"], measured["games"])
        assert [level["userid"] for level in entry["levels"]] == [f"bot{n}" for n in pbm.bots.levels(game)]
        for level, row in zip(entry["levels"], measured["levels"][1:]):
            assert {key: level[key] for key in row} == row
            assert level["shown_stronger"] == (row["lead_95"][0] > 0)
