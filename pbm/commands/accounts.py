"""The account verbs: signing up, passwords and addresses, signing off; and the help mails."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import pbm.games
from pbm.addresses import comparable, distinct, same
from pbm.commands import language as lang
from pbm.commands import play
from pbm.commands.context import Context, try_again_after
from pbm.commands.effects import OutgoingMail, Refused
from pbm.store import board_lists, boards, confirmations, outbox, players, resets
from pbm.store.models import BoardStatus, HoldReason, Player
from pbm.views import game_summary

SIGNUP_WINDOW = timedelta(days=1)
RESET_WINDOW = timedelta(days=1)
CONFIRMATION_EXPIRY = timedelta(days=7)
"""How long a reply to a confirmation request confirms the address."""
CONFIRMATIONS_PER_ADDRESS_WINDOW = timedelta(days=1)
CONFIRMATIONS_WINDOW = timedelta(hours=1)
NOT_A_CONFIRMATION = (
    "The confirmation address you replied to has expired, or was never sent; ask for another with: "
    "add USERID PASSWORD ADDRESS"
)


HELP_TOPICS = {
    "commands": "help",
    "help": "help",
    "tutorial": "help_tutorial",
    "ratings": "help_ratings",
    "queue": "help_queue",
    "time": "help_time",
}
"""``help TOPIC``: the mail template of each topic (besides the games, whose help is their own)."""


def help_(ctx: Context, command: lang.Help) -> list[OutgoingMail]:
    topic = command.topic or "commands"
    if topic in HELP_TOPICS:
        club = {"defaults": ctx.club.time_control, "allowance": ctx.club.vacation_allowance}
        return [ctx.to_sender(HELP_TOPICS[topic], games=pbm.games.all_games(), **club)]
    if topic in pbm.games.names():
        return [ctx.to_sender("game_help", game=pbm.games.get(topic))]
    topics = ", ".join([*dict.fromkeys(t for t in HELP_TOPICS if t != "help"), *pbm.games.names()])
    raise Refused(f"There is no help on '{topic}'; the topics are: {topics}")


def game_help(ctx: Context, command: lang.GameHelp) -> list[OutgoingMail]:
    return [ctx.to_sender("game_help", game=pbm.games.get(command.game))]


def list_games(ctx: Context, command: lang.ListGames) -> list[OutgoingMail]:
    return [ctx.to_sender("list", games=pbm.games.all_games())]


def signup(ctx: Context, command: lang.Signup) -> list[OutgoingMail]:
    """A new player; each address is asked to confirm itself (the mail it gets carries the reply
    address), and whoever signed up from another address hears which were asked."""
    if command.userid == lang.OPEN_SEAT:
        raise Refused(f"'{lang.OPEN_SEAT}' cannot be a userid: challenges use it for a free seat")
    if players.find(ctx.session, command.userid) is not None:
        raise Refused(f"The userid '{command.userid}' is taken; choose another one")
    sender = ctx.sender.address
    addresses = command.addresses or ((sender,) if sender else ())
    if not addresses:
        raise Refused("Your mail has no From address; name the address to use: signup userid password address")
    _check_address_count(ctx, len(addresses))
    now = ctx.now()
    since = now - SIGNUP_WINDOW
    if sender:
        recent = players.signups_since(ctx.session, since, sender=sender)
        _check_signups(recent, ctx.limits.signups_per_sender_per_day, "Your address", "address")
    host = ctx.sender.host
    if host:
        recent = players.signups_since(ctx.session, since, host=host)
        _check_signups(recent, ctx.limits.signups_per_host_per_day, "The machine your mail came from", "machine")
    player = players.sign_up(
        ctx.session, command.userid, ctx.hash(command.secret), addresses, sender=sender, host=host, now=now
    )
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
        raise Refused(
            "A confirmation counts only from the address it was sent to; reply from that address "
            "(your mail program may be sending from another one)"
        )
    player = ctx.session.get(Player, confirmation.player_id)
    if player is None or not player.active:
        raise Refused(f"There is no player '{command.userid}' any more")
    again = confirmation.confirmed_at is not None
    confirmations.confirm(ctx.session, confirmation, now)
    waited = outbox.release(ctx.session, confirmation.address, HoldReason.UNCONFIRMED, now, player_id=player.id)
    context = {"player": player, "again": again, "waited": waited}
    return [OutgoingMail("address_confirmed", ctx.sender.address or "", context, player_id=player.id)]


def _check_signups(recent: list[datetime], allowed: int, who: str, one: str) -> None:
    if len(recent) >= allowed:
        raise Refused(
            f"{who} has signed up {len(recent)} players in the last 24 hours, as many as one {one} may; "
            f"try again after {try_again_after(recent[0], SIGNUP_WINDOW)}"
        )


def _check_address_count(ctx: Context, count: int) -> None:
    if count > ctx.limits.addresses_per_player:
        raise Refused(
            f"That would give the player {count} addresses, more than the {ctx.limits.addresses_per_player} "
            "one player may have"
        )


@dataclass(frozen=True)
class Asked:
    """The addresses asked to confirm themselves: the token of each one's request (by the address's
    comparable form), and until when a reply confirms it."""

    tokens: dict[str, str]
    until: datetime


def _ask_to_confirm(ctx: Context, player: Player, addresses: Sequence[str]) -> Asked:
    """Ask each of `addresses` that `player` has not confirmed to confirm itself. A club without
    confirmations vouches for them instead (none is asked).

    Refused whole when an address, or the server, has been sent as many requests as it may."""
    unconfirmed = confirmations.unconfirmed(ctx.session, player, addresses)
    now = ctx.now()
    expires_at = now + CONFIRMATION_EXPIRY
    if not ctx.club.confirm_addresses:
        confirmations.vouch(ctx.session, player, unconfirmed, now=now)
        return Asked({}, expires_at)
    for address in unconfirmed:
        recent = confirmations.requests_since(ctx.session, now - CONFIRMATIONS_PER_ADDRESS_WINDOW, address=address)
        if len(recent) >= ctx.limits.confirmations_per_address_per_day:
            raise Refused(
                f"{address} has been sent {len(recent)} requests to confirm it in the last 24 hours, as many "
                f"as one address gets; try again after {try_again_after(recent[0], CONFIRMATIONS_PER_ADDRESS_WINDOW)}"
            )
    recent = confirmations.requests_since(ctx.session, now - CONFIRMATIONS_WINDOW)
    if len(recent) + len(unconfirmed) > ctx.limits.confirmations_per_hour:
        after = try_again_after(recent[0], CONFIRMATIONS_WINDOW) if recent else "an hour"
        raise Refused(
            f"The server has sent {len(recent)} requests to confirm an address in the last hour, and may send "
            f"{ctx.limits.confirmations_per_hour}; try again after {after}"
        )
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
    return ctx.to_player(player, "password_changed", player=player)


def ask_password_reset(ctx: Context, command: lang.AskPasswordReset) -> list[OutgoingMail]:
    """Mail the player's registered addresses a one-time reset address. Whoever asked hears the
    same whatever happened: whether the userid exists, has addresses, or was sent too many resets
    today is nobody else's business."""
    answer = ctx.to_sender("password_reset_asked", userid=command.userid, expiry=ctx.club.password_reset_expiry)
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
        raise Refused(
            "The reset address you replied to has been used or has expired; ask for another with: "
            f"password reset {command.userid}"
        )
    player = ctx.session.get(Player, reset.player_id)
    if player is None or not player.active:
        raise Refused(f"There is no player '{command.userid}' any more")
    used_from = resetting_address(player, ctx.sender.address)
    if used_from is None:
        raise Refused(
            "A reply to a password reset mail counts only from an address the player registered; "
            "nothing was changed"
        )
    players.set_password(player, ctx.hash(command.secret))
    players.clear_password_waits(ctx.session, player)
    reset.used_at = now
    context = {"player": player, "reset_from": used_from}
    return [OutgoingMail("password_changed", a.address, context) for a in player.addresses]


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
    old = players.set_addresses(ctx.session, player, command.addresses)
    # Both the old and the new addresses hear of it: a stolen password shows up.
    recipients = distinct([*old, *command.addresses])
    context = {"player": player, "old": old, "new": list(command.addresses)}
    return [_maybe_asking("address_changed", to, context, asked, player) for to in recipients]


