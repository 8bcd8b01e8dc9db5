"""The account verbs: signing up, passwords and addresses, signing off; and the help mails."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

import pbm.games
from pbm.addresses import comparable, distinct, same
from pbm.commands import digests, play, recipients
from pbm.commands import language as lang
from pbm.commands.context import Context
from pbm.commands.effects import OutgoingMail, Refused, listed
from pbm.facts import Fact
from pbm.i18n import languages
from pbm.store import board_lists, bot_players, bounces, confirmations, outbox, players, preferences, resets
from pbm.store.models import BoardStatus, HoldReason, Player
from pbm.views.ladders import bot_ladders
from pbm.views.standing import GameSummary, game_summary

SIGNUP_WINDOW = timedelta(days=1)
RESET_WINDOW = timedelta(days=1)
CONFIRMATION_EXPIRY = timedelta(days=7)
"""How long a reply to a confirmation request confirms the address."""
CONFIRMATIONS_PER_ADDRESS_WINDOW = timedelta(days=1)
CONFIRMATIONS_WINDOW = timedelta(hours=1)
NOT_A_CONFIRMATION = "confirmation-unknown"
"""The refusal of a reply to a confirmation address that is no confirmation (any more)."""


HELP_TOPICS = {
    "commands": "help",
    "help": "help",
    "tutorial": "help_tutorial",
    "ratings": "help_ratings",
    "queue": "help_queue",
    "time": "help_time",
    "bots": "help_bots",
}
"""``help TOPIC``: the mail template of each topic (besides the games, whose help is their own)."""


def help_(ctx: Context, command: lang.Help) -> list[OutgoingMail]:
    topic = command.topic or "commands"
    if topic in HELP_TOPICS:
        context = {
            "games": pbm.games.all_games(),
            "defaults": ctx.club.time_control,
            "allowance": ctx.club.vacation_allowance,
        }
        if topic == "bots":
            context["ladders"] = bot_ladders()
        return [recipients.to_sender(ctx, HELP_TOPICS[topic], **context)]
    if topic in pbm.games.names():
        return [recipients.to_sender(ctx, "game_help", game=pbm.games.get(topic))]
    topics = [*dict.fromkeys(t for t in HELP_TOPICS if t != "help"), *pbm.games.names()]
    raise Refused("no-help-topic", topic=topic, topics=listed(topics))


def game_help(ctx: Context, command: lang.GameHelp) -> list[OutgoingMail]:
    return [recipients.to_sender(ctx, "game_help", game=pbm.games.get(command.game))]


def list_games(ctx: Context, command: lang.ListGames) -> list[OutgoingMail]:
    return [recipients.to_sender(ctx, "list", games=pbm.games.all_games())]


def signup(ctx: Context, command: lang.Signup) -> list[OutgoingMail]:
    """A new player; each address is asked to confirm itself (the mail it gets carries the reply
    address), and whoever signed up from another address hears which were asked."""
    if command.userid == lang.OPEN_SEAT:
        raise Refused("userid-reserved", userid=lang.OPEN_SEAT)
    if bot_players.is_bot_userid(command.userid):
        raise Refused("userid-for-bots", userid=command.userid)
    if players.find(ctx.session, command.userid) is not None:
        raise Refused("userid-taken", userid=command.userid)
    sender = ctx.sender.address
    addresses = command.addresses or ((sender,) if sender else ())
    if not addresses:
        raise Refused("signup-no-address")
    _check_address_count(ctx, len(addresses))
    now = ctx.now()
    since = now - SIGNUP_WINDOW
    if sender:
        recent = players.signups_since(ctx.session, since, sender=sender)
        _check_signups(recent, ctx.limits.signups_per_sender_per_day, "signups-per-address")
    host = ctx.sender.host
    if host:
        recent = players.signups_since(ctx.session, since, host=host)
        _check_signups(recent, ctx.limits.signups_per_host_per_day, "signups-per-machine")
    player = players.sign_up(
        ctx.session, command.userid, ctx.hash(command.secret), addresses, sender=sender, host=host, now=now
    )
    # Written with a language's own words (``inscription``): met in that language from the first mail.
    players.set_language(player, languages.written_in(command.line) or player.language)
    asked = _ask_to_confirm(ctx, player, addresses)
    asking = [a for a in addresses if comparable(a) in asked.tokens]
    context = {"player": player, "addresses": addresses, "asked": asking}
    mails = [_maybe_asking("signup", to, context, asked, player) for to in addresses]
    if sender and not any(same(sender, address) for address in addresses):
        mails.append(OutgoingMail("signup", sender, context))
    return mails


def confirm_address(ctx: Context, command: lang.ConfirmAddress) -> list[OutgoingMail]:
    """A reply to a mail asking to confirm an address: sent from that address, it confirms it for
    the player for good, and what waited for it goes."""
    confirmation = confirmations.find(ctx.session, command.token)
    now = ctx.now()
    if confirmation is None or (confirmation.confirmed_at is None and not confirmations.is_open(confirmation, now)):
        raise Refused(NOT_A_CONFIRMATION)
    if not same(ctx.sender.address or "", confirmation.address):
        raise Refused("confirmation-from-elsewhere")
    player = ctx.session.get(Player, confirmation.player_id)
    if player is None or not player.active:
        raise Refused("player-gone", userid=command.userid)
    again = confirmation.confirmed_at is not None
    confirmations.confirm(ctx.session, confirmation, now)
    waited = outbox.release(ctx.session, confirmation.address, HoldReason.UNCONFIRMED, now, player_id=player.id)
    context = {"player": player, "again": again, "waited": waited}
    return [OutgoingMail("address_confirmed", ctx.sender.address or "", context, player_id=player.id)]


def _check_signups(recent: list[datetime], allowed: int, code: str) -> None:
    """Refused (`code`: by the sender's address, or by the machine the mail came from) when
    `recent` signups are as many as `allowed` in a day."""
    if len(recent) >= allowed:
        raise Refused(code, count=len(recent), after=recent[0] + SIGNUP_WINDOW)


def _check_address_count(ctx: Context, count: int) -> None:
    if count > ctx.limits.addresses_per_player:
        raise Refused("too-many-addresses", count=count, most=ctx.limits.addresses_per_player)


@dataclass(frozen=True)
class Asked:
    """The addresses asked to confirm themselves: the token of each one's request (by the address's
    comparable form), and until when a reply confirms it."""

    tokens: dict[str, str]
    until: datetime


def _ask_to_confirm(ctx: Context, player: Player, addresses: Sequence[str]) -> Asked:
    """Ask each of `addresses` that `player` has not confirmed to confirm itself. A club without
    confirmations vouches for them instead (none is asked).

    Refused whole when an address, or the server, has been sent as many requests as it may (an
    address the mail comes from is only not asked again), or when an address never answered the
    request it was sent within the week it had."""
    unconfirmed = confirmations.unconfirmed(ctx.session, player, addresses)
    now = ctx.now()
    expires_at = now + CONFIRMATION_EXPIRY
    if not ctx.club.confirm_addresses:
        confirmations.vouch(ctx.session, player, unconfirmed, now=now)
        return Asked({}, expires_at)
    asking = []
    for address in unconfirmed:
        if confirmations.left_unanswered(ctx.session, address, now):
            raise Refused("confirmations-unanswered", address=address)
        recent = confirmations.requests_since(ctx.session, now - CONFIRMATIONS_PER_ADDRESS_WINDOW, address=address)
        if len(recent) < ctx.limits.confirmations_per_address_per_day:
            asking.append(address)
        elif not same(address, ctx.sender.address or ""):
            raise Refused(
                "confirmations-per-address",
                address=address,
                count=len(recent),
                after=recent[0] + CONFIRMATIONS_PER_ADDRESS_WINDOW,
            )
        # else: its own mail names it again (a second signup from it), which the signups' limits
        # bound; it is not asked again today, and what is for the new player waits for it.
    unconfirmed = asking
    recent = confirmations.requests_since(ctx.session, now - CONFIRMATIONS_WINDOW)
    if len(recent) + len(unconfirmed) > ctx.limits.confirmations_per_hour:
        after = recent[0] + CONFIRMATIONS_WINDOW if recent else Fact("an-hour")
        raise Refused("confirmations-per-hour", count=len(recent), most=ctx.limits.confirmations_per_hour, after=after)
    tokens = {
        comparable(a): confirmations.request(ctx.session, player, a, now=now, expires_at=expires_at)
        for a in unconfirmed
    }
    return Asked(tokens, expires_at)


def _maybe_asking(template: str, to: str, context: dict[str, Any], asked: Asked, player: Player) -> OutgoingMail:
    """The mail `template` to `player`'s address `to`: the request to confirm it, when it is asked to."""
    token = asked.tokens.get(comparable(to))
    if token is None:
        return OutgoingMail(template, to, context, player_id=player.id)
    return OutgoingMail(template, to, {**context, "confirm_until": asked.until}, player_id=player.id, reply_token=token)


