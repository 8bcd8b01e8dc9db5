"""Migration 0023 gives the games played before it the chain the server would have linked: a
game's hashes dropped (downgrade) and computed again (upgrade) come out the same, and its
record verifies."""

from __future__ import annotations

from alembic import command
from sqlalchemy import select

from pbm.records import verify
from pbm.store.database import alembic_config
from pbm.store.models import Board, MoveRecord
from tests.records.conftest import play_game, record_of


def chains(desk) -> dict:
    def read(session):
        heads = dict(session.execute(select(Board.id, Board.chain_head)).all())
        hashes = dict(session.execute(select(MoveRecord.id, MoveRecord.chain_hash)).all())
        return heads, hashes

    return desk.read(read)


def test_games_from_before_the_chain_get_the_chain_the_server_would_have_linked(desk, keys):
    boards = [
        ("cephalopod", play_game(desk, "cephalopod", 3, {"size": 4}, seed=21, resign_at=5)),
        ("dodeca", play_game(desk, "dodeca", 2, {}, seed=22, moves=9)),
        ("cubeo", play_game(desk, "cubeo", 2, {}, seed=23, moves=6)),
    ]
    linked = chains(desk)
    assert all(linked[0].values()) and all(linked[1].values())
    config = alembic_config(desk.database)
    command.downgrade(config, "0022")
    command.upgrade(config, "head")
    assert chains(desk) == linked
    for game, number in boards:
        assert verify.verify(record_of(desk, keys, game, number)).genuine
