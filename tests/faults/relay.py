"""A loopback SMTP relay the test controls: up or down, accepting, deferring (451) or
refusing (550), as `PBM_OUTBOUND=smtp://` meets real relays."""

from __future__ import annotations

import threading
from collections import Counter
from email.parser import BytesHeaderParser
from email.policy import compat32

from aiosmtpd.controller import Controller

from tests.e2e.conftest import free_port


class RelayHandler:
    def __init__(self) -> None:
        self.mode = "accept"
        self.refused_recipients: set[str] = set()
        self.delivered: list[bytes] = []
        self.deferred = 0
        self.refused = 0
        self.lock = threading.Lock()

    async def handle_RCPT(self, server, session, envelope, address: str, rcpt_options) -> str:
        if address in self.refused_recipients:
            with self.lock:
                self.refused += 1
            return "550 5.1.1 No such user here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope) -> str:
        with self.lock:
            if self.mode == "defer":
                self.deferred += 1
                return "451 4.3.0 Try again later"
            self.delivered.append(envelope.original_content)
        return "250 OK"


class Relay:
    """Starts down; `up()`, `down()`, `defer()` (answer 451 after DATA) change what it does.
    Recipients in `refuse` always get a 550 at RCPT."""

    def __init__(self, refuse: set[str] | None = None) -> None:
        self.port = free_port()
        self.handler = RelayHandler()
        self.handler.refused_recipients = set(refuse or ())
        self._controller: Controller | None = None

    @property
    def url(self) -> str:
        return f"smtp://127.0.0.1:{self.port}"

    def up(self) -> None:
        self.handler.mode = "accept"
        self._listen()

    def defer(self) -> None:
        self.handler.mode = "defer"
        self._listen()

    def down(self) -> None:
        if self._controller is not None:
            self._controller.stop()
            self._controller = None

    def _listen(self) -> None:
        if self._controller is None:
            self._controller = Controller(self.handler, hostname="127.0.0.1", port=self.port)
            self._controller.start()

    def delivered_message_ids(self) -> Counter[str]:
        parser = BytesHeaderParser(policy=compat32)
        with self.handler.lock:
            raws = list(self.handler.delivered)
        return Counter(str(parser.parsebytes(raw).get("Message-ID", "")).strip() for raw in raws)
