"""The record's words: the facts the store keeps that no engine decided, in English.

A game's end (`Board.end_fact`) and what a move did (`MoveRecord.report`) are kept as facts.
The engines' own (``cephalopod-most-cells``) are said by `pbm.games.messages`; this catalogue
says the rest: how players leave a game, an undo, the endings the club's rules decide, and
which time rule a forfeit comes from. Like the engines', each fact about a player's move or a
game's end is said after names the caller writes, and names no seat itself.
"""

from __future__ import annotations

from pbm.facts import Catalogue, merged
from pbm.timekeeping.messages import TIME, TIME_RULES

LEAVING: Catalogue = {
    # What a move list says a player did who left (`pbm.commands.play.Leaving`), after their name.
    "resigned": "resigned",
    "forfeited-by-signing-off": "forfeited by signing off",
    "forfeited-on-time": "forfeited on time ({why})",
    "left-and-the-others-play-on": "{did} and leaves the game; the others play on",
    "took-back-move": "took back move {number} ({move}), as everyone agreed: UNDO successful",
}

ENDINGS: Catalogue = {
    # How a game ended that its rules did not end, after the winners' names.
    "won-when-left": "won when {userid} {did}",
    "tied-when-left": "tied when {userid} {did}",
    "tied-by-agreement": "tied by agreement",
    "won-no-person-left": "won: no person was left in play, and bots play only with people",
    "tied-no-person-left": "tied: no person was left in play, and bots play only with people",
    # Why a game was called off (`pbm.store.boards.finish`): said after "cancelled: ".
    "called-off-in-the-first-round": "{what} in the first round",
    "player-did": "{userid} {did}",
    "draw-agreed": "a draw was agreed",
    "winners-result": "{winners} {result}",
}

MESSAGES: Catalogue = merged([LEAVING, ENDINGS, TIME, TIME_RULES])
