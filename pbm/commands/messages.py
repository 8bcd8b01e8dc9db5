"""The command layer's words: every fact a parser reports or a handler refuses with, in English.

Parsers and handlers decide facts (``Fact("not-your-turn", userid="bob")``); this catalogue
says them, and the engines' catalogue (`pbm.games.messages`) says what an engine decided.
One catalogue, kept in blocks by who raises the facts. What each verb does and the names of its
arguments are not here: they are the verb's own entry (`pbm.commands.verbs.verb_catalogue`).
"""

from __future__ import annotations

from pbm.facts import Catalogue, Plural, merged
from pbm.games import base
from pbm.timekeeping.messages import TIME_RULES

PARSING: Catalogue = {
    # What the command language (`pbm.commands.language`, `verbs`, `usage`, `plan`) reports
    # about a line it cannot read.
    "usage": "Usage: {usage}",
    "empty-line": "The line is empty",
    "game-name-first": "'{word}' needs the name of the game first, e.g. {example}",
    "not-a-command-near": "'{word}' is not a command; did you mean {meant}?",
    "not-a-command": "'{word}' is not a command; a command starts with one of: {known}",
    "game-without-verb": "What should {game} do? Try: {game} help",
    "not-a-game-command-near": "'{word}' is not a {game} command; did you mean {meant}?",
    "not-a-game-command": "'{word}' is not a {game} command; the {game} commands are: {verbs}",
    # one argument
    "userid-not-ascii": (
        "'{word}' is not a userid: '{character}' is not an ASCII letter; a userid is 2 to 32 letters a-z, "
        "digits, '.', '_' or '-', starting with a letter"
    ),
    "not-a-userid": (
        "'{word}' is not a userid: a userid is 2 to 32 letters, digits, '.', '_' or '-', starting with a letter"
    ),
    "not-a-board": "'{word}' is not a board number (boards are numbered from 101)",
    "not-a-board-at": "'{word}': write board#N, where N is a move number, e.g. 101#5",
    "not-an-address": "'{word}' is not a mail address",
    "not-a-number-of-games": "'{word}' is not a number of games: write 0 to {most} (0 stops seeking)",
    "not-a-limit": "The last word is not a limit: write a number of games, or inf for none",
    "not-a-language": "'{word}' is not a language the server speaks: write one of {known}",
    "not-a-day": "'{word}' is not a day: write it as 2026-12-20 (or 'now' to start now)",
    "not-a-zone": (
        "'{word}' is not a time zone: write its IANA name, such as Europe/Paris, America/New_York or Asia/Tokyo"
    ),
    "not-digest-times": (
        "'{word}' is not a list of times of day: write up to {most}, local time, separated by commas, "
        "such as 07:30,19:00"
    ),
    "not-local-hours": (
        "'{word}' is not a span of hours: write when it starts and ends, local time, such as 22:00-07:00"
    ),
    # a queue's lines
    "queue-line-without-then": "'{part}' has no 'then': write 'if MOVES then MOVE'",
    "queue-line-incomplete": "'{part}' needs the moves after 'if' and your move after 'then'",
    "queue-line-without-move": "'{part}' needs your move after '{word}'",
    "queue-two-fallbacks": "A queue has at most one line without 'if' (the move played whatever the others play)",
    "queue-empty": "The queue is empty: write the move to play, or 'if MOVES then MOVE'",
    # a whole mail (`pbm.commands.plan`)
    "not-our-reply-address": (
        "The address you replied to is not a reply address of this server (it may be damaged, "
        "or belong to another server); send the move as a command instead: "
        "GAME move BOARD USERID PASSWORD MOVE"
    ),
    "digest-reply-without-moves": (
        "Your reply to the digest has no move in it: write one line for each game, its board and your "
        "move (101 c3), above the quoted digest"
    ),
    "digest-board-not-waiting": "Board {board} is not one of the games waiting for your move now",
    "digest-board-shared": (
        "Two of your games waiting have the number {board}: write the game's name first (cephalopod {board} c3)"
    ),
    "no-readable-text": (
        "Your mail has no text the server could read ({why}). Send your commands "
        "as plain text, in the body or as the subject"
    ),
    "reply-without-move": (
        "Your reply has no move in it: write the move on the first line, above the quoted board. "
        'To write to the other players without moving, write "chat" there and your words below it'
    ),
    "reset-address-unknown": (
        "The reset address you replied to has been used, has expired or was never sent; "
        "ask for another with: password reset USERID"
    ),
    "reset-reply-without-password": (
        "Write the new password alone on the first line of your reply, above the quoted mail"
    ),
    "confirmation-address-unknown": (
        "The confirmation address you replied to has expired, or was never sent; ask for another with: "
        "add USERID PASSWORD ADDRESS"
    ),
    "no-command-found": "No command found in your mail. A command is a line that starts with one of: {commands}",
    "too-many-commands": Plural(
        "count",
        "Your mail has {count} more command line than the {most} one mail may carry; those were not "
        "carried out. Send them in another mail.",
        "Your mail has {count} more command lines than the {most} one mail may carry; those were not "
        "carried out. Send them in another mail.",
    ),
    "answers-board-mail": (
        "Your mail answers a mail about {title} board {board}, but it came to the server's own address, "
        "which reads commands only, not to that mail's reply address (your mail program may have left "
        "its Reply-To aside), so nothing was done. To play from here, send the move as a command: "
        "{game} move {board} {userid} PASSWORD MOVE. To write to the other players, send {game} chat "
        "{board} {userid} PASSWORD, with your words below it"
    ),
    "answers-board-shown": (
        "Your mail answers a mail about {title} board {board}, but it came to the server's own address, "
        "which reads commands only, so nothing was done. To see the board again, send: {game} show {board}. "
        "To write to a player, send: message YOURID PASSWORD USERID, with your words below it, after a blank line"
    ),
    "answers-message": (
        "Your mail answers a message the server passed on to you, but it came to the server, which reads "
        "commands only, so nothing was passed on. To answer its author, send: message YOURID PASSWORD "
        "AUTHOR (the mail you answered names its author), with your words below it, after a blank line"
    ),
    "answers-announcement": (
        "Your mail answers an announcement, but it came to the server, which reads commands only, so "
        "nothing was passed on. To answer its author, send: message YOURID PASSWORD AUTHOR (the mail "
        "you answered names its author), with your words below it, after a blank line"
    ),
}

