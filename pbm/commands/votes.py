"""Proposals the other players vote on: a draw, or taking back the last move.

pbmserv's way: ``move BOARD USERID PASSWORD propose`` (or ``undo``), then each
other player still in the game answers ``accept`` or ``reject`` (by the move
command, or as the first line of a reply to a board mail). One reject ends
the proposal; when everyone has accepted, a draw ends the game as a tie among
the players still in it (rated as a tie), and an undo rebuilds the game
without the last move, writing "UNDO" in the move list. Any move withdraws a
pending proposal (`play.move`). Every mail about it says who still has to vote.
"""

from __future__ import annotations

import pbm.games
from pbm.commands import language as lang
from pbm.commands import recipients
from pbm.commands.context import Context
from pbm.commands.effects import OutgoingMail, Refused
from pbm.facts import Fact
from pbm.games import MoveReport
from pbm.store import boards, offers, queues, turns
from pbm.store.models import OfferKind, Player
from pbm.views.live import LiveBoard
from pbm.views.moves import report_data
from pbm.views.offers import OfferNews

AGREED = "agreed"
"""The end code of a game its players agreed to call a tie."""


def propose(ctx: Context, command: lang.Propose) -> list[OutgoingMail]:
    board, player = ctx.playing(command.game, command.board, command.userid, command.secret)
    seat = ctx.seat_in_play(board, player)
    kind = OfferKind(command.kind)
    doing = Fact("doing-propose-draw" if kind is OfferKind.DRAW else "doing-propose-undo")
    ctx.check_reply_is_current(board, player, seat, command, doing=doing)
    _check_in_the_game(board, seat, player)
    waiting = offers.pending(ctx.session, board.row)
    if waiting is not None:
        raise Refused(
            "proposal-waiting",
            proposal=_what(waiting.kind),
            title=board.title,
            board=board.row.board,
            view=ctx.view(board, viewer=seat),
        )
    if kind is OfferKind.UNDO:
        _check_a_move_can_be_taken_back(ctx, board, seat)
    offers.propose(ctx.session, board.row, kind, seat, ctx.now())
    news = OfferNews(kind, player.userid, "proposed", player.userid)
    return recipients.board_mails(ctx, board, author=player, offer_news=news)


def vote(ctx: Context, command: lang.Vote) -> list[OutgoingMail]:
    board, player = ctx.playing(command.game, command.board, command.userid, command.secret)
    seat = ctx.seat_in_play(board, player)
    doing = Fact("doing-accept" if command.accept else "doing-reject")
    ctx.check_reply_is_current(board, player, seat, command, doing=doing)
    _check_in_the_game(board, seat, player)
    row = board.row
    offer = offers.pending(ctx.session, row)
    if offer is None:
        raise Refused("nothing-to-vote-on", title=board.title, board=row.board, view=ctx.view(board, viewer=seat))
    proposer = board.player_at(offer.proposer).userid
    if seat in offer.accepted:
        code = "proposed-it" if seat == offer.proposer else "accepted-already"
        raise Refused(code, proposal=_what(offer.kind), view=ctx.view(board))
    kind = offer.kind
    if not command.accept:
        turns.resume_after_vote(row, offer, ctx.now())
        offers.close(ctx.session, row)
        news = OfferNews(kind, player.userid, "rejected", proposer)
        return recipients.board_mails(ctx, board, author=player, offer_news=news)
    offers.accept(offer, seat)
    news = OfferNews(kind, player.userid, "accepted", proposer)
    if not set(board.seats_in_play()) <= set(offer.accepted):
        return recipients.board_mails(ctx, board, author=player, offer_news=news)
    return _carry_out(ctx, board, kind, player, news)


def settle_stalled(ctx: Context, board: LiveBoard) -> list[OutgoingMail]:
    """A proposal nobody answered within the game's forfeit time is accepted, as pbmserv settled a
    stalled draw offer: silence is consent, for a take-back too."""
    offer = offers.pending(ctx.session, board.row)
    assert offer is not None, "only a waiting proposal is settled"
    proposer = board.player_at(offer.proposer)
    news = OfferNews(offer.kind, proposer.userid, "settled", proposer.userid)
    return _carry_out(ctx, board, offer.kind, proposer, news)


def _carry_out(ctx: Context, board: LiveBoard, kind: OfferKind, author: Player, news: OfferNews) -> list[OutgoingMail]:
    """Everyone said yes (or nobody said no in time): end the game in a draw, or take the move back."""
    offers.close(ctx.session, board.row)
    if kind is OfferKind.DRAW:
        in_play = list(board.seats_in_play())
        ratings = boards.finish(
            ctx.session,
            board.row,
            winners=in_play,
            code=AGREED,
            reason=Fact("tied-by-agreement"),
            called_off=Fact("draw-agreed"),
            now=ctx.now(),
            rate_bots=ctx.club.rate_bot_games,
        )
        return recipients.board_mails(ctx, board, author=author, ratings=ratings, offer_news=news)
    return _take_back(ctx, board, author, news)


def _take_back(ctx: Context, board: LiveBoard, player: Player, news: OfferNews) -> list[OutgoingMail]:
    """Rebuild the game without its last move, and record the undo."""
    row = board.row
    moves = boards.moves_of(ctx.session, row)
    last = moves[-1]
    undone = board.engine.undo(board.replayed(moves[:-1]), board.state)
    took_back = MoveReport(Fact("took-back-move", number=last.number, move=last.notation))
    boards.record_move(
        ctx.session,
        row,
        seat=last.seat,
        notation=pbm.games.UNDO,
        comment=ctx.comment,
        report=report_data(took_back),
        now=ctx.now(),
        inbound_id=ctx.inbound_id,
    )
    board.advance(undone)
    queues.forget_all(ctx.session, row)  # they were about moves that are no longer the game's
    return recipients.board_mails(ctx, board, author=player, announce=True, offer_news=news)


def _check_in_the_game(board: LiveBoard, seat: int, player: Player) -> None:
    if seat not in board.seats_in_play():
        raise Refused("out-of-the-game", userid=player.userid)


def _check_a_move_can_be_taken_back(ctx: Context, board: LiveBoard, seat: int) -> None:
    if not board.engine.takes_moves_back:
        raise Refused("no-take-backs", title=board.title)
    moves = boards.moves_of(ctx.session, board.row)
    if not moves or moves[-1].notation in (*pbm.games.LEAVING, pbm.games.UNDO):
        raise Refused("nothing-to-take-back", view=ctx.view(board, viewer=seat))


def _what(kind: str) -> Fact:
    """What is waiting for votes: ``draw proposal``, or ``proposal to take back the last move``."""
    return Fact("draw-proposal" if kind == OfferKind.DRAW else "undo-proposal")
