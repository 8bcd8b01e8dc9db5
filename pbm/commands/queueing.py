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
from pbm.store import queues
from pbm.views.live import LiveBoard


def queue(ctx: Context, command: lang.Queue) -> list[OutgoingMail]:
    board, player = ctx.playing(command.game, command.board, command.userid, command.secret)
    seat = ctx.seat_in_play(board, player)
    if command.clear:
        had = queues.take(ctx.session, board.row, player)[0] is not None
        return [_queue_mail(ctx, board, seat, "cleared" if had else "nothing-to-clear")]
    if not command.lines:
        queued = queues.of(ctx.session, board.row, player)
        return [_queue_mail(ctx, board, seat, "shown" if queued else "nothing-queued")]
    if board.row.to_move == seat:
        if len(command.lines) > 1 or command.lines[0].when is not None:
            raise Refused("queue-on-own-turn", view=ctx.view(board, viewer=seat))
        return play.play(ctx, board, player, command.lines[0].then)
    lines = [_checked(board, seat, line) for line in command.lines]
    lines.sort(key=lambda line: not line["if"])  # the line for any other moves is tried last
    queues.put(ctx.session, board.row, player, lines, ctx.now())
    return [_queue_mail(ctx, board, seat, "queued")]


def _checked(board: LiveBoard, seat: int, line: lang.QueueLine) -> dict[str, Any]:
    """`line` as the queue keeps it: the conditions in canonical notation, and the answer in it too
    where it could be checked. Played on a copy with stand-in dice, so that checking shows no real roll."""
    if line.when is None:
        return {"if": [], "then": line.then}
    engine = board.engine
    copy = engine.with_stand_in_secret(board.state)
    names = [s.player.userid for s in board.row.seats]
    moves, after = previews.play_words(engine, copy, line.when.split(), names)
    if any(mover == seat for mover, _ in moves):
        raise Refused("queue-own-turn-inside", when=line.when)
    if engine.result(after) is not None:
        raise Refused("queue-over-after", when=line.when)
    if after.to_move != seat:
        raise Refused("queue-others-turn-after", when=line.when, userid=names[after.to_move])
    then = line.then
    if engine.published_rolls(after) == engine.published_rolls(copy):
        # No die was rolled on the way, so the copy is the game as it will be: the answer can be checked.
        try:
            then, _ = engine.play_notated(after, line.then)
        except pbm.games.IllegalMove as error:
            raise Refused("queue-answer-illegal", when=line.when, move=line.then, reason=error.fact) from None
    return {"if": [notation for _, notation in moves], "then": then}


def _queue_mail(ctx: Context, board: LiveBoard, seat: int, said: str) -> OutgoingMail:
    """The queue as it now stands, mailed to its owner; `said` is what became of it (``queued``,
    ``cleared``, ``nothing-to-clear``, ``shown``, ``nothing-queued``: `templates/mail/queue.txt`)."""
    return OutgoingMail("queue", ctx.sender.address or "", {"said": said, "view": ctx.view(board, viewer=seat)})
