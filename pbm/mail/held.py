"""Letting held-back mail go when its time comes.

A mail past the hourly limit of its address waits in the outbox
(`pbm.mail.outgoing`). The time pass looks for addresses whose held mail may
go (its time come, or room made by a limit raised since it was held) and,
where the hour has room, lets it go: one mail waiting goes as it
was, its reply address and thread kept, under a line saying it was held back
and why; several go out gathered into one mail that says the same and then
gives each in full, subject and text, oldest first. The gathered mail counts
against the limit like any other, so an address that was flooded gets one
mail for all that waited, not the flood an hour later. Quiet hours win over
the hour's room: a mail for a player whose quiet hours began while it waited
waits on until they end, unless it answers their own mail.

Letting go is one transaction: a held mail is either still held, or queued
(alone, or gathered and marked so), never both and never neither. An
address's held mail is claimed whole, skipping rows another worker has
locked, so two time passes on one database never let the same mail go twice.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from email.parser import BytesParser
from email.policy import default

from sqlalchemy.orm import Session

from pbm.addresses import same
from pbm.commands.effects import OutgoingMail
from pbm.config import Limits
from pbm.mail.compose import Composer, with_preface
from pbm.mail.outgoing import WINDOW
from pbm.store import inbox, outbox, players, preferences
from pbm.store.models import HoldReason, OutboxMessage

ADDRESSES_PER_PASS = 100
"""Addresses whose held mail one pass lets go; the rest wait for the next pass."""
MOST_GATHERED = 50
"""Held mails one gathered mail carries, so that it stays a mail a player can read through;
more wait for the next room the hour has."""


@dataclass(frozen=True)
class HeldText:
    """A held mail as the gathered mail gives it: its subject, when it was written, its text, and
    whether a reply to it could play a move (its reply address cannot come along)."""

    subject: str
    written_at: datetime
    text: str
    answerable: bool


@dataclass(frozen=True)
class HeldMail:
    composer: Composer
    limits: Limits

    def release_due(self, session: Session, now: datetime, *, bring_forward: bool = True) -> list[str]:
        """Let go the held mail whose time has come, where the hour has room for it; a line per
        address on what went (no address in it). With `bring_forward`, first the mail an hourly
        limit raised since had held till later (`_bring_forward_where_room`)."""
        done = []
        if bring_forward:
            self._bring_forward_where_room(session, now)
        for key in outbox.due_held(session, now, limit=ADDRESSES_PER_PASS):
            session.flush()  # what was let go before counts in the plain statements below
            held = outbox.claim_held(session, key, now)
            if not held:
                continue  # another worker is letting it go
            recent = outbox.recent_counts(session, [key], now - WINDOW, kinds=()).get(key)
            if recent is not None and recent.mails >= self.limits.mails_per_address_per_hour:
                outbox.postpone(held, recent.oldest + WINDOW)
                continue
            going = self._awake(session, held[:MOST_GATHERED], now)
            if not going:
                continue
            if len(going) == 1:
                self._let_go(session, going[0], now)
                done.append(f"held mail: a {going[0].kind} mail let go")
            else:
                self._gather(session, going, now)
                done.append(f"held mail: {len(going)} mails let go, gathered into one")
        return done

    def _bring_forward_where_room(self, session: Session, now: datetime) -> None:
        """Mail the hourly limit held was given its time to go when it was held, under the limit
        of then: where the hour has room under today's (raised since, and the server restarted),
        its time is now."""
        keys = outbox.held_till_later(session, now, limit=ADDRESSES_PER_PASS)
        recent = outbox.recent_counts(session, keys, now - WINDOW, kinds=())
        most = self.limits.mails_per_address_per_hour
        outbox.bring_forward(session, [key for key in keys if key not in recent or recent[key].mails < most], now)

    @staticmethod
    def _awake(session: Session, rows: list[OutboxMessage], now: datetime) -> list[OutboxMessage]:
        """Of `rows`, held mail whose time has come, those that may go now. Mail the hourly limit
        held for a player in their quiet hours now waits for them to end, as mail that comes in
        them does; not an answer to mail from its own address (what the player asked for), nor
        mail held for another reason (let go because the player confirmed an address, took the
        digest off or wrote from an address that bounced: just now, by mail)."""
        limited = [r for r in rows if r.hold_reason is HoldReason.HOURLY_LIMIT and r.player_id is not None]
        quiet = preferences.choices_of(session, {r.player_id for r in limited if r.player_id is not None}).quiet
        limited = [r for r in limited if r.player_id in quiet]
        if not limited:
            return rows
        asked_by = inbox.senders(session, {r.inbound_id for r in limited if r.inbound_id is not None})
        waiting = set()
        for row in limited:
            ends = quiet[row.player_id].ends_after(now) if row.player_id is not None else None
            sender = asked_by.get(row.inbound_id) if row.inbound_id is not None else None
            if ends is not None and not (sender is not None and same(sender, row.recipient)):
                outbox.wait_for_quiet_hours([row], ends)
                waiting.add(row.id)
        return [row for row in rows if row.id not in waiting]

    @staticmethod
    def _reader_at(session: Session, recipient: str) -> tuple[str | None, str | None]:
        """The language and zone of the player at `recipient` (the mails held for them were written so)."""
        readers = players.readers(session, (), [recipient])
        return readers.language_of(None, recipient), readers.zone_of(None, recipient)

    def _let_go(self, session: Session, row: OutboxMessage, now: datetime) -> None:
        context = {"written_at": row.created_at, "reasons": [row.hold_reason], "limits": self.limits}
        _, preface = self.composer.render("held_preface", context, *self._reader_at(session, row.recipient))
        outbox.requeue_held(row, with_preface(row.raw, preface), now)

    def _gather(self, session: Session, rows: list[OutboxMessage], now: datetime) -> None:
        context = {
            "mails": [_held_text(row) for row in rows],
            "reasons": list(dict.fromkeys(row.hold_reason for row in rows)),
            "limits": self.limits,
        }
        recipient = rows[0].recipient
        language, zone = self._reader_at(session, recipient)
        gathered = self.composer.compose(
            OutgoingMail("held_mail", recipient, context, language=language, zone=zone), now=now
        )
        outbox.mark_gathered(rows, now)
        session.flush()
        # The player the held mails were for, if one: their sealed reply addresses are made whole
        # for that player alone as the mail is handed over (`pbm.mail.tokens.ReplyTokens.unseal`).
        players_of = {row.player_id for row in rows}
        player_id = players_of.pop() if len(players_of) == 1 else None
        queued = outbox.Queued(gathered.recipient, gathered.message_id, gathered.raw, "held_mail", player_id=player_id)
        outbox.enqueue(session, [queued], now=now)


def _held_text(row: OutboxMessage) -> HeldText:
    """What a held mail says: read back from the bytes composed for it (ours, so well-formed)."""
    message = BytesParser(policy=default).parsebytes(row.raw)
    return HeldText(str(message["Subject"]), row.created_at, message.get_content(), "Reply-To" in message)