def change_password(ctx: Context, command: lang.ChangePassword) -> list[OutgoingMail]:
    player = ctx.authenticate(command.userid, command.old)
    players.set_password(player, ctx.hash(command.new))
    return recipients.to_player(ctx, player, "password_changed", player=player)


def ask_password_reset(ctx: Context, command: lang.AskPasswordReset) -> list[OutgoingMail]:
    """Mail the player's registered addresses a one-time reset address. Whoever asked hears the
    same whatever happened: whether the userid exists, has addresses, or was sent too many resets
    today is nobody else's business."""
    answer = recipients.to_sender(
        ctx, "password_reset_asked", userid=command.userid, expiry=ctx.club.password_reset_expiry
    )
    player = players.find(ctx.session, command.userid)
    if player is None or not player.active:
        return [answer]
    now = ctx.now()
    if resets.sent_since(ctx.session, player, now - RESET_WINDOW) >= ctx.club.password_resets_per_day:
        return [answer]
    expires_at = now + ctx.club.password_reset_expiry
    token = resets.start(ctx.session, player, now=now, expires_at=expires_at)
    context = {"player": player, "expires_at": expires_at}
    mails = [
        OutgoingMail("password_reset", a.address, context, player_id=player.id, reply_token=token)
        for a in player.addresses
    ]
    return mails if any(same(answer.to, m.to) for m in mails) else [*mails, answer]


