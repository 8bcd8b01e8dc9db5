"""No password, hash, reply token, key or full address in any log line, whatever mail comes.

A property over random traffic: players sign up, challenge, move with right
and wrong passwords, reply to board mails and send garbage, from their own
addresses and from strangers'; every log record of the whole run, at every
level, is then searched for every secret the run made.
"""

from __future__ import annotations

import itertools
import logging
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from pbm.store.models import Player
from tests.support import mail, reply_to_board

SECRET_KEY = "k" * 40  # the Mailroom's PBM_SECRET_KEY
RUNS = itertools.count()

ACTIONS = st.lists(
    st.sampled_from(["move", "wrong-password", "reply", "garbage", "stranger", "change-password", "show"]),
    min_size=3,
    max_size=12,
)
PASSWORDS = st.lists(
    st.text("abcdefghijkmnopqrstuvwxyz23456789", min_size=8, max_size=12), min_size=3, max_size=3, unique=True
)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(actions=ACTIONS, passwords=PASSWORDS)
def test_no_secret_reaches_a_log_line(make_mailroom, caplog, actions, passwords):
    run = next(RUNS)
    room = make_mailroom()
    alice, bob = f"alice{run}", f"bob{run}"
    addresses = {alice: f"{alice}@example.org", bob: f"{bob}@example.net"}
    known = {alice: "Pw" + passwords[0], bob: "Pw" + passwords[1]}
    caplog.set_level(logging.DEBUG)
    for userid in (alice, bob):
        room.send(mail(addresses[userid], f"signup {userid} {known[userid]}"))
    room.send(mail(addresses[alice], f"cephalopod challenge {alice} {bob}"))
    first = room.replies()
    boards = [m for m in first if m["Subject"].startswith("New ")]
    board_number = int(boards[0]["Subject"].split()[3])
    tokens = [m["Reply-To"].addresses[0].addr_spec for m in first if m["Reply-To"]]  # confirmations' too
    for action in actions:
        who = alice if action != "stranger" else bob
        line = {
            "move": f"cephalopod move {board_number} {who} {known[who]} c3",
            "wrong-password": f"cephalopod move {board_number} {who} Wrong{passwords[2]} c3",
            "garbage": "frobnicate the board",
            "stranger": f"cephalopod resign {board_number} {who} {known[who]}",
            "change-password": f"change password {who} {known[who]} {known[who]}x",
            "show": f"cephalopod show {board_number}",
        }.get(action)
        if action == "reply":
            room.send(reply_to_board(boards[0], addresses[alice], "c3"), to=tokens[0])
        elif action == "stranger":
            room.send(mail("mallory@evil.example", line))
        else:
            room.send(mail(addresses[who], line))
            if action == "change-password" and "0 refused" in room_note(room):
                known[who] += "x"
        tokens += [m["Reply-To"].addresses[0].addr_spec for m in room.replies() if m["Reply-To"]]

    with room.database.reading() as session:
        hashes = list(session.scalars(select(Player.password_hash)))
    secrets = {
        *known.values(),
        *(p + "x" for p in known.values()),
        "Wrong" + passwords[2],
        *hashes,
        *(token.partition("+")[2].partition("@")[0] for token in tokens),
        SECRET_KEY,
        *addresses.values(),
        "mallory@evil.example",
    }
    logged = "\n".join(record.getMessage() + caplog_text_of(record) for record in caplog.records)
    assert "processed" in logged  # the run did log, and it is all searched
    for secret in secrets:
        assert secret not in logged, f"a secret ({secret[:3]}...) reached the log"


def caplog_text_of(record: logging.LogRecord) -> str:
    """What a handler would print beyond the message: the traceback, if any."""
    if record.exc_info:
        return "\n" + logging.Formatter().formatException(record.exc_info)
    return ""


def room_note(room) -> str:
    from pbm.store.models import InboundMessage

    with room.database.reading() as session:
        return session.scalars(select(InboundMessage.note).order_by(InboundMessage.id.desc())).first() or ""


def test_the_property_would_see_a_secret_in_a_log_line(caplog):
    """The search above finds a secret where one is logged (so its silence means something)."""
    caplog.set_level(logging.DEBUG)
    logging.getLogger("pbm.test").info("user %s logged in with %s", "alice@example.org", "Pwsecret99")
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert re.search("Pwsecret99", logged) and "alice@example.org" in logged

