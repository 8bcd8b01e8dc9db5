"""A club on a server whose clock the test moves: mail in, the time pass run, mail out."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select

from pbm.mail.time_pass import PassReport
from pbm.store.models import Board, MoveRecord, Rating
from tests.mail.mailroom import Mailroom
from tests.support import Clock, mail

ADDRESSES = {
    "alice": "alice@example.org",
    "bob": "bob@example.net",
    "carol": "carol@example.com",
    "dave": "dave@example.com",
}


class TimeClub:
    def __init__(self, room: Mailroom, clock: Clock) -> None:
        self.room = room
        self.clock = clock

    def send(self, userid: str, text: str) -> None:
        self.room.send(mail(ADDRESSES[userid], text))

    def sign_up(self, *userids: str) -> None:
        for userid in userids:
            self.send(userid, f"signup {userid} {userid}-pw")
        self.room.replies()

    def tick(self, **later: float) -> PassReport:
        """Move the clock on by `later` (days=, hours=) and run the time pass."""
        self.clock.advance(**later)
        return self.room.server.processor.time_pass.run()

    def days(self, count: int) -> list[str]:
        """Run the pass every hour for `count` days; the subjects of every mail it sent, in order."""
        subjects = []
        for _ in range(count * 24):
            self.tick(hours=1)
            subjects += [m["Subject"] for m in self.room.replies()]
        return subjects

    def replies(self):
        return self.room.replies()

    def board(self, number: int = 101, game_type: str = "cephalopod") -> Board:
        with self.room.database.reading() as session:
            board = session.scalar(select(Board).where(Board.game_type == game_type, Board.board == number))
            assert board is not None
            return board

    def moves(self, number: int = 101) -> list[str]:
        with self.room.database.reading() as session:
            query = select(MoveRecord.notation).join(Board).where(Board.board == number).order_by(MoveRecord.number)
            return list(session.scalars(query))

    def rating(self, userid: str) -> Rating | None:
        from pbm.store.models import Player

        with self.room.database.reading() as session:
            return session.scalar(select(Rating).join(Player).where(Player.userid == userid))

    @property
    def now(self) -> datetime:
        return self.clock()
