"""Forgotten passwords, over real SMTP: ``password reset USERID``.

The player's registered addresses get a mail whose reply address works once,
for a limited time; a reply with the new password alone on its first line
sets it. Whoever asked learns nothing: the answer is the same whether the
userid exists or not, and no mail ever shows a password or the reset address
to anyone but the player.
"""

from __future__ import annotations

import time

from tests.e2e.club import ADDRESSES, send, signed_up, to
from tests.support import body_of, mail

STRANGER = "mallory@evil.example"
OTHER_ADDRESS = "alice@work.example"


def ask(server, userid: str, sender: str = STRANGER) -> None:
    server.send(mail(sender, f"password reset {userid}"), sender)


def reply(server, reset_mail, first_line: str, sender: str = ADDRESSES["alice"]) -> None:
    address = reset_mail["Reply-To"].addresses[0].addr_spec
    quoted = "\n".join("> " + line for line in body_of(reset_mail).splitlines())
    text = f"{first_line}\n\n{quoted}\n"
    server.send(mail(sender, text, subject="Re: " + reset_mail["Subject"], to=address), sender, [address])


def password_works(server, sink, password: str) -> bool:
    send(server, "alice", f"cephalopod limit alice {password}")
    answers = sink.wait(1) + sink.once_settled(server)  # one to each of alice's addresses, or one error
    return all(answer["Subject"] == "Cephalopod challenges to alice" for answer in answers)


def test_a_reset_mails_every_registered_address_and_a_reply_sets_the_new_password(server, sink):
    signed_up(server, sink, "alice")
    send(server, "alice", f"add alice alice-pw {OTHER_ADDRESS}")
    sink.wait(2)
    ask(server, "alice")
    mails = sink.wait(3)
    asked = next(m for m in mails if m["To"].addresses[0].addr_spec == STRANGER)
    assert asked["Subject"] == "Password reset for alice"
    assert "If alice is a player here, a mail has gone to the addresses registered" in body_of(asked)
    assert "Reply-To" not in asked
    resets = [m for m in mails if m is not asked]
    assert sorted(m["To"].addresses[0].addr_spec for m in resets) == sorted([ADDRESSES["alice"], OTHER_ADDRESS])
    for reset in resets:
        assert reset["Subject"] == "Password reset for alice"
        assert reset["Reply-To"].addresses[0].addr_spec.startswith("pbm+reset-")
        assert "reply to this mail with the new password alone" in body_of(reset)
    (first, second) = resets
    assert first["Reply-To"].addresses[0].addr_spec == second["Reply-To"].addresses[0].addr_spec

    reply(server, first, "n3w-secret")
    changed = sink.wait(2)
    for message in changed:
        assert message["Subject"] == "Password changed for alice"
        assert "by a reply to\na password reset mail" in body_of(message)
        assert "n3w-secret" not in body_of(message)
    assert password_works(server, sink, "n3w-secret")
    assert not password_works(server, sink, "alice-pw")


def test_a_reset_address_works_once(server, sink):
    signed_up(server, sink, "alice")
    ask(server, "alice")
    reset = to(sink.wait(2), "alice")
    reply(server, reset, "n3w-secret")
    sink.wait(1)
    reply(server, reset, "th1rd-secret")
    (error,) = sink.wait(1)
    assert error["Subject"].endswith("Error")
    assert "has been used, has expired or was never sent" in body_of(error)
    assert "th1rd-secret" not in body_of(error)
    assert password_works(server, sink, "n3w-secret")


def test_whoever_asks_learns_nothing_about_who_is_a_player(server, sink):
    signed_up(server, sink, "alice")
    ask(server, "alice")
    (asked_for_alice,) = [m for m in sink.wait(2) if m["To"].addresses[0].addr_spec == STRANGER]
    ask(server, "nobody")
    (asked_for_nobody,) = sink.wait(1)  # and nothing else: there is nobody to mail
    assert body_of(asked_for_nobody) == body_of(asked_for_alice).replace("alice", "nobody")
    assert sink.once_settled(server) == []


def test_a_stranger_cannot_flood_a_player_with_resets(server, sink):
    signed_up(server, sink, "alice")
    for _ in range(3):
        ask(server, "alice")
        sink.wait(2)
    ask(server, "alice")
    (asked,) = sink.wait(1)  # the fourth in a day: the asker hears the same, alice hears nothing
    assert asked["To"].addresses[0].addr_spec == STRANGER
    assert "If alice is a player here" in body_of(asked)
    assert sink.once_settled(server) == []


def test_a_reply_must_hold_the_new_password_alone_and_is_never_quoted(server, sink):
    signed_up(server, sink, "alice")
    ask(server, "alice")
    reset = to(sink.wait(2), "alice")
    reply(server, reset, "my new password is hunter22")
    (error,) = sink.wait(1)
    assert "Write the new password alone on the first line of your reply" in body_of(error)
    assert "hunter22" not in body_of(error)
    reply(server, reset, "x")
    (weak,) = sink.wait(1)
    assert "x" not in body_of(weak).split("\n\n", 1)[1].split()  # refused as too short, and not quoted
    assert password_works(server, sink, "alice-pw")


def test_a_reset_ends_the_wait_after_wrong_passwords(server, sink):
    signed_up(server, sink, "alice")
    for _ in range(5):
        send(server, "alice", "cephalopod limit alice wrong")
        sink.wait(1)
    send(server, "alice", "cephalopod limit alice alice-pw")
    assert "Too many wrong passwords for alice" in body_of(sink.wait(1)[0])
    ask(server, "alice", ADDRESSES["alice"])
    (reset,) = sink.wait(1)  # asked from her own address: the reset mail is the answer
    reply(server, reset, "n3w-secret")
    sink.wait(1)
    assert password_works(server, sink, "n3w-secret")


def test_password_reset_without_a_userid_is_a_usage_error(server, sink):
    ask(server, "")
    assert "Usage: password reset USERID" in body_of(sink.wait(1)[0])


def test_a_reset_address_expires(server_with, sink):
    server = server_with(password_reset_hours=1 / 3600)
    signed_up(server, sink, "alice")
    ask(server, "alice")
    reset = to(sink.wait(2), "alice")
    assert "The reply address works once, until" in body_of(reset)
    time.sleep(1.5)
    reply(server, reset, "n3w-secret")
    assert "has been used, has expired or was never sent" in body_of(sink.wait(1)[0])
    assert password_works(server, sink, "alice-pw")
