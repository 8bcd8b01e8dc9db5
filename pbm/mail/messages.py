"""The mail layer's words: every fact the mail pipeline tells a sender (a mail it could not
read, a mail that caused too many answers), in English.

The mail layer decides facts (``Fact("mail-unreadable", why=...)``); an answer says them
through `pbm.words.Words`, at the edge.
"""

from __future__ import annotations

from pbm.facts import Catalogue, merged

READING: Catalogue = {
    # What an error mail shows as the command of a reply that is all one answer (a password reset's).
    "your-reply": "(your reply)",
    "mail-unreadable": "Your mail could not be read: {why}. Nothing in it was carried out",
    "too-many-answers": (
        "Your mail caused {count} answers, more than the {limit} one mail may; only the first {sent} were sent"
    ),
}

BOARDS: Catalogue = {
    # What a board mail (and a game's page) says of a game: the read models (`pbm.views`) decide
    # these facts, the templates say them.
    # Where a game stands (`Standing`).
    "turn-of": "It is {userid}'s turn ({seat}).",
    "game-result": "{result}.",
    "game-was-cancelled": "The game was cancelled: {why}.",
    "cancelled-because": "cancelled: {why}",
    "board-after-move": "This is the board after move {number}.",
    "standing-to-move": "{userid} to move",
    "standing-won-by": "won by {userid}",
    "standing-tie": "tie: {userids}",
    "standing-cancelled": "cancelled",
    "standing-active": "active",
    # Seats (`SeatView`): Dodeca's are words, the others proper names.
    "seat-name": "{name}",
    "seat-out": "{seat} (out)",
    # What a move did, after the mover's name (`MoveView.did`); the engines say the rest.
    "forfeited": "forfeited",
    "played-from-queue": "{did} (Auto)",
    # The first lines of a mail about a move.
    "move-news": "{userid} {did}.",
    "players-out": "{userids} {why}.",
    "tally-cells": "Cells: {counts}.",
    "tally-cells-at-the-end": "Cells at the end: {counts}.",
    "tally-of": "{title}: {counts}.",
    "tally-of-at-the-end": "{title} at the end: {counts}.",
    "challenged-to-new-game": "{userid} challenged {userids} to a new game.",
    # The time rules of a game (`pbm.clocks.TimeControl.sentence_facts`), joined by "; ".
    "time-rule-nag": "reminders after {span} without a move",
    "time-rule-forfeit": "forfeit after {span}",
    "time-rule-total": "at most {span} of thinking time each",
    "time-rule-clock": "a clock of {start} plus {increment} a move",
    "time-rule-clock-capped": "a clock of {start} plus {increment} a move, at most {cap}",
}

MESSAGES: Catalogue = merged([READING, BOARDS])
