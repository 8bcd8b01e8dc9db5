"""The account verbs: signing up, passwords and addresses, signing off; and the help mails."""

from __future__ import annotations

from datetime import timedelta

import pbm.games
from pbm.addresses import distinct, same
from pbm.commands import language as lang
from pbm.commands import play
from pbm.commands.context import Context, try_again_after
from pbm.commands.effects import OutgoingMail, Refused
from pbm.store import board_lists, boards, players, resets
from pbm.store.models import BoardStatus, Player
from pbm.views import game_summary

SIGNUP_WINDOW = timedelta(days=1)
RESET_WINDOW = timedelta(days=1)


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
    if command.userid == lang.OPEN_SEAT:
        raise Refused(f"'{lang.OPEN_SEAT}' cannot be a userid: challenges use it for a free seat")
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
    recipients = distinct([*addresses, *([sender] if sender else [])])
    return [OutgoingMail("signup", to, {"player": player, "addresses": addresses}) for to in recipients]


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
    mails = [OutgoingMail("password_reset", a.address, context, reply_token=token) for a in player.addresses]
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
    old = players.set_addresses(ctx.session, player, command.addresses)
    # Both the old and the new addresses hear of it: a stolen password shows up.
    recipients = distinct([*old, *command.addresses])
    context = {"player": player, "old": old, "new": list(command.addresses)}
    return [OutgoingMail("address_changed", to, context) for to in recipients]


def add_address(ctx: Context, command: lang.AddAddress) -> list[OutgoingMail]:
    player = ctx.authenticate(command.userid, command.secret)
    old = players.add_addresses(player, command.addresses)
    new = [a.address for a in player.addresses]
    if new == old:
        raise Refused(f"{player.userid} has those addresses already")
    context = {"player": player, "old": old, "new": new}
    return [OutgoingMail("address_changed", to, context) for to in new]


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
