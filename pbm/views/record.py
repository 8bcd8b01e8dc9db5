"""A game as a record: Abstract Play's APGameRecord, and the proof that it is genuine.

The APGameRecord (``header``, ``moves``) is what other tools read, valid against Abstract Play's
published schema as it is (``GET /<game>/<board>/record.json``, `readable`): the game and its
options (as variants), the site and board, the dates, the players in seat order with their
userid, whether each is a bot and their result (the winners 1, the others 0; everyone the same
while the game goes on or once it is called off, which are ``unrated``), and the moves as rounds
× seats in pbm's own notation (a seat out of the game leaves its place ``null``). The schema
allows no other key at its root, so the proof is a document of its own
(``GET /<game>/<board>/record.proof.json``, `proof`), which `pbm verify` reads with it.

The proof (the ``pbm`` section of the combined record `build` makes) is what `pbm verify`
checks (`pbm.records.verify`):

- ``header``: what the chain's first link hashes (`pbm.crypto.chain.Header`);
- ``chain``: every ply as the server linked it (seat, player, move, time, hash);
- ``ply`` and ``head``: how far the record goes, and the chain's hash there;
- ``signature``: the server's over that statement, with its key id and public key;
- ``dice`` (games with server-side dice): the commitment, and once the game is over the
  revealed seed and every published roll. Never the seed before: it would tell the rolls
  to come.

The combined form (the APGameRecord with its ``pbm`` section, as a mail's attachment carries it)
verifies as it is. A finished game is exported whole; a current one up to its last move.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from pbm.crypto import chain
from pbm.crypto.keys import SigningKeys
from pbm.games import Game
from pbm.games.fairdice import commitment
from pbm.store import boards
from pbm.store.models import Board, BoardStatus, MoveRecord
from pbm.views.board import dice_record, options_text

FORMAT = "pbm-record-1"
BOT = re.compile(r"^bot[0-9]+$")
"""The userids of the server's own players (``bot1``, ``bot2``, ...: weakest first)."""


def build(
    engine: Game[Any], board: Board, state: Any, moves: Sequence[MoveRecord], *, site: str, generated: datetime
) -> dict[str, Any]:
    """The record of `board` (its current `state` and every one of its `moves`), unsigned
    (`sign` adds the signature). `site` names the server (its public address or domain)."""
    header = boards.header_of(board)
    userids = list(header.players)
    over = board.status != BoardStatus.ACTIVE
    players = players_of(engine, board, userids)
    last_time = moves[-1].created_at if moves else board.created_at
    variants = options_text(engine, board.options).split()
    record: dict[str, Any] = {
        "header": {
            "game": {"name": engine.title, **({"variants": variants} if variants else {})},
            "site": {"name": site, "gameid": f"{board.game_type}/{board.board}"},
            "date-start": chain.time_text(board.created_at),
            "date-end": chain.time_text(board.finished_at or last_time),
            "date-generated": chain.time_text(generated),
            "players": players,
            **({"unrated": True} if board.status != BoardStatus.FINISHED else {}),
            "status": board.status.value,
            **({"end": board.end_code} if over and board.end_code else {}),
        },
        "moves": rounds(len(userids), moves),
        "pbm": {
            "format": FORMAT,
            "game": board.game_type,
            "board": board.board,
            "header": header.to_json(),
            "chain": [
                {
                    "ply": move.number,
                    "seat": move.seat,
                    "player": userids[move.seat],
                    "move": move.notation,
                    "time": chain.time_text(move.created_at),
                    "hash": move.chain_hash,
                }
                for move in moves
            ],
            "ply": len(moves),
            "head": moves[-1].chain_hash if moves else chain.header_hash(header),
            "position": engine.to_position(state),
        },
    }
    if board.secret is not None:
        record["pbm"]["dice"] = dice_section(engine, board, state, moves)
    return record


def players_of(engine: Game[Any], board: Board, userids: Sequence[str]) -> list[dict[str, Any]]:
    """The header's players in seat order, each with the result the schema wants of every one: only
    a finished game has winners (1, the others 0); before its end, or called off, everyone stands
    the same, and the record is unrated."""
    finished = board.status == BoardStatus.FINISHED
    return [
        {
            "name": userid,
            "userid": userid,
            "seat": engine.seat_names[seat],
            "is_ai": bool(BOT.match(userid)),
            "result": 1 if finished and seat in (board.winners or []) else 0,
        }
        for seat, userid in enumerate(userids)
    ]


def dice_section(engine: Game[Any], board: Board, state: Any, moves: Sequence[MoveRecord]) -> dict[str, Any]:
    """The commitment; once the game is over the revealed seed and every roll as published."""
    assert board.secret is not None
    revealed = dice_record(engine, board, state, moves)
    if revealed is None:
        return {"commitment": commitment(board.secret)}
    return {"commitment": revealed["commitment"], "seed": revealed["seed"], "rolls": revealed["rolls"]}


def rounds(seats: int, moves: Sequence[MoveRecord]) -> list[list[dict[str, str] | None]]:
    """The moves as APGameRecord lists them: one row per round, one place per seat (the move
    list's columns, `pbm.views.board.BoardView.move_rows`)."""
    rows: list[list[dict[str, str] | None]] = []
    last_seat = seats
    for move in moves:
        if move.seat <= last_seat:
            rows.append([None] * seats)
        rows[-1][move.seat] = {"move": move.notation}
        last_seat = move.seat
    return rows


PROOF = "pbm"
"""The key of the proof in a combined record."""


def readable(record: dict[str, Any]) -> dict[str, Any]:
    """The APGameRecord of a combined `record`: what Abstract Play's schema allows, nothing else."""
    return {key: value for key, value in record.items() if key != PROOF}


def proof(record: dict[str, Any]) -> dict[str, Any]:
    """The proof of a combined `record` (its signed ``pbm`` section), a document of its own."""
    section: dict[str, Any] = record[PROOF]
    return section


def sign(record: dict[str, Any], keys: SigningKeys) -> dict[str, Any]:
    """`record` with the server's signature over how far its chain goes."""
    section = record["pbm"]
    signature = keys.sign(chain.statement(section["game"], section["board"], section["ply"], section["head"]))
    section["signature"] = {"key_id": signature.key_id, "public_key": signature.public_key, "value": signature.value}
    return record
