"""A simulated season: many games over months, players who answer at random delays, some who
vanish and some who take vacations, the time pass every simulated hour.

What must hold whatever the players do:

- no game waits for a move beyond its forfeit time plus one pass (time away not counted);
- no player loses on time while on vacation;
- each reminder comes once a day at most, and the last warning once a turn;
- the ratings add up: every rated game moves them by a sum of zero, and each player's
  wins, losses and draws count their rated games.

``make test`` runs a season of 40 games over 50 days; ``make season`` runs 300 games over four months.
"""

from __future__ import annotations

import os
import random
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta

import pytest
from sqlalchemy import select

import pbm.games
from pbm.elo import START
from pbm.store.models import Board, BoardStatus, MoveRecord, OutboxMessage, Player, Rating, Seat, Vacation
from pbm.timekeeping import clocks
from tests.mail.mailroom import Mailroom
from tests.support import Clock, mail, read

SCALES = {"bounded": (40, 18, 50), "full": (300, 80, 120)}
"""games, players, days."""
FORFEIT = timedelta(days=21)
HOUR = timedelta(hours=1)


@dataclass
class Habit:
    """How one simulated player answers."""

    least: float
    most: float
    """Days an answer takes, at least and at most."""
    vanishes_on: int | None = None
    """The day the player stops answering, for good."""
    vacations: list[tuple[int, int]] = field(default_factory=list)
    """(first day, length in days) of each vacation they book, the day before it starts."""


