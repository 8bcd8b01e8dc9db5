"""The time pass: pbmserv's nightly Cleanup, done every minute or so.

At each board whose time has come (`pbm.store.turns.due`), the player to move
(never a bot: bots move by themselves) is reminded when the game's nag time has
passed and daily after, warned a day before the forfeit, and at the forfeit
leaves the game as one who resigned:
"Forfeit" in the move list, rated as a loss (in the first round the game is
called off, unrated: `pbm.store.boards.finish`), and in a game of more than
two the others play on. A draw or an undo nobody voted on is settled the same way:
reminders for those who have not voted, then, at the forfeit time, it is
accepted. Time away (`vacation`) counts for none of it (`pbm.timekeeping.clocks`).

Each thing done is recorded with the board in the transaction that queues its
mail (`Board.reminders_sent`, `Board.warned`, the move list), so running the
pass twice, from two processes at once, or after a long downtime, sends each
reminder once and applies each forfeit once. After a downtime only the
newest reminder due is sent, never a backlog.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from datetime import datetime, timedelta

from pbm.commands import play, votes
from pbm.commands.context import Context
from pbm.commands.effects import OutgoingMail
from pbm.facts import Fact
from pbm.store import boards, inbox, offers, turns, vacations
from pbm.store.models import Board, BoardStatus, Offer, Player
from pbm.timekeeping import clocks
from pbm.views.live import LiveBoard

LOOK_AGAIN = timedelta(minutes=1)
"""When a forfeit waits for a mail the player sent in time, how soon the pass looks again."""


def look(ctx: Context, row: Board) -> list[OutgoingMail]:
    """Do what is due at the board `row` (locked) now, and set when to look next."""
    board = LiveBoard(row)
    now = ctx.now()
    turn = turns.turn_of(ctx.session, row, now, ctx.club.time_control)
    if turn is None:
        turns.stop(row)
        return []
    if board.player_at(turn_seat(row)).is_bot:
        # Never reminded, never out of time: a bot moves by itself (`pbm.mail.bot_turns`), and its
        # move withdraws any proposal still waiting. Nothing is due here until the next turn.
        turns.stop(row)
        return []
    if now >= turn.forfeit_at:
        if inbox.may_move_at(ctx.session, row.game_type, row.board, turn.forfeit_at):
            turns.look_at(row, now + LOOK_AGAIN)  # a move sent in time is still on its way through the inbox
            return []
        player = board.player_at(turn_seat(row))
        return play.leave(ctx, board, player, play.forfeiting(turn.why))
    mails = _remind(ctx, board, turn)
    offer = offers.pending(ctx.session, row)
    next_vote = None
    if offer is not None:
        vote = _vote_time(ctx, board, offer, turn.rules)
        mails += vote.mails
        if vote.settled:
            return mails
        next_vote = vote.next_at
    turns.look_at(row, _next_look(row, turn, next_vote))
    return mails


def turn_seat(board: Board) -> int:
    assert board.to_move is not None, "an active board has a seat to move"
    return board.to_move


def _remind(ctx: Context, board: LiveBoard, turn: clocks.Turn) -> list[OutgoingMail]:
    """The reminder due to the player to move, if any: the last warning, or the newest nag."""
    if turn.away_now is not None:
        return []
    row = board.row
    warning_at = turn.warning_at
    if warning_at is not None and turn.now >= warning_at:
        if row.warned:
            return []
        turns.reminded(row, turn.reminders_due, warned=True)
        return [reminder(ctx, board, turn, last=True)]
    due = turn.reminders_due
    if due <= row.reminders_sent:
        return []
    turns.reminded(row, due)
    return [reminder(ctx, board, turn, last=False)]


def reminder(ctx: Context, board: LiveBoard, turn: clocks.Turn, *, last: bool) -> OutgoingMail:
    """``Nag: Cephalopod Board 101 bob``: the board, how long the game has waited, and the forfeit date."""
    row = board.row
    seat = turn_seat(row)
    view = ctx.view(board, viewer=seat)
    context = {"view": view, "turn": turn, "last": last}
    player = board.player_at(seat)
    return OutgoingMail(
        "nag", player.primary_address, context, board_id=row.id, player_id=player.id, at_ply=row.move_count
    )


@dataclass(frozen=True)
class _VoteTime:
    mails: list[OutgoingMail]
    """Reminders to those who have not voted, or the mails of the proposal carried out."""
    settled: bool
    next_at: datetime | None = None
    """When the next reminder or the settling is due."""


def _vote_time(ctx: Context, board: LiveBoard, offer: Offer, rules: clocks.TimeControl) -> _VoteTime:
    """Remind those who have not voted on `offer`, or settle it once the forfeit time has passed;
    time counts while any of them is around."""
    now = ctx.now()
    row = board.row
    in_play = set(board.seats_in_play())
    waiting = [s for s in row.seats if s.seat not in offer.accepted and s.seat in in_play]
    away_by_player = vacations.away(ctx.session, [s.player_id for s in waiting], offer.created_at)
    away = [interval for s in waiting for interval in away_by_player.get(s.player_id, [])]
    counted = clocks.thought(offer.created_at, now, away)
    if counted >= rules.forfeit:
        return _VoteTime(votes.settle_stalled(ctx, board), settled=True)
    due = clocks.reminders_due(counted, rules.nag, before=rules.forfeit)
    mails = []
    settles_at = clocks.when_thought(offer.created_at, rules.forfeit, away)
    if due > offer.reminders_sent:
        offers.reminded(offer, due)
        view = ctx.view(board)
        for seat in waiting:
            if not any(now in interval for interval in away_by_player.get(seat.player_id, [])):
                context = {"view": view, "voter": seat.player.userid, "waited": counted, "settles_at": settles_at}
                mails.append(
                    OutgoingMail(
                        "vote_nag",
                        seat.player.primary_address,
                        context,
                        board_id=row.id,
                        player_id=seat.player_id,
                        at_ply=row.move_count,
                    )
                )
    next_at = min(
        clocks.when_thought(offer.created_at, rules.nag + offer.reminders_sent * clocks.DAY, away), settles_at
    )
    return _VoteTime(mails, settled=False, next_at=next_at)


def _next_look(board: Board, turn: clocks.Turn, next_vote: datetime | None) -> datetime:
    """The soonest of: the forfeit, the last warning, the next reminder (none of them inside the
    player's time away: nothing reaches them there), and the proposal's next step."""
    moments = [turn.forfeit_at]
    if not board.warned and turn.warning_at is not None:
        moments.append(turn.warning_at)
    next_reminder = turn.reminder_at(board.reminders_sent)
    if next_reminder is not None:
        moments.append(next_reminder)
    soonest = min(moments)
    away = turn.away_now
    if away is not None and soonest < away.end:
        soonest = min(away.end, turn.forfeit_at)
    if next_vote is not None:
        soonest = min(soonest, next_vote)
    return max(soonest, turn.now + timedelta(seconds=1))


# -- vacations ------------------------------------------------------------------


def tell_of_vacations(ctx: Context) -> list[OutgoingMail]:
    """Tell the other players of each game of a player whose time away began or ended since the
    last pass, and write it in the game's move list: the change from what they last heard, not
    each step, so a vacation booked and called off between two passes tells nobody, and one
    called off and booked again tells its new end once."""
    now = ctx.now()
    mails: list[OutgoingMail] = []
    for player_id, group in itertools.groupby(vacations.untold(ctx.session, now), key=lambda v: v.player_id):
        news = list(group)
        player = news[0].player
        heard = vacations.heard_away(ctx.session, player_id)
        for vacation in news:
            vacations.told(ctx.session, vacation, now)
        away = vacations.away_at(ctx.session, player_id, now)
        if away is not None and away is not heard:
            mails += _tell(ctx, player, Fact("event-away", userid=player.userid, until=away.ends_at), away=True)
        elif away is None and heard is not None:
            mails += _tell(ctx, player, Fact("event-back", userid=player.userid), away=False)
    return mails


def _tell(ctx: Context, player: Player, news: Fact, *, away: bool) -> list[OutgoingMail]:
    """`news` in the move list of each active game of `player`, and mailed to the others.
    The fact is the move list's record; the mails' subjects come from their template."""
    mails = []
    for board in vacations.shared_boards(ctx.session, player):
        if board.status != BoardStatus.ACTIVE:
            continue
        boards.record_event(ctx.session, board, news, ctx.now())
        turns.look_at(board, ctx.now())  # deadlines moved: the pass works them out again
        view = ctx.view(LiveBoard(board))
        for seat in board.seats:
            if seat.player_id != player.id:
                context = {"view": view, "news": news, "player": player.userid, "away": away}
                to = seat.player.primary_address
                mails.append(OutgoingMail("vacation_news", to, context, board_id=board.id, player_id=seat.player_id))
    return mails
