"""An address gets nothing from the server but one request to confirm it, until a reply from it does.

The mailroom here confirms nothing by itself (``confirming=False``): each test
replies to a request where its player would, as a mail program writes a reply.
"""

from __future__ import annotations

from email.message import EmailMessage

import pytest
from sqlalchemy import select

from pbm.store.models import AddressConfirmation, Board, OutboxMessage, Subscription
from tests.mail.mailroom import Mailroom
from tests.support import Clock, body_of, confirmation_reply, mail

ALICE, BOB, CAROL = "alice@example.org", "bob@example.net", "carol@example.com"
VICTIM, MALLORY = "victim@target.example", "mallory@evil.example"
WORDS = "CHEAP WATCHES AT watches.example"


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def room(make_mailroom, clock) -> Mailroom:
    return make_mailroom(clock=clock, confirming=False)


def asking(messages: list[EmailMessage], address: str) -> EmailMessage:
    """The one mail of `messages` to `address`, which asks it to confirm itself."""
    (request,) = [m for m in messages if m["To"].addresses[0].addr_spec == address]
    assert "+confirm-" in str(request["Reply-To"])
    return request


def reply(room: Mailroom, request: EmailMessage, first_line: str = "", *, sender: str | None = None):
    """A reply to `request`, from its owner or from `sender`; the inbound row."""
    raw = confirmation_reply(request, first_line)
    assert raw is not None
    if sender is not None:
        raw = raw.replace(f"From: {request['To'].addresses[0].addr_spec}".encode(), f"From: {sender}".encode())
    return room.send(raw, to=request["Reply-To"].addresses[0].addr_spec)


def sign_up(room: Mailroom, address: str, userid: str, *, confirm: bool = True) -> EmailMessage:
    """Sign `userid` up from `address`; the welcome mail, replied to unless `confirm` is False."""
    room.send(mail(address, f"signup {userid} {userid}-pw"))
    welcome = asking(room.replies(), address)
    if confirm:
        reply(room, welcome)
        room.replies()
    return welcome


def statuses(room: Mailroom, address: str) -> list[str]:
    """The status of each mail to `address`, oldest first; a mail held back is named by why
    (``unconfirmed``: it waits for the address to be confirmed)."""
    with room.database.reading() as session:
        query = (
            select(OutboxMessage.status, OutboxMessage.hold_reason)
            .where(OutboxMessage.recipient == address)
            .order_by(OutboxMessage.id)
        )
        return [reason if status == "held" else status for status, reason in session.execute(query)]


def subjects(messages: list[EmailMessage]) -> list[str]:
    return [str(m["Subject"]) for m in messages]


# -- asking ---------------------------------------------------------------------------


def test_a_signup_asks_each_address_it_names_once_and_tells_the_sender_which(room):
    room.send(mail(CAROL, f"signup alice alice-pw {ALICE} {BOB}"))
    answers = room.replies()
    assert sorted(m["To"].addresses[0].addr_spec for m in answers) == sorted([ALICE, BOB, CAROL])
    for address in (ALICE, BOB):
        request = asking(answers, address)
        assert "reply to this mail" in body_of(request)
        assert "If this was not your doing, ignore this mail" in body_of(request)
    (to_sender,) = [m for m in answers if m["To"].addresses[0].addr_spec == CAROL]
    assert to_sender["Reply-To"] is None
    assert "sent a mail to reply to" in body_of(to_sender)


def test_the_signer_whose_own_address_is_named_gets_one_mail(room):
    room.send(mail(ALICE, "signup alice alice-pw"))
    assert subjects([asking(room.replies(), ALICE)]) == ["Welcome to the PBeM Server, alice"]


def test_the_token_is_kept_only_as_a_hash(room):
    welcome = sign_up(room, ALICE, "alice", confirm=False)
    token = welcome["Reply-To"].addresses[0].addr_spec.split("+")[1].split("@")[0]
    with room.database.reading() as session:
        stored = session.scalars(select(AddressConfirmation.token_hash)).all()
    assert stored and token not in stored and all(token not in (value or "") for value in stored)


# -- confirming -------------------------------------------------------------------------


