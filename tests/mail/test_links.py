"""Links to the web pages in mails (`PBM_PUBLIC_URL`), and the administrator's address (`PBM_ADMIN_CONTACT`)."""

from __future__ import annotations

import re

import pytest

from tests.mail.mailroom import Mailroom
from tests.support import body_of, mail

ALICE, BOB = "alice@example.org", "bob@example.net"
SITE = "https://games.example.org"


def signed_up(room: Mailroom) -> Mailroom:
    room.send(mail(ALICE, "signup alice alice-pw"))
    room.send(mail(BOB, "signup bob bob-pw"))
    room.replies()
    return room


@pytest.fixture
def linked(make_mailroom) -> Mailroom:
    return signed_up(make_mailroom(public_url=SITE + "/", admin_contact="ops@example.org"))


@pytest.fixture
def unlinked(make_mailroom) -> Mailroom:
    return signed_up(make_mailroom())


def test_board_mails_link_to_the_game_page(linked):
    linked.send(mail(ALICE, "cephalopod challenge alice bob"))
    linked.send(mail(ALICE, "cephalopod move 101 alice alice-pw c3"))
    mails = linked.replies()
    assert len(mails) == 4
    for message in mails:
        assert f"\nOn the web: {SITE}/cephalopod/101\n" in body_of(message)


def test_help_links_the_pages_the_rules_and_the_calendar_feed(linked):
    linked.send(mail(BOB, "help"))
    (help_mail,) = linked.replies()
    body = body_of(help_mail)
    assert f"The games, their boards and the standings: {SITE}/\n" in body
    assert f"This help and its topics, in English and French: {SITE}/help\n" in body
    assert f"The rules of a game: {SITE}/GAME/rules\n" in body
    assert f"Your deadlines, as a calendar feed: {SITE}/players/USERID/deadlines.ics\n" in body
    assert f"The bots' levels and strength: {SITE}/bots\n" in body
    linked.send(mail(BOB, "cubeo help"))
    assert f"The rules on the web: {SITE}/cubeo/rules\n" in body_of(linked.replies()[0])
    linked.send(mail(BOB, "help time"))
    assert f"subscribe it to\n{SITE}/players/USERID/deadlines.ics\n" in body_of(linked.replies()[0])
    linked.send(mail(BOB, "help bots"))
    assert f"The same tables on the web: {SITE}/bots\n" in body_of(linked.replies()[0])


def test_a_mail_that_says_to_write_to_the_administrator_gives_the_address(linked):
    linked.send(mail(BOB, "password reset alice"))
    answer = [m for m in linked.replies() if m["To"].addresses[0].addr_spec == BOB][0]
    assert "write to the server's administrator at ops@example.org." in body_of(answer)
    linked.send(mail(BOB, "help"))
    assert "About the server itself, write to its administrator at ops@example.org." in body_of(linked.replies()[0])


def test_without_a_public_url_no_mail_carries_a_link_nor_an_administrators_address(unlinked):
    for line in (
        "cephalopod challenge alice bob",
        "help",
        "cubeo help",
        "help time",
        "help bots",
        "password reset bob",
    ):
        unlinked.send(mail(ALICE, line))
    bodies = [body_of(m) for m in unlinked.replies()]
    assert not [b for b in bodies if re.search(r"https?://", b)]
    assert any("write to the server's administrator." in b for b in bodies)
