"""What one mail costs the database and the templates, counted, never timed.

Each kind of mail a club sends most is processed once here, and the SQL statements its processing
executes, and the templates it renders, are counted and held against the budget below. A change
that makes a kind of mail cost more statements or renders fails here until the budget is raised in
the same commit, where a reviewer sees it; a change that makes it cheaper lowers the budget, so the
gain is kept. (The last wave's features added 30 statements to a reply move and nobody saw it:
`python -m benchmarks.move_cost` measures the same thing in time, as the database grows.)

Counts are exact on one backend: SQLite's here (PostgreSQL runs a few statements differently, and
the benchmarks measure it). What is counted is the processing of the one mail, from the inbox to
the outbox, not its storing by the listener nor its delivery.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone

import jinja2
import pytest
from sqlalchemy import event

import pbm.games
import pbm.mail.processing
from pbm.bots.answers import Question, answer
from pbm.store.inbox import save_inbound
from tests.conftest import ON_SQLITE_ONLY
from tests.mail.mailroom import Mailroom
from tests.support import Clock, body_of, mail, reply_to_board

pytestmark = ON_SQLITE_ONLY

ALICE, BOB = "alice@example.org", "bob@example.net"

BUDGETS = {
    # kind of mail: (SQL statements, template renders)
    "signup": (28, 1),
    "show": (21, 1),
    "password move": (30, 2),
    "reply move": (28, 2),
    "move that ends the game": (41, 2),
    "digest reply": (34, 2),
    "bot move": (42, 1),
}
"""What each kind of mail may cost. Raise a number only with the change that needs it."""


@dataclass
class Cost:
    statements: int = 0
    renders: int = 0


@contextmanager
def counting(room: Mailroom, monkeypatch: pytest.MonkeyPatch) -> Iterator[Cost]:
    """The statements executed and the templates rendered inside the block."""
    cost = Cost()

    def statement(*_: object) -> None:
        cost.statements += 1

    make_module = jinja2.Template.make_module

    def rendering(template: jinja2.Template, *args: object, **kwargs: object) -> object:
        cost.renders += 1
        return make_module(template, *args, **kwargs)

    engines = {room.database.engine, room.database.read_engine}
    for engine in engines:
        event.listen(engine, "before_cursor_execute", statement)
    with monkeypatch.context() as patched:
        patched.setattr(jinja2.Template, "make_module", rendering)
        # A batch also ends when it has taken 0.1 s, and a busy machine would then count one more
        # look at the inbox: the budget is the mail's work, not the machine's speed.
        patched.setattr(pbm.mail.processing, "APPLY_BATCH_SECONDS", 3600.0)
        try:
            yield cost
        finally:
            for engine in engines:
                event.remove(engine, "before_cursor_execute", statement)


def processed(room: Mailroom, monkeypatch: pytest.MonkeyPatch, raw: bytes, *, to: str = "pbm@localhost") -> Cost:
    """The cost of processing `raw`, stored in the inbox first as the listener stores it."""
    sender = mail_sender(raw)
    save_inbound(room.database, raw, envelope_from=sender, envelope_to=[to])
    with counting(room, monkeypatch) as cost:
        assert room.server.processor.process_pending() == 1
    return cost


def mail_sender(raw: bytes) -> str:
    from tests.support import read

    return read(raw)["From"].addresses[0].addr_spec


def a_club(make_mailroom, **settings) -> Mailroom:
    room = make_mailroom(**settings)
    room.send(mail(ALICE, "signup alice alice-pw"))
    room.send(mail(BOB, "signup bob bob-pw"))
    return room


def measure_signup(make_mailroom, monkeypatch) -> Cost:
    room = make_mailroom()
    room.send(mail(ALICE, "signup alice alice-pw"))
    return processed(room, monkeypatch, mail(BOB, "signup bob bob-pw"))


def measure_show(make_mailroom, monkeypatch) -> Cost:
    room = a_club(make_mailroom)
    room.send(mail(ALICE, "cephalopod challenge alice bob"))
    return processed(room, monkeypatch, mail(BOB, "cephalopod show 101"))


def measure_password_move(make_mailroom, monkeypatch) -> Cost:
    room = a_club(make_mailroom)
    room.send(mail(ALICE, "cephalopod challenge alice bob"))
    room.send(mail(ALICE, "cephalopod move 101 alice alice-pw c3"))
    return processed(room, monkeypatch, mail(BOB, "cephalopod move 101 bob bob-pw b2"))


def measure_reply_move(make_mailroom, monkeypatch) -> Cost:
    room = a_club(make_mailroom)
    room.send(mail(ALICE, "cephalopod challenge alice bob"))
    room.send(mail(ALICE, "cephalopod move 101 alice alice-pw c3"))
    (board_mail,) = [m for m in room.replies_to(BOB) if "Board 101" in str(m["Subject"])][-1:]
    to = board_mail["Reply-To"].addresses[0].addr_spec
    return processed(room, monkeypatch, reply_to_board(board_mail, BOB, "b2"), to=to)


CEPHALOPOD = pbm.games.get("cephalopod")


def measure_move_that_ends_the_game(make_mailroom, monkeypatch) -> Cost:
    """A 3x3 game played to its last move, always the first legal move, the last one measured."""
    room = a_club(make_mailroom)
    room.send(mail(ALICE, "cephalopod challenge alice bob -size=3"))
    state = CEPHALOPOD.new(players=2, options={"size": 3})
    players = [("alice", ALICE), ("bob", BOB)]
    while True:
        move = CEPHALOPOD.legal_moves(state)[0]
        after = CEPHALOPOD.play(state, move)
        userid, address = players[state.to_move]
        line = mail(address, f"cephalopod move 101 {userid} {userid}-pw {move}")
        if CEPHALOPOD.result(after) is not None:
            return processed(room, monkeypatch, line)
        room.send(line)
        state = after


def measure_digest_reply(make_mailroom, monkeypatch) -> Cost:
    clock = Clock(datetime(2026, 11, 22, 12, 0, tzinfo=timezone.utc))
    room = a_club(make_mailroom, clock=clock)
    room.send(mail(ALICE, "digest alice alice-pw 07:30"))
    room.send(mail(BOB, "cephalopod challenge bob alice"))
    room.send(mail(BOB, "cephalopod move 101 bob bob-pw c3"))
    for _ in range(24 * 4):
        clock.advance(minutes=15)
        room.server.processor.time_pass.run()
    (digest,) = [m for m in room.replies_to(ALICE) if "for your move" in str(m["Subject"])]
    assert "101" in body_of(digest)
    room.server.processor.process_pending()  # the time pass due at this hour, not the reply's cost
    to = digest["Reply-To"].addresses[0].addr_spec
    return processed(room, monkeypatch, mail(ALICE, "101 d4", subject="Re: digest"), to=to)


def quick(question: Question, seconds: float) -> str:
    from dataclasses import replace

    return answer(replace(question, level=1), seconds)


def measure_bot_move(make_mailroom, monkeypatch) -> Cost:
    """The bot's whole turn: claimed, decided into the inbox, and applied by the mail worker."""
    room = make_mailroom(think=quick)
    room.send(mail(ALICE, "signup alice alice-pw"))
    room.send(mail(ALICE, "cephalopod challenge alice bot1"))
    room.send(mail(ALICE, "cephalopod move 101 alice alice-pw c3"))
    with counting(room, monkeypatch) as cost:
        assert room.play_bots() == 1
    return cost


MEASURES: dict[str, Callable[..., Cost]] = {
    "signup": measure_signup,
    "show": measure_show,
    "password move": measure_password_move,
    "reply move": measure_reply_move,
    "move that ends the game": measure_move_that_ends_the_game,
    "digest reply": measure_digest_reply,
    "bot move": measure_bot_move,
}


@pytest.mark.parametrize("kind", list(BUDGETS))
def test_each_kind_of_mail_costs_what_its_budget_says(kind, make_mailroom, monkeypatch):
    cost = MEASURES[kind](make_mailroom, monkeypatch)
    statements, renders = BUDGETS[kind]
    print(f"{kind}: {cost.statements} statements, {cost.renders} renders")
    assert (cost.statements, cost.renders) == (statements, renders), (
        f"a {kind} now costs {cost.statements} SQL statements and {cost.renders} template renders, "
        f"its budget says {statements} and {renders}: change BUDGETS in this file with the change that "
        "explains it (down, when it got cheaper)"
    )
