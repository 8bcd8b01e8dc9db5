"""Sent mail is kept `PBM_KEEP_SENT_DAYS` (90 by default), then the time pass forgets it; a mail
still waiting, held back, failed or suppressed is never forgotten, however old."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select, update

from pbm.facts import Fact
from pbm.store import outbox
from pbm.store.models import OutboxMessage, OutboxStatus
from tests.time.club import TimeClub


def statuses(club: TimeClub) -> dict[int, str]:
    with club.room.database.reading() as session:
        return {row.id: row.status for row in session.execute(select(OutboxMessage.id, OutboxMessage.status))}


def settle(club: TimeClub) -> dict[str, int]:
    """Every mail the club caused so far, one of each kind left as it is and the rest sent now:
    returns the id of each kind."""
    ids = sorted(statuses(club))
    assert len(ids) >= 6
    kinds = {"failed": ids[0], "suppressed": ids[1], "held": ids[2], "pending": ids[3], "sent": ids[4]}
    now = club.clock()
    with club.room.database.transaction() as session:
        outbox.mark_sent(session, ids[4:], now)
        for kind in ("failed", "suppressed", "held", "pending"):
            session.execute(
                update(OutboxMessage).where(OutboxMessage.id == kinds[kind]).values(status=OutboxStatus(kind))
            )
    return kinds


def test_sent_mail_is_forgotten_after_ninety_days_and_nothing_else_is(game: TimeClub):
    kinds = settle(game)
    sent = {i for i, status in statuses(game).items() if status == "sent"}
    game.tick(days=89)
    assert sent <= set(statuses(game)), "kept for 90 days"
    report = game.tick(days=2)
    left = statuses(game)
    assert not sent & set(left), "forgotten after 90 days"
    assert {kinds[k] for k in ("failed", "suppressed", "held", "pending")} <= set(left)
    assert report.pruned == Fact("sent-mail-pruned", count=len(sent), days="90")
    assert not report.done, "forgetting mail queues none"


def test_the_club_says_how_long_sent_mail_is_kept(make_mailroom, clock):
    game = TimeClub(make_mailroom(clock=clock, keep_sent_days=10), clock)
    game.sign_up("alice", "bob", "carol")
    game.send("alice", "cephalopod challenge alice bob")
    game.replies()
    settle(game)
    sent = {i for i, status in statuses(game).items() if status == "sent"}
    game.tick(days=9)
    assert sent <= set(statuses(game))
    game.tick(days=2)
    assert not sent & set(statuses(game))


def test_a_rehearsal_forgets_nothing(game: TimeClub):
    settle(game)
    before = statuses(game)
    game.clock.advance(days=100)
    game.room.server.processor.time_pass.rehearse(game.clock())
    assert statuses(game) == before


def test_pruning_a_backlog_goes_a_batch_a_pass(game: TimeClub, monkeypatch):
    from pbm.mail import time_pass

    settle(game)
    sent = [i for i, status in statuses(game).items() if status == "sent"]
    monkeypatch.setattr(time_pass, "PRUNE_BATCH", 1)
    game.tick(days=91)
    assert len([i for i in sent if i in statuses(game)]) == len(sent) - 1
    game.tick(minutes=1)
    assert len([i for i in sent if i in statuses(game)]) == len(sent) - 2


def test_the_default_is_ninety_days():
    from pbm.config import Settings

    assert Settings().club.keep_sent == timedelta(days=90)