def habits(rng: random.Random, count: int, days: int) -> dict[str, Habit]:
    made = {}
    for i in range(count):
        kind = i % 6
        if kind in (0, 1):
            habit = Habit(0.0, 2.0)
        elif kind == 2:
            habit = Habit(1.0, 9.0)
        elif kind == 3:
            habit = Habit(0.2, 4.0, vanishes_on=rng.randrange(5, days // 2))
        else:
            start = rng.randrange(3, days - 20)
            habit = Habit(0.1, 5.0, vacations=[(start, rng.randrange(4, 15))])
            if kind == 5 and start + 30 < days:
                habit.vacations.append((start + 16 + rng.randrange(10), rng.randrange(3, 10)))
        made[f"p{i:03d}"] = habit
    return made


class Season:
    def __init__(self, room: Mailroom, clock: Clock, rng: random.Random, players: dict[str, Habit]) -> None:
        self.room, self.clock, self.rng, self.players = room, clock, rng, players
        self.due: dict[int, datetime] = {}
        """When the player to move at each board (by number) will answer."""
        self.turns: dict[int, tuple[int, str]] = {}
        """The turn each board's answer is planned for: (move count, player to move)."""

    def send(self, userid: str, text: str) -> None:
        self.room.send(mail(f"{userid}@season.example", text))

    def away(self, userid: str, day: float) -> bool:
        return any(start <= day < start + length for start, length in self.players[userid].vacations)

    def day(self) -> float:
        return (self.clock() - self.start) / timedelta(days=1)

    def plan(self, board: Board) -> None:
        """Choose when the player now to move at `board` answers (never, if they vanish first)."""
        assert board.to_move is not None
        userid = board.seats[board.to_move].player.userid
        habit = self.players[userid]
        self.due[board.board] = self.clock() + timedelta(days=self.rng.uniform(habit.least, habit.most))
        self.turns[board.board] = (board.move_count, userid)

    def hour(self) -> None:
        """One simulated hour: vacations booked, answers sent, then the time pass."""
        self.clock.advance(hours=1)
        day = self.day()
        for userid, habit in self.players.items():
            for start, length in habit.vacations:
                if start - 1 <= day < start - 1 + 1 / 24:
                    self.send(
                        userid, f"vacation {userid} {userid}-pw {self.date(start)} {self.date(start + length - 1)}"
                    )
        for board in self.active():
            assert board.to_move is not None
            userid = board.seats[board.to_move].player.userid
            if self.turns.get(board.board) != (board.move_count, userid):
                self.plan(board)
            habit = self.players[userid]
            gone = habit.vanishes_on is not None and day >= habit.vanishes_on
            if self.due[board.board] <= self.clock() and not gone and not self.away(userid, day):
                engine = pbm.games.get("cephalopod")
                state = engine.load(board.state, board.secret)
                move = self.rng.choice(engine.legal_moves(state))
                self.send(userid, f"cephalopod move {board.board} {userid} {userid}-pw {move}")
        self.room.server.processor.time_pass.run()

    def date(self, day: int) -> str:
        return (self.start + timedelta(days=day)).date().isoformat()

    def active(self) -> list[Board]:
        with self.room.database.reading() as session:
            query = select(Board).where(Board.status == BoardStatus.ACTIVE).order_by(Board.board)
            return list(session.scalars(query))

    @property
    def start(self) -> datetime:
        return START_AT


START_AT = Clock().time


@pytest.fixture
def scale() -> tuple[int, int, int]:
    chosen = os.environ.get("SEASON_SCALE", "bounded")
    if chosen not in SCALES:
        raise pytest.UsageError(f"SEASON_SCALE must be bounded or full, not {chosen!r}")
    return SCALES[chosen]


def test_a_season_of_correspondence_games_keeps_time(make_mailroom, database_url, scale):
    if database_url.startswith("postgresql"):
        pytest.skip("the season runs on SQLite; two passes on PostgreSQL have a test of their own")
    games, count, days = scale
    rng = random.Random(2026)
    clock = Clock(START_AT)
    room = make_mailroom(clock=clock, max_mails_per_address_per_hour=10_000, max_challenges_per_sender_per_hour=1000)
    season = Season(room, clock, rng, habits(rng, count, days))
    userids = list(season.players)
    for userid in userids:
        room.send(mail(f"{userid}@season.example", f"signup {userid} {userid}-pw"))
    for number in range(games):
        seated = rng.sample(userids, 3 if number % 5 == 0 else 2)
        season.send(seated[0], f"cephalopod challenge {' '.join(seated)}")
    for _ in range(days * 24):
        season.hour()
    room.replies()

    with room.database.reading() as session:
        boards = list(session.scalars(select(Board)))
        moves = list(session.scalars(select(MoveRecord).order_by(MoveRecord.game_id, MoveRecord.number)))
        away = defaultdict(list)
        for vacation in session.scalars(select(Vacation)):
            away[vacation.player_id].append(clocks.Interval(vacation.starts_at, vacation.ends_at))
        seats = {(s.game_id, s.seat): s.player_id for s in session.scalars(select(Seat))}
        nags = [
            (row.created_at, read(row.raw)["Subject"])
            for row in session.scalars(select(OutboxMessage).where(OutboxMessage.kind == "nag"))
        ]
        ratings = list(session.scalars(select(Rating)))
        userid_of = {p.id: p.userid for p in session.scalars(select(Player))}

    by_game = defaultdict(list)
    for move in moves:
        by_game[move.game_id].append(move)
    forfeits = 0
    for board in boards:
        turn_since = board.created_at
        for move in by_game[board.id]:
            player = seats[(board.id, move.seat)]
            waited = clocks.thought(turn_since, move.created_at, away[player])
            assert waited <= FORFEIT + HOUR, f"board {board.board} move {move.number} came after {waited}"
            if move.notation == "forfeit":
                forfeits += 1
                on_vacation = [i for i in away[player] if move.created_at in i]
                assert not on_vacation, f"{userid_of[player]} lost board {board.board} on time while away"
            turn_since = move.created_at
        if board.status == BoardStatus.ACTIVE:
            player = seats[(board.id, board.to_move)]
            assert clocks.thought(turn_since, clock(), away[player]) <= FORFEIT + HOUR

    last_nag: dict[str, datetime] = {}
    for at, subject in sorted(nags):
        key = subject.removesuffix(" (last warning)")
        if key in last_nag:
            assert at - last_nag[key] >= timedelta(hours=23), f"{subject} twice within a day"
        last_nag[key] = at

    rated = [b for b in boards if b.status == BoardStatus.FINISHED]
    assert sum(r.rating for r in ratings) == pytest.approx(START * len(ratings))
    assert sum(r.games for r in ratings) == sum(len(b.seats) for b in rated)
    assert all(r.wins + r.losses + r.draws == r.games for r in ratings)

    # The season was one: games ended every way, players vanished and went away.
    print(f"season: {len(rated)} of {games} games rated, {forfeits} forfeits, {len(nags)} reminders")
    assert forfeits >= games // 10
    assert len(rated) >= games // 5
    assert len(nags) >= games // 5
    assert sum(len(v) for v in away.values()) >= count // 6
