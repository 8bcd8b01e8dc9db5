"""What one mail asks for: its commands in order, and the comment sent with them.

Pure, like the parser it builds on: the subject and the fresh text of a mail
in, a `Plan` out; no database and no mail objects. What a reply address
stands for (`ReplyFacts`) is looked up by the caller and handed in.

- A reply to a board mail (its reply address named a board and a player)
  carries a move on its first line, or on the first after a greeting: a move,
  ``resign``, ``show``, ``chat``, or a word about a proposal (``propose``,
  ``undo``, ``accept``, ``reject``) for that player at that board, planned as
  the commands a player would write (without a password: the reply address
  stands for it, and they carry the move number of the board it showed); a
  full command on that line works too. The rest is the comment.
- A reply to a mail asking to confirm an address confirms it, whatever it
  says; a command on its first line runs after that.
- Otherwise the Subject, when it parses as a command, with the body as the
  comment; else the body's **command block**: one run of consecutive command
  lines (`language.is_command_line`), after an optional greeting. The first
  blank line or other line after the run ends it, and everything from there
  on is the comment, so a comment may start with a game's name or a verb.

A mail to the plain address that holds no command but answers a mail of
ours a reply address would have served (`AnsweredFacts`: a board mail of the
sender's, a message, an announcement) is told what to write instead; it is
never played, since a Message-ID is no secret as a reply token is (mail
clients copy it into every later mail of a thread, to anyone).

A mail carries at most `max_commands` commands; the lines past that become one
refusal that says so, instead of one answer each. Passwords never reach the
comment: see `Plan.comment`.

`conflict_keys` names what the plan touches (its sender, players and boards):
mails sharing a key are applied in the order received, whatever the number
of workers.

>>> plan = plan_mail("", "Hi!\\ncephalopod move 101 alice pw12 c3\\nGood luck, pw12 is mine", max_commands=5)
>>> [step.line for step in plan.steps], plan.comment
(['cephalopod move 101 alice pw12 c3'], 'Good luck, ******** is mine')
>>> sorted(conflict_keys(plan, sender="alice@example.org"))
['board:cephalopod:101', 'player:alice', 'sender:alice@example.org']
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import pbm.games
from pbm.addresses import comparable
from pbm.commands import language as lang
from pbm.commands import masking, verbs
from pbm.commands.accounts import NOT_A_CONFIRMATION
from pbm.store import inbox


@dataclass(frozen=True)
class ReplyFacts:
    """What the reply address of a mail stands for: the player its token names, their board,
    and the move number of the board that mail showed (None in tokens made before boards were)."""

    userid: str
    game_type: str
    board: int
    at_ply: int | None = None


@dataclass(frozen=True)
class ResetFacts:
    """The reply address of a password reset mail: the token it carries, and the player it was
    mailed to (None when the token stands for no reset, or one used or expired)."""

    token: str
    userid: str | None


@dataclass(frozen=True)
class AnsweredFacts:
    """Which of the server's own mails a mail to its plain address answers (its In-Reply-To or
    References name one): a mail of `userid`'s thread of a board, when the sender is that player;
    or a ``message`` or a ``broadcast`` passed on by the server (`kind`)."""

    kind: str
    """``board``, ``message`` or ``broadcast``."""
    game_type: str = ""
    board: int = 0
    userid: str = ""


@dataclass(frozen=True)
class ConfirmFacts:
    """The reply address of a mail asking to confirm an address: the token it carries, and the
    player it was mailed for (None when the token stands for no request, or one that expired)."""

    token: str
    userid: str | None


Step = lang.Command | lang.CommandError
"""A command to run, or a line meant as one that could not be read (answered with why)."""


@dataclass
class Plan:
    steps: list[Step] = field(default_factory=list)
    comment: str = ""
    """The text sent along with the boards, passwords starred (see `mask_passwords`)."""
    skipped: list[Step] = field(default_factory=list)
    """Commands past the limit of one mail: not run, but their passwords are still masked."""
    private: bool = False
    """The mail's text is never quoted back (a reply to a password reset carries a password alone)."""
    subject: str = ""
    """The mail's subject when it was read for a command (it held one, or no line held one): an
    error answer quotes it with the mail's text."""

    def secrets(self) -> set[str]:
        """Every password the mail's commands carry."""
        return {s for step in [*self.steps, *self.skipped] if isinstance(step, lang.Command) for s in step.secrets()}


NOT_OUR_REPLY_ADDRESS = (
    "The address you replied to is not a reply address of this server (it may be damaged, "
    "or belong to another server); send the move as a command instead: "
    "GAME move BOARD USERID PASSWORD MOVE"
)


