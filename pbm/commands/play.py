"""The verbs of play: starting a game, moving, resigning.

Each checks what the player may do, asks the engine what the move does,
and has the store record it; then every seated player is mailed the board.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import pbm.games
from pbm import clocks
from pbm.commands import language as lang
from pbm.commands import policy
from pbm.commands.context import Context, try_again_after
from pbm.commands.effects import OutgoingMail, Refused, ReplyAs
from pbm.elo import RatingChange
from pbm.facts import Fact
from pbm.games import Game, MoveReport
from pbm.store import boards, offers, open_challenges, players, queues
from pbm.store.models import Board, Player, QueuedMove
from pbm.views import OfferNews, open_challenge_view, report_data
from pbm.words import Words

CHALLENGE_WINDOW = timedelta(hours=1)


def challenge(ctx: Context, command: lang.Challenge) -> list[OutgoingMail]:
    """Start a game; or, when a seat is named `lang.OPEN_SEAT`, open one for anyone to ``join``."""
    engine = pbm.games.get(command.game)
    userids = command.userids
    named_ids = [u for u in userids if u != lang.OPEN_SEAT]
    if len(set(named_ids)) != len(named_ids):
        raise Refused("Each player can take only one seat: a userid is named twice")
    try:
        engine.check_players(len(userids))
    except pbm.games.InvalidOptions as error:
        raise Refused(str(error)) from None
    named = players.named(ctx.session, named_ids)
    missing = [u for u in named_ids if u not in named or not named[u].active]
    if missing:
        raise Refused(f"No player is signed up as {', '.join(missing)}")
    challenger = next((p for p in named.values() if p in ctx.sender.players), None)
    if challenger is None:
        raise Refused(
            "You can only start a game you play in: the challenge must come from the registered "
            f"address of one of {', '.join(named_ids)}"
        )
    ctx.check_confirmed(challenger)
    unconfirmed = ctx.unconfirmed([p for p in named.values() if p != challenger])
    if unconfirmed:
        raise Refused(
            f"No game can start with {', '.join(p.userid for p in unconfirmed)} yet: the server may not write "
            "to a player before they confirm an address (by replying to the mail the server sent them)",
            headline="Invalid challenge",
        )
    refused = policy.refusals(ctx, engine.name, challenger, list(named.values()))
    if refused:
        raise Refused("; ".join(refused), headline="Invalid challenge")
    now = ctx.now()
    recent = boards.challenges_by(ctx.session, challenger.id, since=now - CHALLENGE_WINDOW)
    if len(recent) >= ctx.limits.challenges_per_sender_per_hour:
        raise Refused(
            f"{challenger.userid} has started {len(recent)} games in the last hour, as many as one player "
            f"may; try again after {try_again_after(recent[0], CHALLENGE_WINDOW)}"
        )
    rules = time_control(ctx, command.time_words)
    if command.is_open:
        return _open(ctx, engine, command, [named.get(u) for u in userids], challenger, rules)
    _, mails = start_game(ctx, engine, [named[u] for u in userids], command.options, author=challenger, rules=rules)
    return mails


def time_control(ctx: Context, words: Sequence[str]) -> clocks.TimeControl:
    """The time rules a challenge's `words` set, over the club's."""
    try:
        return clocks.parse(words, ctx.club.time_control)
    except clocks.InvalidTimeRule as error:
        raise Refused(str(error)) from None


def start_game(
    ctx: Context,
    engine: Game[Any],
    seated: Sequence[Player],
    options: dict[str, Any],
    *,
    author: Player,
    rules: clocks.TimeControl | None = None,
    opening: str | None = None,
    number: int | None = None,
    created_at: datetime | None = None,
) -> tuple[Board, list[OutgoingMail]]:
    """A new game of `seated`, in order of play, under time `rules` (the club's when None), and its
    first board mailed to each; `opening` is the line the mails start with when `author` did not
    simply challenge the others."""
    state = engine.new(players=len(seated), options=options)
    board = boards.start(
        ctx.session,
        engine.name,
        players=seated,
        options=options,
        state=engine.dump(state),
        secret=engine.secret_of(state),
        to_move=state.to_move,
        challenger=author,
        now=ctx.now(),
        time_control=rules or ctx.club.time_control,
        number=number,
        created_at=created_at,
    )
    comment = "" if opening else None  # a seek's or a join's words were not written to the others
    return board, ctx.board_mails(engine, board, state, author=author, new=True, opening=opening, comment=comment)


def _open(
    ctx: Context,
    engine: Game[Any],
    command: lang.Challenge,
    seats: list[Player | None],
    challenger: Player,
    rules: clocks.TimeControl,
) -> list[OutgoingMail]:
    now = ctx.now()
    challenge = open_challenges.open_(
        ctx.session,
        engine.name,
        challenger=challenger,
        seats=seats,
        options=command.options,
        time_control=rules.to_json(),
        now=now,
        expires_at=now + ctx.club.open_challenge_expiry,
    )
    context = {"game": engine, "challenge": open_challenge_view(engine, challenge, seats)}
    return [
        OutgoingMail("open_challenge", p.primary_address, context, player_id=p.id)
        for p in dict.fromkeys(seats)
        if p is not None
    ]


def move(ctx: Context, command: lang.Move) -> list[OutgoingMail]:
    board, player = ctx.playing(command.game, command.board, command.userid, command.secret)
    seat = ctx.seat_in_play(board, player)
    ctx.check_reply_is_current(board, player, seat, command, doing="play")
    # A reply refused for its move may be answered again, as the board mail it answered could be.
    reply_as = ReplyAs(board.id, player.id, board.move_count) if command.by_reply else None
    return play(ctx, board, player, command.move, reply_as=reply_as)


def play(
    ctx: Context, board: Board, player: Player, text: str, *, auto: bool = False, reply_as: ReplyAs | None = None
) -> list[OutgoingMail]:
    """`player` plays the move written `text` at `board` (locked), and everyone hears of it; then, if
    the player whose turn it is queued a move, that is played too. `auto`: played from the queue;
    `reply_as`: a refusal may be answered with a move, as a board mail may."""
    engine = pbm.games.get(board.game_type)
    seat = ctx.seat_in_play(board, player)
    state = engine.resume(board.state, board.secret)
    notation, after = checked_move(ctx, board, seat, state, text, reply_as=reply_as)
    news = _withdraw_offer(ctx, board)
    report = report_data(engine.report(state, notation, after))
    comment = "" if auto else ctx.comment
    _record(ctx, board, seat, notation, report, comment=comment, auto=auto)
    boards.set_position(board, engine.dump(after), after.to_move)
    result = engine.result(after)
    if result is not None:
        ratings = _finish_by_rules(ctx, board, result)
        return ctx.board_mails(engine, board, after, author=player, announce=True, ratings=ratings, offer_news=news)
    turn = _queued_turn(ctx, board)
    mails = ctx.board_mails(
        engine,
        board,
        after,
        author=player,
        announce=True,
        offer_news=news,
        comment=comment,
        private_notes=turn.notes,
        queued=turn.others,
    )
    return mails + turn.play()


@dataclass
class _QueuedTurn:
    """What the queue of the player now to move holds for this turn."""

    notes: dict[int, str]
    """A line for the queue's owner, in the board mail of the move just played."""
    play: Callable[[], list[OutgoingMail]]
    """Plays the queued move (after the board mails of the move before it), if one applies."""
    others: dict[int, QueuedMove]
    """The other players' queues at the board, by player id."""


def _queued_turn(ctx: Context, board: Board) -> _QueuedTurn:
    """The queue of the player now to move, taken: the line the moves since it was made chose, to
    play for them, or a note that none did. See `pbm.commands.queueing`."""
    assert board.to_move is not None, "an active board has a seat to move"
    player = board.seats[board.to_move].player
    queued, others = queues.take(ctx.session, board, player)
    if queued is None:
        return _QueuedTurn({}, list, others)
    since = [m.notation for m in boards.moves_since(ctx.session, board, queued.at_move)]
    line = next((line for line in queued.lines if line["if"] == since), None)
    line = line or next((line for line in queued.lines if not line["if"]), None)
    if line is None:
        note = f"None of your queued lines matched the moves played ({' '.join(since)}), so nothing was played for you."
        return _QueuedTurn({player.id: note}, list, others)
    move = line["then"]

    def play_it() -> list[OutgoingMail]:
        try:
            # A refused move changes nothing before it is refused: no savepoint is needed.
            return play(ctx, board, player, move, auto=True)
        except Refused as error:
            context = {
                "title": pbm.games.get(board.game_type).title,
                "board": board.board,
                "move": move,
                "reason": str(error),
            }
            return [OutgoingMail("queue_dropped", player.primary_address, context, player_id=player.id)]

    return _QueuedTurn({}, play_it, others)


@dataclass(frozen=True)
class Leaving:
    """How a player leaves a game before its end, in the record's words."""

    code: str
    """The end code when leaving ends the game (`Board.end_code`)."""
    did: Fact
    """What the player did, as a fact whose words follow their name: ``resigned``."""
    notation: str = pbm.games.RESIGN
    """What the move list holds for it: `pbm.games.RESIGN`, or `pbm.games.FORFEIT`."""
    comment: str | None = None
    """What the move list keeps with it; None: what the player wrote with it."""


RESIGNING = Leaving(boards.RESIGNED, Fact("resigned"))
SIGNING_OFF = Leaving(boards.FORFEIT, Fact("forfeited-by-signing-off"), pbm.games.FORFEIT, comment="")


def forfeiting(why: Fact) -> Leaving:
    """How a player leaves who ran out of time: `why` says which limit they met (`pbm.clocks.Turn.why`)."""
    return Leaving(
        boards.FORFEIT,
        Fact("forfeited-on-time", why=why),
        pbm.games.FORFEIT,
        comment=f"Forfeit by the time rules of this game: {Words().say(why)}.",
    )


def resign(ctx: Context, command: lang.Resign) -> list[OutgoingMail]:
    board, player = ctx.playing(command.game, command.board, command.userid, command.secret)
    seat = ctx.seat_in_play(board, player)
    ctx.check_reply_is_current(board, player, seat, command, doing="resign")
    return leave(ctx, board, player, RESIGNING)


def leave(ctx: Context, board: Board, player: Player, leaving: Leaving) -> list[OutgoingMail]:
    """`player` leaves the game at `board` (locked): in a game of two the others win; in a bigger
    one, if the game allows it, the others play on. Nobody plays on in the first round: the game
    ends there, called off, unrated (`boards.finish`)."""
    engine = pbm.games.get(board.game_type)
    seat = ctx.seat_in_play(board, player)
    state = engine.resume(board.state, board.secret)
    ratings: list[RatingChange] = []
    news = _withdraw_offer(ctx, board)
    did = Fact("player-did", userid=player.userid, did=leaving.did)
    after = engine.resign(state, seat)
    if after is None or not boards.everyone_moved(ctx.session, board):
        _record(ctx, board, seat, leaving.notation, report_data(MoveReport(leaving.did)), comment=leaving.comment)
        others = [s.seat for s in board.seats if s.seat != seat]
        reason = Fact("won-when-left" if len(others) == 1 else "tied-when-left", userid=player.userid, did=leaving.did)
        ratings = boards.finish(
            ctx.session, board, winners=others, code=leaving.code, reason=reason, called_off=did, now=ctx.now()
        )
        return ctx.board_mails(engine, board, state, author=player, announce=True, ratings=ratings, offer_news=news)
    report = report_data(MoveReport(Fact("left-and-the-others-play-on", did=leaving.did)))
    _record(ctx, board, seat, leaving.notation, report, comment=leaving.comment)
    boards.set_position(board, engine.dump(after), after.to_move)
    result = engine.result(after)
    if result is not None:
        ratings = _finish_by_rules(ctx, board, result)
    return ctx.board_mails(engine, board, after, author=player, announce=True, ratings=ratings, offer_news=news)


def _finish_by_rules(ctx: Context, board: Board, result: pbm.games.Result) -> list[RatingChange]:
    """End the game at `board` as the rules decided it (`result`), rated."""
    winners = [board.seats[seat].player.userid for seat in result.winners]
    return boards.finish(
        ctx.session,
        board,
        winners=result.winners,
        code=result.code,
        reason=result.fact,
        called_off=Fact("winners-result", winners=winners, result=result.fact),
        now=ctx.now(),
    )


def checked_move(
    ctx: Context, board: Board, seat: int, state: Any, text: str, *, reply_as: ReplyAs | None = None
) -> tuple[str, Any]:
    """The canonical notation of the move `text` for `seat`, and the state after it; refused when it
    is not the seat's turn, or the move is stale or illegal (a refusal `reply_as` may be answered)."""
    engine = pbm.games.get(board.game_type)
    if board.to_move != seat:
        assert board.to_move is not None, "an active board has a seat to move"
        raise Refused(
            f"It is not your turn: {board.seats[board.to_move].player.userid} is to move",
            view=ctx.view(board, state, viewer=seat),
            reply_as=reply_as,
        )
    try:
        return engine.play_notated(state, text)
    except pbm.games.StaleMove as error:
        raise Refused(f"Stale move: {error}", view=ctx.view(board, state, viewer=seat), reply_as=reply_as) from None
    except pbm.games.IllegalMove as error:
        raise Refused(f"Illegal move: {error}", view=ctx.view(board, state, viewer=seat), reply_as=reply_as) from None


def not_allowed(ctx: Context, command: lang.NotAllowed) -> list[OutgoingMail]:
    title = pbm.games.get(command.game).title
    if command.word == "pass":
        raise Refused(f"{title} does not allow passing: every turn must be played")
    raise Refused(f"{title} has no swap: the first player named in the challenge moves first")


def _withdraw_offer(ctx: Context, board: boards.Board) -> OfferNews | None:
    """A move ends any proposal waiting at the board; returns the news of it, if there was one."""
    offer = offers.pending(ctx.session, board)
    if offer is None:
        return None
    proposer = board.seats[offer.proposer].player.userid
    offers.close(ctx.session, board)
    return OfferNews(offer.kind, proposer, "withdrawn", proposer)


def _record(
    ctx: Context,
    board: boards.Board,
    seat: int,
    notation: str,
    report: dict[str, object],
    *,
    comment: str | None = None,
    auto: bool = False,
) -> None:
    boards.record_move(
        ctx.session,
        board,
        seat=seat,
        notation=notation,
        comment=ctx.comment if comment is None else comment,
        report=report,
        now=ctx.now(),
        inbound_id=ctx.inbound_id,
        auto=auto,
    )
