"""Turns in time: when the player to move got the turn, the clocks it charges, and when the
time pass must look at a board next (`Board.due_at`).

A board's `due_at` is never later than the next reminder, forfeit or vote to
settle, though it may be earlier: the time pass, looking at it, works out
exactly what is due and moves it on. So the store can set it cautiously
(a turn's end sets it no later than the nag time) and leave the arithmetic of
vacations to the pass.

Everything here runs inside a session the caller owns (with the board locked);
nothing commits.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from pbm.store import vacations
from pbm.store.models import Board, BoardStatus, Offer, Seat
from pbm.timekeeping import clocks

NO_RULES = clocks.TimeControl()
"""What a board without stored rules counts on here: no bank and no total (the club's defaults have
neither); its nag time is the pass's business."""


def rules_of(board: Board, default: clocks.TimeControl = NO_RULES) -> clocks.TimeControl:
    return clocks.TimeControl.from_json(board.time_control, default)


def start(board: Board, rules: clocks.TimeControl, now: datetime) -> None:
    """A new game's clocks: the first player's turn begins, every bank is full."""
    board.time_control = rules.to_json()
    board.turn_since = now
    for seat in board.seats:
        seat.thinking_seconds = 0.0
        seat.bank_seconds = rules.bank.start.total_seconds() if rules.bank is not None else None
    _new_turn(board, rules, now)


def end_turn(session: Session, board: Board, now: datetime, *, moved: bool = True) -> None:
    """The player to move's turn is over: their thinking time is charged (time away not counted)
    and, if they `moved`, their bank gets its increment; the next turn starts now."""
    rules = rules_of(board)
    if board.to_move is not None and board.turn_since is not None:
        seat = board.seats[board.to_move]
        used = clocks.thought(board.turn_since, now, _not_counted(session, board, board.turn_since, next_at=now))
        seat.thinking_seconds += used.total_seconds()
        if rules.bank is not None and seat.bank_seconds is not None:
            left = timedelta(seconds=seat.bank_seconds) - used
            seat.bank_seconds = (rules.bank.after_move(left) if moved else left).total_seconds()
    board.turn_since = now
    _new_turn(board, rules, now)


def _new_turn(board: Board, rules: clocks.TimeControl, now: datetime) -> None:
    board.reminders_sent = 0
    board.warned = False
    soonest = [rules.nag if board.time_control is not None else timedelta(0)]
    for seat in board.seats:
        if seat.bank_seconds is not None:
            soonest.append(timedelta(seconds=seat.bank_seconds))
        if rules.total is not None:
            soonest.append(rules.total - timedelta(seconds=seat.thinking_seconds))
    board.due_at = now + max(min(soonest), timedelta(0))


def look_at(board: Board, moment: datetime) -> None:
    """The time pass looks at `board` next at `moment`."""
    board.due_at = moment


def reminded(board: Board, count: int, *, warned: bool = False) -> None:
    """The player to move has had `count` reminders this turn (and, if `warned`, the last warning)."""
    board.reminders_sent = count
    board.warned = board.warned or warned


def stop(board: Board) -> None:
    """The game is over: nothing is due at it any more."""
    board.due_at = None


def look_soon(session: Session, player_id: int, now: datetime) -> None:
    """Have the time pass look at every active board of a player at once: their vacations changed."""
    seated = select(Seat.game_id).where(Seat.player_id == player_id)
    session.execute(
        update(Board)
        .where(Board.id.in_(seated), Board.status == BoardStatus.ACTIVE)
        .values(due_at=now)
        .execution_options(synchronize_session=False)
    )


def due(session: Session, now: datetime, *, limit: int) -> Sequence[int]:
    """Up to `limit` active boards due a look, most overdue first."""
    query = (
        select(Board.id)
        .where(Board.due_at <= now, Board.status == BoardStatus.ACTIVE)
        .order_by(Board.due_at, Board.id)
        .limit(limit)
    )
    return session.scalars(query).all()


def claim(session: Session, board_id: int, now: datetime) -> Board | None:
    """The board, locked, if it is still due a look: another pass may have just taken it."""
    query = select(Board).where(Board.id == board_id, Board.due_at <= now, Board.status == BoardStatus.ACTIVE)
    return session.scalar(query.with_for_update(skip_locked=True))


