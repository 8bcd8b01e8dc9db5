"""Two time passes at once, in two processes on one database: each reminder sent once, each forfeit
applied once."""

import os
import subprocess
import sys
from collections import Counter
from datetime import timedelta

from sqlalchemy import func, select

from pbm.store.models import MoveRecord, OutboxMessage, utcnow
from tests.support import Clock, read
from tests.time.club import TimeClub

BOARDS = 30


def test_two_passes_at_once_send_each_reminder_once_and_apply_each_forfeit_once(make_mailroom, database_url, tmp_path):
    clock = Clock(start=utcnow() - timedelta(days=25))
    club = TimeClub(make_mailroom(clock=clock, max_challenges_per_sender_per_hour=1000), clock)
    club.sign_up("alice", "bob", "carol")
    for number in range(BOARDS):
        # The first half began 25 days ago (bob forfeits), the second 15 (bob has a reminder due).
        club.send("alice", "cephalopod challenge alice bob")
        club.send("alice", f"cephalopod move {101 + number} alice alice-pw c3")
        if number == BOARDS // 2 - 1:
            clock.advance(days=10)
    club.replies()
    with club.room.database.reading() as session:
        before = session.scalar(select(func.max(OutboxMessage.id)))
    environment = {**os.environ, "PBM_DATABASE_URL": database_url, "PBM_SECRET_KEY": "k" * 40}
    environment["PBM_OUTBOUND"] = f"maildir:{tmp_path}/outbox"
    ticks = [
        subprocess.Popen([sys.executable, "-m", "pbm", "tick"], env=environment, cwd=tmp_path, stdout=subprocess.PIPE)
        for _ in range(2)
    ]
    outputs = [tick.communicate(timeout=120)[0].decode() for tick in ticks]
    assert [tick.returncode for tick in ticks] == [0, 0], outputs

    with club.room.database.reading() as session:
        nags = [
            read(raw)["Subject"]
            for raw in session.scalars(
                select(OutboxMessage.raw).where(OutboxMessage.kind == "nag", OutboxMessage.id > before)
            )
        ]
        forfeits = list(session.scalars(select(MoveRecord.game_id).where(MoveRecord.notation == "forfeit")))
    assert Counter(nags) == {f"Nag: Cephalopod Board {101 + n} bob": 1 for n in range(BOARDS // 2, BOARDS)}
    assert sorted(Counter(forfeits).values()) == [1] * (BOARDS // 2)
    both = "".join(outputs)
    assert both.count("queued for bob: Nag:") == BOARDS // 2  # each done by one pass or the other, not both
