"""The account verbs: signing up, passwords and addresses, signing off; and the help mails."""

from __future__ import annotations

from datetime import timedelta

import pbm.games
from pbm.commands import language as lang
from pbm.commands.context import Context, try_again_after
from pbm.commands.effects import OutgoingMail, Refused
from pbm.store import board_lists, players

SIGNUP_WINDOW = timedelta(days=1)


def help_(ctx: Context, command: lang.Help) -> list[OutgoingMail]:
    topic = command.topic
    if topic is None or topic in ("commands", "help"):
        return [ctx.to_sender("help", games=pbm.games.all_games())]
    if topic in pbm.games.names():
        return [ctx.to_sender("game_help", game=pbm.games.get(topic))]
    topics = ", ".join(["commands", *pbm.games.names()])
    raise Refused(f"There is no help on '{topic}'; the topics are: {topics}")


def game_help(ctx: Context, command: lang.GameHelp) -> list[OutgoingMail]:
    return [ctx.to_sender("game_help", game=pbm.games.get(command.game))]


def list_games(ctx: Context, command: lang.ListGames) -> list[OutgoingMail]:
    return [ctx.to_sender("list", games=pbm.games.all_games())]


def signup(ctx: Context, command: lang.Signup) -> list[OutgoingMail]:
    if players.find(ctx.session, command.userid) is not None:
        raise Refused(f"The userid '{command.userid}' is taken; choose another one")
    sender = ctx.sender.address
    addresses = command.addresses or ((sender,) if sender else ())
    if not addresses:
        raise Refused("Your mail has no From address; name the address to use: signup userid password address")
    now = ctx.now()
    if sender:
        recent = players.signups_from(ctx.session, sender, since=now - SIGNUP_WINDOW)
        if len(recent) >= ctx.limits.signups_per_sender_per_day:
            raise Refused(
                f"Your address has signed up {len(recent)} players in the last 24 hours, as many as one "
                f"address may; try again after {try_again_after(recent[0], SIGNUP_WINDOW)}"
            )
    player = players.sign_up(ctx.session, command.userid, ctx.hash(command.secret), addresses, sender=sender, now=now)
    recipients = dict.fromkeys([*addresses, *([sender] if sender else [])])
    return [OutgoingMail("signup", to, {"player": player, "addresses": addresses}) for to in recipients]


def change_password(ctx: Context, command: lang.ChangePassword) -> list[OutgoingMail]:
    player = ctx.authenticate(command.userid, command.old)
    players.set_password(player, ctx.hash(command.new))
    return ctx.to_player(player, "password_changed", player=player)


def change_address(ctx: Context, command: lang.ChangeAddress) -> list[OutgoingMail]:
    player = ctx.authenticate(command.userid, command.secret)
    old = players.set_addresses(ctx.session, player, command.addresses)
    # Both the old and the new addresses hear of it: a stolen password shows up.
    recipients = dict.fromkeys([*old, *command.addresses])
    context = {"player": player, "old": old, "new": list(command.addresses)}
    return [OutgoingMail("address_changed", to, context) for to in recipients]


def signoff(ctx: Context, command: lang.Signoff) -> list[OutgoingMail]:
    player = ctx.authenticate(command.userid, command.secret)
    playing = board_lists.playing(ctx.session, player.id)
    if playing:
        names = ", ".join(f"{b.game_type} {b.board}" for b in playing)
        raise Refused(f"{player.userid} still plays in {names}: finish or resign those games first")
    mails = ctx.to_player(player, "signoff", player=player)
    players.sign_off(player, ctx.now())
    return mails
