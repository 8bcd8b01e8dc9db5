"""The web side's words: what an error page says (and the JSON API's ``error``), and what a
player's deadlines calendar writes, in English.

The web decides facts (``NotFound("web-no-board", game="Dodeca", board=101)``); a page says
them in its visitor's language through `pbm.words.Words`, the JSON API in English beside the
fact's code (``{"error": "There is no Dodeca board 101.", "code": "web-no-board"}``).
Also what the game page says when it steps through a game, of its record, and of the server's
signing key.
"""

from __future__ import annotations

from pbm.facts import Catalogue, Plural

MESSAGES: Catalogue = {
    # The headings of error pages.
    "web-not-found": "Not found",
    "web-bad-request": "Bad request",
    "web-http-error": "Error {status} ({reason})",
    # What is missing, or what is wrong with the query.
    "web-no-page": "There is no page at this address.",
    "web-no-game": "There is no game called '{name}' here.",
    "web-no-board": "There is no {game} board {board}.",
    "web-no-player": "There is no player '{userid}'.",
    "web-no-dice-record": (
        "{game} board {board} has no dice record (yet): the seed stays secret until the game is over."
    ),
    "web-not-a-number": "'{name}' must be a whole number from {minimum}, not '{text}'.",
    "web-unknown-status": "'status' must be one of {statuses}, not '{status}'.",
    "web-before-and-after": "Give 'before' or 'after', not both.",
    "web-no-unsubscribe": "This unsubscribe address is not one of this server's.",
    "web-unsubscribe-lapsed": (
        "This unsubscribe address is from a mail more than {days} days old: it ends nothing now. "
        "Use the one in a newer mail, or the command that asked for these mails."
    ),
    # What a player's page says of mail to them that bounces (`pbm.web.reads.PlayerPage`).
    "mail-bounces-since": (
        "Mail to one of {userid}'s addresses has bounced since {since:moment}: the server writes "
        "nothing more to it (what comes for it waits) until a mail from it comes."
    ),
    # one-click unsubscribe (`pbm.web.unsubscribe`)
    "unsubscribe-title": "Unsubscribe",
    "unsubscribe-button": "Unsubscribe",
    "unsubscribe-watching-ask": "Stop mailing {userid} the moves of {title} board {board}?",
    "unsubscribe-watching-done": "{userid} no longer watches {title} board {board}: no more of its mails.",
    "unsubscribe-watching-done-every": (
        "{userid} no longer watches {title} board {board}, nor the new {title} games: no more of their mails."
    ),
    "unsubscribe-watching-none": "{userid} does not watch {title} board {board} (any more): nothing to end.",
    "unsubscribe-digest-ask": "Stop {userid}'s digests? Each move in {userid}'s games is mailed on its own again.",
    "unsubscribe-digest-done": (
        "{userid} gets no more digests: each move in {userid}'s games is mailed on its own again, so none "
        "is missed (what waited for the next digest goes now)."
    ),
    "unsubscribe-digest-none": "{userid} takes no digest (any more): each move is mailed on its own.",
    "unsubscribe-endings-ask": "Stop mailing {userid} when {title} games end?",
    "unsubscribe-endings-done": "{userid} is no longer mailed when {title} games end.",
    "unsubscribe-endings-none": "{userid} is not mailed when {title} games end (any more): nothing to end.",
    # A player's deadlines as a calendar (`pbm.web.calendar`).
    "calendar-name": "{userid}: moves due",
    "calendar-deadline": "Move in {game} board {board}, or forfeit",
    "calendar-deadline-details": "{userid} forfeits {game} board {board} at this time ({why}).",
    "calendar-day-left": "A day left to move in {game} board {board}",
    # Stepping through a game (``?ply=N``), its record, the server's signing key.
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