def plan_mail(
    subject: str,
    text: str,
    *,
    reply: ReplyFacts | ResetFacts | ConfirmFacts | None = None,
    bad_reply_address: bool = False,
    answered: AnsweredFacts | None = None,
    max_commands: int,
    why_no_text: str | None = None,
) -> Plan:
    """The plan of a mail whose fresh text is `text`.

    `reply` is set when the mail came to a genuine reply address;
    `bad_reply_address` when it came to one that is damaged or forged;
    `answered` when it came to the plain address and answers a mail of
    ours that a reply address would have served (it is told what to do
    when it holds no command); `why_no_text`, when reading the mail found no
    text in it, says why (``the message is encrypted and could not be read``).
    """
    if bad_reply_address:
        plan = Plan([lang.CommandError(NOT_OUR_REPLY_ADDRESS, _first_line(text))])
    elif isinstance(reply, ResetFacts):
        plan = _reset_plan(reply, text)
    elif isinstance(reply, ConfirmFacts):
        plan = _confirm_plan(reply, text, max_commands)
    elif reply is not None:
        plan = _reply_plan(reply, text, max_commands)
    else:
        plan = _command_plan(subject, text, max_commands, answered)
    if why_no_text and not text.strip() and not any(isinstance(s, lang.Command) for s in plan.steps):
        plan.steps = [
            lang.CommandError(
                f"Your mail has no text the server could read ({why_no_text}). Send your commands "
                "as plain text, in the body or as the subject",
                "",
            )
        ]
    plan.comment = masking.mask_passwords(plan.comment, plan.secrets())
    return plan


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def _reply_plan(reply: ReplyFacts, text: str, max_commands: int) -> Plan:
    lines = text.splitlines()
    written = [i for i, line in enumerate(lines) if line.strip()]
    if written and lang.is_greeting(lines[written[0]]):
        written = written[1:]  # the move comes after the greeting, as commands may
    if not written:
        reason = (
            "Your reply has no move in it: write the move on the first line, above the quoted board. "
            'To write to the other players without moving, write "chat" there and your words below it'
        )
        return Plan([lang.CommandError(reason, _first_line(text))])
    first = written[0]
    line = lines[first].strip()
    if verbs.is_command_line(line):
        return _command_plan("", text, max_commands)
    comment = "\n".join(lines[first + 1 :]).strip("\n")
    game, board, userid, at_ply = reply.game_type, reply.board, reply.userid, reply.at_ply
    command: lang.Command
    word = line.lower()
    if word == "show":
        command = lang.Show(game, ((board, None),), line=line)
    elif word == "resign":
        command = lang.Resign(game, board, userid, None, replied_at=at_ply, line=line)
    elif word == "chat":
        command = lang.Chat(game, board, userid, None, replied_at=at_ply, line=line)
    elif word in lang.OFFER_WORDS:
        command = lang.Propose(game, board, userid, None, lang.OFFER_WORDS[word], replied_at=at_ply, line=line)
    elif word in lang.VOTE_WORDS:
        command = lang.Vote(game, board, userid, None, lang.VOTE_WORDS[word], replied_at=at_ply, line=line)
    else:
        command = lang.Move(game, board, userid, None, line, replied_at=at_ply, line=line)
    return Plan([command], comment)


NOT_A_RESET = (
    "The reset address you replied to has been used, has expired or was never sent; "
    "ask for another with: password reset USERID"
)


def _reset_plan(reset: ResetFacts, text: str) -> Plan:
    """A reply to a password reset mail: the new password alone on its first line, nothing else
    carried out (the rest is never quoted back: it may hold the password again)."""
    line = _first_line(text)
    if reset.userid is None:
        return Plan([lang.CommandError(NOT_A_RESET, "(your reply)")], private=True)
    words = lang.words_of(line)
    if len(words) != 1:
        return Plan(
            [
                lang.CommandError(
                    "Write the new password alone on the first line of your reply, above the quoted mail",
                    "(your reply)",
                )
            ],
            private=True,
        )
    return Plan([lang.ResetPassword(reset.userid, reset.token, words[0], line="(your reply)")], private=True)


def _confirm_plan(confirming: ConfirmFacts, text: str, max_commands: int) -> Plan:
    """A reply to a mail asking to confirm an address: any reply confirms it (its first line may
    be empty, or say ``confirm``). When that line is a command, the reply's commands run after."""
    if confirming.userid is None:
        return Plan([lang.CommandError(NOT_A_CONFIRMATION, "(your reply)")])
    confirmation = lang.ConfirmAddress(confirming.userid, confirming.token, line="(your reply)")
    if not verbs.is_command_line(_first_line(text)):
        return Plan([confirmation])
    commands = _command_plan("", text, max_commands)
    return Plan([confirmation, *commands.steps], commands.comment, commands.skipped)


