"""Moves played for a player when their turn comes: ``queue`` (pbmserv's ``qmove``), with conditions.

A queue is one or more lines, separated by ``;``::

    cephalopod queue 101 alice PASSWORD c3
    cephalopod queue 101 alice PASSWORD if b3 then c3; if a1 then e5; else d4

``if MOVES then MOVE`` plays MOVE when the others' moves up to the player's
turn are exactly MOVES (in a game of three, two moves: ``if b3 a1 then c3``);
the line without ``if`` (``else MOVE``, or a move alone) is played when no
other line matches. The conditions are checked now, on a copy of the game;
so is the answer after them, except in games with server dice, where it can
be checked only once the dice are rolled. When the turn comes the queue is
used up: the move is played marked ``(Auto)``, or, if it turns out illegal,
dropped with an "Unexpected error" mail to its owner. Only the owner ever
sees a queue (in their own board mails). A queue sent on your own turn is a
move.
"""

from __future__ import annotations

from typing import Any

import pbm.games
from pbm.commands import language as lang
from pbm.commands import play, previews
from pbm.commands.context import Context
from pbm.commands.effects import OutgoingMail, Refused
from pbm.games import Game
from pbm.store import queues
from pbm.store.models import Board


def queue(ctx: Context, command: lang.Queue) -> list[OutgoingMail]:
    board, player = ctx.playing(command.game, command.board, command.userid, command.secret)
    seat = ctx.seat_in_play(board, player)
    engine = pbm.games.get(board.game_type)
    state = engine.resume(board.state, board.secret)
    title = f"{engine.title} board {board.board}"
    if command.clear:
        had = queues.take(ctx.session, board, player)[0] is not None
        said = (
            f"{player.userid}'s queue at {title} is cleared."
            if had
            else f"{player.userid} had nothing queued at {title}."
        )
        return [_queue_mail(ctx, board, state, seat, said)]
    if not command.lines:
        queued = queues.of(ctx.session, board, player)
        said = (
            f"{player.userid} has queued at {title}:" if queued else f"{player.userid} has nothing queued at {title}."
        )
        return [_queue_mail(ctx, board, state, seat, said)]
    if board.to_move == seat:
        if len(command.lines) > 1 or command.lines[0].when is not None:
            raise Refused(
                "It is your turn already, so there are no moves of the others to wait for: send the move "
                "you want to play",
                view=ctx.view(board, state, viewer=seat),
            )
        return play.play(ctx, board, player, command.lines[0].then)
    lines = [_checked(ctx, engine, board, state, seat, line) for line in command.lines]
    lines.sort(key=lambda line: not line["if"])  # the line for any other moves is tried last
    queues.put(ctx.session, board, player, lines, ctx.now())
    return [_queue_mail(ctx, board, state, seat, f"Queued for {player.userid} at {title}:")]


def _checked(
    ctx: Context, engine: Game[Any], board: Board, state: Any, seat: int, line: lang.QueueLine
) -> dict[str, Any]:
    """`line` as the queue keeps it: the conditions in canonical notation, and the answer in it too
    where it could be checked. Played on a copy with stand-in dice, so that checking shows no real roll."""
    if line.when is None:
        return {"if": [], "then": line.then}
    copy = engine.with_stand_in_secret(state)
    names = [s.player.userid for s in board.seats]
    moves, after = previews.play_words(engine, copy, line.when.split(), names)
    written = f"'if {line.when}'"
    if any(mover == seat for mover, _ in moves):
        raise Refused(f"In {written} your own turn comes before the last move: name only the moves up to your turn")
    if engine.result(after) is not None:
        raise Refused(f"After {written} the game would be over: nothing would be left to play")
    if after.to_move != seat:
        raise Refused(
            f"After {written} it is {names[after.to_move]}'s turn, not yours: name every move up to your turn"
        )
    then = line.then
    if engine.published_rolls(after) == engine.published_rolls(copy):
        # No die was rolled on the way, so the copy is the game as it will be: the answer can be checked.
        try:
            then, _ = engine.play_notated(after, line.then)
        except pbm.games.IllegalMove as error:
            raise Refused(f"After {written}, '{line.then}' would be illegal: {error}") from None
    return {"if": [notation for _, notation in moves], "then": then}


def _queue_mail(ctx: Context, board: Board, state: Any, seat: int, said: str) -> OutgoingMail:
    return OutgoingMail("queue", ctx.sender.address or "", {"said": said, "view": ctx.view(board, state, viewer=seat)})