@pytest.mark.parametrize("first_line", ["", "confirm", "Yes, that is me"])
def test_any_reply_from_the_address_confirms_it(room, first_line):
    welcome = sign_up(room, ALICE, "alice", confirm=False)
    reply(room, welcome, first_line)
    (answer,) = room.replies()
    assert answer["Subject"] == "Address confirmed for alice"
    assert "is confirmed for alice" in body_of(answer)


def test_a_reply_from_another_address_confirms_nothing(room):
    sign_up(room, BOB, "bob")
    welcome = sign_up(room, ALICE, "alice", confirm=False)
    reply(room, welcome, sender=MALLORY)
    (refusal,) = room.replies()
    assert "counts only from the address it was sent to" in body_of(refusal)
    room.send(mail(BOB, "cephalopod challenge bob alice"))
    assert "No game can start with alice yet" in body_of(room.replies()[0])


def test_a_reply_after_a_week_confirms_nothing(room, clock):
    welcome = sign_up(room, ALICE, "alice", confirm=False)
    clock.advance(days=8)
    reply(room, welcome)
    (refusal,) = room.replies()
    assert "has expired, or was never sent" in body_of(refusal)
    assert statuses(room, ALICE)[-1] == "pending"  # the refusal answers its sender


def test_a_command_on_the_first_line_of_the_reply_runs_once_the_address_is_confirmed(room):
    sign_up(room, BOB, "bob")
    welcome = sign_up(room, ALICE, "alice", confirm=False)
    reply(room, welcome, "cephalopod challenge alice bob")
    assert subjects(room.replies()) == ["Address confirmed for alice", *["New Cephalopod Board 101 alice"] * 2]


def test_an_address_confirmed_once_stays_confirmed_through_changes_of_address(room):
    sign_up(room, ALICE, "alice")
    sign_up(room, BOB, "bob")
    room.send(mail(ALICE, f"change address alice alice-pw {CAROL}"))
    reply(room, asking(room.replies(), CAROL))
    room.replies()
    room.send(mail(CAROL, f"change address alice alice-pw {ALICE}"))
    notices = room.replies()
    assert all(m["Reply-To"] is None for m in notices)  # alice@ was confirmed before: nothing to ask
    room.send(mail(BOB, "cephalopod challenge bob alice"))
    assert [m["To"].addresses[0].addr_spec for m in room.replies()] == [BOB, ALICE]


def test_add_asks_again_for_an_address_not_yet_confirmed(make_mailroom, clock):
    room = make_mailroom(clock=clock, confirming=False, max_confirmations_per_address_per_day=2)
    sign_up(room, ALICE, "alice")
    room.send(mail(ALICE, f"add alice alice-pw {BOB}"))
    asking(room.replies(), BOB)
    room.send(mail(ALICE, f"add alice alice-pw {BOB}"))
    again = asking(room.replies(), BOB)
    reply(room, again)
    assert subjects(room.replies()) == ["Address confirmed for alice"]


# -- what an unconfirmed address gets ------------------------------------------------------


def test_mail_for_a_player_waits_until_their_address_is_confirmed_then_goes(room):
    sign_up(room, ALICE, "alice")
    sign_up(room, BOB, "bob")
    room.send(mail(ALICE, "cephalopod challenge alice bob"))
    room.replies()
    room.send(mail(BOB, f"change address bob bob-pw {CAROL}"))
    request = asking(room.replies(), CAROL)
    room.send(mail(ALICE, f"cephalopod move 101 alice alice-pw c3\n\n{WORDS}"))
    assert [m["To"].addresses[0].addr_spec for m in room.replies()] == [ALICE]
    assert statuses(room, CAROL)[-1] == "unconfirmed"
    reply(room, request)
    waited, confirmed = room.replies()  # the mail that waited is the older
    assert "1 mail that waited for the confirmation follows" in body_of(confirmed)
    assert waited["Subject"] == "Cephalopod Board 101 bob **" and WORDS in body_of(waited)
    assert "held back" in body_of(waited)


def test_a_chat_reaches_a_player_only_at_an_address_they_confirmed(room):
    sign_up(room, ALICE, "alice")
    sign_up(room, BOB, "bob")
    room.send(mail(ALICE, "cephalopod challenge alice bob"))
    room.send(mail(BOB, f"change address bob bob-pw {CAROL}"))
    room.replies()
    room.send(mail(ALICE, f"cephalopod chat 101 alice alice-pw\n\n{WORDS}"))
    assert [m["To"].addresses[0].addr_spec for m in room.replies()] == [ALICE]
    assert statuses(room, CAROL)[-1] == "unconfirmed"


