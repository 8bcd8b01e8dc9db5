"""Applying a mail, as a function: a read mail and a session in, a decision out.

No server, no reader, no outbox: `apply_mail` runs the commands in the session and says
what it decided (the mail's status, the notes kept with it, the mails it causes); queueing
them is the next step's (`pbm.mail.pipeline.replies`).
"""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from sqlalchemy import select

from pbm.config import Settings
from pbm.crypto.passwords import fast_passwords
from pbm.facts import Fact
from pbm.i18n.text import sentence
from pbm.mail.answers import Answers
from pbm.mail.bounces import BounceAddresses
from pbm.mail.compose import Composer
from pbm.mail.parse import ParsedMail
from pbm.mail.pipeline.apply import Applying, Decision, apply_mail
from pbm.mail.pipeline.read import ReadMail
from pbm.mail.pipeline.reply_address import ReplyAddresses
from pbm.mail.tokens import Addressing, ReplyTokens
from pbm.store.database import Database
from pbm.store.models import InboundStatus, Player
from pbm.words import Words
from pbm.words.templating import Templates

ALICE = "alice@example.org"
NOW = datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc)
KEY = b"k" * 40


@pytest.fixture
def applying() -> Applying:
    addressing = Addressing("pbm@example.org")
    tokens = ReplyTokens(KEY)
    composer = Composer(Templates(), addressing, tokens, KEY)
    settings = Settings(secret_key="k" * 40)
    return Applying(
        fast_passwords(),
        settings.limits,
        Answers(quoted_lines=40),
        ReplyAddresses(addressing, tokens, composer, lambda: NOW, BounceAddresses(b"k" * 32, addressing)),
        lambda: NOW,
        settings.club,
    )


def received(body: str, *, sender: str | None = ALICE, to: str = "pbm@example.org", **read: object) -> ReadMail:
    mail = ParsedMail(None, sender, "", body, (), None, ())
    for name, value in read.items():
        mail = ParsedMail(**{**mail.__dict__, name: value})
    return ReadMail(1, mail, (to,))


def apply(database: Database, applying: Applying, read: ReadMail) -> Decision:
    with database.transaction() as session:
        return apply_mail(session, read, applying, now=NOW)


def userids(database: Database) -> list[str]:
    with database.reading() as session:
        return list(session.scalars(select(Player.userid).order_by(Player.userid)))


def test_a_command_carried_out_is_counted_and_its_answer_decided(database, applying):
    decision = apply(database, applying, received("signup alice alice-pw"))
    assert decision.status is InboundStatus.PROCESSED
    assert decision.notes == ["1 command(s) carried out, 0 refused"]
    assert (decision.carried_out, decision.refused) == (1, 0)
    assert [mail.to for mail in decision.mails] == [ALICE]
    assert userids(database) == ["alice"]


def test_a_refused_command_is_answered_with_why_and_the_others_stand(database, applying):
    decision = apply(database, applying, received("signup alice alice-pw\nsignup alice other-pw"))
    assert decision.notes == ["1 command(s) carried out, 1 refused"]
    error = [mail for mail in decision.mails if mail.template == "error"]
    assert len(error) == 1 and error[0].to == ALICE
    assert error[0].context["command"] == "signup alice ********"
    assert userids(database) == ["alice"]


def test_a_line_that_is_no_command_is_answered_and_nothing_changes(database, applying):
    decision = apply(database, applying, received("cephalopod mvoe 101 alice pw a1"))
    assert decision.status is InboundStatus.PROCESSED
    assert decision.notes == ["0 command(s) carried out, 1 refused"]
    assert [mail.template for mail in decision.mails] == ["error"]
    assert userids(database) == []


def test_an_automatic_mail_is_ignored_and_answered_by_nothing(database, applying):
    decision = apply(database, applying, received("signup alice alice-pw", auto_reason="auto-submitted (auto-replied)"))
    assert decision == Decision(InboundStatus.IGNORED, ["not answered: auto-submitted (auto-replied)"])
    assert userids(database) == []


def test_an_unreadable_mail_fails_and_its_sender_is_told_why(database, applying):
    decision = apply(database, applying, received("", unread_because=Fact("unread-too-slow", seconds="5")))
    assert decision.status is InboundStatus.FAILED
    assert decision.notes == ["unreadable: the message took longer than 5 s to read"]
    [error] = decision.mails
    assert (error.template, error.to) == ("error", ALICE)
    assert sentence(Words().say(error.context["reason"])) == (
        "Your mail could not be read: the message took longer than 5 s to read. Nothing in it was carried out."
    )


def test_a_mail_without_a_usable_from_is_noted_and_its_answer_has_nowhere_to_go(database, applying):
    decision = apply(database, applying, received("help", sender=None))
    assert decision.notes == [
        "1 command(s) carried out, 0 refused",
        "no usable From address, so no answer to the sender",
    ]
    assert [mail.to for mail in decision.mails] == [""]


def test_a_reply_to_a_damaged_reply_address_is_refused_whatever_it_says(database, applying):
    decision = apply(database, applying, received("c3", to="pbm+1-2-3-forged@example.org"))
    assert decision.notes == ["0 command(s) carried out, 1 refused"]
    [error] = decision.mails
    assert error.template == "error" and Words().say(error.context["reason"]).startswith(
        "The address you replied to is not a reply address of this server"
    )
