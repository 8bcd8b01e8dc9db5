"""What one mail, or one sender, may make the server do.

Each limit is a `PBM_*` setting; each refusal says which limit it met and,
where waiting helps, when to try again; nothing refused is lost (the mail
stays in the inbox, recorded; a mail past the hourly limit of its address
waits in the outbox, `test_held_mail`; an error answer past its limit stays
there, marked suppressed with the reason).
"""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from pbm.store.models import Board, InboundMessage, OutboxMessage, PasswordWait, Player
from tests.support import Clock, body_of, mail, read, reply_to_board

ALICE, BOB, MALLORY = "alice@example.org", "bob@example.net", "mallory@evil.example"
VICTIM = "victim@target.example"


@pytest.fixture
def clock() -> Clock:
    return Clock()


def outbox_rows(room) -> list[OutboxMessage]:
    with room.database.reading() as session:
        return list(session.scalars(select(OutboxMessage).order_by(OutboxMessage.id)))


def count(room, model, *where) -> int:
    with room.database.reading() as session:
        return session.scalar(select(func.count()).select_from(model).where(*where))


def outbox_message_from(row: OutboxMessage):
    return read(row.raw)


def sign_up(room, *userids: str) -> None:
    for userid in userids:
        room.send(mail(f"{userid}@example.org", f"signup {userid} {userid}-pw"))
    room.replies()


def test_commands_past_the_limit_of_one_mail_are_answered_by_one_refusal(make_mailroom):
    room = make_mailroom(max_commands_per_mail=3)
    row = room.send(mail(ALICE, "\n".join(["help"] * 10)))
    subjects = [m["Subject"] for m in room.replies()]
    assert subjects == ["Help for the PBeM Server"] * 3 + ["PBeM Server Error"]
    assert row.note.startswith("3 command(s) carried out, 1 refused")
    assert "7 more command lines than the 3 one mail may carry" in body_of(outbox_message_from(outbox_rows(room)[-1]))


def test_a_thousand_bad_command_lines_cost_a_handful_of_small_mails(make_mailroom):
    room = make_mailroom()
    body = "\n".join(f"cephalopod frobnicate {n}" for n in range(1000))
    room.send(mail(MALLORY, body))
    sent = [row for row in outbox_rows(room) if row.status == "pending"]
    assert 1 <= len(sent) <= 10  # at most PBM_MAX_ERROR_REPLIES_PER_SENDER_PER_HOUR answers
    assert sum(len(row.raw) for row in sent) < 10 * 8_000
    for row in sent:
        assert body_of(outbox_message_from(row)).count("\n> cephalopod frobnicate") <= 40


def test_answers_past_the_limit_of_one_mail_are_replaced_by_a_word_to_the_sender(make_mailroom):
    room = make_mailroom(max_replies_per_mail=3)
    sign_up(room, "alice", "bob")
    room.send(mail(ALICE, "cephalopod challenge alice bob"))
    room.replies()
    room.send(mail(ALICE, "cephalopod show 101\n" * 5))
    answers = room.replies()
    assert [m["Subject"] for m in answers] == ["Cephalopod Board 101 alice"] * 2 + ["PBeM Server Error"]
    assert "Your mail caused 5 answers, more than the 3 one mail may" in body_of(answers[-1])


def test_one_address_signs_up_only_a_few_players_a_day(make_mailroom, clock):
    # The victim confirms nothing; a request to confirm it each time, to reach the signups' limit.
    room = make_mailroom(clock=clock, confirming=False, max_confirmations_per_address_per_day=3)
    lines = "\n".join(f"signup victim{n} pw-{n:04d} {VICTIM}" for n in range(1000))
    room.send(mail(MALLORY, lines))
    assert count(room, Player) == 3  # PBM_MAX_SIGNUPS_PER_SENDER_PER_DAY
    to_victim = [row for row in outbox_rows(room) if row.recipient == VICTIM]
    assert len(to_victim) == 3
    refusals = [m for m in room.replies_to(MALLORY) if m["Subject"] == "PBeM Server Error"]
    assert refusals and "signed up 3 players in the last 24 hours" in body_of(refusals[0])
    assert "try again after 2026-11-23 12:00 UTC" in body_of(refusals[0])

    clock.advance(days=1, minutes=1)
    room.send(mail(MALLORY, "signup another pw-another"))
    assert count(room, Player) == 4


def test_one_address_is_sent_at_most_the_hourly_number_of_mails(make_mailroom, clock):
    room = make_mailroom(clock=clock, max_mails_per_address_per_hour=5)
    for _ in range(8):
        room.send(mail(ALICE, "help"))
    rows = outbox_rows(room)
    assert [row.status for row in rows] == ["pending"] * 5 + ["held"] * 3
    with room.database.reading() as session:
        last = session.scalars(select(InboundMessage).order_by(InboundMessage.id.desc())).first()
        assert "was held back: 5 mails were sent to this address within the hour" in last.note

    clock.advance(hours=1, minutes=1)
    room.send(mail(ALICE, "help"))
    assert outbox_rows(room)[-1].status == "pending"


