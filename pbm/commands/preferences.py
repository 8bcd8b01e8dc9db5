"""``timezone``, ``quiet`` and ``digest``: when a player wants their mail.

A player who names their zone reads dates in it, and keeps their quiet hours in it:
mail for them that comes in those hours waits in the outbox until the hours end
(`pbm.mail.outgoing`), except the answers to mail they send. A player who takes digests gets,
instead of a mail for each move, one mail at each of their times listing the games waiting for
them (`pbm.commands.digests`). Each command answers, as
every account command does, with where the player stands now.
"""

from __future__ import annotations

from datetime import datetime, time, tzinfo

from pbm.commands import language as lang
from pbm.commands import recipients
from pbm.commands.context import Context
from pbm.commands.effects import OutgoingMail, Refused
from pbm.facts import Fact
from pbm.store import outbox, preferences
from pbm.store.models import Player
from pbm.timekeeping.local_time import next_time


def timezone(ctx: Context, command: lang.TimeZone) -> list[OutgoingMail]:
    player = ctx.authenticate(command.userid, command.secret)
    news = None
    if command.zone is not None:
        preferences.set_zone(player, command.zone)
        # The digests keep the wall clock of the new zone.
        preferences.set_digest(player, preferences.digest_times(player), preferences.next_digest(player, ctx.now()))
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


def digest(ctx: Context, command: lang.Digest) -> list[OutgoingMail]:
    player = ctx.authenticate(command.userid, command.secret)
    news = None
    if command.off:
        if not preferences.digest_times(player):
            raise Refused("no-digest-to-end", userid=player.userid)
        preferences.set_digest(player, (), None)
        outbox.release_digest_mail(ctx.session, player.id, ctx.now())
        news = Fact("digest-ended", userid=player.userid)
    elif command.times is not None:
        zone = preferences.zone_of(player)
        preferences.set_digest(player, command.times, next_time(ctx.now(), command.times, zone))
        news = Fact(
            "digest-now",
            userid=player.userid,
            times=_times(command.times),
            zone=str(zone),
            next=_local(player.digest_due_at, zone),
        )
    return [_answer(ctx, player, news)]


def standing(ctx: Context, player: Player) -> list[Fact]:
    """What `player` chose about their mail, a fact a line: their zone (and its time now), their quiet hours."""
    zone = preferences.zone_of(player)
    lines = [Fact("zone-is", userid=player.userid, zone=str(zone), now=ctx.now().astimezone(zone))]
    hours = preferences.quiet_hours(player)
    if hours is None:
        lines.append(Fact("no-quiet-hours", userid=player.userid))
    else:
        lines.append(Fact("quiet-hours-are", userid=player.userid, hours=str(hours), zone=str(zone)))
    times = preferences.digest_times(player)
    if times and player.digest_due_at is not None:
        lines.append(Fact("digest-is", times=_times(times), zone=str(zone), next=_local(player.digest_due_at, zone)))
    else:
        lines.append(Fact("no-digest"))
    return lines


def _times(times: tuple[time, ...]) -> str:
    return ",".join(f"{t:%H:%M}" for t in times)


def _local(moment: datetime | None, zone: tzinfo) -> datetime | None:
    """`moment` on the wall clock of `zone`: a mail says it there, whoever reads it (`pbm.facts.Fact`)."""
    return moment.astimezone(zone) if moment is not None else None


def _answer(ctx: Context, player: Player, news: Fact | None) -> OutgoingMail:
    return recipients.to_sender(
        ctx,
        "mail_preferences",
        subject=Fact("mail-preferences-subject", userid=player.userid),
        news=news,
        standing=standing(ctx, player),
        how=Fact("mail-preferences-how", userid=player.userid),
    )
