"""The mail layer's words: every fact the mail pipeline tells a sender (a mail it could not
read, a mail that caused too many answers), in English.

The mail layer decides facts (``Fact("mail-unreadable", why=...)``); an answer says them
through `pbm.words.Words`, at the edge.
"""

from __future__ import annotations

from pbm.facts import Catalogue, Plural, merged

ANSWERS: Catalogue = {
    # What an error mail shows as the command of a reply that is all one answer (a password reset's).
    "your-reply": "(your reply)",
    # What the time pass did to sent mail past PBM_KEEP_SENT_DAYS (`pbm tick`).
    "sent-mail-pruned": Plural(
        "count",
        "forgot {count} mail sent more than {days} days ago",
        "forgot {count} mails sent more than {days} days ago",
    ),
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
    "digest-reply-address": "To move here, mail your move alone on the first line to:",
    "digest-time-left": "Time left: {left}; you forfeit on {when:moment} unless you move first.",
    "too-many-answers": (
        "Your mail caused {count} answers, more than the {limit} one mail may; only the first {sent} were sent"
    ),
}

READING_NOTES: Catalogue = {
    # What reading a mail noticed (`pbm.mail.parse`, `mime`, `charsets`, `html_text`,
    # `received_headers`): told to its sender below the answer, each as a sentence of its own.
    # -- headers
    "note-too-many-headers": "the message has more than {count} header fields; the rest were not read",
    "note-header-cut": "the {header} header is longer than {length} characters; only part of it was read",
    "note-no-from": "the message has no From address",
    "note-from-unreadable": "the From address of the message could not be read",
    "note-subject-cut": "the Subject is longer than {limit} characters; only its start was read",
    # -- the MIME structure
    "note-mime-too-deep": "the message nests MIME parts more than {depth} deep; the rest was not read",
    "note-mime-too-many-parts": "the message has more than {count} MIME parts; the rest were not read",
    "note-mime-unreadable": "the MIME structure of the message could not be read",
    "note-mime-damaged": "the MIME structure of the message is damaged; its raw text was read",
    "note-encrypted": "the message is encrypted and could not be read",
    "note-no-text": "the message has no text",
    "note-text-cut": "the text is longer than {limit} characters; only its start was read",
    "note-attachments-ignored": Plural("count", "{count} attachment was ignored", "{count} attachments were ignored"),
    # -- the text's bytes ({label}: the charset the mail named; {used}: UTF-8 or Latin-1)
    "note-base64-damaged": "part of the text was badly encoded (base64) and may be incomplete",
    "note-no-charset": "the text has no charset; it was read as {used}",
    "note-charset-is-utf8": "the text is marked '{label}' but is UTF-8; it was read as UTF-8",
    "note-charset-invalid": "the text is not valid '{label}'; it was read as {used}",
    "note-charset-unknown": "the charset '{label}' is unknown; the text was read as {used}",
    "note-controls-removed": "control characters were removed from the text",
    "note-invalid-unicode": "characters that are not valid Unicode were replaced in the text",
    # -- HTML
    "note-html-converted": "the HTML part was converted to text",
    "note-html-cut": "the HTML part is longer than {limit} characters; only its start was read",
    "note-html-unclosed": "the HTML part has a tag or comment that is never closed; what follows it was not read",
    "note-html-too-deep": "the HTML part nests lists or quotes more than {depth} deep; it was read without its layout",
    # Why nothing of a mail could be read (`ParsedMail.unread_because`), after "Your mail could not be read: ".
    "unread-could-not-read": "the message could not be read",
    "unread-too-much-memory": "the message needed more memory than allowed",
    "unread-too-slow": "the message took longer than {seconds} s to read",
    "unread-stopped": "reading the message stopped unexpectedly",
    "unread-never-finished": "reading it was started {count} times and never finished",
    "unread-too-large": "the message is {size} bytes, more than the {limit} this server takes",
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
    # A language by its name in running text (``written in French``, ``écrits en français``).
    "language-name-en": "English",
    "language-name-fr": "French",
    # Every welcome names the other languages, each in its own words (`say_in`).
    "welcome-other-language": "To read the server's mails in {name}, send:\n    language {userid} PASSWORD {code}",
    # A move as the move list writes it (`MoveView.shown_fact`): its notation, or pbmserv's words
    # for a move that is none, in the reader's language; ``(Auto)`` after a move the queue played.
    "move-list-move": "{move}",
    "move-list-resign": "resign",
    "move-list-forfeit": "Forfeit",
    "move-list-undo": "UNDO",
    "move-list-auto": "{entry} (Auto)",
    # The first lines of a mail about a move.
    "move-news": "{userid} {did}.",
    "players-out": "{userids} {why}.",
    "tally-cells": "Cells: {counts}.",
    "tally-cells-at-the-end": "Cells at the end: {counts}.",
    "tally-of": "{title}: {counts}.",
    "tally-of-at-the-end": "{title} at the end: {counts}.",
    "challenged-to-new-game": "{userid} challenged {userids} to a new game.",
    # A bot, as the first lines of a mail name it (`SeatView.named`).
    "bot-named": "{userid} (computer, level {level})",
    "bot-took-seek": "Nobody else sought a {game} game in time, so {bot} took {userid}'s seek.",
    # The time rules of a game (`pbm.timekeeping.clocks.TimeControl.sentence_facts`), joined by "; ".
    "time-rule-nag": "reminders after {span} without a move",
    "time-rule-forfeit": "forfeit after {span}",
    "time-rule-total": "at most {span} of thinking time each",
    "time-rule-clock": "a clock of {start} plus {increment} a move",
    "time-rule-clock-capped": "a clock of {start} plus {increment} a move, at most {cap}",
}

MESSAGES: Catalogue = merged([ANSWERS, READING_NOTES, BOARDS])
