"""Dodeca by mail: the dice commitment from the first board, the seed only at the end."""

from __future__ import annotations

import hashlib
import json
import re

import pytest
from sqlalchemy import select

import pbm.games
from pbm.cli import main as pbm_main
from pbm.store.models import Board
from tests.mail.mailroom import Mailroom
from tests.support import body_of, mail

ALICE, BOB = "alice@example.org", "bob@example.net"
COMMITMENT = re.compile(r"Dice commitment: SHA-256 of the secret dice seed is ([0-9a-f]{64})")
SEED = re.compile(r"Dice seed \(revealed\): ([0-9a-f]{64})")


@pytest.fixture
def room(make_mailroom) -> Mailroom:
    room = make_mailroom()
    room.send(mail(ALICE, "signup alice alice-pw"))
    room.send(mail(BOB, "signup bob bob-pw"))
    room.replies()
    return room


def secret_of(room: Mailroom, board: int) -> bytes:
    with room.database.reading() as session:
        return session.scalar(select(Board.secret).where(Board.game_type == "dodeca", Board.board == board))


def play_some_moves(room: Mailroom, board: int, count: int) -> None:
    engine = pbm.games.get("dodeca")
    for _ in range(count):
        with room.database.reading() as session:
            game = session.scalar(select(Board).where(Board.board == board, Board.game_type == "dodeca"))
            state = engine.load(game.state, game.secret)
            userid = game.seats[state.to_move].player.userid
        move = engine.legal_moves(state)[0]
        room.send(mail({"alice": ALICE, "bob": BOB}[userid], f"dodeca move {board} {userid} {userid}-pw {move}"))


def test_each_game_commits_to_its_own_seed_in_the_first_mail(room):
    room.send(mail(ALICE, "dodeca challenge alice bob"))
    room.send(mail(ALICE, "dodeca challenge alice bob"))
    first, second = (COMMITMENT.search(body_of(m))[1] for m in room.replies()[::2])
    assert first != second
    assert first == hashlib.sha256(secret_of(room, 101)).hexdigest()
    assert second == hashlib.sha256(secret_of(room, 102)).hexdigest()


def test_the_seed_is_revealed_at_the_end_and_matches_the_commitment(room):
    room.send(mail(ALICE, "dodeca challenge alice bob"))
    committed = COMMITMENT.search(body_of(room.replies()[0]))[1]
    play_some_moves(room, 101, 4)
    before_the_end = room.replies()
    room.send(mail(ALICE, "dodeca resign 101 alice alice-pw"))
    final = room.replies()
    seed = secret_of(room, 101).hex()
    assert all(seed not in body_of(m) for m in before_the_end)
    revealed = SEED.search(body_of(final[0]))[1]
    assert revealed == seed
    assert hashlib.sha256(bytes.fromhex(revealed)).hexdigest() == committed


def test_the_record_of_a_finished_game_verifies(room, database_url, monkeypatch, capsys, tmp_path):
    room.send(mail(ALICE, "dodeca challenge alice bob"))
    play_some_moves(room, 101, 12)
    monkeypatch.setenv("PBM_DATABASE_URL", database_url)
    monkeypatch.setenv("PBM_SECRET_KEY", "k" * 40)
    assert pbm_main(["dice-record", "dodeca", "101"]) == 1  # still secret
    assert "stays secret until the end" in capsys.readouterr().err
    room.send(mail(BOB, "dodeca resign 101 bob bob-pw"))
    assert pbm_main(["dice-record", "dodeca", "101"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert len(record["moves"]) == 12 and len(record["rolls"]) >= 42
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    assert pbm_main(["verify-dice", str(path)]) == 0
    record["rolls"][0] = record["rolls"][0] % 6 + 1  # roll 0 set up South's Cube on a1: another face
    path.write_text(json.dumps(record))
    assert pbm_main(["verify-dice", str(path)]) == 1


def test_a_preview_of_a_new_game_says_who_won_its_roll_off(room):
    room.send(mail(ALICE, "dodeca preview new 2"))
    text = body_of(room.replies()[0])
    starts = re.search(r"In this new game (South|North) moves first\.", text)
    assert starts, text
    assert f"Then {starts[1]} would be to move." in text


def test_a_refused_preview_of_a_new_game_says_whose_move_it_was(room):
    room.send(mail(ALICE, "dodeca preview new 2 z99"))
    assert re.search(r"\(at 'z99', (South|North) to move, after 0 moves previewed\)", body_of(room.replies()[0]))
