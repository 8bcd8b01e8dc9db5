"""Boards: one game each, from its start through its moves to its end.

The unit of work of play: starting a board, recording a move or a
resignation, cancelling or finishing it (and rating it). A board row carries
its engine state (the engine's `dump`), so a move loads one row, plays and
writes it back: a move costs the same in game 1 and game 100 000, in move 3
and move 300.

Everything here runs inside a session the caller owns; nothing commits.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Integer, Select, bindparam, case, func, insert, select
from sqlalchemy.orm import Session, joinedload

from pbm.crypto import chain
from pbm.elo import RatingChange
from pbm.facts import Fact
from pbm.games import LEAVING, UNDO
from pbm.games.fairdice import commitment
from pbm.store import ratings, turns, watchers
from pbm.store.database import dialect_insert, execute_plain
from pbm.store.models import (
    Board,
    BoardCounter,
    BoardEvent,
    BoardStatus,
    MoveRecord,
    OpenChallenge,
    Player,
    PlayerAddress,
    Seat,
)
from pbm.timekeeping import clocks

FIRST_BOARD = 101
RESIGNED = "resigned"
"""The end code of a game a resignation ended (the others come from the engine's `Result.code`)."""
NO_PERSON_LEFT = "no-person-left"
"""The end of a game with bots whose last person in play was put out by a move: the bots share it."""
FORFEIT = "forfeit"
"""The end code of a game a player forfeited (by signing off; later, by running out of time)."""
CANCELLED = "cancelled"


_WHAT_A_TURN_NEEDS = (
    joinedload(Board.offer),
    joinedload(Board.seats).joinedload(Seat.player).joinedload(Player.addresses),
)
"""Loaded with a board in the board's own query, so a move costs one round trip however many
play: its pending proposal, and every seated player with their addresses (the board mails go
to them). A row per seat and address: a handful, for at most six players."""


def find(session: Session, game_type: str, number: int, *, for_update: bool = False) -> Board | None:
    """The board; `for_update` locks it, so moves on one board are applied one at a time."""
    query = _BY_NUMBER_FOR_UPDATE if for_update else _BY_NUMBER
    return session.scalars(query, {"game_type": game_type, "number": number}).unique().one_or_none()


def by_id(session: Session, board_id: int, *, for_update: bool = False) -> Board | None:
    return session.scalars(_BY_ID_FOR_UPDATE if for_update else _BY_ID, {"board_id": board_id}).unique().one_or_none()


def _with_what_a_turn_needs(query: Select[Board]) -> tuple[Select[Board], Select[Board]]:
    """`query` with what a turn needs loaded, as it is and locking the board."""
    query = query.options(*_WHAT_A_TURN_NEEDS)
    # OF the board alone: PostgreSQL locks no row of an outer join's optional side.
    return query, query.with_for_update(of=Board)


# Built once, with parameters: every mail runs these, and building a statement (and its cache
# key) costs more than running it.
_BY_NUMBER, _BY_NUMBER_FOR_UPDATE = _with_what_a_turn_needs(
    select(Board).where(Board.game_type == bindparam("game_type"), Board.board == bindparam("number"))
)
_BY_ID, _BY_ID_FOR_UPDATE = _with_what_a_turn_needs(select(Board).where(Board.id == bindparam("board_id")))


@dataclass(frozen=True)
class ReplyNames:
    """What a reply address's board and player ids stand for."""

    userid: str
    game_type: str
    board: int


def reply_names(session: Session, board_id: int, player_id: int) -> ReplyNames | None:
    row = execute_plain(session, _REPLY_NAMES, {"board_id": board_id, "player_id": player_id}).first()
    return ReplyNames(row.userid, row.game_type, row.board) if row is not None else None


_REPLY_NAMES = (
    select(Player.userid, Board.game_type, Board.board)
    .join(Seat, Seat.player_id == Player.id)
    .join(Board, Board.id == Seat.game_id)
    .where(Board.id == bindparam("board_id"), Player.id == bindparam("player_id"))
)


@dataclass(frozen=True)
class ReplyTo:
    """What the ids a board mail's reply address names stand for (`reply_to`)."""

    addresses: list[str]
    """The player's addresses, first first: a tied token is genuine when sent to one of them."""
    names: ReplyNames | None
    """The player and board, when the player has a seat there."""


def reply_to(session: Session, board_id: int, player_id: int) -> ReplyTo:
    """`reply_names` and the player's addresses (`pbm.store.players.addresses_of`) in one
    statement: every reply to a board mail asks both, the ids unchecked until the addresses
    check the token."""
    addresses: list[str] = []
    names = None
    for address, userid, game_type, number in execute_plain(
        session, _REPLY_TO, {"board_id": board_id, "player_id": player_id}
    ):
        if address is not None and address not in addresses:  # a player seated twice: each address once
            addresses.append(address)
        if game_type is not None:
            names = ReplyNames(userid, game_type, number)
    return ReplyTo(addresses, names)


_REPLY_TO = (
    select(PlayerAddress.address, Player.userid, Board.game_type, Board.board)
    .select_from(Player)
    .outerjoin(PlayerAddress, PlayerAddress.player_id == Player.id)
    .outerjoin(Seat, (Seat.player_id == Player.id) & (Seat.game_id == bindparam("board_id")))
    .outerjoin(Board, Board.id == Seat.game_id)
    .where(Player.id == bindparam("player_id"))
    .order_by(PlayerAddress.position)
)


def seat_of(board: Board, player: Player) -> int | None:
    return next((seat.seat for seat in board.seats if seat.player_id == player.id), None)


def moves_of(session: Session, board: Board) -> list[MoveRecord]:
    return list(session.scalars(select(MoveRecord).where(MoveRecord.game_id == board.id).order_by(MoveRecord.number)))


@dataclass(frozen=True)
class RecentMoves:
    """The last moves of a board's list, and what a list of them needs to know of the rest."""

    moves: list[MoveRecord]
    earlier: int
    """Moves before `moves`."""
    widest: int
    """Characters of the widest entry in the whole list (``(Auto)`` included), for its columns."""


AUTO_MARK = " (Auto)"
"""What the move list writes after a move played from the queue (`pbm.views.moves.MoveView.shown`)."""


def recent_moves(session: Session, board: Board, last: int) -> RecentMoves:
    """The last `last` moves of `board`, oldest first: what a mail about a move shows, in round
    trips and rows that do not grow with the game."""
    rows = session.execute(_NEWEST_MOVES, {"board_id": board.id, "last": last}).all()
    if not rows:
        return RecentMoves([], 0, 0)
    total, widest = rows[0][1], rows[0][2]
    return RecentMoves([row[0] for row in reversed(rows)], total - len(rows), widest or 0)


_SHOWN_WIDTH = func.length(MoveRecord.notation) + case((MoveRecord.auto, len(AUTO_MARK)), else_=0)
_NEWEST_MOVES = (
    # The whole list's size and widest move ride on each row (windows over all of the board's
    # moves, counted before the limit): one statement, where a count of its own made two.
    select(MoveRecord, func.count().over(), func.max(_SHOWN_WIDTH).over())
    .where(MoveRecord.game_id == bindparam("board_id"))
    .order_by(MoveRecord.number.desc())
    .limit(bindparam("last", type_=Integer, literal_execute=True))
)


def moves_since(session: Session, board: Board, number: int) -> list[MoveRecord]:
    """The moves of `board` after move `number`, oldest first."""
    query = select(MoveRecord).where(MoveRecord.game_id == board.id, MoveRecord.number > number)
    return list(session.scalars(query.order_by(MoveRecord.number)))


def events_of(session: Session, board: Board) -> list[BoardEvent]:
    return list(session.scalars(_EVENTS, {"board_id": board.id}))


_EVENTS = select(BoardEvent).where(BoardEvent.game_id == bindparam("board_id")).order_by(BoardEvent.id)


def record_event(session: Session, board: Board, fact: Fact, now: datetime) -> None:
    """Something that happened at the board between moves, for its move list: after the last move."""
    session.add(BoardEvent(game_id=board.id, after_move=board.move_count, fact=fact.to_json(), created_at=now))


def challenges_by(session: Session, player_id: int, *, since: datetime) -> list[datetime]:
    """When `player_id` started games since `since` (open challenges still waiting too), oldest first."""
    started = select(Board.created_at).where(Board.challenger_id == player_id, Board.created_at >= since)
    waiting = select(OpenChallenge.created_at).where(
        OpenChallenge.challenger_id == player_id, OpenChallenge.created_at >= since
    )
    return sorted([*session.scalars(started), *session.scalars(waiting)])


def start(
    session: Session,
    game_type: str,
    *,
    players: Sequence[Player],
    options: dict[str, Any],
    state: dict[str, Any],
    secret: bytes | None,
    to_move: int,
    challenger: Player,
    now: datetime,
    time_control: clocks.TimeControl,
    number: int | None = None,
    created_at: datetime | None = None,
    exhibition: bool = False,
) -> Board:
    """A new board of `game_type` with `players` seated in order, numbered next for its type (or
    `number`, taken before by `next_number` for an open challenge made at `created_at`), played
    under `time_control`; `exhibition`: see `Board.exhibition`."""
    board = Board(
        game_type=game_type,
        board=number if number is not None else next_number(session, game_type),
        options=dict(options),
        status=BoardStatus.ACTIVE,
        state=state,
        secret=secret,
        move_count=0,
        to_move=to_move,
        created_at=created_at or now,
        updated_at=now,
        challenger_id=challenger.id,
        exhibition=exhibition,
    )
    board.seats = [Seat(seat=i, player=player) for i, player in enumerate(players)]
    board.chain_head = chain.header_hash(header_of(board))
    turns.start(board, time_control, now)
    session.add(board)
    session.flush()
    watchers.watch_new_board(session, board)
    return board


def header_of(board: Board) -> chain.Header:
    """What `board` was started as, as its move chain's first link hashes it."""
    return chain.Header(
        game=board.game_type,
        board=board.board,
        options=board.options,
        players=tuple(seat.player.userid for seat in board.seats),
        started=board.created_at,
        dice_commitment=commitment(board.secret) if board.secret is not None else None,
    )


def next_number(session: Session, game_type: str) -> int:
    """The next board number of `game_type`, from 101; safe when two games start at once."""
    upsert = dialect_insert(session)
    session.execute(upsert(BoardCounter).values(game_type=game_type, next_board=FIRST_BOARD).on_conflict_do_nothing())
    counter = session.scalars(select(BoardCounter).where(BoardCounter.game_type == game_type).with_for_update()).one()
    number = counter.next_board
    counter.next_board = number + 1
    return number


def record_move(
    session: Session,
    board: Board,
    *,
    seat: int,
    notation: str,
    comment: str,
    report: dict[str, Any],
    now: datetime,
    inbound_id: int | None,
    auto: bool = False,
) -> None:
    """Add a move (or a resignation, `pbm.games.RESIGN`) to the board's record, numbered next;
    `auto` when it was played from the player's queue. The turn it ends is charged to the clock
    of the player who had it."""
    turns.end_turn(session, board, now, moved=notation not in LEAVING and notation != UNDO)
    board.move_count += 1
    board.updated_at = now
    # Linked in the move's own transaction: no move is ever without its place in the chain.
    player = board.seats[seat].player.userid
    link = chain.Link(board.game_type, board.board, board.move_count, seat, player, notation, now)
    assert board.chain_head is not None, "every board's chain starts with it (or with migration 0023)"
    board.chain_head = chain.link_hash(link, board.chain_head)
    row = {
        "game_id": board.id,
        "number": board.move_count,
        "seat": seat,
        "notation": notation,
        "comment": comment,
        "created_at": now,
        "inbound_id": inbound_id,
        "report": report,
        "auto": auto,
        "chain_hash": board.chain_head,
    }
    # Written at once, not flushed with the board: a move is never changed once written, and the
    # unit of work costs more than the row (the list's queries find it in the table all the same).
    execute_plain(session, _ADD_MOVE, row)


_ADD_MOVE = insert(MoveRecord)


def set_position(board: Board, state: dict[str, Any], to_move: int) -> None:
    """The engine state after the last move, and the seat to move in it."""
    board.state = state
    board.to_move = to_move


def everyone_moved(session: Session, board: Board) -> bool:
    """Whether every player at `board` has made a move that stands: resigning or forfeiting is no
    move, and a move taken back no longer counts."""
    if board.move_count < len(board.seats):
        return False
    standing: list[int] = []
    for seat, notation in session.execute(_SEATS_AND_MOVES, {"board_id": board.id}):
        if notation == UNDO:
            standing.pop()  # an undo takes back the move just before it, never a leaving or an undo
        elif notation not in LEAVING:
            standing.append(seat)
    return len(set(standing)) == len(board.seats)


_SEATS_AND_MOVES = (
    select(MoveRecord.seat, MoveRecord.notation)
    .where(MoveRecord.game_id == bindparam("board_id"))
    .order_by(MoveRecord.number)
)


def finish(
    session: Session,
    board: Board,
    *,
    winners: Sequence[int],
    code: str,
    reason: Fact,
    called_off: Fact,
    now: datetime,
    rate_bots: bool = False,
) -> list[RatingChange]:
    """End the game with `winners` (several: a shared result) and rate it; returns each rating's change.

    `code` is the kind of ending, `reason` the fact of it (see `Board.end_code`, `Board.end_fact`).

    Every ending comes here, and one rule holds for all: a game that ends before every player
    has made a move (`everyone_moved`) is called off instead, unrated, however it ends; then
    `called_off` says what ended it (``bob resigned``) and no rating changes. A challenge needs
    no acceptance, so a player's first move is what makes a game count for them: nobody is
    handed a rated loss for a game they never took up, and nobody gains from one.

    A game with a bot at it is rated only when the club says so (`rate_bots`,
    ``PBM_RATE_BOT_GAMES``): then against the bot's rating from the ladder (`ratings.rate`).
    """
    board.to_move = None
    turns.stop(board)
    board.finished_at = board.updated_at = now
    if not everyone_moved(session, board):
        board.status = BoardStatus.CANCELLED
        board.end_code = CANCELLED
        board.end_fact = Fact("called-off-in-the-first-round", what=called_off).to_json()
        return []
    board.status = BoardStatus.FINISHED
    board.winners = list(winners)
    board.end_code = code
    board.end_fact = reason.to_json()
    seated = [seat.player for seat in board.seats]
    if not rate_bots and any(player.is_bot for player in seated):
        return []
    return ratings.rate(session, seated, board.game_type, set(winners), now)


def last_move_id(session: Session) -> int:
    """The id of the last move recorded, in any game (0 before any): what a digest is written after."""
    return session.scalar(select(func.max(MoveRecord.id))) or 0


def plies_by(session: Session, board_ids: Sequence[int], mark: int) -> dict[int, int]:
    """How many moves each of `board_ids` had once the move `mark` (an id) was recorded: the move
    number a digest written then showed it at."""
    if not board_ids:
        return {}
    query = (
        select(MoveRecord.game_id, func.count())
        .where(MoveRecord.game_id.in_(board_ids), MoveRecord.id <= mark)
        .group_by(MoveRecord.game_id)
    )
    counted = {game_id: count for game_id, count in session.execute(query)}
    return {board_id: counted.get(board_id, 0) for board_id in board_ids}
