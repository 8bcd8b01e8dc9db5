"""Step 4: the slow half of a mail's password checks, before any write transaction waits for it.

argon2 takes a good part of a second by design. Checked while the mail is read, outside any
write transaction, the answers are remembered (`pbm.crypto.passwords.Passwords`), so the same checks
when the mail is applied cost nothing. A password that changes in between is simply checked
again there.

So is the search for the author's password in the mail's own words (`authors_passwords`): a
password written where no command reads it (first in a broken command, inside a sentence,
quoted in prose) is found by checking the mail's likeliest words against the password hash of
the players whose address the mail came from, at most `MOST_CHECKS` checks a mail, and starred
wherever it stands.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy.orm import Session

from pbm.commands import language as lang
from pbm.commands import masking
from pbm.commands.plan import Plan
from pbm.crypto.passwords import Ahead, Passwords
from pbm.mail.parse import ParsedMail
from pbm.store import players
from pbm.store.models import Player

MOST_CHECKS = masking.MOST_WORDS_CHECKED
"""Checks of a mail's words against its authors' password hashes, all authors together."""
MOST_AUTHORS = 2
"""Players sharing the mail's From address whose passwords are looked for."""


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


def searched_text(mail: ParsedMail) -> str:
    """What of a mail is searched for its author's password: all that may be quoted or passed on."""
    replying = mail.subject.lower().startswith(("re:", "fwd:", "fw:", "tr:"))  # a reply's subject is our mail's
    return mail.body if replying else f"{mail.body}\n{mail.subject}"


def may_hold_a_password(text: str, plan: Plan) -> bool:
    """Whether any word of `text` is worth checking against its authors' passwords
    (`words_to_check`, whoever the authors are: knowing them only rules words out)."""
    return bool(masking.password_candidates(text, plan.secrets(), most=1))


def words_to_check(text: str, plan: Plan, authors: Sequence[Player]) -> list[tuple[str, str]]:
    """The (password hash, word) checks that look for `authors`' passwords among the words of `text`:
    at most `MOST_CHECKS`, the likeliest words first (`masking.password_candidates`)."""
    hashes = [player.password_hash for player in authors if not player.is_bot][:MOST_AUTHORS]
    if not hashes:
        return []
    userids = [player.userid for player in authors]
    words = masking.password_candidates(text, plan.secrets(), most=MOST_CHECKS // len(hashes), ignore=userids)
    return [(password_hash, word) for word in words for password_hash in hashes]


def authors_words_ahead(text: str, plan: Plan, authors: Sequence[Player], ahead: Ahead) -> None:
    """Start the checks `words_to_check` names, for `authors_passwords` to find answered."""
    for password_hash, word in words_to_check(text, plan, authors):
        ahead.verify(password_hash, word)


def authors_passwords(text: str, plan: Plan, authors: Sequence[Player], passwords: Passwords) -> set[str]:
    """The words of `text` that are the password of one of `authors` (the players of the mail's From)."""
    return {
        word for password_hash, word in words_to_check(text, plan, authors) if passwords.verify(password_hash, word)
    }
