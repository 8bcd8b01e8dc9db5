"""The mail processor on a real database, without the network: mail in, replies out."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from sqlalchemy import func, or_, select

from pbm.bots.answers import answer
from pbm.config import Settings
from pbm.crypto.passwords import Passwords, fast_passwords
from pbm.mail.bot_turns import Think
from pbm.serving.server import Server
from pbm.store.inbox import save_inbound
from pbm.store.models import InboundMessage, OutboxMessage, utcnow
from tests.support import confirmation_reply, read, shared_reader


class Mailroom:
    """A server's mail processing without its listeners: mails stored, processed, replies read back.

    `settings` override the server's (e.g. ``max_commands_per_mail=3``); `clock`
    is the server's time, for tests of what happens an hour or a day later;
    `passwords` its password hashing (cheap by default).

    `think`: how bots answer (`pbm.mail.bot_turns.Think`): they play only when a test says so
    (`play_bots`), and in this process unless a test gives none.

    `confirming`: the owners of the addresses the mails name confirm them, as anyone would who
    signed up: every mail asking an address to confirm itself is answered at once by a reply from
    that address. Those replies, and the server's answers to them, are not among `replies()`.
    """

    def __init__(
        self,
        database_url: str,
        var_dir: Path,
        *,
        clock: Callable[[], datetime] = utcnow,
        passwords: Passwords | None = None,
        confirming: bool = True,
        think: Think | None = None,
        **settings: Any,
    ) -> None:
        settings = Settings(
            database_url=database_url,
            secret_key="k" * 40,
            outbound=f"maildir:{var_dir}/outbox",
            **settings,
        )
        keys = var_dir / "signing"
        if not (keys / "current.key").exists():
            # One signing key for every mailroom, so the receipts of golden mails are the same each run.
            keys.mkdir(parents=True, exist_ok=True)
            (keys / "current.key").write_text("5e" * 32 + "\n")
        passwords = passwords or fast_passwords()
        self.server = Server(
            settings,
            passwords=passwords,
            var_dir=var_dir,
            now=clock,
            reader=shared_reader(settings),
            think=think or answer,
        )
        self.database = self.server.database
        self.confirming = confirming
        self._seen = 0
        self._held: set[int] = set()
        self._asked = 0
        """The last outbox row looked at for mails asking to confirm an address."""
        self._answers_to_confirmations: set[int] = set()

    def close(self) -> None:
        self.server.close()

    def send(self, raw: bytes, *, envelope_from: str | None = None, to: str = "pbm@localhost") -> InboundMessage:
        """Deliver `raw` as SMTP would and process it; returns the stored inbound row."""
        if envelope_from is None:
            envelope_from = read(raw)["From"].addresses[0].addr_spec if read(raw)["From"] else ""
        row = save_inbound(self.database, raw, envelope_from=envelope_from, envelope_to=[to])
        self.server.processor.process_pending()
        if self.confirming:
            self._confirm_what_was_asked()
        with self.database.reading() as session:
            return session.get(InboundMessage, row.id)

    def play_bots(self) -> int:
        """The bots decide what is due to them, and the mail workers apply it, as `pbm serve` does
        between mails; returns how many decisions they made."""
        decided = self.server.bots.play_due()
        self.server.processor.process_pending()
        return decided

    def _confirm_what_was_asked(self) -> None:
        """Reply to every mail queued since the last look that asks its address to confirm itself."""
        with self.database.reading() as session:
            since = select(OutboxMessage.id, OutboxMessage.raw, OutboxMessage.recipient, OutboxMessage.player_id)
            rows = session.execute(since.where(OutboxMessage.id > self._asked).order_by(OutboxMessage.id)).all()
        if not rows:
            return
        self._asked = rows[-1].id
        for row in rows:
            reply = confirmation_reply(read(self.handed_over(row)))
            if reply is not None:
                sender = read(reply)["From"].addresses[0].addr_spec
                to = read(reply)["To"].addresses[0].addr_spec
                stored = save_inbound(self.database, reply, envelope_from=sender, envelope_to=[to])
                self.server.processor.process_pending()
                with self.database.reading() as session:
                    answers = session.scalars(select(OutboxMessage.id).where(OutboxMessage.inbound_id == stored.id))
                    self._answers_to_confirmations.update(answers)
                    self._asked = max(self._asked, session.scalar(select(func.max(OutboxMessage.id))) or 0)

    def replies(self) -> list[EmailMessage]:
        """Mails queued for sending since the last call, in order: not those held back (by a limit,
        or until an address is confirmed), but those held back and let go since; not the answers
        to the confirmations this mailroom sent."""
        with self.database.reading() as session:
            rows = session.execute(
                select(
                    OutboxMessage.id,
                    OutboxMessage.status,
                    OutboxMessage.raw,
                    OutboxMessage.recipient,
                    OutboxMessage.player_id,
                )
                .where(or_(OutboxMessage.id > self._seen, OutboxMessage.id.in_(self._held)))
                .order_by(OutboxMessage.id)
            ).all()
        if rows:
            self._seen = max(self._seen, rows[-1].id)
        self._held = {row.id for row in rows if row.status == "held"}
        return [
            read(self.handed_over(row))
            for row in rows
            if row.status in ("pending", "sent", "failed") and row.id not in self._answers_to_confirmations
        ]

    def handed_over(self, row: Any) -> bytes:
        """An outbox row's mail as delivery hands it over: its sealed tokens made genuine."""
        return self.server.delivery.unseal(row.raw, row.recipient, row.player_id)

    def replies_to(self, address: str) -> list[EmailMessage]:
        return [m for m in self.replies() if m["To"].addresses[0].addr_spec == address]