def add_address(ctx: Context, command: lang.AddAddress) -> list[OutgoingMail]:
    """More addresses for the player; an address named again that is not confirmed yet is asked again."""
    player = ctx.authenticate(command.userid, command.secret)
    known = {comparable(a.address) for a in player.addresses}
    _check_address_count(ctx, len(known | {comparable(a) for a in command.addresses}))
    asked = _ask_to_confirm(ctx, player, command.addresses)
    old = players.add_addresses(player, command.addresses)
    new = [a.address for a in player.addresses]
    if new == old and not asked.tokens:
        raise Refused(f"{player.userid} has those addresses already")
    context = {"player": player, "old": old, "new": new}
    return [_maybe_asking("address_changed", to, context, asked, player) for to in new]


def all_games(ctx: Context, command: lang.AllGames) -> list[OutgoingMail]:
    (player,) = ctx.named_players([command.userid])
    if command.which == "next":
        found = board_lists.waiting_for(ctx.session, player.id)
    elif command.which == "all":
        found = board_lists.games_of(ctx.session, player, statuses=board_lists.STATUSES, limit=200)
    else:
        found = board_lists.playing(ctx.session, player.id)
    games = [game_summary(pbm.games.get(board.game_type), board) for board in found]
    return [ctx.to_sender("all_games", player=player, games=games, which=command.which)]


def signoff(ctx: Context, command: lang.Signoff) -> list[OutgoingMail]:
    """Leave the server: every game still being played is forfeited (as pbmserv did; called off
    in its first round, `pbm.store.boards.finish`), and the userid stays taken, so that the records
    keep meaning one player."""
    player = ctx.authenticate(command.userid, command.secret)
    mails: list[OutgoingMail] = []
    forfeited: list[str] = []
    called_off: list[str] = []
    for listed in board_lists.playing(ctx.session, player.id):
        board = ctx.board(listed.game_type, listed.board, for_update=True)
        engine = pbm.games.get(board.game_type)
        seat = boards.seat_of(board, player)
        if seat not in engine.seats_in_play(engine.resume(board.state, board.secret)):
            continue  # out of that game already: it goes on without them
        mails += play.leave(ctx, board, player, play.SIGNING_OFF)
        ended = called_off if board.status == BoardStatus.CANCELLED else forfeited
        ended.append(f"{engine.title} board {board.board}")
    mails += ctx.to_player(player, "signoff", player=player, forfeited=forfeited, called_off=called_off)
    players.sign_off(player, ctx.now())
    return mails
