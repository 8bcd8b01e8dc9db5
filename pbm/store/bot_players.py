"""The club's bots as players: who they are, what they are rated, and their claims on their turns.

Every club has them without anyone signing them up: ``bot1`` (the weakest), ``bot2`` ... one for
each level of `pbm.bots`, each playing its level in every game it plays. The server signs a bot
up the first time anyone names it (`sign_up_named`), so a club whose members never play a bot
has none among its players. A bot has no address, so no mail is ever queued for it, and its
password hash is one no password matches, so nobody signs in as it; userids of their form are
kept for bots (`is_bot_userid`).

A bot does not move in the transaction that gave it the turn: `pbm.mail.bot_turns` finds the
boards where a bot has something to do (`to_act`), claims the turn for one worker (`claim`),
thinks outside the mail workers, and puts its decision into the inbox (`decided`), where it is
applied as a player's reply to the board would be.

Everything here runs inside a session the caller owns; nothing commits.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Select, func, select
from sqlalchemy.orm import Session

import pbm.bots
from pbm import elo
from pbm.games import UnknownGame
from pbm.store.database import dialect_insert
from pbm.store.models import Board, BoardStatus, BotTurn, InboundMessage, InboundStatus, Offer, Player, Seat

BOT_USERID = re.compile(r"bot[0-9]+")
"""The userids kept for bots, whether or not a bot of that level exists yet."""
NO_PASSWORD = "!"
"""A bot's password hash: not an argon2 hash, so no password verifies against it."""
RANDOM_PLAY_RATING = 1000.0
"""Where the club's rating scale puts a player who moves at random: the ladder (``make ladder``)
rates each level from there, so a bot's rating is this plus its ladder Elo."""
MOST_ATTEMPTS = 3
"""Claims on one task: a decision refused for a reason that does not pass (a bug) is given up."""


def userid_of(level: int) -> str:
    """The userid of the bot that plays at `level`: ``bot1`` the weakest (`pbm.bots.levels`)."""
    return f"bot{level}"


def is_bot_userid(userid: str) -> bool:
    """Whether `userid` is of the form kept for bots: ``bot1``, ``bot12``.

    >>> is_bot_userid("bot3"), is_bot_userid("Bot3"), is_bot_userid("bottom"), is_bot_userid("robot1")
    (True, True, False, False)
    """
    return BOT_USERID.fullmatch(userid.lower()) is not None


def plays(game_type: str, level: int) -> bool:
    """Whether the bot of `level` plays `game_type` (`pbm.bots` has no levels for a game installed
    as a package of its own)."""
    try:
        return level in pbm.bots.levels(game_type)
    except UnknownGame:
        return False


def most_levels() -> int:
    """The number of bots: the most levels any game's bots play (`pbm.bots.levels`)."""
    return max(len(pbm.bots.levels(game)) for game in pbm.bots.PLANS)


def sign_up_named(session: Session, userids: Sequence[str], now: datetime) -> None:
    """Sign up the bots among `userids` that are not signed up yet: no address, no password.

    A userid of the bots' form with no level behind it (``bot99``) names nobody, as does one a
    person took before bots were kept (that person stays who it names). Two mails naming a new
    bot at once sign it up once.
    """
    insert = dialect_insert(session)
    for userid in dict.fromkeys(u.lower() for u in userids if is_bot_userid(u)):
        level = int(userid.removeprefix("bot"))
        if 1 <= level <= most_levels():
            row = {"userid": userid, "password_hash": NO_PASSWORD, "created_at": now, "bot_level": level}
            session.execute(insert(Player).values(**row).on_conflict_do_nothing())


def sign_up_all(session: Session, now: datetime) -> list[Player]:
    """Every bot, signed up where it was not yet; weakest first."""
    sign_up_named(session, [userid_of(level) for level in range(1, most_levels() + 1)], now)
    return all_bots(session)


def all_bots(session: Session) -> list[Player]:
    """The club's bots, weakest first."""
    return list(session.scalars(select(Player).where(Player.bot_level.is_not(None)).order_by(Player.bot_level)))


def rating(game_type: str, level: int) -> float:
    """A bot's rating in `game_type`: its level's Elo on the ladder, on the club's scale; the
    starting rating where the ladder has not measured the level."""
    measured = pbm.bots.strength(game_type)
    found = next((row for row in (measured or {}).get("levels", []) if row.get("level") == level), None)
    return RANDOM_PLAY_RATING + float(found["elo"]) if found is not None else elo.START


def live_games_with_bots(session: Session, player_id: int) -> int:
    """The active games with a bot at them that `player_id` plays in or started (an exhibition)."""
    with_a_bot = select(Seat.game_id).join(Player, Player.id == Seat.player_id).where(Player.bot_level.is_not(None))
    plays_in = select(Seat.game_id).where(Seat.player_id == player_id)
    query = select(func.count(Board.id)).where(
        Board.status == BoardStatus.ACTIVE,
        Board.id.in_(with_a_bot),
        Board.id.in_(plays_in) | (Board.challenger_id == player_id),
    )
    return session.scalar(query) or 0


@dataclass(frozen=True)
class Due:
    """A board where a bot may have something to do (`to_act`)."""

    board_id: int
    player_id: int
    """The bot's."""
    at_ply: int
    """The moves made at the board so far: the task is about the position after them."""
    owner_id: int | None
    """Whom the game is played for: the player who started it (an exhibition's host too)."""