def reset_password(ctx: Context, command: lang.ResetPassword) -> list[OutgoingMail]:
    """A reply to a reset mail, from one of the player's addresses: the new password counts, the
    reset is used up, and any wait after wrong passwords ends (the player proved they read their
    own mail). Every address of the player is told which of them used it."""
    reset = resets.find(ctx.session, command.token)
    now = ctx.now()
    if reset is None or reset.used_at is not None or reset.expires_at <= now:
        raise Refused("reset-used", userid=command.userid)
    player = ctx.session.get(Player, reset.player_id)
    if player is None or not player.active:
        raise Refused("player-gone", userid=command.userid)
    used_from = resetting_address(player, ctx.sender.address)
    if used_from is None:
        raise Refused("reset-from-elsewhere")
    players.set_password(player, ctx.hash(command.secret))
    players.clear_password_waits(ctx.session, player)
    resets.use(reset, now)
    context = {"player": player, "reset_from": used_from}
    return [OutgoingMail("password_changed", a.address, context) for a in player.addresses]


def choose_language(ctx: Context, command: lang.ChooseLanguage) -> list[OutgoingMail]:
    """Every mail to the player from now on in `command.language`; this answer already is."""
    player = ctx.authenticate(command.userid, command.secret)
    players.set_language(player, command.language)
    mails = recipients.to_player(ctx, player, "language", player=player)
    return [replace(mail, language=command.language) for mail in mails]


def resetting_address(player: Player, address: str | None) -> str | None:
    """The address of `player`'s that `address` is (in any letter case), when it may use the
    player's password reset; None when it may not. A reset's token alone is not enough: it
    may have been read, or forwarded, on its way."""
    if address is None:
        return None
    return next((a.address for a in player.addresses if same(a.address, address)), None)


