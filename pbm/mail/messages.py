"""The mail layer's words: every fact the mail pipeline tells a sender (a mail it could not
read, a mail that caused too many answers), in English.

The mail layer decides facts (``Fact("mail-unreadable", why=...)``); an answer says them
through `pbm.words.Words`, at the edge.
"""

from __future__ import annotations

from pbm.facts import Catalogue, Plural

MESSAGES: Catalogue = {
    "sent-mail-pruned": Plural(
        "count",
        "forgot {count} mail sent more than {days} days ago",
        "forgot {count} mails sent more than {days} days ago",
    ),
    "mail-unreadable": "Your mail could not be read: {why}. Nothing in it was carried out",
    "too-many-answers": (
        "Your mail caused {count} answers, more than the {limit} one mail may; only the first {sent} were sent"
    ),
}