def _command_plan(subject: str, text: str, max_commands: int, answered: AnsweredFacts | None = None) -> Plan:
    subject_error = None
    if subject and verbs.is_command_line(subject):
        try:
            command = verbs.parse_command(subject)
        except lang.CommandError as error:
            subject_error = error
        else:
            return Plan([command], _without_repeated_command(text, subject), subject=subject)
    plan = Plan(subject=subject if subject_error is not None else "")
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if verbs.is_command_line(line)), len(lines))
    end = next((i for i in range(start, len(lines)) if not verbs.is_command_line(lines[i])), len(lines))
    plan.steps = [_parse(line) for line in lines[start:end]]
    plan.comment = "\n".join(lines[end:]).strip("\n")
    if not plan.steps:
        plan.subject = subject
        commands = ", ".join([*verbs.account_commands(), *pbm.games.names()])
        meant = next((line for line in (subject, *lines) if verbs.looks_like_a_command(line)), None)
        plan.steps.append(
            subject_error
            or (_parse(meant) if meant is not None else None)
            or (_not_to_the_reply_address(answered, _first_line(text)) if answered is not None else None)
            or lang.CommandError(
                f"No command found in your mail. A command is a line that starts with one of: {commands}",
                _first_line(text) or subject,
            )
        )
    if len(plan.steps) > max_commands:
        plan.skipped = plan.steps[max_commands:]
        plan.steps = plan.steps[:max_commands]
        left = len(plan.skipped)
        plan.steps.append(
            lang.CommandError(
                f"Your mail has {left} more command line{'s' if left != 1 else ''} than the {max_commands} "
                "one mail may carry; those were not carried out. Send them in another mail.",
                f"({left} more command line{'s' if left != 1 else ''})",
            )
        )
    return plan


def _not_to_the_reply_address(answered: AnsweredFacts, line: str) -> lang.CommandError:
    """What to do instead, for a mail to the plain address that answers `answered` without a command:
    a reply address takes a move on its first line, but the plain address reads commands only."""
    if answered.kind == "board":
        game, board, userid = answered.game_type, answered.board, answered.userid
        return lang.CommandError(
            f"Your mail answers a mail about {pbm.games.get(game).title} board {board}, but it came to the "
            "server's own address, which reads commands only, not to that mail's reply address (your mail "
            "program may have left its Reply-To aside), so nothing was done. To play from here, send the "
            f"move as a command: {game} move {board} {userid} PASSWORD MOVE. To write to the other players, "
            f"send {game} chat {board} {userid} PASSWORD, with your words below it",
            line,
        )
    what = "a message the server passed on to you" if answered.kind == "message" else "an announcement"
    return lang.CommandError(
        f"Your mail answers {what}, but it came to the server, which reads commands only, so nothing "
        "was passed on. To answer its author, send: message YOURID PASSWORD AUTHOR (the mail you answered "
        "names its author), with your words below it, after a blank line",
        line,
    )


def _parse(line: str) -> Step:
    try:
        return verbs.parse_command(line)
    except lang.CommandError as error:
        return error


def _without_repeated_command(text: str, subject: str) -> str:
    """The body as a comment, without the subject's command written again at its top."""
    lines = text.strip("\n").splitlines()
    same = lang.words_of(subject.lower())
    while lines and lang.words_of(lines[0].lower()) == same:
        lines = lines[1:]
    return "\n".join(lines).strip("\n")


def conflict_keys(plan: Plan, *, sender: str) -> set[str]:
    """What applying `plan` touches: its sender, and the players and boards it names."""
    keys = {f"sender:{comparable(sender)}"}
    for step in plan.steps:
        if isinstance(step, lang.Command):
            keys.update(_touches(step))
    return keys


def _touches(command: lang.Command) -> Iterator[str]:
    match command:
        case lang.Signup(userid=userid) | lang.ChangePassword(userid=userid) | lang.Signoff(userid=userid):
            yield f"player:{userid}"
        case lang.AskPasswordReset(userid=userid) | lang.ResetPassword(userid=userid) | lang.Broadcast(userid=userid):
            yield f"player:{userid}"
        case lang.ConfirmAddress(userid=userid):
            yield f"player:{userid}"
        case lang.Seek(game=game, userid=userid):
            # Pairing touches every seeker of the game and starts games: one seek at a time.
            yield f"seek:{game}"
            yield f"counter:{game}"
            yield f"player:{userid}"
        case lang.Join(game=game, board=board, userid=userid):
            yield inbox.board_key(game, board)
            yield f"player:{userid}"
        case lang.Vacation(userid=userid):
            yield f"player:{userid}"
        case lang.ChangeAddress(userid=userid):
            yield f"player:{userid}"
        case lang.Message(userid=userid, to=to):
            yield from (f"player:{name}" for name in (userid, *to))
        case lang.Subscribe(userid=userid) | lang.Unsubscribe(userid=userid) | lang.Notify(userid=userid):
            yield f"player:{userid}"
        case lang.Challenge(game=game, userids=userids):
            yield f"counter:{game}"
            yield from (f"player:{userid}" for userid in userids)
        case (
            lang.Move(game=game, board=board, userid=userid)
            | lang.Resign(game=game, board=board, userid=userid)
            | lang.Propose(game=game, board=board, userid=userid)
            | lang.Vote(game=game, board=board, userid=userid)
            | lang.Chat(game=game, board=board, userid=userid)
            | lang.Submit(game=game, board=board, userid=userid)
            | lang.Confirm(game=game, board=board, userid=userid)
            | lang.Queue(game=game, board=board, userid=userid)
        ):
            yield inbox.board_key(game, board)
            yield f"player:{userid}"
        case lang.Show(game=game, boards=boards):
            yield from (inbox.board_key(game, board) for board, _ in boards)
        case lang.Games(userids=userids) | lang.History(userids=userids):
            yield from (f"player:{userid}" for userid in userids)
