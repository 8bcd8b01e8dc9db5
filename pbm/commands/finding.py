"""Finding opponents: seeking games, and open challenges anyone may join.

pbmserv's ``seek`` only advertised; here seekers of the same game are paired
into new games as soon as two fit: the same game type, options that agree (a
seek without options takes any), and room under both players' ``limit``.
Among those that fit, the one who has waited the longest, counted in whole
days, comes first; between equally long waits, the nearest rating; the one who
waited longer moves first. Pairing happens when a seek arrives, so the seeker
who waits is never paired behind their back with someone who no longer fits.

An open challenge (``challenge alice open``) takes its board number at once but
is no game until ``join`` fills its last free seat; one nobody joins expires
after `Club.open_challenge_expiry` (`expire_open_challenges`), and its players
are told.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.orm import Session

import pbm.games
from pbm.commands import language as lang
from pbm.commands import play, policy, recipients
from pbm.commands.context import Context
from pbm.commands.effects import OutgoingMail, Refused
from pbm.commands.recipients import Opening
from pbm.games import Game
from pbm.store import bot_players, open_challenges, players, ratings, seeks
from pbm.store.models import OpenChallenge, Player, Seek
from pbm.timekeeping import clocks
from pbm.views.board import options_text
from pbm.views.challenges import open_challenge_view

WAIT_STEP = timedelta(days=1)
"""Waits are compared in whole days: within a day of each other, the nearer rating wins."""


def seek(ctx: Context, command: lang.Seek) -> list[OutgoingMail]:
    player = ctx.authenticate(command.userid, command.secret)
    if command.wanted:
        ctx.check_confirmed(player)
    engine = pbm.games.get(command.game)
    paired: list[tuple[int, str]] = []
    mails: list[OutgoingMail] = []
    if command.wanted is not None:
        seeks.put(ctx.session, player, engine.name, command.wanted, command.options, ctx.now())
        mails, paired = _pair(ctx, engine, player)
    now_seeking = seeks.of(ctx.session, player, engine.name)
    context = {
        "player": player,
        "game": engine,
        "seek": now_seeking,
        "options": options_text(engine, now_seeking.options if now_seeking else {}),
        "paired": paired,
        "full": policy.at_limit(ctx, engine.name, player),
    }
    return [*mails, *recipients.to_player(ctx, player, "seek", **context)]


def _pair(ctx: Context, engine: Game[Any], player: Player) -> tuple[list[OutgoingMail], list[tuple[int, str]]]:
    """Pair `player`'s seek with others' while both want games; the mails of the games started,
    and for each, its board number and the other player ("Cephalopod board 105 with bob")."""
    mails: list[OutgoingMail] = []
    paired: list[tuple[int, str]] = []
    met: set[int] = set()  # one new game per pair of seekers at a time
    while True:
        waiting = seeks.waiting(ctx.session, engine.name)
        mine = next((s for s in waiting if s.player_id == player.id), None)
        if mine is None or policy.at_limit(ctx, engine.name, player) is not None:
            break
        fitting = [
            other
            for other in waiting
            if other.player_id != player.id
            and other.player_id not in met
            and other.player.active
            and _agree(mine.options, other.options) is not None
            and policy.at_limit(ctx, engine.name, other.player) is None
        ]
        if not fitting:
            break
        other = _preferred(ctx, mine, fitting)
        options = _agree(mine.options, other.options)
        assert options is not None
        first, second = (other, mine) if other.since <= mine.since else (mine, other)
        opening = Opening("paired", (first.player.userid, second.player.userid))
        seated = [first.player, second.player]
        board, started = play.start_game(ctx, engine, seated, options, author=player, opening=opening)
        mails += started
        paired.append((board.row.board, other.player.userid))
        met.add(other.player_id)
        seeks.took_one(ctx.session, mine)
        seeks.took_one(ctx.session, other)
        ctx.session.flush()
    return mails, paired


def bots_take_seeks(ctx: Context, waited: timedelta) -> list[OutgoingMail]:
    """Every seek that waited `waited` for a person (``PBM_BOTS_ANSWER_SEEKS``) is taken by a bot: the
    level whose rating from the ladder is nearest the seeker's, for as many games as the seek
    wants and the seeker's ``limit`` and the games with bots one player may have going
    (``PBM_BOT_GAMES_PER_PLAYER``) allow. The seeker moves first. Run by the time pass."""
    mails: list[OutgoingMail] = []
    waiting = seeks.waited_since(ctx.session, ctx.now() - waited)
    bots = bot_players.sign_up_all(ctx.session, ctx.now()) if waiting else []
    for seek in waiting:
        player = seek.player
        if seek.game_type not in pbm.games.names() or not player.active:
            continue
        engine = pbm.games.get(seek.game_type)
        playing = [bot for bot in bots if bot.bot_level is not None and bot_players.plays(engine.name, bot.bot_level)]
        if not playing:
            continue
        rating = ratings.current(ctx.session, [player.id], engine.name)[player.id]
        bot = min(playing, key=lambda b: abs(bot_players.rating(engine.name, b.bot_level or 0) - rating))
        while seek.wanted > 0 and policy.at_limit(ctx, engine.name, player) is None:
            if policy.bot_games_full(ctx, player) is not None:
                break  # the rest waits for a person: bots think for every player in turn
            opening = Opening("bot", (player.userid, bot.userid))
            _, started = play.start_game(ctx, engine, [player, bot], dict(seek.options), author=player, opening=opening)
            mails += started
            seeks.took_one(ctx.session, seek)
            ctx.session.flush()
    return mails


def _preferred(ctx: Context, mine: Seek, fitting: list[Seek]) -> Seek:
    """The seek among `fitting` to pair `mine` with: the longest waiting (in whole days), then the
    nearest rating, then the earliest."""
    rating = ratings.current(ctx.session, [s.player_id for s in (mine, *fitting)], mine.game_type)
    now = ctx.now()

    def preference(other: Seek) -> tuple[int, float, datetime]:
        waited_steps = (now - other.since) // WAIT_STEP
        return -waited_steps, abs(rating[other.player_id] - rating[mine.player_id]), other.since

    return min(fitting, key=preference)


def _agree(mine: dict[str, Any], theirs: dict[str, Any]) -> dict[str, Any] | None:
    """The options of a game both seeks take, or None when they disagree.

    >>> _agree({}, {"size": 7}), _agree({"size": 7}, {"size": 7}), _agree({"size": 5}, {"size": 7})
    ({'size': 7}, {'size': 7}, None)
    """
    if mine and theirs and mine != theirs:
        return None
    return dict(mine or theirs)


def list_open(ctx: Context, command: lang.OpenChallenges) -> list[OutgoingMail]:
    engine = pbm.games.get(command.game)
    waiting = open_challenges.waiting(ctx.session, engine.name, ctx.now())
    views = [open_challenge_view(engine, challenge, _players_in(ctx.session, challenge)) for challenge in waiting]
    return [recipients.to_sender(ctx, "open_challenges", game=engine, challenges=views)]


def join(ctx: Context, command: lang.Join) -> list[OutgoingMail]:
    player = ctx.authenticate(command.userid, command.secret)
    engine = pbm.games.get(command.game)
    challenge = open_challenges.at(ctx.session, engine.name, command.board)
    title, number = engine.title, command.board
    if challenge is None:
        raise Refused("not-an-open-challenge", game=engine.name, title=title, board=number)
    if challenge.expires_at <= ctx.now():
        raise Refused("open-challenge-expired", expired=challenge.expires_at, title=title, board=number)
    if player.id in challenge.seats:
        raise Refused("seated-already", userid=player.userid, title=title, board=number)
    ctx.check_confirmed(player)
    full = policy.at_limit(ctx, engine.name, player)
    if full is not None:
        raise Refused(full)
    with_bots = any(p is not None and p.is_bot for p in _players_in(ctx.session, challenge))
    if with_bots and (too_many := policy.bot_games_full(ctx, player)) is not None:
        raise too_many
    open_challenges.take_seat(challenge, player)
    seated = _players_in(ctx.session, challenge)
    if None in seated:
        view = open_challenge_view(engine, challenge, seated)
        context = {"game": engine, "challenge": view, "joined": player}
        return [OutgoingMail("open_challenge", p.primary_address, context, player_id=p.id) for p in seated if p]
    open_challenges.close(ctx.session, challenge)
    opening = Opening("joined", (player.userid, challenge.challenger.userid))
    _, mails = play.start_game(
        ctx,
        engine,
        [p for p in seated if p is not None],
        challenge.options,
        author=player,
        rules=clocks.TimeControl.from_json(challenge.time_control, ctx.club.time_control),
        opening=opening,
        number=challenge.board,
        created_at=challenge.created_at,
    )
    return mails


def resign(ctx: Context, command: lang.Resign) -> list[OutgoingMail]:
    """``resign`` at an open challenge: its challenger calls it off, anyone else gives their seat
    back; at a game, as `play.resign`."""
    challenge = open_challenges.at(ctx.session, command.game, command.board)
    if challenge is None or command.secret is None:
        return play.resign(ctx, command)
    player = ctx.authenticate(command.userid, command.secret)
    engine = pbm.games.get(command.game)
    seated = _players_in(ctx.session, challenge)
    if player not in seated:
        raise Refused("no-seat-at-open-challenge", userid=player.userid, title=engine.title, board=challenge.board)
    if player.id == challenge.challenger_id:
        open_challenges.close(ctx.session, challenge)
        context = {"game": engine, "challenge": open_challenge_view(engine, challenge, seated), "withdrawn": True}
        return [OutgoingMail("open_challenge_closed", p.primary_address, context, player_id=p.id) for p in seated if p]
    open_challenges.give_up_seat(challenge, player)
    left = _players_in(ctx.session, challenge)
    context = {"game": engine, "challenge": open_challenge_view(engine, challenge, left), "left": player}
    return [OutgoingMail("open_challenge", p.primary_address, context, player_id=p.id) for p in [*left, player] if p]


def _players_in(session: Session, challenge: OpenChallenge) -> list[Player | None]:
    """The player in each seat of `challenge`, None where it is free."""
    ids = [i for i in challenge.seats if i is not None]
    by_id = {p.id: p for p in players.by_ids(session, ids)}
    return [by_id.get(i) if i is not None else None for i in challenge.seats]


def expire_open_challenges(session: Session, now: datetime) -> list[OutgoingMail]:
    """Close every open challenge past its time; its players hear that nobody joined in time.
    Run by the server between mails; rows another worker is closing are skipped."""
    mails = []
    for challenge in open_challenges.claim_expired(session, now):
        engine = pbm.games.get(challenge.game_type)
        seated = _players_in(session, challenge)
        context = {"game": engine, "challenge": open_challenge_view(engine, challenge, seated)}
        mails += [
            OutgoingMail("open_challenge_closed", p.primary_address, context, player_id=p.id) for p in seated if p
        ]
        open_challenges.close(session, challenge)
    return mails
