"""Who is mailed what: the board's news to its players and watchers, an answer to the sender, a
notice to a player at every address.

A handler decides what happened; this module decides who hears of it and from which seat
they see the board. Every board mail is a view of one snapshot (`pbm.views.live.Snapshot`), read
once per command: each seated player sees the board from their seat with their own queue,
the watchers see it from no seat and without a reply address, and those who asked to hear
of games' ends hear of this one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pbm.addresses import same
from pbm.commands.context import Context
from pbm.commands.effects import OutgoingMail
from pbm.elo import RatingChange
from pbm.store import queues, watchers
from pbm.store.models import Player, QueuedMove, Seat
from pbm.views.board import BoardView, queue_text
from pbm.views.live import LiveBoard, Snapshot
from pbm.views.offers import OfferNews

ANNOUNCED_ROWS = 4
"""Rows of the move list a mail about a move shows (the rest is a `show` away)."""


@dataclass(frozen=True)
class Opening:
    """How a new game came about when not by its author's challenge: ``paired`` (two seeks met:
    `userids` the one who waited longer, then the other), ``joined`` (the last free seat of an
    open challenge was taken: the joiner, then the challenger) or ``bot`` (a bot took a seek
    nobody else answered: the seeker, then the bot)."""

    how: str
    userids: tuple[str, str]


@dataclass(frozen=True)
class News:
    """What a board mail says before the board: who caused it, and what happened.

    `announce`: the mail was caused by the last move, and says first what it did.
    `offer_news`: what just happened to a draw or undo proposal. `opening`: how a new game came
    about, when not by `author`'s challenge. `comment`: what the author wrote with it.
    """

    author: Player
    comment: str
    new: bool = False
    announce: bool = False
    opening: Opening | None = None
    offer_news: OfferNews | None = None

    def context(self) -> dict[str, Any]:
        return {
            "comment": self.comment,
            "author": self.author,
            "new": self.new,
            "opening": self.opening,
            "announce": self.announce,
            "announced_rows": ANNOUNCED_ROWS,
            "offer_news": self.offer_news,
        }


def board_mails(
    ctx: Context,
    board: LiveBoard,
    *,
    author: Player,
    new: bool = False,
    announce: bool = False,
    ratings: Sequence[RatingChange] = (),
    offer_news: OfferNews | None = None,
    comment: str | None = None,
    private_notes: Mapping[int, dict[str, Any]] | None = None,
    opening: Opening | None = None,
    queued: Mapping[int, QueuedMove] | None = None,
) -> list[OutgoingMail]:
    """`board` as it stands, mailed to every seated player and to its watchers (`to_everyone`).

    `ratings`: what the game's end did to the players' ratings. `comment`: what the author wrote
    with it (the mail's comment unless given). `private_notes`: what one player's mail alone says,
    by player id (context for its template). `queued`: the queues at the board by player id, when
    the caller has them.
    """
    # A mail about a move shows the last rows of the move list: a move costs the same at move 3 and 300.
    last = ANNOUNCED_ROWS * len(board.row.seats) + 1 if announce and board.active else None
    news = News(
        author,
        ctx.comment if comment is None else comment,
        new=new,
        announce=announce,
        opening=opening,
        offer_news=offer_news,
    )
    queued = queues.at(ctx.session, board.row) if queued is None else queued
    return to_everyone(
        ctx, ctx.snapshot(board, last_moves=last), news, ratings=ratings, private=private_notes or {}, queued=queued
    )


def to_everyone(
    ctx: Context,
    snapshot: Snapshot,
    news: News,
    *,
    ratings: Sequence[RatingChange] = (),
    private: Mapping[int, dict[str, Any]],
    queued: Mapping[int, QueuedMove],
) -> list[OutgoingMail]:
    """The news of `snapshot`'s board: to each seated player from their seat (with their queue,
    and a reply address while the game goes on); to each watcher from no seat, with no reply
    address; to those who asked to hear of games' ends, when this one has ended."""
    row = snapshot.board.row
    active = snapshot.board.active
    told = news.context()
    mails = []
    for seat in _seats_told(ctx, snapshot.board, news):
        own = queue_text(queued[seat.player_id].lines) if seat.player_id in queued else ()
        context = {"view": snapshot.view(seat.seat, queued=own), "ratings": list(ratings), **told}
        if news.author.is_bot and not seat.player.is_bot:
            context["gathered"] = True  # the bots' moves since theirs mailed nobody: all are news
        mails.append(
            OutgoingMail(
                "board",
                seat.player.primary_address,
                context | private.get(seat.player_id, {}),
                board_id=row.id,
                player_id=seat.player_id,
                at_ply=row.move_count if active else None,
                starts_thread=news.new,
            )
        )
    watching = watchers.watching(ctx.session, row)
    ended = [] if active else watchers.to_tell_of_the_end(ctx.session, row)
    if not watching and not ended:
        return mails  # most boards have no one watching: their view is not even made
    unseated = snapshot.view()
    mails += [
        OutgoingMail(
            "board",
            watcher.primary_address,
            {"view": unseated, **told},
            board_id=row.id,
            player_id=watcher.id,
            starts_thread=news.new,
            to_watcher=True,
        )
        for watcher in watching
    ]
    mails += [
        OutgoingMail("game_over", p.primary_address, {"view": unseated}, player_id=p.id, to_watcher=True) for p in ended
    ]
    return mails


