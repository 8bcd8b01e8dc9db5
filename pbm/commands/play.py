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
from pbm.commands import language as lang
from pbm.commands import policy, recipients
from pbm.commands.context import Context
from pbm.commands.effects import OutgoingMail, Refused, ReplyAs, listed
from pbm.commands.recipients import Opening
from pbm.elo import RatingChange
from pbm.facts import Fact
from pbm.games import Game, MoveReport
from pbm.store import boards, bot_players, offers, open_challenges, players, queues, watchers
from pbm.store.models import Board, Player, QueuedMove
from pbm.timekeeping import clocks
from pbm.views.challenges import open_challenge_view
from pbm.views.live import LiveBoard
from pbm.views.moves import report_data
from pbm.views.offers import OfferNews

CHALLENGE_WINDOW = timedelta(hours=1)


def challenge(ctx: Context, command: lang.Challenge) -> list[OutgoingMail]:
    """Start a game; or, when a seat is named `lang.OPEN_SEAT`, open one for anyone to ``join``."""
    engine = pbm.games.get(command.game)
    userids = command.userids
    named_ids = [u for u in userids if u != lang.OPEN_SEAT]
    if len(set(named_ids)) != len(named_ids):
        raise Refused("seat-named-twice")
    try:
        engine.check_players(len(userids))
    except pbm.games.InvalidOptions as error:
        raise Refused(error.fact) from None
    bot_players.sign_up_named(ctx.session, named_ids, ctx.now())  # bots exist once named
    named = players.named(ctx.session, named_ids)
    missing = [u for u in named_ids if u not in named or not named[u].active]
    if missing:
        raise Refused("no-player-signed-up", userids=listed(missing))
    unable = [
        p.userid for p in named.values() if p.bot_level is not None and not bot_players.plays(engine.name, p.bot_level)
    ]
    if unable:
        raise Refused("bots-do-not-play", userids=listed(unable), title=engine.title)
    challenger = next((p for p in named.values() if p in ctx.sender.players), None)
    exhibition = challenger is None and all(p.is_bot for p in named.values())
    if exhibition:
        challenger = policy.exhibition_host(ctx, named_ids)
    if challenger is None:
        people = [u for u in named_ids if not named[u].is_bot]  # a bot has no address to mail from
        raise Refused("challenge-not-from-player", userids=listed(people))
    ctx.check_confirmed(challenger)
    unconfirmed = ctx.unconfirmed([p for p in named.values() if p != challenger])
    if unconfirmed:
        raise Refused(
            "challenge-unconfirmed", userids=listed([p.userid for p in unconfirmed]), headline="invalid-challenge"
        )
    policy.check_bot_games(ctx, challenger, list(named.values()))
    refused = policy.refusals(ctx, engine.name, challenger, list(named.values()))
    if refused:
        raise Refused("challenge-policies", refusals=listed(refused, "semicolon-list"), headline="invalid-challenge")
    now = ctx.now()
    recent = boards.challenges_by(ctx.session, challenger.id, since=now - CHALLENGE_WINDOW)
    if len(recent) >= ctx.limits.challenges_per_sender_per_hour:
        raise Refused(
            "challenges-per-hour",
            userid=challenger.userid,
            count=len(recent),
            after=recent[0] + CHALLENGE_WINDOW,
        )
    rules = time_control(ctx, command.time_words)
    if command.is_open:
        return _open(ctx, engine, command, [named.get(u) for u in userids], challenger, rules)
    seated = [named[u] for u in userids]
    if exhibition:
        return _exhibition(ctx, engine, seated, command.options, host=challenger, rules=rules)
    _, mails = start_game(ctx, engine, seated, command.options, author=challenger, rules=rules)
    return mails


def _exhibition(
    ctx: Context,
    engine: Game[Any],
    seated: Sequence[Player],
    options: dict[str, Any],
    *,
    host: Player,
    rules: clocks.TimeControl,
) -> list[OutgoingMail]:
    """A game of bots alone, started by an administrator (`host`) to be watched: it plays on with no
    person in it. The host is sent its first board and told of its end; ``subscribe`` mails every move."""
    board, _ = start_game(ctx, engine, seated, options, author=host, rules=rules, exhibition=True)
    watchers.notify_at_end(ctx.session, host, engine.name, [board.row], ctx.now())
    return [recipients.board_for_sender(ctx, board, ctx.view(board))]


def time_control(ctx: Context, words: Sequence[str]) -> clocks.TimeControl:
    """The time rules a challenge's `words` set, over the club's."""
    try:
        return clocks.parse(words, ctx.club.time_control)
    except clocks.InvalidTimeRule as error:
        raise Refused(error.fact) from None