def turn_of(session: Session, board: Board, now: datetime, default: clocks.TimeControl) -> clocks.Turn | None:
    """Where the player to move at `board` stands in time at `now` (None once the game is over);
    `default`: the rules of a board from before time rules were stored."""
    if board.status != BoardStatus.ACTIVE or board.to_move is None:
        return None
    since = board.turn_since or board.updated_at
    return _turn(board, since, now, _not_counted(session, board, since), default)


def turns_of(
    session: Session, boards: Sequence[Board], now: datetime, default: clocks.TimeControl
) -> dict[int, clocks.Turn]:
    """`turn_of` of each board still under way, by board id, in two statements however many boards
    there are (the movers' time away, then the proposals waiting for votes): a player's page
    lists every game waiting for them, and one statement per game made it grow with their games."""
    movers = {
        board.id: board.seats[board.to_move]
        for board in boards
        if board.status == BoardStatus.ACTIVE and board.to_move is not None
    }
    moving = [board for board in boards if board.id in movers]
    if not moving:
        return {}
    since = {board.id: board.turn_since or board.updated_at for board in moving}
    away = vacations.away(session, [seat.player_id for seat in movers.values()], min(since.values()))
    offers = {offer.game_id: offer for offer in session.scalars(select(Offer).where(Offer.game_id.in_(list(since))))}
    turns = {}
    for board in moving:
        seat = movers[board.id]
        # The earliest turn's time away is everyone's: each turn keeps what ends after its own start.
        mine = [interval for interval in away.get(seat.player_id, []) if interval.end > since[board.id]]
        not_counted = _with_vote(mine, seat, offers.get(board.id))
        turns[board.id] = _turn(board, since[board.id], now, not_counted, default)
    return turns


def _turn(
    board: Board, since: datetime, now: datetime, away: list[clocks.Interval], default: clocks.TimeControl
) -> clocks.Turn:
    seat = board.seats[board.to_move or 0]  # the callers checked: a player is to move
    return clocks.Turn(
        rules_of(board, default),
        since,
        now,
        tuple(away),
        thinking=timedelta(seconds=seat.thinking_seconds),
        bank=timedelta(seconds=seat.bank_seconds) if seat.bank_seconds is not None else None,
    )


def _not_counted(
    session: Session, board: Board, since: datetime, *, next_at: datetime | None = None
) -> list[clocks.Interval]:
    """The time the turn under way does not count: the mover's vacations, and while a proposal the
    mover said yes to waits for the others' votes (then the others are the ones keeping the game
    waiting, and their votes have a clock of their own).

    `next_at`: the turn ends, and the next begins then. Every seated player's time away is read,
    and kept (`vacations.KEPT`) for the next turn's first look, which every mail about the move
    takes: one statement a move, where each turn's look made two."""
    seat = board.seats[board.to_move] if board.to_move is not None else None
    if seat is None:
        return []
    kept = session.info.get(vacations.KEPT, {}).pop(board.id, None)
    if next_at is None and kept is not None and kept[0] == since:
        away = [interval for interval in kept[1].get(seat.player_id, []) if interval.end > since]
    elif next_at is not None:
        everyone = vacations.away(session, [s.player_id for s in board.seats if s.player_id is not None], since)
        session.info.setdefault(vacations.KEPT, {})[board.id] = (next_at, everyone)
        away = everyone.get(seat.player_id, [])
    else:
        away = vacations.away(session, [seat.player_id], since).get(seat.player_id, [])
    return _with_vote(away, seat, board.offer)


def _with_vote(away: list[clocks.Interval], seat: Seat, offer: Offer | None) -> list[clocks.Interval]:
    """`away`, and the time since `offer` was made if the mover at `seat` said yes to it."""
    if offer is not None and seat.seat in offer.accepted:
        away.append(clocks.Interval(offer.created_at, clocks.FOREVER))
    return away


def resume_after_vote(board: Board, offer: Offer, now: datetime) -> None:
    """A proposal the player to move said yes to was turned down: the time it waited for votes
    does not count for their turn."""
    if board.to_move is not None and board.to_move in offer.accepted and board.turn_since is not None:
        board.turn_since += now - max(offer.created_at, board.turn_since)
