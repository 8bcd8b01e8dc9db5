"""The record served at ``/<game>/<board>/record.json`` is an APGameRecord as Abstract Play's
published schema (``src/schemas/gamerecord.json`` of their ``recranks`` repository) defines it,
whatever the game and however it stands or ended; its proof is a document of its own, which
``pbm verify`` reads with it.

The schema's text is not ours to copy: the rules of it a record meets are checked here as
behaviour (no key at the root but ``header`` and ``moves``, every player's ``result``, ...), and
the schema itself validates the same records when it is found beside the repository
(``../shared/schemas/gamerecord.json``, or the file ``PBM_APGAMERECORD_SCHEMA`` names) and
``jsonschema`` is installed."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pbm.crypto.keys import SigningKeys
from pbm.records import verify
from pbm.views import record as document
from tests.commands.handlers.conftest import Desk
from tests.conftest import BACKENDS
from tests.records.conftest import a_club, play_game, record_of

SCHEMA = Path(
    os.environ.get("PBM_APGAMERECORD_SCHEMA")
    or Path(__file__).resolve().parents[2].parent / "shared" / "schemas" / "gamerecord.json"
)

GAMES = {
    "cephalopod finished": ("cephalopod", 2, {}, {}),
    "cephalopod of three, one resigned": ("cephalopod", 3, {"size": 5}, {"resign_at": 4}),
    "cephalopod under way": ("cephalopod", 2, {}, {"moves": 5}),
    "cephalopod called off at ply 0": ("cephalopod", 2, {}, {"resign_at": 0, "moves": 1}),
    "cubeo finished, with options": ("cubeo", 2, {"strict": True, "dice": 8}, {}),
    "dodeca resigned": ("dodeca", 2, {}, {"resign_at": 6}),
    "dodeca called off at ply 0": ("dodeca", 2, {}, {"resign_at": 0, "moves": 1}),
    "dodeca under way": ("dodeca", 2, {}, {"moves": 3}),
}


@pytest.fixture(scope="module", params=BACKENDS)
def club(request, tmp_path_factory, sqlite_template, postgres_databases) -> Iterator[tuple[Desk, SigningKeys]]:
    """A club on a database of this module's own, on each backend in turn, and its signing keys.
    Every test here only reads a game's record, so each game is played once for the three tests
    that read it, not once a test (a finished game is hundreds of moves through the handlers)."""
    yield from a_club(request.param, tmp_path_factory.mktemp('apgamerecord'), sqlite_template, postgres_databases)


@pytest.fixture(scope="module")
def keys(club) -> SigningKeys:
    return club[1]


@pytest.fixture(scope="module", params=list(GAMES))
def played(request, club) -> str:
    """The signed record of a game, as JSON text: played once for the three tests that read it."""
    desk, keys = club
    game, players, options, how = GAMES[request.param]
    number = play_game(desk, game, players, options, seed=7, **how)
    return json.dumps(record_of(desk, keys, game, number))


@pytest.fixture
def served(played) -> tuple[dict[str, Any], dict[str, Any]]:
    """(record.json, record.proof.json) of a game, as the server serves them: the test's own copy."""
    record = json.loads(played)
    return document.readable(record), document.proof(record)


def test_the_record_keeps_the_schemas_rules(served):
    """What the schema asks, as behaviour: nothing at the root but ``header`` and ``moves``, every
    player named with a result, the game and site with nothing else in them, each move an object
    with its move or an empty place; and only a finished game rated, with winners."""
    readable, _ = served
    assert set(readable) == {"header", "moves"}
    header = readable["header"]
    assert {"game", "site", "date-start", "date-end", "date-generated", "players"} <= set(header)
    _players_are_named_with_a_result(header["players"])
    _only_a_finished_game_is_rated(header)
    assert set(header["game"]) <= {"name", "variants"} and isinstance(header["game"]["name"], str)
    variants = header["game"].get("variants", [])
    assert all(isinstance(v, str) for v in variants) and len(set(variants)) == len(variants)
    assert set(header["site"]) == {"name", "gameid"}
    assert all(isinstance(header[d], str) for d in ("date-start", "date-end", "date-generated"))
    for row in readable["moves"]:
        assert isinstance(row, list)
        assert all(entry is None or set(entry) == {"move"} and isinstance(entry["move"], str) for entry in row)


def _players_are_named_with_a_result(players: list[dict[str, Any]]) -> None:
    assert players and all(isinstance(p["name"], str) and type(p["result"]) is int for p in players)
    assert all(isinstance(p["is_ai"], bool) for p in players)
    assert len({json.dumps(p, sort_keys=True) for p in players}) == len(players), "no two players alike"


def _only_a_finished_game_is_rated(header: dict[str, Any]) -> None:
    results = {p["result"] for p in header["players"]}
    if header["status"] == "finished":
        assert "unrated" not in header and results == {0, 1}
    else:
        assert header["unrated"] is True and len(results) == 1


def test_the_record_and_its_proof_read_apart_verify_together(served, keys):
    readable, proof = served
    verdict = verify.verify(verify.combined(readable, proof), known_keys=keys.public_keys())
    assert verdict.genuine, verdict.problem
    assert not verify.verify(readable).genuine, "the record alone proves nothing"


def test_the_record_validates_against_abstract_plays_schema(served):
    if not SCHEMA.is_file():
        pytest.skip(f"Abstract Play's schema is not at {SCHEMA}")
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    errors = [error.message for error in jsonschema.Draft7Validator(schema).iter_errors(served[0])]
    assert errors == []
