"""Provably fair server-side dice: commit to a secret seed, reveal it at the end.

A game that rolls dice on the server (Dodeca does) draws a secret 32-byte seed
S from the operating system when it starts and publishes only its commitment,
SHA-256(S) in hex, with the first board. Every roll of the game is numbered
0, 1, 2, ... in the order the game makes them, and roll number i is computed
from S and i alone, so the server cannot pick faces as the game goes. When the
game ends the seed is revealed and any player can recompute every roll.

How roll number i of a die with n faces (2 <= n <= 256) is made:

1. Compute the 32-byte digest HMAC-SHA256(key=S, message="roll:<i>"), with i
   in decimal ASCII: ``roll:0``, ``roll:1``, ..., ``roll:41``.
2. Let limit = 256 - (256 mod n), the largest multiple of n up to 256: 256 for
   a d4 and a d8, 252 for a d6, 250 for a d10.
3. Read the digest byte by byte. The first byte b below limit gives the face
   (b mod n) + 1. Bytes at or above limit are skipped: keeping them would make
   the low faces slightly more likely (256 bytes do not share out evenly over
   6 or 10 faces).
4. Should all 32 bytes be skipped (for a d10 the chance is (6/256)**32, about
   1 in 10**52), go on reading HMAC-SHA256(S, "roll:<i>:1"), then
   "roll:<i>:2", and so on, until a byte is accepted.

The same recipe in a few lines of Python, standard library only, to copy into
a file or an interpreter::

    import hashlib, hmac

    def commitment(seed: bytes) -> str:
        return hashlib.sha256(seed).hexdigest()

    def roll(seed: bytes, i: int, sides: int) -> int:
        limit = 256 - 256 % sides
        k = 0
        while True:
            label = f"roll:{i}" if k == 0 else f"roll:{i}:{k}"
            for b in hmac.new(seed, label.encode("ascii"), hashlib.sha256).digest():
                if b < limit:
                    return b % sides + 1
            k += 1

With ``seed = bytes.fromhex("<the revealed seed>")``, ``commitment(seed)``
must equal the commitment published with the first board, and ``roll(seed, 0,
6)`` is the first face of the game (in Dodeca, South's Cube on a1; the game's
module lists the order of its rolls). This module computes exactly this:

>>> seed = bytes(range(32))
>>> commitment(seed)
'630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd'
>>> [roll(seed, i, 6) for i in range(8)]
[3, 6, 2, 5, 1, 5, 5, 2]

`verify` does the whole check for a finished game from a JSON record (the
format is described there); ``pbm verify-dice record.json`` runs it from the
command line.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pbm.facts import Fact

SEED_BYTES = 32
MAX_SIDES = 256


def new_seed() -> bytes:
    """A fresh secret seed from the operating system's random source."""
    return secrets.token_bytes(SEED_BYTES)


def check_seed(seed: bytes) -> bytes:
    """Refuse anything but 32 bytes: a short seed could be guessed from its commitment."""
    if not isinstance(seed, bytes) or len(seed) != SEED_BYTES:
        got = f"{len(seed)} bytes" if isinstance(seed, bytes) else f"a {type(seed).__name__}"
        raise ValueError(f"a dice seed is {SEED_BYTES} bytes, not {got}")
    return seed


def commitment(seed: bytes) -> str:
    """SHA-256 of the seed in hex: published at the start, it binds the server to the seed."""
    return hashlib.sha256(check_seed(seed)).hexdigest()


def roll(seed: bytes, index: int, sides: int) -> int:
    """Face (1..sides) of roll number `index` of the game with this seed.

    >>> seed = bytes(32)
    >>> roll(seed, 0, 10) == roll(seed, 0, 10)  # a roll depends on seed and index only
    True
    """
    check_seed(seed)
    if not 2 <= sides <= MAX_SIDES:
        raise ValueError(f"a die has 2 to {MAX_SIDES} faces, not {sides}")
    if index < 0:
        raise ValueError(f"rolls are numbered from 0, not {index}")
    limit = 256 - 256 % sides
    k = 0
    while True:
        for byte in _digest(seed, _label(index, k)):
            if byte < limit:
                return byte % sides + 1
        k += 1


def _label(index: int, k: int) -> bytes:
    return (f"roll:{index}" if k == 0 else f"roll:{index}:{k}").encode("ascii")


def _digest(seed: bytes, label: bytes) -> bytes:
    return hmac.new(seed, label, hashlib.sha256).digest()


@dataclass(frozen=True)
class Roll:
    """One roll of a game, as a game logs it: which die, what came up, and why.

    `index` is the roll's number in the game, `move` the number of the move
    that made it (0 for rolls before the first move: setup and who starts),
    `what` a few words for people ("setup a1: South Cube", "move 7: roll c2").
    """

    index: int
    sides: int
    face: int
    move: int
    what: str


def next_roll(seed: bytes, log: Sequence[Roll], sides: int, move: int, what: str) -> Roll:
    """The roll that follows `log`: the number is the count of rolls made before."""
    index = len(log)
    return Roll(index, sides, roll(seed, index, sides), move, what)


# -- what the boards print ---------------------------------------------------


def commitment_note(seed: bytes) -> Fact:
    """The line every board of a game with dice carries from the first one on."""
    return Fact("dice-commitment", hash=commitment(seed))