def test_a_message_to_a_player_nobody_confirmed_reaches_nobody(room):
    sign_up(room, ALICE, "alice")
    sign_up(room, VICTIM, "throwaway", confirm=False)
    room.send(mail(ALICE, f"message alice alice-pw throwaway\n\n{WORDS}"))
    (copy,) = room.replies()
    assert copy["To"].addresses[0].addr_spec == ALICE
    assert statuses(room, VICTIM) == ["pending", "unconfirmed"]  # the one request, then the message kept


def test_a_player_on_an_address_another_player_confirmed_still_confirms_it_for_themselves(room):
    sign_up(room, ALICE, "alice")
    sign_up(room, BOB, "bob")
    room.send(mail(MALLORY, f"signup alicetoo alicetoo-pw {ALICE}"))
    room.replies()
    room.send(mail(BOB, f"message bob bob-pw alicetoo\n\n{WORDS}"))
    assert [m["To"].addresses[0].addr_spec for m in room.replies()] == [BOB]


def test_a_players_words_are_never_copied_to_a_forged_from(room):
    sign_up(room, ALICE, "alice")
    sign_up(room, BOB, "bob")
    room.send(mail(VICTIM, f"message alice alice-pw bob\n\n{WORDS}"))
    answers = room.replies()
    assert sorted(m["To"].addresses[0].addr_spec for m in answers) == [ALICE, BOB]  # the copy goes to alice
    assert statuses(room, VICTIM) == []


def test_an_error_to_an_address_nobody_confirmed_does_not_quote_the_words_meant_for_others(room):
    sign_up(room, ALICE, "alice")
    room.send(mail(VICTIM, f"message alice wrong-pw bob\n\n{WORDS}"))
    (error,) = room.replies()
    assert "Wrong password for alice" in body_of(error)
    assert "message alice ******** bob" in body_of(error)
    assert WORDS not in body_of(error)


def test_an_error_to_a_confirmed_address_quotes_the_whole_mail(room):
    sign_up(room, ALICE, "alice")
    room.send(mail(ALICE, f"message alice alice-pw nobody\n\n{WORDS}"))
    (error,) = room.replies()
    assert WORDS in body_of(error)


def test_a_stranger_still_gets_answers_to_their_own_mail(room):
    room.send(mail(VICTIM, "help"))
    assert subjects(room.replies()) == ["Help for the PBeM Server"]


@pytest.mark.parametrize(
    "command",
    [
        "message throwaway throwaway-pw alice",
        "cephalopod seek throwaway throwaway-pw 3",
        "cephalopod subscribe throwaway throwaway-pw all",
        "cephalopod notify throwaway throwaway-pw",
        "cephalopod challenge throwaway alice",
    ],
)
def test_a_player_without_a_confirmed_address_starts_nothing_that_mails_others(room, command):
    sign_up(room, ALICE, "alice")
    sign_up(room, VICTIM, "throwaway", confirm=False)
    room.send(mail(VICTIM, f"{command}\n\n{WORDS}"))
    (refusal,) = room.replies()
    assert refusal["To"].addresses[0].addr_spec == VICTIM
    assert "throwaway has no confirmed address yet" in body_of(refusal)
    assert statuses(room, ALICE) == ["pending", "pending"]  # her welcome and its answer, nothing since


def test_nobody_is_challenged_before_they_confirm_an_address(room):
    sign_up(room, ALICE, "alice")
    sign_up(room, VICTIM, "throwaway", confirm=False)
    room.send(mail(ALICE, "cephalopod challenge alice throwaway"))
    (refusal,) = room.replies()
    assert refusal["Subject"] == "Cephalopod Invalid challenge"
    assert "No game can start with throwaway yet" in body_of(refusal)
    with room.database.reading() as session:
        assert session.scalars(select(Board)).all() == []


# -- limits -----------------------------------------------------------------------------------