def change_address(ctx: Context, command: lang.ChangeAddress) -> list[OutgoingMail]:
    player = ctx.authenticate(command.userid, command.secret)
    _check_address_count(ctx, len(command.addresses))
    asked = _ask_to_confirm(ctx, player, command.addresses)
    resumed = _resume(ctx, command.addresses)
    old = players.set_addresses(ctx.session, player, command.addresses)
    # Both the old and the new addresses hear of it: a stolen password shows up.
    recipients = distinct([*old, *command.addresses])
    context = {"player": player, "old": old, "new": list(command.addresses), "resumed": resumed}
    return [_maybe_asking("address_changed", to, context, asked, player) for to in recipients]


def add_address(ctx: Context, command: lang.AddAddress) -> list[OutgoingMail]:
    """More addresses for the player; an address named again that is not confirmed yet is asked
    again, and one whose mail stopped after bounces is written to again."""
    player = ctx.authenticate(command.userid, command.secret)
    known = {comparable(a.address) for a in player.addresses}
    _check_address_count(ctx, len(known | {comparable(a) for a in command.addresses}))
    asked = _ask_to_confirm(ctx, player, command.addresses)
    resumed = _resume(ctx, command.addresses)
    old = players.add_addresses(player, command.addresses)
    new = [a.address for a in player.addresses]
    if new == old and not asked.tokens and not resumed:
        raise Refused("has-addresses-already", userid=player.userid)
    context = {"player": player, "old": old, "new": new, "resumed": resumed}
    return [_maybe_asking("address_changed", to, context, asked, player) for to in new]


def _resume(ctx: Context, addresses: Sequence[str]) -> list[str]:
    """Those of `addresses` to which mail had stopped after bounces (`pbm.store.bounces`): a player
    naming an address says it takes mail, so mail goes to it again, and what waited for it goes
    with the next time pass. What bounces reported of the others is forgotten too."""
    stopped = bounces.stopped(ctx.session, addresses)
    for address in distinct(addresses):
        bounces.resume(ctx.session, address, ctx.now())
    return [address for address in distinct(addresses) if comparable(address) in stopped]


def all_games(ctx: Context, command: lang.AllGames) -> list[OutgoingMail]:
    (player,) = ctx.named_players([command.userid])
    if command.which == "next":
        found = digests.by_time_left(ctx, board_lists.waiting_for(ctx.session, player.id))
    elif command.which == "all":
        found = board_lists.games_of(ctx.session, player, statuses=board_lists.STATUSES, limit=200)
    else:
        found = board_lists.playing(ctx.session, player.id)
    games = [game_summary(pbm.games.get(board.game_type), board) for board in found]
    return [recipients.to_sender(ctx, "all_games", player=player, games=games, which=command.which)]


def signoff(ctx: Context, command: lang.Signoff) -> list[OutgoingMail]:
    """Leave the server: every game still being played is forfeited (as pbmserv did; called off
    in its first round, `pbm.store.boards.finish`), and the userid stays taken, so that the records
    keep meaning one player."""
    player = ctx.authenticate(command.userid, command.secret)
    mails: list[OutgoingMail] = []
    forfeited: list[GameSummary] = []
    called_off: list[GameSummary] = []
    for playing in board_lists.playing(ctx.session, player.id):
        board = ctx.board(playing.game_type, playing.board, for_update=True)
        if board.seat_of(player) not in board.seats_in_play():
            continue  # out of that game already: it goes on without them
        mails += play.leave(ctx, board, player, play.SIGNING_OFF)
        ended = called_off if board.row.status == BoardStatus.CANCELLED else forfeited
        ended.append(game_summary(board.engine, board.row))
    goodbye = recipients.to_player(ctx, player, "signoff", player=player, forfeited=forfeited, called_off=called_off)
    # Said in the player's own words: once signed off, their addresses no longer name a reader.
    mails += [replace(mail, language=player.language, zone=player.time_zone) for mail in goodbye]
    players.sign_off(player, ctx.now())
    # No digest goes to a player who left: what waited for one never will, and says why.
    preferences.set_digest(player, (), None)
    outbox.drop_digest_mail(ctx.session, player.id, ctx.now())
    return mails