USAGE: Catalogue = {
    # Usage lines, as ``help`` lists them and a line that fits none answers with: the command's
    # words stay the server's (it reads only them), the names of what a player writes in their
    # place are said in the reader's language. The verbs' arguments (``arguments-<verb>``, one
    # code for each shape, the first verb's that takes it) are their usage, read from the verb
    # table (`pbm.commands.verbs.verb_catalogue`), so that a verb stays one entry; a translation
    # names them in its language, where the lower-case words
    # (off, all, if, then, else, new, open, inf ...) stay the server's.
    "usage-line": "{command} {arguments}",
    "usage-bare": "{command}",
    "usage-either": "{first}  |  {other}",
}

REFUSALS: Catalogue = {
    # Why a handler refuses a command it understood.
    # -- pieces other refusals are made of
    "comma-list": "{first}, {rest}",
    "semicolon-list": "{first}; {rest}",
    "an-hour": "an hour",
    "days": Plural("count", "{count} day", "{count} days"),
    "hours": Plural("count", "{count} hour", "{count} hours"),
    "days-and-hours": "{days} {hours}",
    "invalid-challenge": "Invalid challenge",
    # -- who is asking
    "no-such-player": "There is no player '{userid}' (sign up with: signup userid password)",
    "no-player-signed-up": "No player is signed up as {userids}",
    "bots-do-not-play": "{userids} cannot play {title}: the server's bots play only the games they were built for",
    "player-gone": "There is no player '{userid}' any more",
    "wrong-password": "Wrong password for {userid}",
    "password-length": "A password must be {shortest} to {longest} characters long",
    "password-wait-own": (
        "Too many wrong passwords for {userid} from this address: commands with its password are refused "
        "from here until {until:moment}. Replying to a board mail still plays a move without the "
        "password, and a password reset (password reset {userid}) ends the wait"
    ),
    "password-wait-others": (
        "Too many wrong passwords for {userid} from addresses it has not registered: commands with its "
        "password are refused from them until {until:moment}. From the addresses {userid} "
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
        "You can only start a game you play in: the challenge must come from the registered address of one of {userids}"
    ),
    "bots-alone-for-admins": (
        "A game of the server's bots alone ({userids}) is an exhibition that only the server's administrators "
        "may start: the bots play for people. To play them, name yourself among the players"
    ),
    "bot-games-at-limit": Plural(
        "playing",
        "{userid} already has {playing} game with the server's bots going, and one player may have {most} at "
        "once: the bots' thinking is shared by the whole club. Finish or resign one first",
        "{userid} already has {playing} games with the server's bots going, and one player may have {most} at "
        "once: the bots' thinking is shared by the whole club. Finish or resign one first",
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
    "move-is-stale": "Stale move: {reason}",
    "illegal-move": "Illegal move: {reason}",
    "no-passing": "{title} does not allow passing: every turn must be played",
    "no-swap": "{title} has no swap: the first player named in the challenge moves first",
    # -- accounts
    "no-help-topic": "There is no help on '{topic}'; the topics are: {topics}",
    "userid-reserved": "'{userid}' cannot be a userid: challenges use it for a free seat",
    "userid-for-bots": (
        "'{userid}' cannot be a userid: bot1, bot2 and so on are the server's computer players, "
        "which anyone may challenge; choose another one"
    ),
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
    "confirmations-per-address": Plural(
        "count",
        "{address} has been sent a request to confirm it in the last 24 hours, as many as one address gets; "
        "try again after {after}",
        "{address} has been sent {count} requests to confirm it in the last 24 hours, as many as one address "
        "gets; try again after {after}",
    ),
    "confirmations-unanswered": (
        "{address} was asked to confirm it, and no reply came from it within a week: it is not asked "
        "again. If it is yours, write to the server's administrator"
    ),
    "confirmations-per-hour": (
        "The server has sent {count} requests to confirm an address in the last hour, and may send {most}; "
        "try again after {after}"
    ),
    "reset-used": (
        "The reset address you replied to has been used or has expired; ask for another with: password reset {userid}"
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
    "open-challenge-expired": "The open challenge at {title} board {board} expired at {expired:moment}",
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
    "nothing-to-take-back": "There is no move to take back",
    # -- vacations
    "vacation-in-the-past": "A vacation cannot start in the past: {starts} is gone (write 'now' to start now)",
    "vacation-too-far": "A vacation can be booked at most a year ahead, for at most a year",
    "vacation-ends-first": "The vacation would end before it starts: the last day away ({until}) comes first",
    "vacation-overlaps": (
        "That overlaps your vacation from {starts:clock} until {ends:clock} {ends:zone}: send "
        "'vacation {userid} PASSWORD off' to call it off, or choose other days"
    ),
    "vacation-over-allowance": (
        "A vacation from {starts:clock} until {ends:clock} {ends:zone} ({length}) takes more than "
        "your allowance: at most {allowance} away in any 365 days, those booked counted. From "
        "{starts:day} you can take up to {left}"
    ),
    "not-away": "{userid} is not away and has no vacation booked: there is nothing to end",
    # -- authenticity (`pbm.mail.pipeline.apply`)
    "reply-failed-dmarc": (
        "Your reply came from {userid}'s address, but the mail systems on its way could not vouch that "
        "it was written there (it failed DMARC: a forged sender, or a mail changed on its way), so "
        "nothing was done. If it was you, reply to this mail with the same words, and they count"
    ),
    "reply-not-vouched": (
        "Your reply came from {userid}'s address, but this club plays a reply without a password only "
        "when the mail systems on its way vouch that it was written there (DMARC pass), and they did not "
        "({result}), so nothing was done. Send the command with {userid}'s password instead, and it counts"
    ),
    "no-dmarc-result": "no DMARC result",
    # -- mail preferences
    "no-quiet-hours-to-end": "{userid} has no quiet hours: there is nothing to end",
    "no-digest-to-end": "{userid} takes no digest: there is nothing to end",
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

PREFERENCES: Catalogue = {
    # What the answer to ``timezone`` and ``quiet`` says (`pbm.commands.preferences`).
    "mail-preferences-subject": "Mail preferences: {userid}",
    "zone-now": "{userid} lives in {zone} from now on: dates in mails to {userid} are its local time.",
    "quiet-hours-now": (
        "From now on no mail goes to {userid} between {hours}, local time: what comes then waits until they "
        "end, except the answers to mail {userid} sends."
    ),
    "quiet-hours-ended": "{userid} has no quiet hours any more: mail goes at any hour.",
    "zone-is": "{userid} lives in {zone}, where it is {now:clock} now.",
    "quiet-hours-are": "Quiet hours: {hours} ({zone} time); mail that comes then waits until they end.",
    "no-quiet-hours": "Quiet hours: none; mail goes at any hour.",
    "digest-now": (
        "From now on {userid} gets a digest at {times} ({zone} time) instead of a mail for each move; "
        "the next at {next:clock}."
    ),
    "digest-ended": "{userid} gets a mail for each move again, no digest.",
    "digest-is": "Digests: at {times} ({zone} time); the next at {next:clock}.",
    "no-digest": "Digests: none; a mail for each move.",
    "mail-preferences-how": (
        "To change them:  timezone {userid} PASSWORD ZONE        (an IANA name: Europe/Paris)\n"
        "                 quiet {userid} PASSWORD HH:MM-HH:MM    (22:00-07:00), or off\n"
        "                 digest {userid} PASSWORD HH:MM,...     (07:30,19:00), or off"
    ),
}

EVENTS: Catalogue = {
    # What happened at a board between moves: its move list shows it (`pbm.commands.deadlines`).
    "event-away": "{userid} is away until {until:moment}: their time stands still",
    "event-back": "{userid} is back from vacation: their time runs again",
}

MESSAGES: Catalogue = merged([PARSING, USAGE, REFUSALS, PREFERENCES, EVENTS])


def catalogue() -> Catalogue:
    """The words a refusal or a parse error may need: this layer's, the engines' and those of a
    challenge's time rules (`pbm.timekeeping.clocks`, said with the other facts of time).

    The verbs' own words (what each does, its arguments) are not here: the table of verbs is above
    the handlers that raise these facts, and gives them itself (`pbm.commands.verbs.verb_catalogue`,
    which `pbm.words` merges; a usage error carries its verb's)."""
    return merged([MESSAGES, base.catalogue(), TIME_RULES])