def start_game(
    ctx: Context,
    engine: Game[Any],
    seated: Sequence[Player],
    options: dict[str, Any],
    *,
    author: Player,
    rules: clocks.TimeControl | None = None,
    opening: Opening | None = None,
    number: int | None = None,
    created_at: datetime | None = None,
    exhibition: bool = False,
) -> tuple[LiveBoard, list[OutgoingMail]]:
    """A new game of `seated`, in order of play, under time `rules` (the club's when None), and its
    first board mailed to each; `opening` is the line the mails start with when `author` did not
    simply challenge the others; `exhibition`: a game of bots alone that plays on without people."""
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
        exhibition=exhibition,
    )
    live = LiveBoard(board, engine, state)
    comment = "" if opening else None  # a seek's or a join's words were not written to the others
    return live, recipients.board_mails(ctx, live, author=author, new=True, opening=opening, comment=comment)


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
    ctx.check_reply_is_current(board, player, seat, command, doing=None)
    # A reply refused for its move may be answered again, as the board mail it answered could be.
    reply_as = ReplyAs(board.row.id, player.id, board.row.move_count) if command.by_reply else None
    return play(ctx, board, player, command.move, reply_as=reply_as)


def play(
    ctx: Context, board: LiveBoard, player: Player, text: str, *, auto: bool = False, reply_as: ReplyAs | None = None
) -> list[OutgoingMail]:
    """`player` plays the move written `text` at `board` (locked), and everyone hears of it; then, if
    the player whose turn it is queued a move, that is played too. `auto`: played from the queue;
    `reply_as`: a refusal may be answered with a move, as a board mail may."""
    engine = board.engine
    seat = ctx.seat_in_play(board, player)
    state = board.state
    notation, after = checked_move(ctx, board, seat, text, reply_as=reply_as)
    news = _withdraw_offer(ctx, board.row)
    report = report_data(engine.report(state, notation, after))
    comment = "" if auto else ctx.comment
    _record(ctx, board.row, seat, notation, report, comment=comment, auto=auto)
    board.advance(after)
    result = engine.result(after)
    if result is not None or no_person_left(board, after):
        ratings = _finish_by_rules(ctx, board.row, result) if result else _finish_for_want_of_people(ctx, board)
        return recipients.board_mails(ctx, board, author=player, announce=True, ratings=ratings, offer_news=news)
    turn = _queued_turn(ctx, board)
    mails = recipients.board_mails(
        ctx,
        board,
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

    notes: dict[int, dict[str, Any]]
    """What the queue's owner alone reads in the board mail of the move just played (template context)."""
    play: Callable[[], list[OutgoingMail]]
    """Plays the queued move (after the board mails of the move before it), if one applies."""
    others: dict[int, QueuedMove]
    """The other players' queues at the board, by player id."""


def _queued_turn(ctx: Context, board: LiveBoard) -> _QueuedTurn:
    """The queue of the player now to move, taken: the line the moves since it was made chose, to
    play for them, or a note that none did. See `pbm.commands.queueing`."""
    assert board.row.to_move is not None, "an active board has a seat to move"
    player = board.player_at(board.row.to_move)
    queued, others = queues.take(ctx.session, board.row, player)
    if queued is None:
        return _QueuedTurn({}, list, others)
    since = [m.notation for m in boards.moves_since(ctx.session, board.row, queued.at_move)]
    line = next((line for line in queued.lines if line["if"] == since), None)
    line = line or next((line for line in queued.lines if not line["if"]), None)
    if line is None:
        return _QueuedTurn({player.id: {"unmatched_queue": since}}, list, others)
    move = line["then"]

    def play_it() -> list[OutgoingMail]:
        try:
            # A refused move changes nothing before it is refused: no savepoint is needed.
            return play(ctx, board, player, move, auto=True)
        except Refused as error:
            context = {"title": board.title, "board": board.row.board, "move": move, "reason": error.fact}
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
    """How a player leaves who ran out of time: `why` says which limit they met (`pbm.timekeeping.clocks.Turn.why`)."""
    return Leaving(
        boards.FORFEIT,
        Fact("forfeited-on-time", why=why),
        pbm.games.FORFEIT,
        comment="",  # what happened is the move's report: forfeited on time, and why
    )


def resign(ctx: Context, command: lang.Resign) -> list[OutgoingMail]:
    board, player = ctx.playing(command.game, command.board, command.userid, command.secret)
    seat = ctx.seat_in_play(board, player)
    ctx.check_reply_is_current(board, player, seat, command, doing=Fact("doing-resign"))
    return leave(ctx, board, player, RESIGNING)


def leave(ctx: Context, board: LiveBoard, player: Player, leaving: Leaving) -> list[OutgoingMail]:
    """`player` leaves the game at `board` (locked): in a game of two the others win; in a bigger
    one, if the game allows it, the others play on. Nobody plays on in the first round: the game
    ends there, called off, unrated (`boards.finish`). Bots do not play on among themselves: when
    the last person in play leaves, the bots still in play share the win, as the others of a game
    that cannot go on do (`no_person_left`)."""
    seat = ctx.seat_in_play(board, player)
    row = board.row
    ratings: list[RatingChange] = []
    news = _withdraw_offer(ctx, row)
    did = Fact("player-did", userid=player.userid, did=leaving.did)
    after = board.engine.resign(board.state, seat)
    bots_alone = after is not None and no_person_left(board, after)
    if after is None or bots_alone or not boards.everyone_moved(ctx.session, row):
        _record(ctx, row, seat, leaving.notation, report_data(MoveReport(leaving.did)), comment=leaving.comment)
        others = [s.seat for s in row.seats if s.seat != seat]
        if bots_alone and boards.everyone_moved(ctx.session, row):
            others = [s for s in board.engine.seats_in_play(after) if s != seat]
        reason = Fact("won-when-left" if len(others) == 1 else "tied-when-left", userid=player.userid, did=leaving.did)
        ratings = boards.finish(
            ctx.session,
            row,
            winners=others,
            code=leaving.code,
            reason=reason,
            called_off=did,
            now=ctx.now(),
            rate_bots=ctx.club.rate_bot_games,
        )
        return recipients.board_mails(ctx, board, author=player, announce=True, ratings=ratings, offer_news=news)
    report = report_data(MoveReport(Fact("left-and-the-others-play-on", did=leaving.did)))
    _record(ctx, row, seat, leaving.notation, report, comment=leaving.comment)
    board.advance(after)
    result = board.engine.result(after)
    if result is not None:
        ratings = _finish_by_rules(ctx, row, result)
    return recipients.board_mails(ctx, board, author=player, announce=True, ratings=ratings, offer_news=news)


def no_person_left(board: LiveBoard, state: Any) -> bool:
    """Whether only bots would be left in play at `board` in `state`. Bots think for people: such a
    game ends (`leave`, `play`), unless an administrator started it for bots alone (an exhibition).
    A game of people alone always has a person in play."""
    if board.row.exhibition:
        return False
    return all(board.player_at(seat).is_bot for seat in board.engine.seats_in_play(state))


def _finish_for_want_of_people(ctx: Context, board: LiveBoard) -> list[RatingChange]:
    """End the game at `board` (locked), whose last move put its last person out of play: the bots
    still in play share the win, as the players left do when a game cannot go on."""
    winners = list(board.seats_in_play())
    reason = Fact("won-no-person-left" if len(winners) == 1 else "tied-no-person-left")
    userids = [board.player_at(seat).userid for seat in winners]
    return boards.finish(
        ctx.session,
        board.row,
        winners=winners,
        code=boards.NO_PERSON_LEFT,
        reason=reason,
        called_off=Fact("winners-result", winners=userids, result=reason),
        now=ctx.now(),
        rate_bots=ctx.club.rate_bot_games,
    )


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
        rate_bots=ctx.club.rate_bot_games,
    )


