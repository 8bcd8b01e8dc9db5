"""Step 4: the slow half of a mail's password checks, before any write transaction waits for it.

argon2 takes a good part of a second by design. Checked while the mail is read, outside any
write transaction, the answers are remembered (`pbm.passwords.Passwords`), so the same checks
when the mail is applied cost nothing. A password that changes in between is simply checked
again there.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from pbm.commands import language as lang
from pbm.commands.plan import Plan
from pbm.passwords import Ahead
from pbm.store import players


def check_passwords_ahead(session: Session, plan: Plan, sender: str | None, ahead: Ahead, *, now: datetime) -> None:
    """Start every password check of `plan` on `ahead`: hashing the new passwords it sets, and
    verifying those it gives. No password is checked for a player whose password commands from
    `sender` (the mail's From) wait after wrong ones."""
    for step in plan.steps:
        match step:
            case lang.Signup(secret=password) | lang.ResetPassword(secret=password):
                ahead.prepare(password)
            case lang.ChangePassword(userid=userid, old=old, new=new):
                _verify(session, sender, userid, old, ahead, now)
                ahead.prepare(new)
            case lang.Command() if (credentials := step.credentials()) is not None:
                _verify(session, sender, *credentials, ahead, now)


def _verify(session: Session, sender: str | None, userid: str, password: str, ahead: Ahead, now: datetime) -> None:
    password_hash = players.checkable_password_hash(session, userid, sender, now=now)
    if password_hash is not None:
        ahead.verify(password_hash, password)
