"""The words of time, in English: which time rule a forfeit comes from and a game's time rules
(`pbm.timekeeping.clocks`). The store's record says them with its other facts
(`pbm.store.messages`), a refusal of a challenge's time rule with the command layer's."""

from __future__ import annotations

from pbm.facts import Catalogue, Plural, merged

TIME: Catalogue = {
    # Which time rule a forfeit comes from (`pbm.timekeeping.clocks.Turn.why`).
    "no-move-in": "no move in {span}",
    "thinking-time-ran-out": "the {span} of thinking time ran out",
    "clock-ran-out": "the clock ran out",
    "days": Plural("count", "{count} day", "{count} days"),
    "hours": Plural("count", "{count} hour", "{count} hours"),
}

TIME_RULES: Catalogue = {
    # A game's time rules (`pbm.timekeeping.clocks.TimeControl.said`), as the first board mail and help time
    # say them; each rule the challenge adds is said after the ones before it.
    "time-rules": "reminders after {nag} without a move; forfeit after {forfeit}",
    "time-rules-total": "{rules}; at most {total} of thinking time each",
    "time-rules-clock": "{rules}; a clock of {start} plus {increment} a move",
    "time-rules-clock-capped": "{rules}; a clock of {start} plus {increment} a move, at most {cap}",
    # Why a challenge's time rule cannot be (`pbm.timekeeping.clocks.InvalidTimeRule`); {word} as written.
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

MESSAGES: Catalogue = merged([TIME, TIME_RULES])