def test_an_auto_responder_that_does_not_say_so_is_answered_only_a_few_times_an_hour(make_mailroom, clock):
    room = make_mailroom(clock=clock)
    for n in range(30):
        room.send(mail(MALLORY, f"I am away until Monday. (reply {n})", subject="Re: PBeM Server Error"))
    answers = [row for row in outbox_rows(room) if row.status == "pending"]
    assert len(answers) == 10  # PBM_MAX_ERROR_REPLIES_PER_SENDER_PER_HOUR
    assert "the last error answer this address gets within the hour" in body_of(outbox_message_from(answers[-1]))
    assert "last error answer" not in body_of(outbox_message_from(answers[-2]))
    assert count(room, InboundMessage, InboundMessage.status == "processed") == 30  # every one kept and recorded

    clock.advance(hours=1, minutes=1)
    room.send(mail(MALLORY, "Still away."))
    assert outbox_rows(room)[-1].status == "pending"


def test_a_player_starts_only_a_few_games_an_hour(make_mailroom, clock):
    room = make_mailroom(clock=clock, max_challenges_per_sender_per_hour=2)
    sign_up(room, "mal", "alice")
    room.send(mail("mal@example.org", "cephalopod challenge mal alice\n" * 300))
    assert count(room, Board) == 2
    refusals = [body_of(m) for m in room.replies_to("mal@example.org") if m["Subject"] == "Cephalopod Error"]
    assert any("mal has started 2 games in the last hour" in text for text in refusals)

    clock.advance(hours=1, minutes=1)
    room.send(mail("mal@example.org", "cephalopod challenge mal alice"))
    assert count(room, Board) == 3


def test_a_player_sends_only_a_few_chats_and_messages_an_hour(make_mailroom, clock):
    room = make_mailroom(clock=clock, max_talks_per_sender_per_hour=2)
    sign_up(room, "mal", "alice")
    room.send(mail("mal@example.org", "cephalopod challenge mal alice"))
    room.send(mail("mal@example.org", "cephalopod chat 101 mal mal-pw\n\nHi!"))
    room.send(mail("mal@example.org", "message mal mal-pw alice\n\nHi again!"))
    room.replies()
    room.send(mail("mal@example.org", "message mal mal-pw alice\n\nAnd again!"))
    (refusal,) = room.replies()
    assert refusal["To"].addresses[0].addr_spec == "mal@example.org"
    assert "mal has sent 2 chats and messages in the last hour, as many as one player may" in body_of(refusal)

    clock.advance(hours=1, minutes=1)
    room.send(mail("mal@example.org", "message mal mal-pw alice\n\nA new hour."))
    assert [m["Subject"] for m in room.replies_to("alice@example.org")] == ["Message from mal"]


def test_wrong_passwords_make_password_commands_wait_longer_each_time(make_mailroom, clock):
    room = make_mailroom(clock=clock, max_failed_passwords=3)
    sign_up(room, "alice", "bob")
    room.send(mail(ALICE, "cephalopod challenge alice bob"))
    for guess in range(3):
        room.send(mail(ALICE, f"cephalopod move 101 alice guess-{guess} c3"))
    room.replies()

    room.send(mail(ALICE, "cephalopod move 101 alice alice-pw c3"))  # even the right one waits now
    (refusal,) = room.replies()
    assert "Too many wrong passwords for alice" in body_of(refusal)
    assert "until 2026-11-22 12:01 UTC" in body_of(refusal)

    clock.advance(minutes=1, seconds=1)
    room.send(mail(ALICE, "cephalopod move 101 alice guess-3 c3"))  # a fourth: two minutes now
    room.send(mail(ALICE, "cephalopod move 101 alice alice-pw c3"))
    assert "until 2026-11-22 12:03 UTC" in body_of(room.replies()[-1])

    clock.advance(minutes=2, seconds=1)
    room.send(mail(ALICE, "cephalopod move 101 alice alice-pw c3"))
    assert [m["Subject"] for m in room.replies()] == ["Cephalopod Board 101 bob"] * 2
    assert count(room, PasswordWait) == 0


def test_a_strangers_wrong_passwords_do_not_make_the_player_wait(make_mailroom, clock):
    room = make_mailroom(clock=clock, max_failed_passwords=3)
    sign_up(room, "alice", "bob")
    room.send(mail(ALICE, "cephalopod challenge alice bob"))
    room.send(mail(MALLORY, "\n".join(f"cephalopod move 101 alice guess-{guess} c3" for guess in range(5))))
    room.replies()
    room.send(mail(ALICE, "cephalopod move 101 alice alice-pw c3"))
    assert [m["Subject"] for m in room.replies()] == ["Cephalopod Board 101 bob"] * 2


def test_a_guesser_who_changes_address_waits_as_one_who_does_not(make_mailroom, clock):
    room = make_mailroom(clock=clock, max_failed_passwords=3)
    sign_up(room, "alice")
    for guess in range(4):
        room.send(mail(f"guesser{guess}@evil{guess}.example", f"cephalopod limit alice guess-{guess}"))
    answers = [body_of(m) for m in room.replies()]
    assert ["Wrong password for alice" in a for a in answers] == [True, True, True, False]
    assert "Too many wrong passwords for alice from addresses it has not registered" in answers[3]


def test_a_player_whose_password_commands_wait_still_moves_by_replying(make_mailroom, clock):
    room = make_mailroom(clock=clock, max_failed_passwords=1)
    sign_up(room, "alice", "bob")
    room.send(mail(ALICE, "cephalopod challenge alice bob"))
    board = next(m for m in room.replies() if m["To"].addresses[0].addr_spec == ALICE)
    room.send(mail(ALICE, "cephalopod move 101 alice wrong-pw c3"))
    room.replies()
    room.send(reply_to_board(board, ALICE, "c3"), to=board["Reply-To"].addresses[0].addr_spec)
    assert [m["Subject"] for m in room.replies()] == ["Cephalopod Board 101 bob"] * 2
