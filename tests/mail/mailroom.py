"""The mail processor on a real database, without the network: mail in, replies out."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from sqlalchemy import or_, select

from pbm.config import Settings
from pbm.passwords import Passwords, fast_passwords
from pbm.server import Server
from pbm.store.inbox import save_inbound
from pbm.store.models import InboundMessage, OutboxMessage, utcnow
from tests.support import read


class Mailroom:
    """A server's mail processing without its listeners: mails stored, processed, replies read back.

    `settings` override the server's (e.g. ``max_commands_per_mail=3``); `clock`
    is the server's time, for tests of what happens an hour or a day later;
    `passwords` its password hashing (cheap by default).
    """

    def __init__(
        self,
        database_url: str,
        var_dir: Path,
        *,
        clock: Callable[[], datetime] = utcnow,
        passwords: Passwords | None = None,
        **settings: Any,
    ) -> None:
        settings = Settings(
            database_url=database_url,
            secret_key="k" * 40,
            outbound=f"maildir:{var_dir}/outbox",
            **settings,
        )
        self.server = Server(settings, passwords=passwords or fast_passwords(), var_dir=var_dir, now=clock)
        self.database = self.server.database
        self._seen = 0
        self._held: set[int] = set()

    def close(self) -> None:
        self.server.close()

    def send(
        self, raw: bytes, *, envelope_from: str | None = None, to: str = "pbm@localhost"
    ) -> InboundMessage:
        """Deliver `raw` as SMTP would and process it; returns the stored inbound row."""
        if envelope_from is None:
            envelope_from = read(raw)["From"].addresses[0].addr_spec if read(raw)["From"] else ""
        row = save_inbound(self.database, raw, envelope_from=envelope_from, envelope_to=[to])
        self.server.processor.process_pending()
        with self.database.reading() as session:
            return session.get(InboundMessage, row.id)

    def replies(self) -> list[EmailMessage]:
        """Mails queued for sending since the last call, in order: not those a limit keeps back,
        but those it held back and has let go since."""
        with self.database.reading() as session:
            rows = session.execute(
                select(OutboxMessage.id, OutboxMessage.status, OutboxMessage.raw)
                .where(or_(OutboxMessage.id > self._seen, OutboxMessage.id.in_(self._held)))
                .order_by(OutboxMessage.id)
            ).all()
        if rows:
            self._seen = max(self._seen, rows[-1].id)
        self._held = {row.id for row in rows if row.status == "held"}
        return [read(row.raw) for row in rows if row.status in ("pending", "sent", "failed")]

    def replies_to(self, address: str) -> list[EmailMessage]:
        return [m for m in self.replies() if m["To"].addresses[0].addr_spec == address]
