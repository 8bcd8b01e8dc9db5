"""Talking without moving: a chat to the players (and watchers) of a board, a message to players by name.

What is said is the mail's comment: the text below the command. Nobody's
address is shown to anyone; the server passes the words on. Only a player the
server may write to (with a confirmed address) talks, and only so much in an
hour (`Limits.talks_per_sender_per_hour`): a limit on players that cost
nothing to make would bind nobody. The words reach each player only at an
address that player confirmed (`pbm.mail.outgoing`), and the author's own copy
goes to the author, never to a From that may be forged.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pbm.games
from pbm.addresses import same
from pbm.commands import language as lang
from pbm.commands.context import Context, try_again_after
from pbm.commands.effects import OutgoingMail, Refused
from pbm.store import boards, players, talks, watchers
from pbm.store.models import BoardStatus, Player, TalkKind
from pbm.views import board_view

TALK_WINDOW = timedelta(hours=1)


def chat(ctx: Context, command: lang.Chat) -> list[OutgoingMail]:
    board, player = ctx.playing(command.game, command.board, command.userid, command.secret)
    engine = pbm.games.get(board.game_type)
    if boards.seat_of(board, player) is None:
        raise Refused(f"{player.userid} does not play in {engine.title} board {board.board}")
    _check_there_is_something_to_say(ctx)
    ctx.check_confirmed(player)
    _check_within_limit(ctx, player)
    talks.record(ctx.session, player, TalkKind.CHAT, ctx.now(), board)
    state = engine.resume(board.state, board.secret)
    moves = boards.moves_of(ctx.session, board)
    active = board.status == BoardStatus.ACTIVE
    mails = []
    for seat in board.seats:
        view = board_view(engine, board, state, moves, viewer=seat.seat)
        context = {"view": view, "author": player, "comment": ctx.comment}
        at_ply = board.move_count if active else None
        mails.append(
            OutgoingMail(
                "chat", seat.player.primary_address, context, board_id=board.id, player_id=seat.player_id, at_ply=at_ply
            )
        )
    unseated = {"view": board_view(engine, board, state, moves), "author": player, "comment": ctx.comment}
    for watcher in watchers.watching(ctx.session, board):
        mails.append(
            OutgoingMail(
                "chat", watcher.primary_address, unseated, board_id=board.id, player_id=watcher.id, to_watcher=True
            )
        )
    return mails


def message(ctx: Context, command: lang.Message) -> list[OutgoingMail]:
    player = ctx.authenticate(command.userid, command.secret)
    recipients = [p for p in ctx.named_players(command.to) if p.active]
    if not recipients:
        raise Refused("None of the players named still plays here")
    _check_there_is_something_to_say(ctx)
    ctx.check_confirmed(player)
    _check_within_limit(ctx, player)
    talks.record(ctx.session, player, TalkKind.MESSAGE, ctx.now())
    context = {"author": player, "comment": ctx.comment, "to": [p.userid for p in recipients]}
    mails = [
        OutgoingMail("message", p.primary_address, context, player_id=p.id, addressee=p.userid)
        for p in recipients
        if p != player
    ]
    return [*mails, _authors_copy(ctx, player, context, reports_on="message")]


def broadcast(ctx: Context, command: lang.Broadcast) -> list[OutgoingMail]:
    """An administrator's words to every player still signed up (`Club.admins` lists who may)."""
    player = ctx.authenticate(command.userid, command.secret)
    if player.userid not in ctx.club.admins:
        raise Refused(f"broadcast is for the server's administrators, and {player.userid} is not one")
    _check_there_is_something_to_say(ctx)
    ctx.check_confirmed(player)
    recipients = players.everyone_active(ctx.session)
    talks.record(ctx.session, player, TalkKind.MESSAGE, ctx.now())
    context = {"author": player, "comment": ctx.comment}
    others = [p for p in recipients if p != player]
    mails = [OutgoingMail("broadcast", p.primary_address, context, player_id=p.id, addressee=p.userid) for p in others]
    sent = {**context, "to": [f"all {len(mails)} other players"], "announcement": True}
    return [*mails, _authors_copy(ctx, player, sent, reports_on="broadcast")]


def _authors_copy(ctx: Context, author: Player, context: dict[str, Any], *, reports_on: str) -> OutgoingMail:
    """The author's copy of what was sent, saying whom it reached: to the address the mail came
    from when it is the author's, else to the author's first address (the From may be anyone's)."""
    sender = ctx.sender.address or ""
    to = next((a.address for a in author.addresses if same(a.address, sender)), author.primary_address)
    return OutgoingMail("message_sent", to, context, player_id=author.id, reports_on=reports_on)


def _check_there_is_something_to_say(ctx: Context) -> None:
    if not ctx.comment.strip():
        raise Refused("There is nothing to pass on: write your words below the command, after a blank line")


def _check_within_limit(ctx: Context, player: Player) -> None:
    now = ctx.now()
    recent = talks.sent_since(ctx.session, player, now - TALK_WINDOW)
    if len(recent) >= ctx.limits.talks_per_sender_per_hour:
        raise Refused(
            f"{player.userid} has sent {len(recent)} chats and messages in the last hour, as many as one player "
            f"may; try again after {try_again_after(recent[0], TALK_WINDOW)}"
        )
