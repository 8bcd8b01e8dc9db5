"""The mail layer's words: every fact the mail pipeline tells a sender (a mail it could not
read, a mail that caused too many answers), in English.

The mail layer decides facts (``Fact("mail-unreadable", why=...)``); an answer says them
through `pbm.words.Words`, at the edge.
"""

from __future__ import annotations

from pbm.facts import Catalogue, Plural

MESSAGES: Catalogue = {
    "mail-unreadable": "Your mail could not be read: {why}. Nothing in it was carried out",
    "held-digest-yours": "It waited for a digest, which you turned off.",
    "held-digest-theirs": "It waits for their digest.",
    "held-quiet-hours-yours": "It came in your quiet hours, and waited for them to end.",
    "held-quiet-hours-theirs": "It came in their quiet hours, and waits for them to end.",
    "address-bounced-subject": "Mail to one of {userid}'s addresses bounces",
    "address-bounced": (
        "Mail for {userid} to {address} came back: its mail system says it does not take our mail "
        "({status}). No more mail goes there; what comes for it waits."
    ),
    "address-bounced-how": (
        "Mail goes there again as soon as a mail from that address reaches the server (any command "
        "will do, such as: help). Or write to the server from here: change address {userid} PASSWORD ADDRESS..."
    ),
    # digests (`pbm.commands.digests`)
    "digest-subject": Plural(
        "count", "{userid}: {count} game waits for your move", "{userid}: {count} games wait for your move"
    ),
    "digest-opening": Plural(
        "count",
        "{count} game waits for your move, {userid}.",
        "{count} games wait for your move, {userid}, the one you would forfeit soonest first.",
    ),
    "digest-game": "{number}. {title} board {board}",
    "digest-how-to-reply": (
        "Reply to this mail with one line per game you move in, its board and your move ({example} c3), "
        "and each is played; or mail a game's own reply address below."
    ),
    "digest-reply-address": "To move here, mail your move alone on the first line to: {address}",
    "too-many-answers": (
        "Your mail caused {count} answers, more than the {limit} one mail may; only the first {sent} were sent"
    ),
}
