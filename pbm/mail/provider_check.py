"""What `pbm doctor` finds when it tries the club's provider: it logs in to the mailbox and to the
submission service as `pbm serve` would, and notes what the IMAP server offers of what pbm uses
(IDLE to be told of new mail at once, MOVE to move a read mail in one step). It sends nothing,
reads nothing, and moves nothing: the folder is opened read-only (EXAMINE).

What it says never carries the secret: a refusal is the server's own words, an unreachable
server the kind of error.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass

import aioimaplib

from pbm.config import Inbound
from pbm.i18n.text import one_line
from pbm.mail.account import Account, AccountError
from pbm.mail.mailbox import LoginRefused, log_in
from pbm.mail.submission import ProviderUnavailable, SubmissionTransport

TRY_SECONDS = 30.0
USED = ("IDLE", "MOVE")
"""IMAP extensions pbm uses, and does without (it polls; it copies, marks and expunges)."""


@dataclass(frozen=True)
class Tried:
    """The outcome of one login: whether it worked, what was said, and what the server lacks."""

    ok: bool
    said: str
    lacking: tuple[str, ...] = ()


async def try_mailbox(inbound: Inbound, account: Account) -> Tried:
    """Log in to the mailbox and open its folder read-only."""
    try:
        async with asyncio.timeout(TRY_SECONDS):
            client = await log_in(inbound, account)
            try:
                folder = '"' + inbound.folder.replace("\\", "\\\\").replace('"', '\\"') + '"'
                opened = await client.examine(folder)
                lacking = tuple(name for name in USED if not client.has_capability(name))
            finally:
                with contextlib.suppress(Exception):
                    await client.logout()
    except LoginRefused as error:
        return Tried(False, f"the login was refused: {one_line(str(error), limit=200)}")
    except AccountError as error:
        return Tried(False, str(error))
    except (OSError, TimeoutError, aioimaplib.AioImapException) as error:
        return Tried(False, f"does not answer: {type(error).__name__}")
    if opened.result != "OK":
        return Tried(False, f"the folder {inbound.folder} cannot be opened")
    return Tried(True, "logged in", lacking)


async def try_submission(transport: SubmissionTransport) -> Tried:
    """Log in to the submission service, and leave."""
    try:
        async with asyncio.timeout(TRY_SECONDS):
            await transport.log_in_once()
    except ProviderUnavailable:
        said = transport.health.state.replace("_", " ")
        return Tried(False, f"{said}: {transport.health.detail}" if transport.health.detail else said)
    except TimeoutError:
        return Tried(False, "does not answer: TimeoutError")
    return Tried(True, "logged in")
