"""The move chain: each accepted move is linked to everything before it by a hash.

A game's chain starts with its *header*: what was agreed when it began (the game, the
board, the options, the players in seat order, when, and for a game with server-side dice
the commitment to its secret seed). Its hash is the chain's first link. Each move the
server accepts (a resignation, a forfeit and an undo are moves too: nothing is ever
rewritten) appends a link: the SHA-256 of the canonical JSON of the game, the ply, the
seat, the player, the move, the time and the previous link's hash.

So the hash after ply N fixes the whole game up to N: a receipt naming it (signed by the
server, `pbm.crypto.keys`) proves which moves the server had accepted, and no later
record can change one of them without every later hash changing too.

>>> from datetime import datetime, timezone
>>> start = header_hash(Header("cephalopod", 101, {}, ("alice", "bob"), datetime(2026, 1, 2, tzinfo=timezone.utc)))
>>> link = Link("cephalopod", 101, 1, 0, "alice", "c3", datetime(2026, 1, 2, 10, tzinfo=timezone.utc))
>>> len(link_hash(link, start))
64
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

VERSION = 1
"""Bumped if what a link hashes ever changes; it is hashed into the header."""


def canonical(value: Any) -> bytes:
    """The one byte string a JSON value hashes as: keys sorted, no spaces, UTF-8 (RFC 8785's
    rules for the strings, whole numbers, booleans and nulls a chain holds)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode()


def sha256(value: Any) -> str:
    return hashlib.sha256(canonical(value)).hexdigest()


def time_text(moment: datetime) -> str:
    """A moment as the chain keeps it: UTC to the second (``2026-01-02T10:00:00Z``), as every
    database stores it alike."""
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True)
class Header:
    """What a game was started as: the chain's first link hashes it."""

    game: str
    board: int
    options: Mapping[str, Any]
    players: Sequence[str]
    """Userids in seat order."""
    started: datetime
    dice_commitment: str | None = None
    """The SHA-256 of the game's secret dice seed, published with its first board (Dodeca)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "chain": VERSION,
            "game": self.game,
            "board": self.board,
            "options": dict(self.options),
            "players": list(self.players),
            "started": time_text(self.started),
            "dice_commitment": self.dice_commitment,
        }


@dataclass(frozen=True)
class Link:
    """One accepted move, as the chain hashes it."""

    game: str
    board: int
    ply: int
    seat: int
    player: str
    move: str
    time: datetime

    def to_json(self, previous: str) -> dict[str, Any]:
        return {
            "game": self.game,
            "board": self.board,
            "ply": self.ply,
            "seat": self.seat,
            "player": self.player,
            "move": self.move,
            "time": time_text(self.time),
            "previous": previous,
        }


def header_hash(header: Header) -> str:
    return sha256(header.to_json())


def link_hash(link: Link, previous: str) -> str:
    return sha256(link.to_json(previous))


def statement(game: str, board: int, ply: int, chain_hash: str) -> bytes:
    """What the server signs: that `game` board `board` stood at `chain_hash` after `ply` plies.
    A receipt and a record sign the same statement, so one checks the other."""
    return canonical({"pbm": "chain-statement", "game": game, "board": board, "ply": ply, "hash": chain_hash})
