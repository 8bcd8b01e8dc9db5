"""Composing outgoing mail: a `Reply` effect in, an RFC 5322 message out.

Every mail is rendered from ``templates/mail/<name>.txt``, whose top-level
``{% set subject = ... %}`` gives the Subject and whose output is the body.
One mail per recipient. Every mail says it is automatic (``Auto-Submitted``)
and carries our loop marker, so that auto-responders leave it alone and our
own mail is never answered if it comes back.

Threading: the game's first mail to a player has a Message-ID derived from the
game and the player; every later mail of that game to that player refers to
it (In-Reply-To/References), so a mail client shows one thread per game.
Answers to a player's own mail (errors, help, lists) refer to that mail.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from datetime import datetime
from email.message import EmailMessage
from email.utils import format_datetime, formataddr, make_msgid
from typing import Any

import jinja2

from pbm.commands.execute import Reply
from pbm.mail.tokens import Addressing, ReplyTokens

LOOP_HEADER = "X-PBM-Loop"
SERVER_NAME = "PBeM Server"


@dataclass(frozen=True)
class ComposedMail:
    message_id: str
    recipient: str
    raw: bytes


@dataclass(frozen=True)
class Answering:
    """The inbound mail a reply answers, for threading."""

    message_id: str | None
    references: tuple[str, ...] = ()


class Composer:
    def __init__(
        self, templates: jinja2.Environment, addressing: Addressing, tokens: ReplyTokens, key: bytes
    ) -> None:
        self.templates = templates
        self.addressing = addressing
        self.tokens = tokens
        self._key = key

    def render(self, template: str, context: dict[str, Any]) -> tuple[str, str]:
        """The (subject, body) of ``mail/<template>.txt`` rendered with `context`."""
        module = self.templates.get_template(f"mail/{template}.txt").make_module(context)
        subject = " ".join(str(getattr(module, "subject", "")).split())
        body = "\n".join(line.rstrip() for line in str(module).strip("\n").splitlines()) + "\n"
        return subject or SERVER_NAME, body

    def compose(self, reply: Reply, *, now: datetime, answering: Answering | None = None) -> ComposedMail:
        message = self._message(reply, now=now, answering=answering)
        return ComposedMail(message["Message-ID"], reply.to, bytes(message))

    def _message(self, reply: Reply, *, now: datetime, answering: Answering | None = None) -> EmailMessage:
        subject, body = self.render(reply.template, {**reply.context, "server": self.addressing.address})
        message = EmailMessage()
        message["From"] = formataddr((SERVER_NAME, self.addressing.address))
        message["To"] = reply.to
        message["Subject"] = subject
        message["Date"] = format_datetime(now)
        message["Auto-Submitted"] = "auto-replied"
        message[LOOP_HEADER] = self.addressing.address
        if reply.game_id is not None and reply.player_id is not None:
            root = self.thread_root(reply.game_id, reply.player_id)
            if reply.starts_thread:
                message["Message-ID"] = root
            else:
                message["Message-ID"] = make_msgid(domain=self.addressing.domain)
                message["In-Reply-To"] = root
                message["References"] = root
            if self._invites_reply(reply):
                token = self.tokens.make(reply.game_id, reply.player_id)
                message["Reply-To"] = formataddr((SERVER_NAME, self.addressing.reply_address(token)))
        else:
            message["Message-ID"] = make_msgid(domain=self.addressing.domain)
            if answering is not None and answering.message_id:
                message["In-Reply-To"] = answering.message_id
                message["References"] = " ".join([*answering.references[-10:], answering.message_id])
        message.set_content(body)
        return message

    def thread_root(self, game_id: int, player_id: int) -> str:
        digest = hmac.new(self._key, f"thread:{game_id}:{player_id}".encode(), hashlib.sha256).hexdigest()[
            :12
        ]
        return f"<pbm.{game_id}.{player_id}.{digest}@{self.addressing.domain}>"

    @staticmethod
    def _invites_reply(reply: Reply) -> bool:
        view = reply.context.get("view")
        return view is not None and view.status == "active"