def _seats_told(ctx: Context, board: LiveBoard, news: News) -> list[Seat]:
    """The seats that hear of this news of `board` now: every seat, but in a game with bots, where
    a person is told what another person would tell them, no more.

    A bot's move that gives the turn to another bot is news nobody needs yet: the people hear of
    it with the move that gives a person the turn, whose mail lists every move since theirs
    (``gathered``). A person out of play (resigned, out by the rules) hears of the game's end
    alone, unless they watch the game. A game's end is everyone's news; a game of people alone
    mails every seat as it always did.
    """
    seats = board.row.seats
    if not board.active or not any(seat.player.is_bot for seat in seats):
        return list(seats)
    to_move = board.row.to_move
    if news.announce and news.author.is_bot and to_move is not None and seats[to_move].player.is_bot:
        return [seat for seat in seats if seat.player.is_bot]
    in_play = set(board.seats_in_play())
    out = [seat for seat in seats if seat.seat not in in_play and not seat.player.is_bot]
    watching = watchers.watchers_among(ctx.session, board.row, [seat.player_id for seat in out])
    return [seat for seat in seats if seat.seat in in_play or seat.player.is_bot or seat.player_id in watching]


def board_for_sender(ctx: Context, board: LiveBoard, view: BoardView) -> OutgoingMail:
    """A board for the sender, who may be one of its players (then the mail invites a reply)."""
    row = board.row
    if view.viewer is None:
        return OutgoingMail("board", ctx.sender.address or "", {"view": view}, board_id=row.id)
    at_ply = view.at_move if view.at_move is not None else row.move_count
    return OutgoingMail(
        "board",
        ctx.sender.address or "",
        {"view": view},
        board_id=row.id,
        player_id=row.seats[view.viewer].player_id,
        at_ply=at_ply if board.active else None,
    )


def to_sender(ctx: Context, template: str, **context: Any) -> OutgoingMail:
    """The answer to whoever sent the mail, at the address it came from."""
    return OutgoingMail(template, ctx.sender.address or "", context)


def to_player(ctx: Context, account: Player, template: str, **context: Any) -> list[OutgoingMail]:
    """To every address of `account`, and to the sender if that is another address. The
    sender's copy answers their mail: it reaches them whether or not the address is confirmed."""
    sender = ctx.sender.address
    mails = [
        OutgoingMail(template, a.address, context, player_id=None if sender and same(a.address, sender) else account.id)
        for a in account.addresses
    ]
    if sender and not any(same(sender, a.address) for a in account.addresses):
        mails.append(OutgoingMail(template, sender, context))
    return mails