def to_act(
    session: Session,
    bot_ids: Sequence[int],
    *,
    now: datetime,
    limit: int,
    served: Mapping[int | None, int] | None = None,
) -> list[Due]:
    """Active boards where a bot may have something to do: it is its turn, or a proposal waits for
    votes; and no worker is thinking about it, and no decision of its waits in the inbox. Whether
    the bot has a vote to cast, or decided this very task already, `claim` works out.

    In the order to think about them, since one thinker serves the whole club: games with a person
    before exhibitions (bots think for people); then the game's owner served longest ago first
    (`served`: owner id -> a number the caller counts up each time it serves one; never served
    first), a round robin, so that one player's many games hold up another player's bot for one
    answer at most; then those that waited longest.
    """
    if not bot_ids:
        return []
    query = (
        select(Board.id, Seat.player_id, Board.move_count, Board.challenger_id, Board.exhibition)
        .join(Seat, Seat.game_id == Board.id)
        .outerjoin(Offer, Offer.game_id == Board.id)
        .outerjoin(BotTurn, (BotTurn.game_id == Board.id) & (BotTurn.player_id == Seat.player_id))
        .outerjoin(InboundMessage, InboundMessage.id == BotTurn.inbound_id)
        .where(
            Seat.player_id.in_(bot_ids),
            Board.status == BoardStatus.ACTIVE,
            (Board.to_move == Seat.seat) | Offer.game_id.is_not(None),
            BotTurn.claimed_until.is_(None) | (BotTurn.claimed_until <= now),
            InboundMessage.status.is_(None) | (InboundMessage.status != InboundStatus.PENDING),
        )
        .order_by(Board.updated_at, Board.id, Seat.seat)
    )
    last_served = served or {}
    found = session.execute(query).all()  # as many as live games with bots: capped per player
    ordered = sorted(found, key=lambda row: (row.exhibition, last_served.get(row.challenger_id, -1)))  # stable
    return [Due(row.id, row.player_id, row.move_count, row.challenger_id) for row in ordered[:limit]]


class Claim(enum.StrEnum):
    TAKEN = "taken"
    """This worker thinks about the task now."""
    BUSY = "busy"
    """Another worker is thinking about it, or its decision waits in the inbox, or it was given up."""
    GIVEN_UP = "given-up"
    """Its decisions were refused `MOST_ATTEMPTS` times: nobody claims it again (said once)."""


def claim(
    session: Session,
    board_id: int,
    player_id: int,
    task: str,
    *,
    worker: str,
    now: datetime,
    lease: timedelta,
) -> Claim:
    """Claim `task` of the bot `player_id` at `board_id` for `worker` until `now + lease`.

    A task is free when it is new; when the lease of the worker that claimed it ended (it stopped
    without deciding: a worker that stops in good order lets go at once, `let_go`); or when its
    decision was applied and the board still asks the same (it was refused). The row is locked
    until the caller's transaction ends, so two workers never both take it.
    """
    insert = dialect_insert(session)
    fresh = {"game_id": board_id, "player_id": player_id, "task": task, "attempts": 0}
    session.execute(insert(BotTurn).values(**fresh).on_conflict_do_nothing())
    row = session.scalars(_locked_turn(board_id, player_id)).one()
    if row.task == task:
        if row.attempts > MOST_ATTEMPTS:
            return Claim.BUSY
        if row.inbound_id is not None:
            status = session.scalar(select(InboundMessage.status).where(InboundMessage.id == row.inbound_id))
            if status == InboundStatus.PENDING:
                return Claim.BUSY
        elif row.worker is not None and row.claimed_until is not None and row.claimed_until > now:
            return Claim.BUSY
        if row.attempts == MOST_ATTEMPTS:
            row.attempts += 1
            return Claim.GIVEN_UP
        row.attempts += 1
    else:
        row.task, row.attempts = task, 1
    row.worker, row.claimed_until, row.inbound_id = worker, now + lease, None
    return Claim.TAKEN


def still_claimed(session: Session, board_id: int, player_id: int, task: str, *, worker: str) -> BotTurn | None:
    """The claim on `task`, locked, if `worker` still holds it (no other worker took it over)."""
    row = session.scalars(_locked_turn(board_id, player_id)).one_or_none()
    if row is None or row.task != task or row.worker != worker or row.inbound_id is not None:
        return None
    return row


def _locked_turn(board_id: int, player_id: int) -> Select[BotTurn]:
    """The bot's turn row at the board, locked until the transaction ends, read afresh."""
    return (
        select(BotTurn)
        .where(BotTurn.game_id == board_id, BotTurn.player_id == player_id)
        .with_for_update()
        .execution_options(populate_existing=True)
    )


def decided(row: BotTurn, inbound_id: int) -> None:
    """The claimed task is decided: its decision is the inbox's row `inbound_id`."""
    row.inbound_id, row.worker, row.claimed_until = inbound_id, None, None


def let_go(row: BotTurn) -> None:
    """The claimed task was not decided (the board moved on, or the server stopped): anyone may
    claim it, and this claim does not count among its attempts."""
    row.worker, row.claimed_until = None, None
    row.attempts = max(0, row.attempts - 1)
