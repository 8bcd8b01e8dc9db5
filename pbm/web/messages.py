"""The web side's words: what an error page says (and the JSON API's ``error``), and what a
player's deadlines calendar writes, in English.

The web decides facts (``NotFound("web-no-board", game="Dodeca", board=101)``); a page says
them in its visitor's language through `pbm.words.Words`, the JSON API in English beside the
fact's code (``{"error": "There is no Dodeca board 101.", "code": "web-no-board"}``).
"""

from __future__ import annotations

from pbm.facts import Catalogue

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
    # A player's deadlines as a calendar (`pbm.web.calendar`).
    "calendar-name": "{userid}: moves due",
    "calendar-deadline": "Move in {game} board {board}, or forfeit",
    "calendar-deadline-details": "{userid} forfeits {game} board {board} at this time ({why}).",
    "calendar-day-left": "A day left to move in {game} board {board}",
}
