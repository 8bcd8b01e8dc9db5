"""Mail in and out: the inbox and the keys that order it, the transactional outbox, a provider's
mailbox read over IMAP, and the addresses our mail does not reach."""

from __future__ import annotations

import enum
from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
)
from sqlalchemy.orm import Mapped, mapped_column

from pbm.addresses import comparable_column
from pbm.store.models.base import Base, Id, StatusColumn, UTCDateTime, utcnow


class InboundStatus(enum.StrEnum):
    PENDING = "pending"
    PROCESSED = "processed"
    IGNORED = "ignored"
    """Not answered: automatic mail (a bounce, an auto-reply, our own mail come back)."""
    DUPLICATE = "duplicate"
    """Another delivery of a mail already stored, which was processed instead."""
    FAILED = "failed"


class OutboxStatus(enum.StrEnum):
    PENDING = "pending"
    SENT = "sent"
    FAILED = "failed"
    """Given up for good; `last_error` says why."""
    SUPPRESSED = "suppressed"
    """Never sent, nor to be: `last_error` says why (an error answer past the limit that breaks mail
    loops; a mail that waited for the digest of a player who signed off)."""
    HELD = "held"
    """Held back (`hold_reason`) until `release_at`, or until code releases it when that is None."""
    GATHERED = "gathered"
    """Went out inside one mail with the others held back for its recipient (`kind` "held_mail")."""


class HoldReason(enum.StrEnum):
    """Why a mail is held back instead of sent."""

    HOURLY_LIMIT = "hourly_limit"
    """Its recipient was sent as many mails within the hour as one address may be."""
    UNCONFIRMED = "unconfirmed"
    """Its recipient has not confirmed the address for the player it is for (`AddressConfirmation`):
    it waits until they do."""
    BOUNCED = "bounced"
    """Its recipient's mail system says our mail does not reach it (`BouncedAddress`): it waits
    until mail from the address, or the operator, says it works again."""
    DIGEST = "digest"
    """A board mail for a player who takes digests (`Player.digest_times`): their next digest
    tells of the game instead, and the mail goes no further (it is marked gathered)."""
    QUIET_HOURS = "quiet_hours"
    """It came in the quiet hours of the player it is for (`Player.quiet_from`): it waits until they end."""


class InboundMessage(Base):
    """Every mail accepted over SMTP, stored raw before the 250 is sent.

    `dedupe_key` (the Message-ID with a digest of what the author wrote, see
    `pbm.store.inbox.dedupe_key`) is unique, so the same mail delivered twice
    is stored twice but only the first copy carries the key and is processed;
    the second is recorded as a duplicate.

    A pending mail is processed in two steps (`pbm.mail.processing`): it is
    *read* (MIME to text, outside any write transaction; `read_at` and `parsed`
    are set and its `InboundKey` rows written), then *applied* in one
    transaction, in the order received among mails that share a key.
    """

    __tablename__ = "inbound_messages"
    __table_args__ = (Index("ix_inbound_status_id", "status", "id"),)

    id: Mapped[int] = mapped_column(Id, primary_key=True)
    raw: Mapped[bytes] = mapped_column(LargeBinary)
    message_id: Mapped[str | None] = mapped_column(String(998), default=None)
    dedupe_key: Mapped[str | None] = mapped_column(String(128), unique=True, default=None)
    envelope_from: Mapped[str] = mapped_column(String(320), default="")
    envelope_to: Mapped[str] = mapped_column(Text, default="")
    peer: Mapped[str] = mapped_column(String(128), default="")
    received_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    status: Mapped[InboundStatus] = mapped_column(StatusColumn(InboundStatus), default=InboundStatus.PENDING)
    note: Mapped[str] = mapped_column(Text, default="")
    processed_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
    read_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
    """When the mail was read; until then nothing received after it that could touch the same things is applied."""
    parsed: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    """What reading found (`ParsedMail.to_json`): what applying works from."""
    read_claim: Mapped[str | None] = mapped_column(String(128), default=None)
    """The worker reading it now (host:pid:nonce), so a dead worker's claim can be taken over at once."""
    read_claimed_until: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
    read_attempts: Mapped[int] = mapped_column(Integer, default=0)
    """Times reading was started: a mail whose reading keeps killing the worker is given up."""
    read_seconds: Mapped[float | None] = mapped_column(default=None)
    """CPU seconds reading took; with `read_peak_kb`, what the mail cost the reader."""
    read_peak_kb: Mapped[int | None] = mapped_column(Integer, default=None)


MAX_KEY = 320


"""The longest key stored as it is; a longer one is stored as its digest (`pbm.store.inbox`)."""


class InboundKey(Base):
    """What a pending mail touches: its sender, the players and boards its commands name.

    A mail is applied only once every earlier pending mail sharing a key is
    done, so mail from one sender, and mail about one game or player, is
    applied in the order received however many workers run; mails that share
    nothing run side by side. Rows exist only while their mail is pending.
    """

    __tablename__ = "inbound_keys"
    __table_args__ = (Index("ix_inbound_keys_key_inbound", "key", "inbound_id"),)

    inbound_id: Mapped[int] = mapped_column(ForeignKey("inbound_messages.id", ondelete="CASCADE"), primary_key=True)
    key: Mapped[str] = mapped_column(String(MAX_KEY), primary_key=True)


