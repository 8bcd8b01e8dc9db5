"""Digests: one mail at each of a player's chosen times, instead of a mail for each move.

A player who takes digests (``digest alice PASSWORD 07:30,19:00``) is not mailed each
board news that makes it their turn, nor reminded of it: the mail is held back
(`pbm.mail.outgoing`), and at each of their times, on their own wall clock
(`pbm.timekeeping.local_time`: a daylight-saving change never sends one twice nor skips one), the time
pass sends one mail listing every game waiting for their move, the most urgent first, each
with what happened, the board, the time left and a reply address of its own. The held mails
it tells of are marked gathered (and those about games that no longer wait, overtaken; with no
game waiting, no digest goes and they say so). A game the player would forfeit within a day
is mailed at once, digest or not. A player who signs off takes no more digests: what waited for
one is never sent (`pbm.commands.accounts`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from pbm.commands.context import Context
from pbm.commands.effects import OutgoingMail, ReplyAs
from pbm.store import board_lists, outbox, preferences, turns
from pbm.store import boards as store_boards
from pbm.store.models import Board, Player
from pbm.timekeeping import clocks
from pbm.views.board import BoardView

DIGESTS_PER_PASS = 200
"""Players whose digest one time pass sends; the rest go in the next pass, moments later."""


@dataclass(frozen=True)
class DigestGame:
    """One game of a digest: the board as the player sees it, and how a reply plays its next move."""

    view: BoardView
    reply_as: ReplyAs
    forfeit_at: datetime
    left: timedelta | None = None
    """The time left to move before the forfeit, when the game has one."""


def due(ctx: Context) -> list[OutgoingMail]:
    """The digests due by now, each sent once: a player's next one is due at their next time."""
    now = ctx.now()
    mails = []
    for player in preferences.digests_due(ctx.session, now, limit=DIGESTS_PER_PASS):
        mail = digest_of(ctx, player)
        outbox.gather_into_digest(ctx.session, player.id, now, told=mail is not None)
        preferences.set_digest(player, preferences.digest_times(player), preferences.next_digest(player, now))
        if mail is not None:
            mails.append(mail)
    return mails


def digest_of(ctx: Context, player: Player) -> OutgoingMail | None:
    """`player`'s digest now: every game waiting for their move, the most urgent first; None when
    no game waits (nothing is sent)."""
    games = waiting_games(ctx, player)
    if not games:
        return None
    # The last move recorded: a reply to the digest is judged against the boards as it showed them.
    context = {"player": player.userid, "games": games, "digest_mark": store_boards.last_move_id(ctx.session)}
    return OutgoingMail("digest", player.primary_address, context, player_id=player.id, digest_reply=True)


def by_time_left(ctx: Context, boards: list[Board]) -> list[Board]:
    """`boards` (waiting for a move), the one whose player to move forfeits soonest first; those
    without a forfeit last, by game and number."""

    def forfeit_at(board: Board) -> datetime:
        turn = turns.turn_of(ctx.session, board, ctx.now(), ctx.club.time_control)
        return turn.forfeit_at if turn is not None else clocks.FOREVER

    return sorted(boards, key=lambda board: (forfeit_at(board), board.game_type, board.board))


def waiting_games(ctx: Context, player: Player) -> list[DigestGame]:
    """The games waiting for `player`'s move, the one they would forfeit soonest first."""
    games = []
    for row in board_lists.waiting_for(ctx.session, player.id):
        board = ctx.board(row.game_type, row.board)
        seat = board.seat_of(player)
        if seat is None:
            continue
        view = ctx.view(board, viewer=seat)
        forfeit_at = view.time.forfeit_at if view.time is not None and view.time.forfeit_at else clocks.FOREVER
        left = max(forfeit_at - ctx.now(), timedelta(0)) if forfeit_at != clocks.FOREVER else None
        games.append(DigestGame(view, ReplyAs(row.id, player.id, row.move_count), forfeit_at, left))
    return sorted(games, key=lambda game: (game.forfeit_at, game.view.game_type, game.view.board))
