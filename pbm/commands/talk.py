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

from pbm.addresses import same
from pbm.commands import language as lang
from pbm.commands.context import Context
from pbm.commands.effects import OutgoingMail, Refused
from pbm.store import boards, players, talks, watchers
from pbm.store.models import Player, TalkKind
from pbm.views.live import Snapshot

TALK_WINDOW = timedelta(hours=1)


def chat(ctx: Context, command: lang.Chat) -> list[OutgoingMail]:
    board, player = ctx.playing(command.game, command.board, command.userid, command.secret)
    ctx.seat_at(board, player)
    _check_there_is_something_to_say(ctx)
    ctx.check_confirmed(player)
    _check_within_limit(ctx, player)
    row = board.row
    talks.record(ctx.session, player, TalkKind.CHAT, ctx.now(), row)
    # The board and its moves only: a chat is no news of the game (no clock, no proposal).
    snapshot = Snapshot(board, board.state, boards.moves_of(ctx.session, row))
    at_ply = row.move_count if board.active else None
    mails = []
    for seat in row.seats:
        context = {"view": snapshot.view(seat.seat), "author": player, "comment": ctx.comment}
        mails.append(
            OutgoingMail(
                "chat", seat.player.primary_address, context, board_id=row.id, player_id=seat.player_id, at_ply=at_ply
            )
        )
    unseated = {"view": snapshot.view(), "author": player, "comment": ctx.comment}
    for watcher in watchers.watching(ctx.session, row):
        mails.append(
            OutgoingMail(
                "chat", watcher.primary_address, unseated, board_id=row.id, player_id=watcher.id, to_watcher=True
            )
        )
    return mails


def message(ctx: Context, command: lang.Message) -> list[OutgoingMail]:
    player = ctx.authenticate(command.userid, command.secret)
    recipients = [p for p in ctx.named_players(command.to) if p.active]
    if not recipients:
        raise Refused("none-named-plays")
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
        raise Refused("broadcast-admins-only", userid=player.userid)
    _check_there_is_something_to_say(ctx)
    ctx.check_confirmed(player)
    recipients = players.everyone_active(ctx.session)
    talks.record(ctx.session, player, TalkKind.MESSAGE, ctx.now())
    context = {"author": player, "comment": ctx.comment}
    others = [p for p in recipients if p != player]
    mails = [OutgoingMail("broadcast", p.primary_address, context, player_id=p.id, addressee=p.userid) for p in others]
    sent = {**context, "to": [], "everyone": len(mails), "announcement": True}
    return [*mails, _authors_copy(ctx, player, sent, reports_on="broadcast")]


def _authors_copy(ctx: Context, author: Player, context: dict[str, Any], *, reports_on: str) -> OutgoingMail:
    """The author's copy of what was sent, saying whom it reached: to the address the mail came
    from when it is the author's, else to the author's first address (the From may be anyone's)."""
    sender = ctx.sender.address or ""
    to = next((a.address for a in author.addresses if same(a.address, sender)), author.primary_address)
    return OutgoingMail("message_sent", to, context, player_id=author.id, reports_on=reports_on)


def _check_there_is_something_to_say(ctx: Context) -> None:
    if not ctx.comment.strip():
        raise Refused("nothing-to-pass-on")


def _check_within_limit(ctx: Context, player: Player) -> None:
    now = ctx.now()
    recent = talks.sent_since(ctx.session, player, now - TALK_WINDOW)
    if len(recent) >= ctx.limits.talks_per_sender_per_hour:
        after = recent[0] + TALK_WINDOW
        raise Refused("talks-per-hour", userid=player.userid, count=len(recent), after=after)
