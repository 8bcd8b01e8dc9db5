"""The verbs that only read: showing boards, listing games and deadlines, history and standings."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import pbm.games
from pbm.commands import digests, recipients
from pbm.commands import language as lang
from pbm.commands.context import Context
from pbm.commands.effects import Attachment, OutgoingMail, Refused
from pbm.store import board_lists, boards, players, policies, ratings, seeks, turns
from pbm.store.models import Board, BoardStatus
from pbm.timekeeping import clocks
from pbm.views import live
from pbm.views import record as document
from pbm.views.ratings import rating_view
from pbm.views.standing import GameSummary, game_summary


def show(ctx: Context, command: lang.Show) -> list[OutgoingMail]:
    engine = pbm.games.get(command.game)
    if command.as_userid is not None:
        ctx.named_players([command.as_userid])
    mails = []
    for number, at_move in command.boards:
        board = ctx.board(command.game, number)
        viewer = ctx.viewer(board)
        if at_move is None:
            view = ctx.view(board, viewer=viewer)
        else:
            moves = boards.moves_of(ctx.session, board.row)
            if at_move > len(moves):
                raise Refused("fewer-moves", title=engine.title, board=number, count=len(moves), at_move=at_move)
            view = live.earlier(ctx.session, board, at_move, moves).view(viewer)
        mails.append(recipients.board_for_sender(ctx, board, view))
    return mails


def record(ctx: Context, command: lang.Record) -> list[OutgoingMail]:
    """The game's record, attached to a mail to the sender: whole once the game is over, up to
    its last move while it goes on. The mail layer signs it (`Attachment.signed_record`)."""
    board = ctx.board(command.game, command.board)
    moves = boards.moves_of(ctx.session, board.row)
    built = document.build(board.engine, board.row, board.state, moves, site="", generated=ctx.now())
    filename = f"{board.engine.name}-{board.row.board}.json"
    context = {"title": board.title, "board": board.row.board, "plies": len(moves), "filename": filename}
    attachment = Attachment(filename, built, signed_record=True)
    return [OutgoingMail("record", ctx.sender.address or "", context, attachment=attachment)]


def games(ctx: Context, command: lang.Games) -> list[OutgoingMail]:
    named = ctx.named_players(command.userids)
    found: list[Board]
    if command.which == "next":
        waiting = named or list(ctx.sender.players)
        if not waiting:
            raise Refused("games-next-nobody")
        found = [b for player in waiting for b in board_lists.waiting_for(ctx.session, player.id, command.game)]
        found = digests.by_time_left(ctx, found)
    else:
        statuses = (BoardStatus.ACTIVE,) if command.which == "active" else board_lists.STATUSES
        found = board_lists.of_players(ctx.session, command.game, player_ids=[p.id for p in named], statuses=statuses)
    return [_list_mail(ctx, "games", command.game, found, which=command.which, players=named)]


def history(ctx: Context, command: lang.History) -> list[OutgoingMail]:
    named = ctx.named_players(command.userids)
    found = board_lists.ended(ctx.session, command.game, player_ids=[p.id for p in named])
    return [_list_mail(ctx, "history", command.game, found, players=named)]


def standings(ctx: Context, command: lang.Standings) -> list[OutgoingMail]:
    """pbmserv's standings: the established players, the provisional ones, and apart those inactive."""
    engine = pbm.games.get(command.game)
    rated, _ = ratings.standings(ctx.session, command.game)
    playing = policies.active_counts(ctx.session, command.game)
    limits = policies.limits(ctx.session, command.game)
    seeking = seeks.wanted_by_player(ctx.session, command.game)
    rows = [
        rating_view(
            engine,
            rating,
            active_games=playing.get(rating.player_id, 0),
            limit=limits.get(rating.player_id),
            seeking=seeking.get(rating.player_id, 0),
        )
        for rating in rated
    ]
    listed = {rating.player_id for rating in rated}
    unrated = sorted(
        (f"{p.userid} ({seeking[p.id]})" for p in players.by_ids(ctx.session, list(seeking)) if p.id not in listed),
    )
    now = ctx.now()
    sections = {
        "Established": [r for r in rows if not r.provisional and not r.inactive(now)],
        "Provisional": [r for r in rows if r.provisional and not r.inactive(now)],
        "Inactive": [r for r in rows if r.inactive(now)],
    }
    return [
        recipients.to_sender(
            ctx, "standings", engine=engine, sections=sections, rated=len(rows), unrated_seekers=unrated
        )
    ]


def _list_mail(ctx: Context, template: str, game_type: str, found: list[Board], **context: Any) -> OutgoingMail:
    engine = pbm.games.get(game_type)
    return recipients.to_sender(
        ctx, template, engine=engine, games=[game_summary(engine, board) for board in found], **context
    )


@dataclass(frozen=True)
class Deadline:
    """One game waiting for a player's move, and when their time there runs out."""

    game: GameSummary
    forfeit_at: datetime | None
    """When the player forfeits unless they move first; None when the game sets no deadline."""
    left: timedelta | None
    """The time left until then."""


def deadlines(ctx: Context, command: lang.Deadlines) -> list[OutgoingMail]:
    """``deadlines USERID``: the player's games of every kind waiting for their move, the one they
    would forfeit soonest first, each with its time left; the mail says when, on the reader's clock."""
    (player,) = ctx.named_players([command.userid])
    waiting = board_lists.waiting_for(ctx.session, player.id)
    now = ctx.now()
    standing = turns.turns_of(ctx.session, waiting, now, ctx.club.time_control)
    found = []
    for board in waiting:
        turn = standing.get(board.id)
        at = turn.forfeit_at if turn is not None and turn.forfeit_at != clocks.FOREVER else None
        left = max(at - now, timedelta(0)) if at is not None else None
        found.append(Deadline(game_summary(pbm.games.get(board.game_type), board), at, left))
    found.sort(key=lambda due: (due.forfeit_at or clocks.FOREVER, due.game.game_type, due.game.board))
    return [recipients.to_sender(ctx, "deadlines", player=player, games=found)]
