"""Real players: their mails (signups, challenges, moves), and their games as the engine sees them.

Moves are drawn from the engine's legal moves (the `pbm.games` API), so a
move stream is valid whatever the position; each carries its ``#N`` guard, so
a move applied out of order, or twice, would be refused and show in the audit.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, field
from email.utils import make_msgid, parsedate_to_datetime
from pathlib import Path

import pbm.games
from tests.faults.audit import Tables, maildir_files
from tests.faults.harness import Sent, ServeProcess, deliver, wait_for
from tests.support import mail, read

_serial = itertools.count(1)
PROCESSED_SECONDS = 60.0


@dataclass(frozen=True)
class Player:
    userid: str
    password: str

    @property
    def address(self) -> str:
        return f"{self.userid}@players.example"


def new_player(prefix: str, rng: random.Random) -> Player:
    """A fresh player: a userid never used before in this run, a password worth finding in a leak."""
    userid = f"{prefix}{next(_serial)}"
    return Player(userid, f"pw-{userid}-{rng.getrandbits(48):012x}")


@dataclass(frozen=True)
class Letter:
    """A mail a client sends, and what the server owes for it."""

    sender: str
    raw: bytes
    message_id: str
    kind: str
    replies: int = 0
    """Mails the server queues in answer (one per recipient)."""
    to: str = "pbm@localhost"
    """The envelope recipient: the server's address, or a reply address with a token."""


def letter(
    sender: str,
    body: str,
    *,
    kind: str,
    replies: int = 0,
    subject: str = "",
    to: str = "pbm@localhost",
    headers: dict[str, str] | None = None,
) -> Letter:
    message_id = make_msgid(idstring=f"{kind}.{next(_serial)}", domain="players.example")
    raw = mail(sender, body, subject=subject, to=to, message_id=message_id, headers=headers)
    return Letter(sender, raw, message_id, kind, replies, to)


def signup(player: Player) -> Letter:
    return letter(player.address, f"signup {player.userid} {player.password}", kind="signup", replies=1)


def confirmation_reply(outbox: Path, player: Player) -> Letter | None:
    """The reply that confirms `player`'s address, as their mail client writes it to the newest mail
    in `outbox` asking them to confirm it; None when no mail asks."""
    asking = [
        message
        for message in map(read, maildir_files(outbox))
        if message["To"] and message["To"].addresses[0].addr_spec == player.address
        and message["Reply-To"] and "+confirm-" in str(message["Reply-To"])
    ]  # fmt: skip
    if not asking:
        return None
    newest = max(asking, key=lambda message: parsedate_to_datetime(str(message["Date"])))
    reply_to = newest["Reply-To"].addresses[0].addr_spec
    return letter(player.address, "", kind="confirm", subject="Re: " + str(newest["Subject"]), to=reply_to)


def challenge(game_type: str, players: list[Player], options: str = "") -> Letter:
    userids = " ".join(p.userid for p in players)
    body = f"{game_type} challenge {options} {userids}".replace("  ", " ")
    return letter(players[0].address, body, kind="challenge", replies=len(players))


@dataclass
class Match:
    """One game between fresh players, followed move by move with the engine."""

    game_type: str
    players: list[Player]
    options: dict = field(default_factory=dict)
    board: int | None = None
    state: object = None

    def __post_init__(self) -> None:
        self.engine = pbm.games.get(self.game_type)
        self.state = self.engine.new(players=len(self.players), options=self.options)

    @property
    def userids(self) -> list[str]:
        return [p.userid for p in self.players]

    @property
    def over(self) -> bool:
        return self.engine.result(self.state) is not None

    @property
    def number(self) -> int:
        """The number the next move will have."""
        return self.state.ply + 1

    def to_move(self) -> Player:
        return self.players[self.state.to_move]

    def next_move(self, rng: random.Random) -> tuple[Player, str]:
        """A legal move for the player to move, and that player; the engine's state advances."""
        player = self.to_move()
        move = rng.choice(self.engine.legal_moves(self.state))
        self.state = self.engine.play(self.state, move)
        return player, move

    def move_letter(self, rng: random.Random, comment: str = "") -> tuple[Letter, str]:
        """The next move as a command mail (with its ``#N`` guard), and the move."""
        number = self.number
        player, move = self.next_move(rng)
        body = f"{self.game_type} move {self.board} {player.userid} {player.password} {move}#{number}"
        if comment:
            body += "\n\n" + comment
        return letter(player.address, body, kind="move", replies=len(self.players)), move


def post(port: int, mail: Letter, *, give_up_after: float = 120.0) -> Sent:
    """Hand `mail` to the server at `port` as an MTA would (see `deliver`)."""
    return deliver(
        port, mail.sender, mail.raw, message_id=mail.message_id, recipients=[mail.to], give_up_after=give_up_after
    )


def post_and_wait(port: int, tables: Tables, *mails: Letter, timeout: float = 60.0) -> list[int]:
    """Send each mail, wait until all are processed and their answers handed over (or tried);
    their inbound ids, in the order of `mails`."""
    for sent in mails:
        post(port, sent)

    def done():
        rows = tables.inbound_by_message_id()
        if all(m.message_id in rows and rows[m.message_id][0].status != "pending" for m in mails):
            return [rows[m.message_id][0].id for m in mails]
        return None

    ids = wait_for(done, timeout)
    assert ids, "not processed in time"
    wait_for(lambda: all(r.status != "pending" or r.attempts for r in tables.outbox()), 10)
    return ids


def send_and_wait(server: ServeProcess, *mails: Letter) -> list[int]:
    """`post_and_wait` to a fault-suite server, whose `tables` read its database."""
    return post_and_wait(server.smtp_port, server.tables, *mails, timeout=PROCESSED_SECONDS)


def sign_up_confirmed(server: ServeProcess, *players: Player) -> None:
    """Sign up `players`, each confirming the address by replying to the welcome mail, as anyone would."""
    send_and_wait(server, *(signup(p) for p in players))
    replies = [reply for p in players if (reply := confirmation_reply(server.outbox, p)) is not None]
    if replies:
        send_and_wait(server, *replies)


def delivered_to(server: ServeProcess, address: str) -> int:
    return sum(1 for raw in maildir_files(server.outbox) if read(raw)["To"] and address in str(read(raw)["To"]))
