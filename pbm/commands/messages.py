"""The command layer's words: every fact a parser reports or a handler refuses with, in English.

Parsers and handlers decide facts (``Fact("not-your-turn", userid="bob")``); this catalogue
says them, and the engines' catalogue (`pbm.games.messages`) says what an engine decided.
One catalogue, kept in blocks by who raises the facts.
"""

from __future__ import annotations

from pbm.facts import Catalogue, Plural, merged
from pbm.games import base

PARSING: Catalogue = {
    # What the command language (`pbm.commands.language`, `verbs`, `usage`, `plan`) reports
    # about a line it cannot read.
}

HELP: Catalogue = {
    # What each verb is for (``help`` and the rules page list them).
}

REFUSALS: Catalogue = {
    # Why a handler refuses a command it understood.
    # -- pieces other refusals are made of
    "comma-list": "{first}, {rest}",
    "semicolon-list": "{first}; {rest}",
    "utc-time": "{at:%Y-%m-%d %H:%M} UTC",
    "an-hour": "an hour",
    "days": Plural("count", "{count} day", "{count} days"),
    "hours": Plural("count", "{count} hour", "{count} hours"),
    "days-and-hours": "{days} {hours}",
    "invalid-challenge": "Invalid challenge",
    # -- who is asking
    "no-such-player": "There is no player '{userid}' (sign up with: signup userid password)",
    "no-player-signed-up": "No player is signed up as {userids}",
    "player-gone": "There is no player '{userid}' any more",
    "wrong-password": "Wrong password for {userid}",
    "password-length": "A password must be {shortest} to {longest} characters long",
    "password-wait-own": (
        "Too many wrong passwords for {userid} from this address: commands with its password are refused "
        "from here until {until:%Y-%m-%d %H:%M} UTC. Replying to a board mail still plays a move without the "
        "password, and a password reset (password reset {userid}) ends the wait"
    ),
    "password-wait-others": (
        "Too many wrong passwords for {userid} from addresses it has not registered: commands with its "
        "password are refused from them until {until:%Y-%m-%d %H:%M} UTC. From the addresses {userid} "
        "registered they still work"
    ),
    "not-confirmed": (
        "{userid} has no confirmed address yet. Reply to the mail the server sent to confirm one (or ask for "
        "another: add {userid} PASSWORD ADDRESS), then send this again"
    ),
    # -- boards and seats
    "no-such-board": "There is no {title} board {board}",
    "not-playing-at": "{userid} does not play in {title} board {board}",
    "board-over": "{title} board {board} is over. {summary}",
    "reply-player-gone": "The player this reply address names no longer plays here",
    "reply-from-unregistered": (
        "This reply address is {userid}'s, and works only from an address {userid} registered. To play from "
        "this address, send the move as a command instead: {game} move {board} {userid} PASSWORD MOVE"
    ),
    "reply-stale": "{why}. {then}",
    "reply-names-no-move": (
        "Your reply came to the reply address of an older board mail, which does not say which move it "
        "showed: the game may have moved on since, so nothing was done"
    ),
    "reply-moved-on": (
        "Your reply answers the board after move {replied_at}, but the game has moved on since: it is at "
        "move {now_at} now, and nothing was done"
    ),
    "reply-wait-for-turn": "It is {userid}'s turn: you will be mailed the board when it is yours",
    "reply-with-move": "Reply to the newest board mail (this one will do) with your move",
    "reply-if-still": "Reply to the newest board mail (this one will do) if you still want to {doing}",
    "doing-resign": "resign",
    "doing-propose-draw": "propose a draw",
    "doing-propose-undo": "propose to take back the last move",
    "doing-accept": "accept the proposal",
    "doing-reject": "reject the proposal",
    "fewer-moves": Plural(
        "count",
        "{title} board {board} has {count} move, not {at_move}",
        "{title} board {board} has {count} moves, not {at_move}",
    ),
    # -- play
    "seat-named-twice": "Each player can take only one seat: a userid is named twice",
    "challenge-not-from-player": (
        "You can only start a game you play in: the challenge must come from the registered address of one of "
        "{userids}"
    ),
    "challenge-unconfirmed": (
        "No game can start with {userids} yet: the server may not write to a player before they confirm an "
        "address (by replying to the mail the server sent them)"
    ),
    "challenge-policies": "{refusals}",
    "takes-no-challenges": "{userid} takes no {title} challenges",
    "at-game-limit": Plural(
        "playing",
        "{userid} plays {playing} {title} game, as many as {userid} takes at once",
        "{userid} plays {playing} {title} games, as many as {userid} takes at once",
    ),
    "challenges-per-hour": (
        "{userid} has started {count} games in the last hour, as many as one player may; try again after {after}"
    ),
    "not-your-turn": "It is not your turn: {userid} is to move",
    "stale-move": "Stale move: {reason}",
    "illegal-move": "Illegal move: {reason}",
    "no-passing": "{title} does not allow passing: every turn must be played",
    "no-swap": "{title} has no swap: the first player named in the challenge moves first",
    # -- accounts
    "no-help-topic": "There is no help on '{topic}'; the topics are: {topics}",
    "userid-reserved": "'{userid}' cannot be a userid: challenges use it for a free seat",
    "userid-taken": "The userid '{userid}' is taken; choose another one",
    "signup-no-address": "Your mail has no From address; name the address to use: signup userid password address",
    "confirmation-unknown": (
        "The confirmation address you replied to has expired, or was never sent; ask for another with: "
        "add USERID PASSWORD ADDRESS"
    ),
    "confirmation-from-elsewhere": (
        "A confirmation counts only from the address it was sent to; reply from that address "
        "(your mail program may be sending from another one)"
    ),
    "signups-per-address": (
        "Your address has signed up {count} players in the last 24 hours, as many as one address may; "
        "try again after {after}"
    ),
    "signups-per-machine": (
        "The machine your mail came from has signed up {count} players in the last 24 hours, as many as one "
        "machine may; try again after {after}"
    ),
    "too-many-addresses": "That would give the player {count} addresses, more than the {most} one player may have",
    "confirmations-per-address": (
        "{address} has been sent {count} requests to confirm it in the last 24 hours, as many as one address "
        "gets; try again after {after}"
    ),
    "confirmations-per-hour": (
        "The server has sent {count} requests to confirm an address in the last hour, and may send {most}; "
        "try again after {after}"
    ),
    "reset-used": (
        "The reset address you replied to has been used or has expired; ask for another with: "
        "password reset {userid}"
    ),
    "reset-from-elsewhere": (
        "A reply to a password reset mail counts only from an address the player registered; nothing was changed"
    ),
    "has-addresses-already": "{userid} has those addresses already",
    # -- finding opponents
    "not-an-open-challenge": (
        "{title} board {board} is not an open challenge (a game that began has no free seat); "
        "'{game} games open' lists those you may join"
    ),
    "open-challenge-expired": "The open challenge at {title} board {board} expired at {expired:%Y-%m-%d %H:%M} UTC",
    "seated-already": "{userid} has a seat at {title} board {board} already",
    "no-seat-at-open-challenge": "{userid} has no seat at the open challenge at {title} board {board}",
    # -- reading
    "games-next-nobody": "Whose turn? Name a userid: games userid next",
    # -- talking
    "none-named-plays": "None of the players named still plays here",
    "broadcast-admins-only": "broadcast is for the server's administrators, and {userid} is not one",
    "nothing-to-pass-on": "There is nothing to pass on: write your words below the command, after a blank line",
    "talks-per-hour": (
        "{userid} has sent {count} chats and messages in the last hour, as many as one player may; "
        "try again after {after}"
    ),
    # -- proposals
    "draw-proposal": "draw proposal",
    "undo-proposal": "proposal to take back the last move",
    "proposal-waiting": (
        "A {proposal} is already waiting for votes at {title} board {board}: answer it with accept or reject first"
    ),
    "nothing-to-vote-on": (
        "Nothing is waiting for votes at {title} board {board}: nobody has proposed a draw or an undo"
    ),
    "proposed-it": "You proposed it: the {proposal} waits for the others' votes",
    "accepted-already": "You accepted it already: the {proposal} waits for the others' votes",
    "out-of-the-game": "{userid} is out of this game, and has no say in it any more",
    "no-take-backs": "{title} does not allow taking a move back",
    "no-move-to-take-back": "There is no move to take back",
    # -- vacations
    "vacation-in-the-past": "A vacation cannot start in the past: {starts} is gone (write 'now' to start now)",
    "vacation-too-far": "A vacation can be booked at most a year ahead, for at most a year",
    "vacation-ends-first": "The vacation would end before it starts: the last day away ({until}) comes first",
    "vacation-overlaps": (
        "That overlaps your vacation from {starts:%Y-%m-%d %H:%M} until {ends:%Y-%m-%d %H:%M} UTC: send "
        "'vacation {userid} PASSWORD off' to call it off, or choose other days"
    ),
    "vacation-over-allowance": (
        "A vacation from {starts:%Y-%m-%d %H:%M} until {ends:%Y-%m-%d %H:%M} UTC ({length}) takes more than "
        "your allowance: at most {allowance} away in any 365 days, those booked counted. From "
        "{starts:%Y-%m-%d} you can take up to {left}"
    ),
    "not-away": "{userid} is not away and has no vacation booked: there is nothing to end",
    # -- watching
    "watches-board-already": "{userid} watches {title} board {board} already",
    "watches-game-already": "{userid} watches every new {title} game already",
    "not-watching-board": "{userid} does not watch {title} board {board}",
    "not-watching-game": "{userid} does not watch every new {title} game",
    "plays-there": "{userid} plays at {title} board {board}, and gets its mails already",
    # -- queues, submissions, previews
    "queue-on-own-turn": (
        "It is your turn already, so there are no moves of the others to wait for: send the move you want to play"
    ),
    "queue-own-turn-inside": (
        "In 'if {when}' your own turn comes before the last move: name only the moves up to your turn"
    ),
    "queue-over-after": "After 'if {when}' the game would be over: nothing would be left to play",
    "queue-others-turn-after": "After 'if {when}' it is {userid}'s turn, not yours: name every move up to your turn",
    "queue-answer-illegal": "After 'if {when}', '{move}' would be illegal: {reason}",
    "nothing-submitted": "{userid} has no move submitted at this board: submit one first",
    "board-changed-since-submit": (
        "The board changed since {userid} submitted {move} (it is at move {now_at} now), so nothing was played: "
        "look at the board and submit again"
    ),
    "preview-illegal": "Illegal move: {reason} (at '{word}', {userid} to move, after {count} moves previewed)",
}

MESSAGES: Catalogue = merged([PARSING, HELP, REFUSALS])


def catalogue() -> Catalogue:
    """The words a refusal or a parse error may need: this layer's and the engines'."""
    return merged([MESSAGES, base.catalogue()])
