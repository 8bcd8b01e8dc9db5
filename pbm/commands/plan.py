"""What one mail asks for: its commands in order, and the comment sent with them.

Pure, like the parser it builds on: the subject and the fresh text of a mail
in, a `Plan` out; no database and no mail objects. What a reply address
stands for (`ReplyFacts`) is looked up by the caller and handed in.

- A reply to a board mail (its reply address named a board and a player)
  carries a move on its first line: a move, ``resign``, ``show``, or a word
  about a proposal (``propose``, ``undo``, ``accept``, ``reject``) for that
  player at that board, planned as the commands a player would write (without
  a password: the reply address stands for it); a full command on that line
  works too. The rest is the comment.
- A reply to a mail asking to confirm an address confirms it, whatever it
  says; a command on its first line runs after that.
- Otherwise the Subject, when it parses as a command, with the body as the
  comment; else the body's **command block**: one run of consecutive command
  lines (`language.is_command_line`), after an optional greeting. The first
  blank line or other line after the run ends it, and everything from there
  on is the comment, so a comment may start with a game's name or a verb.

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
from pbm.commands import language as lang
from pbm.commands import verbs
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
    max_commands: int,
    why_no_text: str | None = None,
) -> Plan:
    """The plan of a mail whose fresh text is `text`.

    `reply` is set when the mail came to a genuine reply address;
    `bad_reply_address` when it came to one that is damaged or forged;
    `why_no_text`, when reading the mail found no text in it, says why
    (``the message is encrypted and could not be read``).
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
        plan = _command_plan(subject, text, max_commands)
    if why_no_text and not text.strip() and not any(isinstance(s, lang.Command) for s in plan.steps):
        plan.steps = [
            lang.CommandError(
                f"Your mail has no text the server could read ({why_no_text}). Send your commands "
                "as plain text, in the body or as the subject",
                "",
            )
        ]
    plan.comment = verbs.mask_passwords(plan.comment, plan.secrets())
    return plan


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def _reply_plan(reply: ReplyFacts, text: str, max_commands: int) -> Plan:
    lines = text.splitlines()
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None:
        reason = "Your reply has no move in it: write the move on the first line, above the quoted board"
        return Plan([lang.CommandError(reason, "")])
    line = lines[first].strip()
    if verbs.is_command_line(line):
        return _command_plan("", text, max_commands)
    comment = "\n".join(lines[first + 1 :]).strip("\n")
    game, board, userid = reply.game_type, reply.board, reply.userid
    command: lang.Command
    word = line.lower()
    if word == "show":
        command = lang.Show(game, ((board, None),), line=line)
    elif word == "resign":
        command = lang.Resign(game, board, userid, None, line=line)
    elif word == "chat":
        command = lang.Chat(game, board, userid, None, line=line)
    elif word in lang.OFFER_WORDS:
        command = lang.Propose(game, board, userid, None, lang.OFFER_WORDS[word], line=line)
    elif word in lang.VOTE_WORDS:
        command = lang.Vote(game, board, userid, None, lang.VOTE_WORDS[word], line=line)
    else:
        command = lang.Move(game, board, userid, None, line, replied_at=reply.at_ply, line=line)
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


def _command_plan(subject: str, text: str, max_commands: int) -> Plan:
    subject_error = None
    if subject and verbs.is_command_line(subject):
        try:
            command = verbs.parse_command(subject)
        except lang.CommandError as error:
            subject_error = error
        else:
            return Plan([command], _without_repeated_command(text, subject))
    plan = Plan()
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if verbs.is_command_line(line)), len(lines))
    end = next((i for i in range(start, len(lines)) if not verbs.is_command_line(lines[i])), len(lines))
    plan.steps = [_parse(line) for line in lines[start:end]]
    plan.comment = "\n".join(lines[end:]).strip("\n")
    if not plan.steps:
        commands = ", ".join([*verbs.account_commands(), *pbm.games.names()])
        plan.steps.append(
            subject_error
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
    keys = {f"sender:{sender.lower()}"}
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
