"""A record exported by the server verifies offline, and any change to it is refused, naming what.

Games are played through the handlers with random legal moves, so the chain checked is the one
the store wrote move by move."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbm.crypto.keys import SigningKeys
from pbm.records import verify
from tests.commands.handlers.conftest import Desk
from tests.conftest import BACKENDS
from tests.records.conftest import a_club, play_game, record_of

GAMES = [
    ("cephalopod", 2, {}),
    ("cephalopod", 3, {"size": 5}),
    ("cephalopod", 4, {"size": 4, "dice": 12}),
    ("cephalopod", 5, {"size": 5}),
    ("cephalopod", 6, {"size": 6}),
    ("cubeo", 2, {}),
    ("cubeo", 2, {"strict": True, "dice": 8, "remove": True, "samevalue": True}),
    ("dodeca", 2, {}),
]


@pytest.mark.parametrize(("game", "players", "options"), GAMES)
def test_a_finished_game_exported_verifies_with_every_move_replayed(desk, keys, game, players, options):
    number = play_game(desk, game, players, options, seed=players)
    record = record_of(desk, keys, game, number)
    verdict = verify.verify(json.loads(json.dumps(record)), known_keys=keys.public_keys())
    assert verdict.genuine, verdict.problem
    assert record["pbm"]["ply"] == len(record["pbm"]["chain"]) > 0
    codes = [fact.code for fact in verdict.checked]
    assert codes[0] == "record-genuine"
    if game == "dodeca" and record["header"]["status"] != "active":
        assert codes[1:] == ["record-dice-genuine"]


def test_a_game_under_way_verifies_up_to_its_last_move(desk, keys):
    number = play_game(desk, "cephalopod", 2, {}, seed=1, moves=5)
    record = record_of(desk, keys, "cephalopod", number)
    assert record["header"]["status"] == "active" and record["pbm"]["ply"] == 5
    assert verify.verify(record).genuine


def test_a_resigned_game_verifies(desk, keys):
    number = play_game(desk, "cephalopod", 3, {}, seed=2, resign_at=4)
    record = record_of(desk, keys, "cephalopod", number)
    assert "resign" in [link["move"] for link in record["pbm"]["chain"]]
    assert verify.verify(record).genuine


@pytest.fixture(scope="module", params=BACKENDS)
def club(request, tmp_path_factory, sqlite_template, postgres_databases) -> Iterator[tuple[Desk, SigningKeys]]:
    """A club on a database of this module's own, on each backend in turn, and its signing keys:
    the records the tampering tests below change are played once for all of them, not once a
    test (a finished game is a hundred moves through the handlers); each test changes a copy."""
    yield from a_club(request.param, tmp_path_factory.mktemp('verify'), sqlite_template, postgres_databases)


@pytest.fixture(scope="module")
def finished_record(club) -> str:
    desk, keys = club
    return json.dumps(record_of(desk, keys, "cephalopod", play_game(desk, "cephalopod", 2, {}, seed=3)))


@pytest.fixture(scope="module")
def dodeca_record(club) -> str:
    desk, keys = club
    number = play_game(desk, "dodeca", 2, {}, seed=4, resign_at=6)
    return json.dumps(record_of(desk, keys, "dodeca", number))


@pytest.fixture
def finished(finished_record) -> dict[str, Any]:
    """A Cephalopod game for two played to its end, signed: the test's own copy."""
    return json.loads(finished_record)


@pytest.fixture
def dodeca(dodeca_record) -> dict[str, Any]:
    """A Dodeca game ended by a resignation, signed: its seed and every roll revealed."""
    return json.loads(dodeca_record)


def problem(record, **known):
    verdict = verify.verify(record, **known)
    assert verdict.problem is not None, "a changed record must not verify"
    return verdict.problem


def test_a_move_changed_in_the_chain_is_named_by_its_ply(finished):
    changed = copy.deepcopy(finished)
    link = changed["pbm"]["chain"][2]
    other = "a1" if link["move"] != "a1" else "b1"
    link["move"] = other
    assert problem(changed).code == "record-hash-wrong"
    assert problem(changed).params["ply"] == 3


