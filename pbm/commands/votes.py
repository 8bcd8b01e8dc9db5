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

from typing import Any

import pbm.games
from pbm.commands import language as lang
from pbm.commands.context import Context
from pbm.commands.effects import OutgoingMail, Refused
from pbm.facts import Fact
from pbm.games import MoveReport
from pbm.store import boards, offers, queues, turns
from pbm.store.models import Board, OfferKind, Player
from pbm.views import OfferNews, report_data

AGREED = "agreed"
"""The end code of a game its players agreed to call a tie."""


def propose(ctx: Context, command: lang.Propose) -> list[OutgoingMail]:
    board, player = ctx.playing(command.game, command.board, command.userid, command.secret)
    engine = pbm.games.get(board.game_type)
    seat = ctx.seat_in_play(board, player)
    kind = OfferKind(command.kind)
    ctx.check_reply_is_current(board, player, seat, command, doing=f"propose {_what_is_proposed(kind)}")
    state = engine.resume(board.state, board.secret)
    _check_in_the_game(ctx, board, state, seat, player)
    waiting = offers.pending(ctx.session, board)
    if waiting is not None:
        raise Refused(
            f"A {_what(waiting.kind)} is already waiting for votes at {engine.title} board {board.board}: "
            "answer it with accept or reject first",
            view=ctx.view(board, state, viewer=seat),
        )
    if kind is OfferKind.UNDO:
        _check_a_move_can_be_taken_back(ctx, board, state, seat)
    offers.propose(ctx.session, board, kind, seat, ctx.now())
    news = OfferNews(kind, player.userid, "proposed", player.userid)
    return ctx.board_mails(engine, board, state, author=player, offer_news=news)


def vote(ctx: Context, command: lang.Vote) -> list[OutgoingMail]:
    board, player = ctx.playing(command.game, command.board, command.userid, command.secret)
    engine = pbm.games.get(board.game_type)
    seat = ctx.seat_in_play(board, player)
    answer = "accept" if command.accept else "reject"
    ctx.check_reply_is_current(board, player, seat, command, doing=f"{answer} the proposal")
    state = engine.resume(board.state, board.secret)
    _check_in_the_game(ctx, board, state, seat, player)
    offer = offers.pending(ctx.session, board)
    if offer is None:
        raise Refused(
            f"Nothing is waiting for votes at {engine.title} board {board.board}: nobody has proposed "
            "a draw or an undo",
            view=ctx.view(board, state, viewer=seat),
        )
    proposer = board.seats[offer.proposer].player.userid
    if seat in offer.accepted:
        said = "proposed it" if seat == offer.proposer else "accepted it already"
        raise Refused(f"You {said}: the {_what(offer.kind)} waits for the others' votes", view=ctx.view(board, state))
    kind = offer.kind
    if not command.accept:
        turns.resume_after_vote(board, offer, ctx.now())
        offers.close(ctx.session, board)
        news = OfferNews(kind, player.userid, "rejected", proposer)
        return ctx.board_mails(engine, board, state, author=player, offer_news=news)
    offers.accept(offer, seat)
    news = OfferNews(kind, player.userid, "accepted", proposer)
    if not set(engine.seats_in_play(state)) <= set(offer.accepted):
        return ctx.board_mails(engine, board, state, author=player, offer_news=news)
    return _carry_out(ctx, board, state, kind, player, news)


def settle_stalled(ctx: Context, board: Board) -> list[OutgoingMail]:
    """A proposal nobody answered within the game's forfeit time is accepted, as pbmserv settled a
    stalled draw offer: silence is consent, for a take-back too."""
    engine = pbm.games.get(board.game_type)
    state = engine.resume(board.state, board.secret)
    offer = offers.pending(ctx.session, board)
    assert offer is not None, "only a waiting proposal is settled"
    proposer = board.seats[offer.proposer].player
    news = OfferNews(offer.kind, proposer.userid, "settled", proposer.userid)
    return _carry_out(ctx, board, state, offer.kind, proposer, news)


def _carry_out(
    ctx: Context, board: Board, state: Any, kind: OfferKind, author: Player, news: OfferNews
) -> list[OutgoingMail]:
    """Everyone said yes (or nobody said no in time): end the game in a draw, or take the move back."""
    engine = pbm.games.get(board.game_type)
    offers.close(ctx.session, board)
    if kind is OfferKind.DRAW:
        in_play = list(engine.seats_in_play(state))
        ratings = boards.finish(
            ctx.session,
            board,
            winners=in_play,
            code=AGREED,
            reason=Fact("tied-by-agreement"),
            called_off=Fact("draw-agreed"),
            now=ctx.now(),
        )
        return ctx.board_mails(engine, board, state, author=author, ratings=ratings, offer_news=news)
    return _take_back(ctx, board, state, author, news)


def _take_back(ctx: Context, board: Board, state: Any, player: Player, news: OfferNews) -> list[OutgoingMail]:
    """Rebuild the game without its last move, and record the undo."""
    engine = pbm.games.get(board.game_type)
    moves = boards.moves_of(ctx.session, board)
    last = moves[-1]
    start = engine.new(players=len(board.seats), options=board.options, seed=board.secret)
    before = engine.replay(start, [(move.seat, move.notation) for move in moves[:-1]])
    undone = engine.undo(before, state)
    took_back = MoveReport(Fact("took-back-move", number=last.number, move=last.notation))
    boards.record_move(
        ctx.session,
        board,
        seat=last.seat,
        notation=pbm.games.UNDO,
        comment=ctx.comment,
        report=report_data(took_back),
        now=ctx.now(),
        inbound_id=ctx.inbound_id,
    )
    boards.set_position(board, engine.dump(undone), undone.to_move)
    queues.forget_all(ctx.session, board)  # they were about moves that are no longer the game's
    return ctx.board_mails(engine, board, undone, author=player, announce=True, offer_news=news)


def _check_in_the_game(ctx: Context, board: Board, state: Any, seat: int, player: Player) -> None:
    if seat not in pbm.games.get(board.game_type).seats_in_play(state):
        raise Refused(f"{player.userid} is out of this game, and has no say in it any more")


def _check_a_move_can_be_taken_back(ctx: Context, board: Board, state: Any, seat: int) -> None:
    engine = pbm.games.get(board.game_type)
    if not engine.takes_moves_back:
        raise Refused(f"{engine.title} does not allow taking a move back")
    moves = boards.moves_of(ctx.session, board)
    if not moves or moves[-1].notation in (*pbm.games.LEAVING, pbm.games.UNDO):
        raise Refused("There is no move to take back", view=ctx.view(board, state, viewer=seat))


def _what(kind: str) -> str:
    return "draw proposal" if kind == OfferKind.DRAW else "proposal to take back the last move"


def _what_is_proposed(kind: str) -> str:
    return "a draw" if kind == OfferKind.DRAW else "to take back the last move"