def test_requests_to_one_address_stop_at_the_daily_limit(make_mailroom, clock):
    room = make_mailroom(clock=clock, confirming=False, max_confirmations_per_address_per_day=2)
    for n in range(3):
        room.send(mail(f"signer{n}@evil.example", f"signup victim{n} victim{n}-pw {VICTIM}"))
    assert statuses(room, VICTIM) == ["pending", "pending"]
    refusal = room.replies()[-1]
    assert "has been sent 2 requests to confirm it in the last 24 hours" in body_of(refusal)
    clock.advance(days=1, minutes=1)
    room.send(mail("signer9@evil.example", f"signup victim9 victim9-pw {VICTIM}"))
    assert statuses(room, VICTIM) == ["pending"] * 3


def test_requests_stop_at_the_servers_hourly_limit(make_mailroom):
    room = make_mailroom(confirming=False, max_confirmations_per_hour=3)
    room.send(mail(MALLORY, f"signup many many-pw a@one.example b@one.example {VICTIM}"))
    room.send(mail(CAROL, "signup carol carol-pw"))
    (refusal,) = room.replies()[-1:]
    assert refusal["To"].addresses[0].addr_spec == CAROL
    assert "The server has sent 3 requests to confirm an address in the last hour" in body_of(refusal)


def test_signups_from_one_host_stop_at_the_daily_limit_whatever_the_from(make_mailroom):
    room = make_mailroom(confirming=False, max_signups_per_host_per_day=2)
    trace = {"Received": "from evil.example (evil.example [198.51.100.9]) by mx.localhost (Postfix)"}
    for n in range(3):
        room.send(mail(f"forged{n}@victims.example", f"signup victim{n} victim{n}-pw", headers=trace))
    refusal = room.replies()[-1]
    assert "The machine your mail came from has signed up 2 players in the last 24 hours" in body_of(refusal)
    other = {"Received": "from good.example (good.example [192.0.2.1]) by mx.localhost (Postfix)"}
    room.send(mail(ALICE, "signup alice alice-pw", headers=other))
    assert subjects(room.replies()) == ["Welcome to the PBeM Server, alice"]


def test_a_player_has_at_most_the_configured_addresses(room):
    many = " ".join(f"v{n}@victims.example" for n in range(60))
    room.send(mail(MALLORY, f"signup many many-pw {many}"))
    (refusal,) = room.replies()
    assert refusal["To"].addresses[0].addr_spec == MALLORY
    assert "more than the 5 one player may have" in body_of(refusal)


# -- watchers --------------------------------------------------------------------------------


def test_copies_to_watchers_are_not_among_the_answers_a_move_may_cause(make_mailroom):
    room = make_mailroom(max_replies_per_mail=3)  # its addresses' owners confirm them
    for userid in ("alice", "bob", "w1", "w2", "w3"):
        room.send(mail(f"{userid}@example.org", f"signup {userid} {userid}-pw"))
    for watcher in ("w1", "w2", "w3"):
        room.send(mail(f"{watcher}@example.org", f"cephalopod subscribe {watcher} {watcher}-pw all"))
    room.send(mail("alice@example.org", "cephalopod challenge alice bob"))
    room.replies()
    room.send(mail("alice@example.org", "cephalopod move 101 alice alice-pw c3"))
    answers = room.replies()
    assert subjects(answers) == ["Cephalopod Board 101 bob"] * 5
    with room.database.reading() as session:
        assert len(session.scalars(select(Subscription)).all()) == 6  # 'all', and board 101, for each


# -- a club that vouches for its addresses -----------------------------------------------------


def test_with_confirmations_off_an_address_gets_mail_at_once(make_mailroom):
    room = make_mailroom(confirming=False, confirm_addresses=False)
    room.send(mail(ALICE, "signup alice alice-pw"))
    room.send(mail(BOB, "signup bob bob-pw"))
    welcomes = room.replies()
    assert [m["Reply-To"] for m in welcomes] == [None, None]
    assert "reply to this mail" not in body_of(welcomes[0])
    room.send(mail(ALICE, "cephalopod challenge alice bob"))
    assert subjects(room.replies()) == ["New Cephalopod Board 101 alice"] * 2


def test_addresses_given_while_confirmations_are_off_stay_confirmed_when_they_are_turned_on(make_mailroom):
    off = make_mailroom(confirming=False, confirm_addresses=False)
    off.send(mail(ALICE, "signup alice alice-pw"))
    off.send(mail(BOB, "signup bob bob-pw"))
    on = make_mailroom(confirming=False)
    on.send(mail(ALICE, "cephalopod challenge alice bob"))
    assert subjects(on.replies())[-2:] == ["New Cephalopod Board 101 alice"] * 2