class OutboxMessage(Base):
    """A reply waiting for (or done with) delivery: the transactional outbox."""

    __tablename__ = "outbox_messages"
    __table_args__ = (
        Index("ix_outbox_status_due", "status", "next_attempt_at"),
        Index("ix_outbox_status_release", "status", "release_at"),
        # The time pass forgets sent mail after PBM_KEEP_SENT_DAYS (`pbm.store.outbox.prune_sent`).
        Index("ix_outbox_status_sent", "status", "sent_at"),
    )

    id: Mapped[int] = mapped_column(Id, primary_key=True)
    recipient: Mapped[str] = mapped_column(String(320))
    message_id: Mapped[str] = mapped_column(String(255), unique=True)
    raw: Mapped[bytes] = mapped_column(LargeBinary)
    raw_without_secret: Mapped[bytes | None] = mapped_column(LargeBinary, default=None)
    """`raw` without the secret it carries (a password reset's reply token), when it carries one:
    it replaces `raw` once the mail is sent or fails for good, so no secret outlives its use."""
    status: Mapped[OutboxStatus] = mapped_column(StatusColumn(OutboxStatus), default=OutboxStatus.PENDING)
    kind: Mapped[str] = mapped_column(String(32), default="")
    """The template it was made from (board, error, ...): error answers are counted apart."""
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    """When it may be sent; while a worker sends it, the end of that worker's lease."""
    held_by: Mapped[str | None] = mapped_column(String(128), default=None)
    """The worker whose lease holds it (host:pid:nonce), so a dead worker's lease can be ended at once."""
    last_error: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    queued_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
    """When it was queued to be sent, which the hourly limits count by; None while it is held
    back, and for a mail never to be sent."""
    hold_reason: Mapped[HoldReason | None] = mapped_column(StatusColumn(HoldReason), default=None)
    release_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
    """When a mail held back may go; None: when code releases it (`pbm.store.outbox.release`)."""
    sent_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
    inbound_id: Mapped[int | None] = mapped_column(ForeignKey("inbound_messages.id"), default=None, index=True)
    game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id"), default=None, index=True)
    player_id: Mapped[int | None] = mapped_column(Id, default=None)
    """The player it is for, when it is for one (`pbm.commands.effects.OutgoingMail.player_id`): a mail
    waiting for an address to be confirmed goes when that player confirms it. No foreign key, so
    that adding the column did not rewrite the outbox; players are never deleted."""


# Volume limits: what one address, however its case is written, was sent lately (`pbm.store.outbox.recent_counts`).
Index("ix_outbox_lower_recipient_queued", comparable_column(OutboxMessage.recipient), OutboxMessage.queued_at)


class MailboxReader(Base):
    """Who reads a club's mailbox at a provider (`pbm.mail.mailbox`), and what it last saw there.

    One row per mailbox (``user@host/folder``): the worker holding it reads it until
    `held_until`, renewing as it goes, so that several workers on one database read it once; a
    worker that dies loses it when the lease ends, or at once when a worker on its host sees its
    process gone. `uidvalidity` is the folder's as last selected: a change means every UID known
    before names nothing any more (`MailboxMessage`).
    """

    __tablename__ = "mailbox_readers"

    mailbox: Mapped[str] = mapped_column(String(400), primary_key=True)
    holder: Mapped[str | None] = mapped_column(String(128), default=None)
    held_until: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
    uidvalidity: Mapped[int | None] = mapped_column(BigInteger, default=None)


class MailboxMessage(Base):
    """A mail of the mailbox stored in the inbox (`inbound_id`) but not yet moved to the folder of
    processed mail: a reader that finds it still there after a crash moves it without storing it
    again. The row goes once the mail is moved."""

    __tablename__ = "mailbox_messages"

    mailbox: Mapped[str] = mapped_column(String(400), primary_key=True)
    uidvalidity: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    uid: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    inbound_id: Mapped[int | None] = mapped_column(Id, default=None)
    stored_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class BouncedAddress(Base):
    """An address mail systems said our mail does not reach (`pbm.mail.bounces`).

    A permanent failure stops mail to it at once (`stopped_at`); temporary ones are counted,
    and stop it when they are many in a row. While it is stopped, mail to it is held back in the
    outbox, not dropped. Mail from the address ends the row (it works again), as does `pbm outbox
    --resume`.
    """

    __tablename__ = "bounced_addresses"

    address: Mapped[str] = mapped_column(String(320), primary_key=True)
    """Lower case: one mailbox however a mail writes it."""
    temporary_failures: Mapped[int] = mapped_column(Integer, default=0)
    """Temporary failures reported in a row, since the last mail from the address."""
    status: Mapped[str] = mapped_column(String(16), default="")
    """The last status reported (``5.1.1``)."""
    reported_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    stopped_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
    """Since when no mail goes to it; None while its failures are still being counted."""
