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
    "not-a-day": "'{word}' is not a day: write it as 2026-12-20 (or 'now' to start now)",
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

HELP: Catalogue = {
    # What each verb is for (``help`` and the rules page list them): ``about-`` and the verb's
    # name, ``about-game-help`` for a game's own ``help``.
    "about-help": "This help, or a game's rules and options.",
    "about-signup": (
        "Sign up. Without an address, the server writes to the one you mail from. Each address gets a"
        " mail to reply to: the server writes nothing else to it until the reply confirms it. A "
        "userid is 2-32 letters a-z, digits, '.', '_' or '-'."
    ),
    "about-change-password": "Change your password; every address of yours hears of it.",
    "about-change-address": (
        "Write to these addresses from now on (the first is where boards go); the old ones hear of "
        "it. A new address gets a mail to reply to, and nothing else until the reply confirms it."
    ),
    "about-add": (
        "More addresses for the same player: mail from any of them counts as yours (replies to board "
        "mails too); boards still go to the first. Each new address confirms itself by a reply, as at"
        " signup; naming one not yet confirmed asks it again."
    ),
    "about-signoff": (
        "Leave the server; the games you still play are forfeited. Finished games and ratings stay in"
        " the records, and nobody else gets the userid."
    ),
    "about-message": "Mail the text below the command to these players; nobody sees anyone's address.",
    "about-password-reset": (
        "Forgot your password? A mail goes to the player's registered addresses with a reply address "
        "that works once, for a day: reply to it with the new password alone on the first line. "
        "Whoever asks learns nothing."
    ),
    "about-broadcast": "For the server's administrators: mail the text below the command to every player.",
    "about-vacation": (
        "Going away? Book it: FROM is now or a day (2026-12-20), UNTIL your last day away or a number"
        " of days (14d). While you are away your clocks stand still, nobody reminds you and you "
        "cannot forfeit on time; your opponents are told when you leave and come back. 'off' ends it "
        "(and calls off those booked ahead); with neither, where you stand and the days you have "
        "left."
    ),
    "about-list": "The games this server plays.",
    "about-all-show": "A player's games of every kind: those being played, those waiting for the player, or all.",
    "about-game-help": "The game's rules, its challenge options and its commands.",
    "about-challenge": (
        "Start a game. Send it from your own registered address; the first userid named moves first. "
        "The time rules --nagtime=N, --forfeittime=N, --totaltime=N and --clock=START+INCREMENT/CAP "
        "(days, or hours as 12h) set when the player to move is reminded and forfeits (see help "
        "time)."
    ),
    "about-join": (
        "Take a free seat of an open challenge (one that names 'open' for a player); the game starts "
        "when every seat is taken. 'games open' lists them."
    ),
    "about-seek": (
        "Ask for N more games (0: no more): the server pairs you with another seeker, the longest "
        "waiting first and then the nearest rating, and starts the game. Options narrow the games you"
        " take; without any, every game of this type will do. Without N, what you seek now."
    ),
    "about-move": (
        "#N is optional: the move is refused unless it is move N of the game, so a move sent against "
        "an old board is never misapplied. MOVE may also be: propose (a draw), undo (take back the "
        "last move), accept or reject (the draw or undo the others proposed): every player still in "
        "the game must accept, one reject ends the proposal, and any move withdraws it."
    ),
    "about-queue": (
        "Have a move played for you when your turn comes, if the others' moves are the ones you name "
        "(see help queue); with no move, what you queued; off forgets it."
    ),
    "about-submit": "See the board after your move, mailed to you alone: nothing counts until you confirm it.",
    "about-confirm": "Play the move you submitted, unless the board changed since (then submit again).",
    "about-preview": (
        "Play moves on a copy of a board (as it stands, or after move N) or of a new game, and see "
        "the result; nothing is saved."
    ),
    "about-pass": "No game here allows passing: every turn must be played.",
    "about-swap": "No game here has a swap: the first player named in the challenge moves first.",
    "about-chat": (
        "Mail the text below the command to the board's players, without moving. A reply to a board "
        "mail whose first line is chat does the same."
    ),
    "about-accept": (
        "Take challenges to this game (the default); with a board, accept what another player proposed there."
    ),
    "about-reject": "Refuse every challenge to this game; with a board, reject what another player proposed there.",
    "about-limit": "Play at most N games of this type at once (inf: no limit); without a value, the limit now.",
    "about-subscribe": (
        "Watch a board: its board mails come to you too, as to a player who holds no seat. With all, "
        "every game of this type that starts from now on."
    ),
    "about-unsubscribe": "Stop watching.",
    "about-notify": "A mail when these boards end, or when any game of this type ends; off stops it.",
    "about-show": "Mail a board; with #N, the board as it was after move N. With a userid, that player's games.",
    "about-showas": "As show: these games hide nothing, so every player sees the same board.",
    "about-games": (
        '"next" lists the games where it is that player\'s turn; "open", the open challenges anyone may join.'
    ),
    "about-resign": (
        "Resigning before every player has moved cancels the game. At an open challenge, its "
        "challenger calls it off, and another player gives their seat back."
    ),
    "about-history": "The finished games, newest first.",
    "about-standings": "The players' ratings: the established ones, the provisional ones, and those inactive.",
}

REFUSALS: Catalogue = {
    # Why a handler refuses a command it understood.
}

MESSAGES: Catalogue = merged([PARSING, HELP, REFUSALS])


def catalogue() -> Catalogue:
    """The words a refusal or a parse error may need: this layer's and the engines'."""
    return merged([MESSAGES, base.catalogue()])