def checked_move(
    ctx: Context, board: LiveBoard, seat: int, text: str, *, reply_as: ReplyAs | None = None
) -> tuple[str, Any]:
    """The canonical notation of the move `text` for `seat`, and the state after it; refused when it
    is not the seat's turn, or the move is stale or illegal (a refusal `reply_as` may be answered)."""
    to_move = board.row.to_move
    if to_move != seat:
        assert to_move is not None, "an active board has a seat to move"
        raise Refused(
            "not-your-turn",
            userid=board.player_at(to_move).userid,
            view=ctx.view(board, viewer=seat),
            reply_as=reply_as,
        )
    try:
        return board.engine.play_notated(board.state, text)
    except pbm.games.StaleMove as error:
        view = ctx.view(board, viewer=seat)
        raise Refused("move-is-stale", reason=error.fact, view=view, reply_as=reply_as) from None
    except pbm.games.IllegalMove as error:
        raise Refused("illegal-move", reason=error.fact, view=ctx.view(board, viewer=seat), reply_as=reply_as) from None


def not_allowed(ctx: Context, command: lang.NotAllowed) -> list[OutgoingMail]:
    title = pbm.games.get(command.game).title
    raise Refused("no-passing" if command.word == "pass" else "no-swap", title=title)


def _withdraw_offer(ctx: Context, board: Board) -> OfferNews | None:
    """A move ends any proposal waiting at the board; returns the news of it, if there was one."""
    offer = offers.pending(ctx.session, board)
    if offer is None:
        return None
    proposer = board.seats[offer.proposer].player.userid
    offers.close(ctx.session, board)
    return OfferNews(offer.kind, proposer, "withdrawn", proposer)


def _record(
    ctx: Context,
    board: Board,
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
