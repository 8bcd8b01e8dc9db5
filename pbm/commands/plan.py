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

from dataclasses import dataclass, field

import pbm.games
from pbm.addresses import comparable
from pbm.commands import language as lang
from pbm.commands import masking, verbs
from pbm.facts import Fact


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
    """``board``, ``message`` or ``broadcast``; or ``board-shown``, a board mailed to someone who
    plays no part in it (the answer to their ``show``)."""
    game_type: str = ""
    board: int = 0
    userid: str = ""


@dataclass(frozen=True)
class ConfirmFacts:
    """The reply address of a mail asking to confirm an address: the token it carries, and the
    player it was mailed for (None when the token stands for no request, or one that expired)."""

    token: str
    userid: str | None


@dataclass(frozen=True)
class DigestFacts:
    """The reply address of a digest: the player it was mailed to, and the games waiting for their
    move now (game, board, the move number the digest showed it at: None when nobody can tell),
    which its lines name by board."""

    userid: str
    games: tuple[tuple[str, int, int | None], ...] = ()


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

    found: set[str] = field(default_factory=set)
    """Words of the mail found to be its author's password wherever they stand (checked against
    the author's password hash, `pbm.mail.pipeline.passwords_ahead`): masked like the others."""

    def secrets(self) -> set[str]:
        """Every password the mail's commands carry, and the author's found in its text."""
        carried = {s for step in [*self.steps, *self.skipped] if isinstance(step, lang.Command) for s in step.secrets()}
        return carried | self.found

    def mask_found(self, found: set[str]) -> None:
        """Count `found` among the mail's passwords, and star them in its comment too."""
        if found - self.found:
            self.found |= found
            self.comment = masking.mask_passwords(self.comment, self.secrets())


def plan_mail(
    subject: str,
    text: str,
    *,
    reply: ReplyFacts | ResetFacts | ConfirmFacts | DigestFacts | None = None,
    bad_reply_address: bool = False,
    answered: AnsweredFacts | None = None,
    max_commands: int,
    why_no_text: Fact | str | None = None,
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
        plan = Plan([lang.CommandError("not-our-reply-address", _first_line(text))])
    elif isinstance(reply, ResetFacts):
        plan = _reset_plan(reply, text)
    elif isinstance(reply, ConfirmFacts):
        plan = _confirm_plan(reply, text, max_commands)
    elif isinstance(reply, DigestFacts):
        plan = _digest_plan(reply, text, max_commands)
    elif reply is not None:
        plan = _reply_plan(reply, text, max_commands)
    else:
        plan = _command_plan(subject, text, max_commands, answered)
    if why_no_text and not text.strip() and not any(isinstance(s, lang.Command) for s in plan.steps):
        plan.steps = [lang.CommandError("no-readable-text", "", why=why_no_text)]
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
        return Plan([lang.CommandError("reply-without-move", _first_line(text))])
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


def _digest_plan(digest: DigestFacts, text: str, max_commands: int) -> Plan:
    """A reply to a digest: one line per game, ``BOARD MOVE`` (``GAME BOARD MOVE`` where two
    games share the number), each a move by reply at that board; the first line that is neither
    ends them, and the rest is the comment sent with the boards."""
    lines = text.splitlines()
    written = [i for i, line in enumerate(lines) if line.strip()]
    if written and lang.is_greeting(lines[written[0]]):
        written = written[1:]
    steps: list[Step] = []
    end = written[0] if written else len(lines)
    for index in range(end, len(lines)):
        line = lines[index].strip()
        if not line:
            if steps:
                end = index
                break
            continue
        step = _digest_line(digest, line)
        if step is None:
            end = index
            break
        steps.append(step)
        end = index + 1
    if not steps:
        return Plan([lang.CommandError("digest-reply-without-moves", _first_line(text))])
    comment = "\n".join(lines[end:]).strip("\n")
    return Plan(steps[:max_commands], comment, skipped=steps[max_commands:])


def _digest_line(digest: DigestFacts, line: str) -> Step | None:
    """The move a line of a digest's reply writes; None when the line is no such line."""
    words = line.split()
    game = words[0].lower() if words and words[0].lower() in pbm.games.names() else None
    rest = words[1:] if game else words
    if len(rest) < 2 or not rest[0].isdecimal() or len(rest[0]) > 9:
        return None
    board = int(rest[0])
    found = [g for g in digest.games if g[1] == board and (game is None or g[0] == game)]
    if len(found) != 1:
        code = "digest-board-shared" if found else "digest-board-not-waiting"
        return lang.CommandError(code, line, board=board)
    game_type, _, at_ply = found[0]
    move = " ".join(rest[1:])
    return lang.Move(game_type, board, digest.userid, None, move, replied_at=at_ply, line=line)


YOUR_REPLY = "(your reply)"
"""The line of a plan step that stands for a whole reply (to a password reset, to a request to
confirm an address) rather than for one of its lines: an error mail says it as the fact
``your-reply``, in its reader's language (`pbm.mail.answers`)."""


def _reset_plan(reset: ResetFacts, text: str) -> Plan:
    """A reply to a password reset mail: the new password alone on its first line, nothing else
    carried out (the rest is never quoted back: it may hold the password again)."""
    line = _first_line(text)
    if reset.userid is None:
        return Plan([lang.CommandError("reset-address-unknown", YOUR_REPLY)], private=True)
    words = lang.words_of(line)
    if len(words) != 1:
        return Plan([lang.CommandError("reset-reply-without-password", YOUR_REPLY)], private=True)
    return Plan([lang.ResetPassword(reset.userid, reset.token, words[0], line=YOUR_REPLY)], private=True)


def _confirm_plan(confirming: ConfirmFacts, text: str, max_commands: int) -> Plan:
    """A reply to a mail asking to confirm an address: any reply confirms it (its first line may
    be empty, or say ``confirm``). When that line is a command, the reply's commands run after."""
    if confirming.userid is None:
        return Plan([lang.CommandError("confirmation-address-unknown", YOUR_REPLY)])
    confirmation = lang.ConfirmAddress(confirming.userid, confirming.token, line=YOUR_REPLY)
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
            or lang.CommandError("no-command-found", _first_line(text) or subject, commands=commands)
        )
    if len(plan.steps) > max_commands:
        plan.skipped = plan.steps[max_commands:]
        plan.steps = plan.steps[:max_commands]
        left = len(plan.skipped)
        plan.steps.append(
            lang.CommandError(
                "too-many-commands",
                f"({left} more command line{'s' if left != 1 else ''})",
                count=left,
                most=max_commands,
            )
        )
    return plan


def _not_to_the_reply_address(answered: AnsweredFacts, line: str) -> lang.CommandError:
    """What to do instead, for a mail to the plain address that answers `answered` without a command:
    a reply address takes a move on its first line, but the plain address reads commands only."""
    if answered.kind == "board":
        game, board, userid = answered.game_type, answered.board, answered.userid
        title = pbm.games.get(game).title
        return lang.CommandError("answers-board-mail", line, title=title, game=game, board=board, userid=userid)
    if answered.kind == "board-shown":
        game, board = answered.game_type, answered.board
        return lang.CommandError("answers-board-shown", line, title=pbm.games.get(game).title, game=game, board=board)
    return lang.CommandError("answers-message" if answered.kind == "message" else "answers-announcement", line)


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
            keys.update(verbs.ordering_keys(step))
    return keys
