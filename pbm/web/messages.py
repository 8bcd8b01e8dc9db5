"""The web pages' own words (the words of games, moves and refusals come from the other
catalogues): replaying a game, its record, the server's signing key."""

from __future__ import annotations

from pbm.facts import Catalogue, Plural

MESSAGES: Catalogue = {
    "no-such-ply": Plural(
        "plies",
        "{title} board {board} has {plies} move so far; there is no board after move {ply}",
        "{title} board {board} has {plies} moves so far; there is no board after move {ply}",
    ),
    "replay-label": "Step through the game",
    "replay-first": "First",
    "replay-previous": "Previous",
    "replay-next": "Next",
    "replay-last": "Last",
    "replay-start": "The board before the first move.",
    "replay-after": "The board after move {ply} of {plies}.",
    "replay-turn": "{userid} to move.",
    "replay-hint": "The arrow keys step back and forth; a move's number shows the board after it.",
    "record-link": "The game's record",
    "record-how-to-check": "(every move, hashed and signed; check it with {command})",
    "signing-key": "Receipts and records are signed with the server's Ed25519 key {key_id}: {public_key}",
}
