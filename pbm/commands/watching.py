"""Watching games without playing them: subscriptions to boards, and a mail when games end.

A subscriber gets every board mail of the board, as a player who holds no seat
sees it: without a reply address and without anything private. ``subscribe
USERID PASSWORD all`` watches every game of the type that starts from then
on; ``notify`` asks only for a mail when games end.
"""

from __future__ import annotations

from typing import Any

import pbm.games
from pbm.commands import language as lang
from pbm.commands import recipients
from pbm.commands.context import Context
from pbm.commands.effects import OutgoingMail, Refused
from pbm.games import Game
from pbm.store import watchers
from pbm.store.models import Board, Player


def subscribe(ctx: Context, command: lang.Subscribe) -> list[OutgoingMail]:
    player = ctx.authenticate(command.userid, command.secret)
    ctx.check_confirmed(player)
    board = _watched_board(ctx, command.game, command.board, player)
    if not watchers.subscribe(ctx.session, player, command.game, board, ctx.now()):
        raise _refusal("watches-board-already", "watches-game-already", player, command.game, board)
    return recipients.to_player(
        ctx, player, "watching", player=player, game=_engine(command.game), board=board, watching=True
    )


def unsubscribe(ctx: Context, command: lang.Unsubscribe) -> list[OutgoingMail]:
    player = ctx.authenticate(command.userid, command.secret)
    board = ctx.board(command.game, command.board).row if command.board is not None else None
    if not watchers.unsubscribe(ctx.session, player, command.game, board):
        raise _refusal("not-watching-board", "not-watching-game", player, command.game, board)
    return recipients.to_player(
        ctx, player, "watching", player=player, game=_engine(command.game), board=board, watching=False
    )


def notify(ctx: Context, command: lang.Notify) -> list[OutgoingMail]:
    player = ctx.authenticate(command.userid, command.secret)
    if command.off:
        watchers.stop_notices(ctx.session, player, command.game)
        engine = _engine(command.game)
        return recipients.to_player(ctx, player, "notices", player=player, game=engine, boards=[], off=True)
    ctx.check_confirmed(player)
    named = [ctx.board(command.game, number).row for number in command.boards]
    watchers.notify_at_end(ctx.session, player, command.game, named, ctx.now())
    return recipients.to_player(
        ctx, player, "notices", player=player, game=_engine(command.game), boards=named, off=False
    )


def _watched_board(ctx: Context, game_type: str, number: int | None, player: Player) -> Board | None:
    if number is None:
        return None
    board = ctx.board(game_type, number)
    seat = board.seat_of(player)
    if seat is not None and (not board.active or seat in board.seats_in_play()):
        # Out of play (resigned, or out by the rules), a player of a game going on may watch the rest.
        raise Refused("plays-there", userid=player.userid, title=board.title, board=number)
    return board.row


def _engine(game_type: str) -> Game[Any]:
    return pbm.games.get(game_type)


def _refusal(at_board: str, at_every_game: str, player: Player, game_type: str, board: Board | None) -> Refused:
    """A refusal about watching `board`, or every new game of `game_type` when it is None."""
    title = _engine(game_type).title
    if board is None:
        return Refused(at_every_game, userid=player.userid, title=title)
    return Refused(at_board, userid=player.userid, title=title, board=board.board)
