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
from pbm.commands.context import Context
from pbm.commands.effects import OutgoingMail, Refused
from pbm.games import Game
from pbm.store import boards, watchers
from pbm.store.models import Board, Player


def subscribe(ctx: Context, command: lang.Subscribe) -> list[OutgoingMail]:
    player = ctx.authenticate(command.userid, command.secret)
    ctx.check_confirmed(player)
    board = _watched_board(ctx, command.game, command.board, player)
    if not watchers.subscribe(ctx.session, player, command.game, board, ctx.now()):
        raise Refused(f"{player.userid} {_watches(command.game, board)} already")
    return ctx.to_player(player, "watching", player=player, game=_engine(command.game), board=board, watching=True)


def unsubscribe(ctx: Context, command: lang.Unsubscribe) -> list[OutgoingMail]:
    player = ctx.authenticate(command.userid, command.secret)
    board = ctx.board(command.game, command.board) if command.board is not None else None
    if not watchers.unsubscribe(ctx.session, player, command.game, board):
        raise Refused(f"{player.userid} does not {_watch(command.game, board)}")
    return ctx.to_player(player, "watching", player=player, game=_engine(command.game), board=board, watching=False)


def notify(ctx: Context, command: lang.Notify) -> list[OutgoingMail]:
    player = ctx.authenticate(command.userid, command.secret)
    if command.off:
        watchers.stop_notices(ctx.session, player, command.game)
        return ctx.to_player(player, "notices", player=player, game=_engine(command.game), boards=[], off=True)
    ctx.check_confirmed(player)
    named = [ctx.board(command.game, number) for number in command.boards]
    watchers.notify_at_end(ctx.session, player, command.game, named, ctx.now())
    return ctx.to_player(player, "notices", player=player, game=_engine(command.game), boards=named, off=False)


def _watched_board(ctx: Context, game_type: str, number: int | None, player: Player) -> Board | None:
    if number is None:
        return None
    board = ctx.board(game_type, number)
    if boards.seat_of(board, player) is not None:
        raise Refused(f"{player.userid} plays at {_engine(game_type).title} board {number}, and gets its mails already")
    return board


def _engine(game_type: str) -> Game[Any]:
    return pbm.games.get(game_type)


def _watch(game_type: str, board: Board | None) -> str:
    title = _engine(game_type).title
    return f"watch {title} board {board.board}" if board else f"watch every new {title} game"


def _watches(game_type: str, board: Board | None) -> str:
    return _watch(game_type, board).replace("watch", "watches", 1)
