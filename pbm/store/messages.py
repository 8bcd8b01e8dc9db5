"""The record's words: the facts the store keeps that no engine decided, in English.

A game's end (`Board.end_fact`) and what a move did (`MoveRecord.report`) are kept as facts.
The engines' own (``cephalopod-most-cells``) are said by `pbm.games.messages`; this catalogue
says the rest: how players leave a game, an undo, the endings the club's rules decide, and
which time rule a forfeit comes from. Like the engines', each fact about a player's move or a
game's end is said after names the caller writes, and names no seat itself.
"""

from __future__ import annotations

from pbm.facts import Catalogue, Plural, merged

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

TIME: Catalogue = {
    # Which time rule a forfeit comes from (`pbm.clocks.Turn.why`).
    "no-move-in": "no move in {span}",
    "thinking-time-ran-out": "the {span} of thinking time ran out",
    "clock-ran-out": "the clock ran out",
    "days": Plural("count", "{count} day", "{count} days"),
    "hours": Plural("count", "{count} hour", "{count} hours"),
}

TIME_RULES: Catalogue = {
    # A game's time rules (`pbm.clocks.TimeControl.said`), as the first board mail and help time
    # say them; each rule the challenge adds is said after the ones before it.
    "time-rules": "reminders after {nag} without a move; forfeit after {forfeit}",
    "time-rules-total": "{rules}; at most {total} of thinking time each",
    "time-rules-clock": "{rules}; a clock of {start} plus {increment} a move",
    "time-rules-clock-capped": "{rules}; a clock of {start} plus {increment} a move, at most {cap}",
    # Why a challenge's time rule cannot be (`pbm.clocks.InvalidTimeRule`); {word} as written.
    "time-rule-unknown": (
        "'{word}' is not a time rule; the time rules are --nagtime=N, --forfeittime=N, "
        "--totaltime=N and --clock=START+INCREMENT/CAP (N in days, or hours as 12h)"
    ),
    "time-rule-needs-a-value": "'{word}' needs a value, e.g. --{name}={example}",
    "time-rule-not-a-span": "'{word}': write a number of days (7) or of hours (12h)",
    "time-rule-out-of-range": "'{word}': a time rule is at least an hour and at most ten years",
    "time-rule-not-a-clock": "'{word}': write --clock=START+INCREMENT/CAP in days, e.g. --clock=3+1/10",
    "time-rule-cap-below-start": "'{word}': the cap cannot be smaller than the start",
    "time-rule-nag-not-before-forfeit": (
        "--nagtime={nag} is not shorter than --forfeittime={forfeit}: a reminder must come before the forfeit"
    ),
}

MESSAGES: Catalogue = merged([LEAVING, ENDINGS, TIME, TIME_RULES])