def reveal_notes(seed: bytes) -> list[Fact]:
    """The lines printed once the game is over (however it ended): the seed and where to check it."""
    check = Fact(
        "dice-check-every-roll",
        hmac="HMAC-SHA256",  # notation in every language: the function and what it is taken of
        message='"roll:<i>"',
        recipe="pbm/games/fairdice.py",
        command="pbm verify-dice",
    )
    return [Fact("dice-seed-revealed", seed=seed.hex()), check]


# -- the verifier ------------------------------------------------------------


class RecordError(ValueError):
    """The game record cannot be read or checked (not a mismatch: a broken input)."""


@dataclass(frozen=True)
class Verification:
    """What `verify` found: every roll recomputed from the seed, and each problem."""

    rolls: list[Roll]
    problems: list[str]

    @property
    def ok(self) -> bool:
        return not self.problems


_HEX64 = re.compile(r"^[0-9a-fA-F]{64}$")


def make_record(
    *,
    game: str,
    seed: bytes,
    moves: Sequence[str],
    rolls: Sequence[Roll],
    options: Mapping[str, Any] | None = None,
    players: int = 2,
) -> dict[str, Any]:
    """The JSON record `verify` reads, for a server to export once a game is over.

    - ``game``: the game's name, e.g. ``"dodeca"``;
    - ``players``, ``options``: as the game was challenged;
    - ``commitment``: the hex SHA-256 published with the first board;
    - ``seed``: the revealed seed in hex;
    - ``moves``: the game's moves in order, as the move list printed them; ``undo``
      where the players took back the move still standing before it (its rolls
      stay rolled: the next roll is the next number whatever was undone);
    - ``rolls``: every face the game published, in roll order (for Dodeca: the
      40 setup faces, the roll-off, then one face per reroll).

    A player who doubts the server builds the same record from the mails.
    """
    return {
        "game": game,
        "players": players,
        "options": dict(options or {}),
        "commitment": commitment(seed),
        "seed": seed.hex(),
        "moves": list(moves),
        "rolls": [r.face for r in rolls],
    }


def verify(record: Mapping[str, Any]) -> Verification:
    """Recompute every roll of a finished game and compare with what was published.

    The record's format is `make_record`'s; ``rolls`` may be left out to just
    list the recomputed rolls. The game's engine replays the moves from the
    revealed seed only to learn which die each roll was for (a reroll rolls the
    die on its square); every face is recomputed here with `roll`. Reported:
    a commitment that does not match the seed, each roll whose published face
    differs, a count of published rolls that differs, a move that cannot be
    replayed. Raises `RecordError` when the record itself is unusable.
    """
    from pbm.games import UNDO, GameError, get

    seed = _record_seed(record)
    published = _record_faces(record)
    problems: list[str] = []
    declared = record.get("commitment")
    if not isinstance(declared, str) or not _HEX64.match(declared):
        raise RecordError('the record needs "commitment": the 64 hex digits published with the first board')
    if declared.lower() != commitment(seed):
        problems.append(
            f"commitment mismatch: the game published {declared.lower()}, "
            f"but SHA-256 of the revealed seed is {commitment(seed)}"
        )
    moves = record.get("moves", [])
    if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
        raise RecordError('"moves" must be a list of moves as text')
    options = record.get("options") or {}
    if not isinstance(options, dict):
        raise RecordError('"options" must be an object of challenge options, e.g. {} or {"size": 5}')
    try:
        game = get(str(record.get("game", "")))
        state = game.new(players=int(record.get("players", 2)), options=options, seed=seed)
    except (GameError, TypeError, ValueError) as error:
        raise RecordError(f"cannot start the game the record describes: {error}") from None
    if game.published_rolls(state) is None:
        raise RecordError(f"{game.title} rolls no dice on the server; there is nothing to verify")

    recomputed: list[Roll] = []

    def check_new_rolls() -> None:
        for logged in (game.published_rolls(state) or ())[len(recomputed) :]:
            face = roll(seed, len(recomputed), logged.sides)
            recomputed.append(Roll(len(recomputed), logged.sides, face, logged.move, logged.what))
            if published is not None and logged.index < len(published) and published[logged.index] != face:
                problems.append(
                    f"roll mismatch at roll {logged.index} ({logged.what}, d{logged.sides}): "
                    f"the game published {published[logged.index]}, the seed gives {face}"
                )

    check_new_rolls()
    before: list[Any] = []
    for number, move in enumerate(moves, start=1):
        try:
            if move == UNDO:
                if not before:
                    raise GameError("no-move-to-take-back")
                state = game.undo(before.pop(), state)
            else:
                before.append(state)
                state = game.play(state, move)
        except GameError as error:
            problems.append(f"move {number} '{move}' cannot be replayed from the revealed seed: {error}")
            break
        check_new_rolls()
    if published is not None and len(published) != len(recomputed):
        problems.append(f"the record lists {len(published)} rolls, but the moves make {len(recomputed)}")
    return Verification(recomputed, problems)


def _record_seed(record: Mapping[str, Any]) -> bytes:
    seed = record.get("seed")
    if not isinstance(seed, str) or not _HEX64.match(seed):
        raise RecordError(
            'the record needs "seed": the 64 hex digits revealed when the game ended'
            " (a game still in progress keeps its seed secret)"
        )
    return bytes.fromhex(seed)


def _record_faces(record: Mapping[str, Any]) -> list[int] | None:
    faces = record.get("rolls")
    if faces is None:
        return None
    if not isinstance(faces, list) or not all(isinstance(f, int) and not isinstance(f, bool) for f in faces):
        raise RecordError('"rolls" must be a list of faces (whole numbers), in roll order')
    return faces
