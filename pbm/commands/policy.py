"""Whom a player takes challenges from: ``accept`` or ``reject`` every challenge to a game type,
and ``limit`` the games of it played at once.

A challenge that breaks any named player's policy is refused whole, with one
"Invalid challenge" mail that names every refusal (`refusals`).
"""

from __future__ import annotations

from collections.abc import Sequence

import pbm.games
from pbm.commands import language as lang
from pbm.commands import recipients
from pbm.commands.context import Context
from pbm.commands.effects import OutgoingMail, Refused, listed
from pbm.facts import Fact
from pbm.store import bot_players, policies
from pbm.store.models import Player


def take_challenges(ctx: Context, command: lang.TakeChallenges) -> list[OutgoingMail]:
    player = ctx.authenticate(command.userid, command.secret)
    policy = policies.of(ctx.session, player, command.game)
    policy.accepts = command.takes
    policies.store(ctx.session, policy)
    return _told(ctx, player, command.game)


def limit(ctx: Context, command: lang.Limit) -> list[OutgoingMail]:
    player = ctx.authenticate(command.userid, command.secret)
    if not command.asked:
        policy = policies.of(ctx.session, player, command.game)
        policy.most_games = command.most
        policies.store(ctx.session, policy)
    return _told(ctx, player, command.game)


def refusals(ctx: Context, game_type: str, challenger: Player, named: Sequence[Player]) -> list[Fact]:
    """Why each named player's policy refuses this challenge (none: it may start)."""
    title = pbm.games.get(game_type).title
    found = []
    for player in named:
        policy = policies.of(ctx.session, player, game_type)
        if player != challenger and not policy.accepts:
            found.append(Fact("takes-no-challenges", userid=player.userid, title=title))
        elif (full := at_limit(ctx, game_type, player)) is not None:
            found.append(full)
    return found


def at_limit(ctx: Context, game_type: str, player: Player) -> Fact | None:
    """Why `player` takes no more games of `game_type` now (their ``limit`` is reached), or None.
    A seek or a join is the player's own wish, so only the limit stands in its way."""
    policy = policies.of(ctx.session, player, game_type)
    if policy.most_games is None:
        return None
    playing = policies.active_games(ctx.session, player, game_type)
    if playing < policy.most_games:
        return None
    title = pbm.games.get(game_type).title
    return Fact("at-game-limit", userid=player.userid, playing=playing, title=title)


def exhibition_host(ctx: Context, bots: Sequence[str]) -> Player:
    """The administrator among the sender's players, who may start a game of the bots alone (an
    exhibition); refused to anyone else, since bots think for people."""
    host = next((p for p in ctx.sender.players if p.userid in ctx.club.admins), None)
    if host is None:
        raise Refused("bots-alone-for-admins", userids=listed(list(bots)), headline="invalid-challenge")
    return host


def check_bot_games(ctx: Context, challenger: Player, named: Sequence[Player]) -> None:
    """Refuse a game with bots that would take a person past the games with bots one player may
    have going (``PBM_BOT_GAMES_PER_PLAYER``): the people it seats, or the host of an exhibition."""
    if not any(p.is_bot for p in named):
        return
    people = [p for p in named if not p.is_bot] or [challenger]
    for person in people:
        full = bot_games_full(ctx, person)
        if full is not None:
            raise full


def bot_games_full(ctx: Context, person: Player) -> Refused | None:
    """Why `person` may start no more games with bots now, or None."""
    most = ctx.club.bot_games_per_player
    playing = bot_players.live_games_with_bots(ctx.session, person.id)
    if playing < most:
        return None
    return Refused("bot-games-at-limit", userid=person.userid, playing=playing, most=most, headline="invalid-challenge")


def _told(ctx: Context, player: Player, game_type: str) -> list[OutgoingMail]:
    policy = policies.of(ctx.session, player, game_type)
    playing = policies.active_games(ctx.session, player, game_type)
    engine = pbm.games.get(game_type)
    return recipients.to_player(ctx, player, "policy", player=player, game=engine, policy=policy, playing=playing)