def test_a_password_reset_goes_only_to_addresses_the_player_confirmed(room):
    sign_up(room, ALICE, "alice")
    room.send(mail(ALICE, f"add alice alice-pw {BOB}"))
    room.replies()
    room.send(mail(MALLORY, "password reset alice"))
    assert sorted(m["To"].addresses[0].addr_spec for m in room.replies()) == [ALICE, MALLORY]
    assert statuses(room, BOB) == ["pending", "unconfirmed"]  # the request to confirm it, then the reset kept


# -- answers to a From nobody confirmed (issue 42: the backscatter) ---------------------------


def from_host(host: int) -> dict[str, str]:
    """The trace our own MTA writes on a mail it got from 198.51.100.`host`."""
    return {"Received": f"from h{host}.example (h{host}.example [198.51.100.{host}]) by mx.localhost (Postfix)"}


def test_an_error_to_an_address_nobody_confirmed_names_the_first_word_and_quotes_nothing_else(room):
    room.send(mail(VICTIM, f"{WORDS}\n\nCall now: 555-0100", subject=f"Re: {WORDS}"))
    (error,) = room.replies()
    assert "    Call ******** ********\n" in body_of(error)
    assert "> CHEAP\n" in body_of(error)  # the mail's first word, and no other
    assert not {"WATCHES", "now:", "555-0100"} & set(str(error).split())
    assert "[... 2 more lines not quoted]" in body_of(error)


def test_answers_to_addresses_nobody_confirmed_stop_per_sending_host_and_for_the_whole_server(make_mailroom, clock):
    room = make_mailroom(
        clock=clock, confirming=False, max_unconfirmed_answers_per_host_per_hour=2, max_unconfirmed_answers_per_hour=3
    )
    for n in range(4):
        room.send(mail(f"forged{n}@{VICTIM.partition('@')[2]}", WORDS, headers=from_host(9)))
    assert len(room.replies()) == 2
    room.send(mail("someone@elsewhere.example", WORDS, headers=from_host(10)))
    room.send(mail("another@elsewhere.example", WORDS, headers=from_host(11)))
    assert [m["To"].addresses[0].addr_spec for m in room.replies()] == ["someone@elsewhere.example"]
    sign_up(room, ALICE, "alice")
    room.send(mail(ALICE, WORDS, headers=from_host(9)))
    assert [m["To"].addresses[0].addr_spec for m in room.replies()] == [ALICE]  # a confirmed address: no limit
    clock.advance(hours=1, minutes=1)
    room.send(mail("forged9@victims.example", WORDS, headers=from_host(9)))
    assert len(room.replies()) == 1


def test_a_mail_that_fails_dmarc_from_an_address_nobody_confirmed_gets_no_answer_at_all(make_mailroom):
    room = make_mailroom(confirming=False, trusted_authserv_id="mx.games.example")
    failed = {"Authentication-Results": "mx.games.example; dmarc=fail (p=reject) header.from=target.example"}
    room.send(mail(VICTIM, f"help\n{WORDS}", headers=failed))
    room.send(mail(VICTIM, f"signup victim victim-pw\n{WORDS}", headers=failed))
    assert room.replies() == []
    assert statuses(room, VICTIM) == []


def test_an_address_is_asked_once_a_day_whoever_names_it_and_never_again_after_a_week_of_silence(room, clock):
    for n in range(3):
        room.send(mail(f"signer{n}@evil.example", f"signup victim{n} victim{n}-pw {VICTIM}"))
    assert statuses(room, VICTIM) == ["pending"]
    assert "has been sent a request to confirm it in the last 24 hours" in body_of(room.replies()[-1])
    clock.advance(days=1, minutes=1)
    room.send(mail("signer3@evil.example", f"signup victim3 victim3-pw {VICTIM}"))
    assert statuses(room, VICTIM) == ["pending"] * 2
    clock.advance(days=7)
    room.send(mail("signer4@evil.example", f"signup victim4 victim4-pw {VICTIM}"))
    assert statuses(room, VICTIM) == ["pending"] * 2
    assert "no reply came from it within a week: it is not asked again" in body_of(room.replies()[-1])
