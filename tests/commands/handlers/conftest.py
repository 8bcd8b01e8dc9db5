"""A desk to run one handler at a time: a club on a real SQLite database, its players, and a
command as a mail from one address would bring it (`Desk.run`), with no server, mail or SMTP.

Each test names the handler it specifies and calls it as a function: what it changed is read
back from the store, what it mailed from the `OutgoingMail` effects it returned, and a refusal
by its code (`Refusal.fact`), never by its words.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.orm import Session

from pbm.commands import language as lang
from pbm.commands.context import Context
from pbm.commands.effects import OutgoingMail, PasswordCheck, Refused, Sender
from pbm.commands.plan import plan_mail
from pbm.config import Club, Settings
from pbm.crypto.passwords import fast_passwords
from pbm.facts import Fact
from pbm.store import confirmations, players
from pbm.store.database import Database
from pbm.store.models import Player
from pbm.views.live import LiveBoard, load
from tests.conftest import BACKENDS, fresh_database
from tests.support import Clock

Handler = Callable[[Context, Any], list[OutgoingMail]]


def command(line: str, **reply: Any) -> Any:
    """The command `line` writes, as the command language reads it; `reply` sets the fields a reply
    to a board mail carries (``by_reply=True, replied_at=3``) instead of a password."""
    steps = plan_mail("", line, max_commands=1).steps
    assert len(steps) == 1 and isinstance(steps[0], lang.Command), f"{line!r} is no command: {steps}"
    return replace(steps[0], **reply) if reply else steps[0]


@dataclass
class Desk:
    """A club whose players are `<userid>@example.org` with the password `<userid>-pw`."""

    database: Database
    clock: Clock = field(default_factory=Clock)
    club: Club = field(default_factory=Club)
    limits: Any = field(default_factory=lambda: Settings().limits)
    checks: list[PasswordCheck] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.passwords = fast_passwords()

    def sign_up(self, *userids: str, confirmed: bool = True) -> None:
        """Players, each at their own address; `confirmed`: the address is confirmed already."""
        with self.database.transaction() as session:
            for userid in userids:
                address = f"{userid}@example.org"
                player = players.sign_up(
                    session, userid, self.passwords.hash(f"{userid}-pw"), [address], sender=address, now=self.clock()
                )
                if confirmed:
                    session.flush()
                    confirmations.vouch(session, player, [address], now=self.clock())

    def run(
        self, handler: Handler, line: str | Any, *, sender: str | None = None, comment: str = "", **reply: Any
    ) -> list[OutgoingMail]:
        """`handler` run on the command `line` (or a command), in one transaction committed when it
        returns, as a mail from `sender` (an address; ``alice`` stands for alice@example.org)."""
        order = command(line, **reply) if isinstance(line, str) else line
        with self.database.transaction() as session:
            return handler(self.context(session, sender, comment), order)

    def refusal(self, handler: Handler, line: str | Any, **run: Any) -> Refused:
        """The refusal `handler` answers the command `line` with; nothing it did is kept."""
        with pytest.raises(Refused) as refused:
            self.run(handler, line, **run)
        return refused.value

    def code(self, handler: Handler, line: str | Any, **run: Any) -> str:
        """The code of the refusal `handler` answers the command `line` with."""
        return self.refusal(handler, line, **run).fact.code

    def context(self, session: Session, sender: str | None, comment: str = "") -> Context:
        address = f"{sender}@example.org" if sender and "@" not in sender else sender
        registered = players.with_address(session, address) if address else []
        return Context(
            session,
            self.passwords,
            self.limits,
            Sender(address, registered),
            comment=comment,
            now=self.clock,
            club=self.club,
            on_password_check=self.checks.append,
        )

    def read(self, read: Callable[[Session], Any]) -> Any:
        """What `read` finds in the store now."""
        with self.database.transaction() as session:
            return read(session)

    def player(self, userid: str) -> Player | None:
        """The player as the store keeps them now, with their addresses."""

        def read(session: Session) -> Player | None:
            player = players.find(session, userid)
            if player is not None:
                list(player.addresses)  # read while the session is open
            return player

        return self.read(read)

    def board(self, game: str, number: int) -> LiveBoard:
        """The board as the store keeps it now (its row, its state, its seats' players loaded)."""

        def read(session: Session) -> LiveBoard:
            board = load(session, game, number)
            assert board is not None, f"no {game} board {number}"
            board.state  # noqa: B018 (read while the session is open)
            for seat in board.row.seats:
                seat.player.userid  # noqa: B018
            return board

        return self.read(read)


@pytest.fixture(params=BACKENDS)
def database(request, tmp_path: Path, sqlite_template: Path, postgres_databases) -> Iterator[Database]:
    """A migrated database of the test's own, on each backend in turn: a handler's queries are
    checked here on PostgreSQL as on SQLite, a tenth of a second a test, so that the end-to-end
    specifications of what players read need not be run twice (`tests.conftest.ON_SQLITE_ONLY`)."""
    for url in fresh_database(request.param, tmp_path, sqlite_template, postgres_databases):
        database = Database(url)
        yield database
        database.dispose()


@pytest.fixture
def desk(database: Database) -> Desk:
    return Desk(database)


def to(mails: list[OutgoingMail], template: str | None = None) -> list[str]:
    """The addresses `mails` go to (of `template` alone when given), in order."""
    return [mail.to for mail in mails if template is None or mail.template == template]


def fact(code: str, **params: Any) -> Fact:
    return Fact(code, **params)
