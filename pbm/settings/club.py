"""The house rules the commands apply, and what one mail or one sender may cost: the parts of the
settings (`pbm.config.Settings.club`, `pbm.config.Settings.limits`) that the command layer reads.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from pbm.timekeeping import clocks


@dataclass(frozen=True)
class Limits:
    """What one received mail, or one sender, may cost (from the ``PBM_MAX_*`` settings)."""

    commands_per_mail: int
    replies_per_mail: int
    mails_per_address_per_hour: int
    error_replies_per_sender_per_hour: int
    signups_per_sender_per_day: int
    signups_per_host_per_day: int
    addresses_per_player: int
    confirmations_per_address_per_day: int
    confirmations_per_hour: int
    unconfirmed_answers_per_host_per_hour: int
    unconfirmed_answers_per_hour: int
    challenges_per_sender_per_hour: int
    talks_per_sender_per_hour: int
    failed_passwords: int
    quoted_lines: int


@dataclass(frozen=True)
class Club:
    """The club's house rules that commands apply (from ``PBM_ADMINS`` and the expiry settings)."""

    admins: frozenset[str] = frozenset()
    """Userids that may ``broadcast`` to every player."""
    open_challenge_expiry: timedelta = timedelta(days=7)
    password_reset_expiry: timedelta = timedelta(hours=24)
    password_resets_per_day: int = 3
    """Reset mails one player may be sent in a day, whoever asks: a stranger cannot flood them."""
    time_control: clocks.TimeControl = clocks.TimeControl()
    """The time rules of a game whose challenge gives none (``--nagtime``, ``--forfeittime``)."""
    vacation_allowance: timedelta = timedelta(days=30)
    """Vacation one player may take in any 365 days."""
    confirm_addresses: bool = True
    """An address gets nothing but a confirmation request until a reply from it confirms it;
    False: the administrator vouches for every address given."""
    keep_sent: timedelta = timedelta(days=90)
    """How long the outbox keeps a mail once it went: the game records keep the games, so a
    sent board mail (about 6 KB a move) need not be kept for ever."""
    rate_bot_games: bool = False
    """Whether a game with a bot changes its players' ratings (the bot's is its ladder rating);
    False: a game with a bot is rated for nobody."""
    bots_answer_seeks: timedelta | None = None
    """How long a seek waits for a person before a bot takes it; None: bots take no seek."""
    bot_games_per_player: int = 4
    """Games with the server's bots one player may have going at once (an administrator's
    exhibitions count for them): the bots' thinking is shared by the whole club."""
    reply_requires_dmarc_pass: bool = False
    """Whether a reply plays without a password only when our MTA's DMARC result is ``pass``
    (else only a ``fail`` is refused)."""


DEFAULT_CLUB = Club()
