"""Reading what the server did, from its tables and its outbox, for the audits.

Plain SQL on the documented tables (`inbound_messages`, `moves`, `games`,
`outbox_messages`, `players`), so the audit holds whatever the code that
writes them becomes.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timezone
from email.parser import BytesHeaderParser
from email.policy import compat32
from pathlib import Path

from sqlalchemy import bindparam, create_engine, text
from sqlalchemy.engine import Engine


@dataclass(frozen=True)
class Inbound:
    id: int
    message_id: str | None
    status: str
    envelope_from: str
    received_at: datetime
    processed_at: datetime | None
    note: str


@dataclass(frozen=True)
class AppliedMove:
    game_type: str
    board: int
    number: int
    notation: str
    inbound_id: int | None


@dataclass(frozen=True)
class Outgoing:
    id: int
    inbound_id: int | None
    message_id: str
    recipient: str
    status: str
    attempts: int
    last_error: str
    raw: bytes


def _aware(value: datetime | str | None) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, str):  # SQLite hands timestamps back as text
        value = datetime.fromisoformat(value)
    return value if value.tzinfo else value.replace(tzinfo=timezone.utc)


class Tables:
    """Read-only queries on a server's database."""

    def __init__(self, database_url: str) -> None:
        self.engine: Engine = create_engine(database_url, pool_pre_ping=True)

    def close(self) -> None:
        self.engine.dispose()

    def _rows(self, sql: str, **params):
        with self.engine.connect() as connection:
            return connection.execute(text(sql), params).all()

    def inbound(self) -> list[Inbound]:
        rows = self._rows(
            "SELECT id, message_id, status, envelope_from, received_at, processed_at, note"
            " FROM inbound_messages ORDER BY id"
        )
        return [
            Inbound(
                r.id, r.message_id, r.status, r.envelope_from, _aware(r.received_at), _aware(r.processed_at), r.note
            )
            for r in rows
        ]

    def inbound_by_message_id(self) -> dict[str, list[Inbound]]:
        found: dict[str, list[Inbound]] = {}
        for row in self.inbound():
            if row.message_id:
                found.setdefault(row.message_id.strip(), []).append(row)
        return found

    def inbound_heads(self, length: int = 64) -> dict[int, bytes]:
        """The first `length` bytes of each stored mail, by id (to tell which mail a row is)."""
        rows = self._rows("SELECT id, substr(raw, 1, :length) AS head FROM inbound_messages", length=length)
        return {row.id: bytes(row.head) for row in rows}

    def pending(self) -> list[Inbound]:
        return [row for row in self.inbound() if row.status == "pending"]

    def moves(self) -> list[AppliedMove]:
        rows = self._rows(
            "SELECT g.game_type, g.board, m.number, m.notation, m.inbound_id"
            " FROM moves m JOIN games g ON g.id = m.game_id ORDER BY g.game_type, g.board, m.number"
        )
        return [AppliedMove(r.game_type, r.board, r.number, r.notation, r.inbound_id) for r in rows]

    def outbox(self) -> list[Outgoing]:
        rows = self._rows(
            "SELECT id, inbound_id, message_id, recipient, status, attempts, last_error, raw"
            " FROM outbox_messages ORDER BY id"
        )
        return [
            Outgoing(r.id, r.inbound_id, r.message_id, r.recipient, r.status, r.attempts, r.last_error, bytes(r.raw))
            for r in rows
        ]

    def board_of(self, game_type: str, userids: list[str]) -> int | None:
        """The newest active board of `game_type` whose seats are `userids`, in order."""
        rows = self._rows(
            "SELECT g.board, s.seat, p.userid FROM games g JOIN seats s ON s.game_id = g.id"
            " JOIN players p ON p.id = s.player_id WHERE g.game_type = :type AND g.status = 'active'"
            " ORDER BY g.board DESC, s.seat",
            type=game_type,
        )
        seats: dict[int, list[str]] = {}
        for row in rows:
            seats.setdefault(row.board, []).append(row.userid)
        return next((board for board, players in seats.items() if players == userids), None)

    def boards_played_by(self, userids: list[str]) -> int:
        """How many games (any status) any of `userids` has a seat in."""
        if not userids:
            return 0
        query = text(
            "SELECT COUNT(DISTINCT s.game_id) AS boards FROM seats s JOIN players p ON p.id = s.player_id"
            " WHERE p.userid IN :userids"
        ).bindparams(bindparam("userids", expanding=True))
        with self.engine.connect() as connection:
            rows = connection.execute(query, {"userids": list(userids)}).all()
        return rows[0].boards

    def players(self) -> list[tuple[str, str]]:
        """(userid, password hash) of every player."""
        return [(r.userid, r.password_hash) for r in self._rows("SELECT userid, password_hash FROM players")]

    def game_secrets(self) -> list[bytes]:
        """The hidden state (dice seeds) of games still running."""
        rows = self._rows("SELECT secret FROM games WHERE status = 'active' AND secret IS NOT NULL")
        return [bytes(r.secret) for r in rows]

    def state(self) -> tuple:
        """Everything a command can change about players and games, to compare before and after."""
        players = self._rows("SELECT userid, password_hash, signed_off_at FROM players ORDER BY userid")
        addresses = self._rows("SELECT player_id, address, position FROM player_addresses ORDER BY 1, 3")
        games = self._rows("SELECT game_type, board, status, move_count, to_move FROM games ORDER BY 1, 2")
        moves = self._rows("SELECT game_id, number, notation FROM moves ORDER BY 1, 2")
        return tuple(tuple(map(tuple, rows)) for rows in (players, addresses, games, moves))


def as_delivered(outbox: Path, row: Outgoing) -> bytes:
    """`row` as delivery handed it over (its tokens made whole: the outbox keeps them sealed),
    found in the maildir `outbox` by its Message-ID; the outbox's own copy while not delivered."""
    parser = BytesHeaderParser(policy=compat32)
    for raw in maildir_files(outbox):
        if str(parser.parsebytes(raw).get("Message-ID", "")).strip() == row.message_id.strip():
            return raw
    return row.raw


def maildir_files(path: Path) -> list[bytes]:
    """Every mail written into a maildir (delivered), as raw bytes."""
    return [
        file.read_bytes() for folder in ("new", "cur") if (path / folder).is_dir() for file in (path / folder).iterdir()
    ]


def message_id_counts(raws: list[bytes]) -> Counter[str]:
    """How often each Message-ID occurs among `raws`."""
    parser = BytesHeaderParser(policy=compat32)
    return Counter(str(parser.parsebytes(raw).get("Message-ID", "")).strip() for raw in raws)
