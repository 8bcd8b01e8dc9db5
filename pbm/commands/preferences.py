"""``timezone`` and ``quiet``: when a player wants their mail.

A player who names their zone reads dates in it, and keeps their quiet hours in it:
mail for them that comes in those hours waits in the outbox until the hours end
(`pbm.mail.outgoing`), except the answers to mail they send. Each command answers, as
every account command does, with where the player stands now.
"""

from __future__ import annotations

from pbm.commands import language as lang
from pbm.commands import recipients
from pbm.commands.context import Context
from pbm.commands.effects import OutgoingMail, Refused
from pbm.facts import Fact
from pbm.store import preferences
from pbm.store.models import Player


def timezone(ctx: Context, command: lang.TimeZone) -> list[OutgoingMail]:
    player = ctx.authenticate(command.userid, command.secret)
    news = None
    if command.zone is not None:
        preferences.set_zone(player, command.zone)
        news = Fact("zone-now", userid=player.userid, zone=command.zone)
    return [_answer(ctx, player, news)]


def quiet(ctx: Context, command: lang.QuietHours) -> list[OutgoingMail]:
    player = ctx.authenticate(command.userid, command.secret)
    news = None
    if command.off:
        if preferences.quiet_hours(player) is None:
            raise Refused("no-quiet-hours-to-end", userid=player.userid)
        preferences.set_quiet_hours(player, None)
        news = Fact("quiet-hours-ended", userid=player.userid)
    elif command.hours is not None:
        preferences.set_quiet_hours(player, command.hours)
        news = Fact("quiet-hours-now", userid=player.userid, hours=str(command.hours))
    return [_answer(ctx, player, news)]


def standing(ctx: Context, player: Player) -> list[Fact]:
    """What `player` chose about their mail, a fact a line: their zone (and its time now), their quiet hours."""
    zone = preferences.zone_of(player)
    local = ctx.now().astimezone(zone).replace(tzinfo=None)
    lines = [Fact("zone-is", userid=player.userid, zone=str(zone), now=local)]
    hours = preferences.quiet_hours(player)
    if hours is None:
        lines.append(Fact("no-quiet-hours", userid=player.userid))
    else:
        lines.append(Fact("quiet-hours-are", userid=player.userid, hours=str(hours), zone=str(zone)))
    return lines


def _answer(ctx: Context, player: Player, news: Fact | None) -> OutgoingMail:
    return recipients.to_sender(
        ctx,
        "mail_preferences",
        subject=Fact("mail-preferences-subject", userid=player.userid),
        news=news,
        standing=standing(ctx, player),
        how=Fact("mail-preferences-how", userid=player.userid),
    )
