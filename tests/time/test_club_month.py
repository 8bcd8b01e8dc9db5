"""A simulated month of a club whose players chose when to be mailed: half take one digest a day
(in their own zones), a third keep quiet hours, the others a mail for each move. Players answer
at random delays, by command; the time pass runs every simulated hour.

What must hold whatever the players do:

- no mail for a player goes in their quiet hours, but the answers to mail they sent;
- no digest goes twice in a local day (over Europe's and America's autumn clock changes), and
  only to players who take them;
- digests cut the mails of the players who take them, and the mails they did not ask for most
  (the numbers are printed: mails per player per day, with and without digests).

The bounded form runs 40 players over 14 days; ``CLUB_MONTH_SCALE=full`` runs 200 players over
30 (about 10,000 mails in and 17,000 out: six minutes on a quiet machine, fourteen on a busy
one, so give it ``-o timeout=3600``). The mails of each simulated hour arrive together and are
processed as the server processes a burst, and only the boards whose player answers are read
whole: a mail at a time, and every board's position every hour, cost the month more than the
server's own work did.
"""

from __future__ import annotations

import os
import random
from collections import Counter, defaultdict
from datetime import datetime, time, timedelta, timezone
from time import monotonic
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import select

import pbm.games
from pbm.store.inbox import Received, save_received
from pbm.store.models import Board, BoardStatus, InboundMessage, OutboxMessage, OutboxStatus, Player, Seat
from pbm.timekeeping.local_time import LocalHours
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
    began = monotonic()
    rng = random.Random(32)
    clock = Clock(START)
    room = make_mailroom(
        clock=clock,
        confirming=False,  # the club vouches for its addresses: no mail asks to confirm one
        confirm_addresses=False,
        max_mails_per_address_per_hour=10_000,
        max_challenges_per_sender_per_hour=1000,
    )
    userids = [f"p{i:03d}" for i in range(count)]
    zones = {u: ZONES[i % len(ZONES)] for i, u in enumerate(userids)}
    digest = {u for i, u in enumerate(userids) if i % 2 == 0}
    quiet = {u for i, u in enumerate(userids) if i % 3 == 0}

    def arrive(mails: list[tuple[str, str]]) -> None:
        """Mails from players (userid, text), stored together as the SMTP door stores mail that
        comes together, then processed (each sender's in order, as the server does)."""
        received = []
        for userid, text in mails:
            address = f"{userid}@month.example"
            received.append(Received(mail(address, text), address, ["pbm@localhost"]))
        save_received(room.database, received)
        room.server.processor.process_pending()

    settings = []
    for userid in userids:
        settings.append((userid, f"signup {userid} {userid}-pw"))
        settings.append((userid, f"timezone {userid} {userid}-pw {zones[userid]}"))
        if userid in digest:
            settings.append((userid, f"digest {userid} {userid}-pw 08:00"))
        if userid in quiet:
            settings.append((userid, f"quiet {userid} {userid}-pw {QUIET}"))
    arrive(settings)
    challenges = []
    for _ in range(count * 2):
        a, b = rng.sample(userids, 2)
        challenges.append((a, f"cephalopod challenge {a} {b}"))
    arrive(challenges)
    answer_at: dict[tuple[int, int], datetime] = {}
    engine = pbm.games.get("cephalopod")
    waiting_for = (
        select(Board.id, Board.board, Board.move_count, Player.userid)
        .join(Seat, (Seat.game_id == Board.id) & (Seat.seat == Board.to_move))
        .join(Player, Player.id == Seat.player_id)
        .where(Board.status == BoardStatus.ACTIVE)
        .order_by(Board.id)
    )
    for _ in range(days * 24):
        clock.advance(hours=1)
        with room.database.reading() as session:
            due = []
            for board_id, board, moves, userid in session.execute(waiting_for):
                if answer_at.setdefault((board, moves), clock() + timedelta(hours=rng.uniform(2, 60))) <= clock():
                    due.append((board_id, board, userid))
            # Only the boards whose player answers now are read whole: their positions, for a legal move.
            positions = {
                row.id: (row.state, row.secret)
                for row in session.scalars(select(Board).where(Board.id.in_([d[0] for d in due])))
            }
        moves_now = []
        for board_id, board, userid in due:
            move = rng.choice(engine.legal_moves(engine.load(*positions[board_id])))
            moves_now.append((userid, f"cephalopod move {board} {userid} {userid}-pw {move}"))
        arrive(moves_now)  # and the time pass, due every simulated hour, runs after them

    with room.database.reading() as session:
        userid_of = {p.id: p.userid for p in session.scalars(select(Player))}
        senders = {i.id: i.envelope_from for i in session.scalars(select(InboundMessage))}
        went = [
            row
            for row in session.scalars(select(OutboxMessage).where(OutboxMessage.queued_at.is_not(None)))
            if row.status != OutboxStatus.GATHERED
        ]
    per_player: Counter[str] = Counter()
    unasked: Counter[str] = Counter()
    """The mails a player did not ask for: not the answers to their own mail (their copy of their move)."""
    digests_on: dict[str, Counter] = defaultdict(Counter)
    for row in went:
        owner = userid_of.get(row.player_id) if row.player_id is not None else None
        if owner is None:
            continue
        per_player[owner] += 1
        zone = ZoneInfo(zones[owner])
        asked = row.inbound_id is not None and senders.get(row.inbound_id) == f"{owner}@month.example"
        unasked[owner] += not asked
        if owner in quiet and not asked:
            assert QUIET.ends_after(row.queued_at, zone) is None, f"{row.kind} for {owner} in quiet hours"
        if row.kind == "digest":
            digests_on[owner][row.queued_at.astimezone(zone).date()] += 1
    for owner, on in digests_on.items():
        assert max(on.values()) == 1, f"{owner} had two digests in a day"
        assert owner in digest
    assert digests_on, "no digest went"

    def per_day(counted: Counter[str], players: list[str]) -> float:
        return sum(counted[u] for u in players) / len(players) / days

    taking = [u for u in userids if u in digest]
    others = [u for u in userids if u not in digest]
    print(
        f"club month: {count} players, {days} days, {len(senders)} mails received, {len(went)} sent "
        f"({sum(sum(on.values()) for on in digests_on.values())} digests) in {monotonic() - began:.0f} s; "
        f"mails per player per day {per_day(per_player, taking):.2f} with a digest, "
        f"{per_day(per_player, others):.2f} without; of them not asked for (not the answer to the "
        f"player's own mail) {per_day(unasked, taking):.2f} with a digest, {per_day(unasked, others):.2f} without"
    )
    assert per_day(per_player, taking) < per_day(per_player, others)
    assert per_day(unasked, taking) < per_day(unasked, others)