def test_a_move_changed_with_every_hash_after_it_recomputed_fails_the_signature(finished):
    from pbm.crypto import chain

    changed = copy.deepcopy(finished)
    section = changed["pbm"]
    section["chain"][2]["move"] = "a1" if section["chain"][2]["move"] != "a1" else "b1"
    previous = chain.sha256(section["header"])
    for link in section["chain"]:
        contents = {k: link[k] for k in ("ply", "seat", "player", "move", "time")}
        link["hash"] = previous = chain.sha256(
            {**contents, "game": section["game"], "board": section["board"], "previous": previous}
        )
    section["head"] = previous
    assert problem(changed).code == "record-signature-wrong"


def test_a_hash_changed_is_named_by_its_ply(finished):
    changed = copy.deepcopy(finished)
    link = changed["pbm"]["chain"][4]
    link["hash"] = ("0" if link["hash"][0] != "0" else "1") + link["hash"][1:]
    assert problem(changed).code == "record-hash-wrong"
    assert problem(changed).params["ply"] == 5


def test_a_signature_changed_is_refused(finished):
    changed = copy.deepcopy(finished)
    value = changed["pbm"]["signature"]["value"]
    changed["pbm"]["signature"]["value"] = ("A" if value[0] != "A" else "B") + value[1:]
    assert problem(changed).code == "record-signature-wrong"


def test_a_record_signed_by_another_key_is_refused_when_the_servers_keys_are_given(finished, club, tmp_path):
    from pbm.views import record as document

    stranger = SigningKeys(tmp_path / "stranger")
    resigned = document.sign(copy.deepcopy(finished), stranger)
    assert verify.verify(resigned).genuine  # consistent in itself ...
    known = SigningKeys.known(club[1].folder)
    assert known, "the server's keys are given"
    assert problem(resigned, known_keys=known).code == "record-key-unknown"  # ... but not the server's


def test_the_readable_move_list_must_match_the_chain(finished):
    changed = copy.deepcopy(finished)
    changed["moves"][1][0] = {"move": "zz9"}
    assert problem(changed).code == "record-moves-differ"
    assert problem(changed).params["ply"] == 3


def test_a_dodeca_die_changed_is_named_by_its_roll(dodeca):
    assert "seed" in dodeca["pbm"]["dice"]
    changed = copy.deepcopy(dodeca)
    rolls = changed["pbm"]["dice"]["rolls"]
    rolls[7] = rolls[7] % 6 + 1 if rolls[7] <= 6 else 1
    assert problem(changed).code == "record-dice-roll-wrong"
    assert problem(changed).params["index"] == 7
    assert verify.verify(changed).checked == [], "nothing is said genuine of a record that is not"


def test_a_dodeca_seed_that_is_not_the_committed_one_is_refused(dodeca):
    changed = copy.deepcopy(dodeca)
    changed["pbm"]["dice"]["seed"] = "00" * 32
    assert problem(changed).code == "record-dice-commitment-wrong"


def test_a_rotated_key_signs_from_then_on_and_what_the_old_one_signed_still_verifies(desk, keys, tmp_path):
    number = play_game(desk, "cephalopod", 2, {}, seed=5, moves=4)
    before = record_of(desk, keys, "cephalopod", number)
    rotated = keys.rotate()
    after = record_of(desk, rotated, "cephalopod", number)
    assert before["pbm"]["signature"]["key_id"] != after["pbm"]["signature"]["key_id"] == rotated.key_id
    known = SigningKeys.known(tmp_path / "signing")
    assert set(known) == {keys.key_id, rotated.key_id}
    assert verify.verify(before, known_keys=known).genuine
    assert verify.verify(after, known_keys=known).genuine
    assert not (tmp_path / "signing" / f"{keys.key_id}.key").exists()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(plies=st.integers(min_value=0, max_value=12), seed=st.integers(min_value=0, max_value=1000))
def test_the_seed_of_a_dodeca_game_under_way_is_in_no_record(desk, keys, plies, seed):
    """Whatever the game and however far it got, a record of it before its end holds its seed
    nowhere (as hex, in any letter case) while its commitment is there; nor an address, nor the
    server's private key."""
    number = play_game(desk, "dodeca", 2, {}, seed=seed, moves=plies)
    live = desk.board("dodeca", number)
    record = record_of(desk, keys, "dodeca", number)
    if not live.active:
        return
    text = json.dumps(record).lower()
    assert live.row.secret.hex() not in text
    assert record["pbm"]["dice"] == {"commitment": record["pbm"]["header"]["dice_commitment"]}
    assert "@" not in text, "no address"
    assert (keys.folder / "current.key").read_text().strip() not in text, "no private key"
