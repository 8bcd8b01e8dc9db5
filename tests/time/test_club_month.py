"""A simulated month of a club whose players chose when to be mailed: half take one digest a day
(in their own zones), a third keep quiet hours, the others a mail for each move. Players answer
at random delays, by command; the time pass runs every simulated hour.

What must hold whatever the players do:

- no mail for a player goes in their quiet hours, but the answers to mail they sent;
- no digest goes twice in a local day (over Europe's and America's autumn clock changes), and
  only to players who take them;
- digests cut the mails of the players who take them (the numbers are printed: mails per
  player per day, with and without digests).

``make test`` runs 40 players over 14 days; ``CLUB_MONTH_SCALE=full`` runs 200 players over 30.
"""

from __future__ import annotations

import os
import random
from collections import Counter, defaultdict
from datetime import datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import select

import pbm.games
from pbm.local_time import LocalHours
from pbm.store.models import Board, BoardStatus, InboundMessage, OutboxMessage, OutboxStatus, Player
from tests.support import Clock, mail

SCALES = {"bounded": (40, 14), "full": (200, 30)}
"""players, days."""
ZONES = ["Europe/Paris", "America/New_York", "Asia/Tokyo", "UTC", "Australia/Sydney"]
QUIET = LocalHours(time(22), time(7))
START = datetime(2026, 10, 20, 0, 0, tzinfo=timezone.utc)  # over Europe's and America's autumn changes


@pytest.fixture
def scale() -> tuple[int, int]:
    chosen = os.environ.get("CLUB_MONTH_SCALE", "bounded")
    if chosen not in SCALES:
        raise pytest.UsageError(f"CLUB_MONTH_SCALE must be bounded or full, not {chosen!r}")
    return SCALES[chosen]


def test_a_month_of_a_club_with_digests_and_quiet_hours(make_mailroom, database_url, scale):
    if database_url.startswith("postgresql"):
        pytest.skip("the month runs on SQLite, as the season does")
    count, days = scale
    rng = random.Random(32)
    clock = Clock(START)
    room = make_mailroom(
        clock=clock,
        confirm_addresses=False,
        max_mails_per_address_per_hour=10_000,
        max_challenges_per_sender_per_hour=1000,
    )
    userids = [f"p{i:03d}" for i in range(count)]
    zones = {u: ZONES[i % len(ZONES)] for i, u in enumerate(userids)}
    digest = {u for i, u in enumerate(userids) if i % 2 == 0}
    quiet = {u for i, u in enumerate(userids) if i % 3 == 0}

    def send(userid: str, text: str) -> None:
        room.send(mail(f"{userid}@month.example", text))

    for userid in userids:
        send(userid, f"signup {userid} {userid}-pw")
        send(userid, f"timezone {userid} {userid}-pw {zones[userid]}")
        if userid in digest:
            send(userid, f"digest {userid} {userid}-pw 08:00")
        if userid in quiet:
            send(userid, f"quiet {userid} {userid}-pw {QUIET}")
    for _ in range(count * 2):
        a, b = rng.sample(userids, 2)
        send(a, f"cephalopod challenge {a} {b}")
    answer_at: dict[tuple[int, int], datetime] = {}
    engine = pbm.games.get("cephalopod")
    for _ in range(days * 24):
        clock.advance(hours=1)
        with room.database.reading() as session:
            active = list(session.scalars(select(Board).where(Board.status == BoardStatus.ACTIVE)))
            waiting = [(b.board, b.move_count, b.seats[b.to_move].player.userid, b.state, b.secret) for b in active]
        for board, moves, userid, state, secret in waiting:
            due = answer_at.setdefault((board, moves), clock() + timedelta(hours=rng.uniform(2, 60)))
            if due <= clock():
                move = rng.choice(engine.legal_moves(engine.load(state, secret)))
                send(userid, f"cephalopod move {board} {userid} {userid}-pw {move}")
        room.server.processor.time_pass.run()

    with room.database.reading() as session:
        userid_of = {p.id: p.userid for p in session.scalars(select(Player))}
        senders = {i.id: i.envelope_from for i in session.scalars(select(InboundMessage))}
        went = [
            row
            for row in session.scalars(select(OutboxMessage).where(OutboxMessage.queued_at.is_not(None)))
            if row.status != OutboxStatus.GATHERED
        ]
    per_player: Counter[str] = Counter()
    digests_on: dict[str, Counter] = defaultdict(Counter)
    for row in went:
        owner = userid_of.get(row.player_id) if row.player_id is not None else None
        if owner is None:
            continue
        per_player[owner] += 1
        zone = ZoneInfo(zones[owner])
        asked = row.inbound_id is not None and senders.get(row.inbound_id) == f"{owner}@month.example"
        if owner in quiet and not asked:
            assert QUIET.ends_after(row.queued_at, zone) is None, f"{row.kind} for {owner} in quiet hours"
        if row.kind == "digest":
            digests_on[owner][row.queued_at.astimezone(zone).date()] += 1
    for owner, on in digests_on.items():
        assert max(on.values()) == 1, f"{owner} had two digests in a day"
        assert owner in digest
    assert digests_on, "no digest went"

    with_digest = sum(per_player[u] for u in digest) / len(digest) / days
    without = sum(per_player[u] for u in userids if u not in digest) / (count - len(digest)) / days
    print(
        f"club month: {count} players, {days} days: mails per player per day {with_digest:.2f} with a digest, "
        f"{without:.2f} without"
    )
    assert with_digest < without
