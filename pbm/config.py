"""Settings from ``PBM_*`` environment variables, validated once at start.

Every variable is optional; the defaults run a complete server on this machine
with SQLite in ``var/``. A bad value stops the server at start with a message
naming the variable, instead of failing later in the middle of a mail.

Settings may also come from one TOML file (`PBM_CONFIG`, else ``pbm.toml`` in the data
directory when there is one), its keys the variables' names without ``PBM_`` in lower case
(``address = "pbm@example.org"``); a variable set in the environment wins over the file.
`sources` says where each effective setting came from (``pbm config show``).

The data directory (`PBM_HOME`) holds what the server keeps on disk by default: the SQLite
database, the outbox maildir, the secret key, the backups. It is ``var/`` under the working
directory, or the directory systemd made for the unit (``StateDirectory=``, which systemd names
in ``$STATE_DIRECTORY``).

Every span of time is written one way (`pbm.timekeeping.durations`): ``7d``, ``12h``, ``30m``, ``30s``,
or a bare number in the unit the variable's name says (seconds for ``PBM_*_SECONDS``,
``PBM_DATABASE_TIMEOUT`` and ``PBM_STUCK_AFTER``, hours for ``PBM_*_HOURS``, days for
``PBM_VACATION_DAYS``, ``PBM_NAGTIME`` and ``PBM_FORFEITTIME``).

The kinds of value a setting takes, the club's rules the commands read and the values as
``pbm config show`` writes them are in `pbm.settings`; every name is here too.
"""

from __future__ import annotations

import os
import re
import secrets
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlsplit

from pydantic import BeforeValidator, Field, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from pbm.addresses import is_authserv_id, mail_address
from pbm.crypto.keyfiles import create_once
from pbm.crypto.keys import SigningKeys
from pbm.i18n import languages
from pbm.settings import values
from pbm.settings.club import DEFAULT_CLUB, Club, Limits
from pbm.settings.shown import HIDDEN, SECRET_SETTINGS, shown
from pbm.settings.values import (
    DKIM_SELECTOR,
    IMAP_PORTS,
    SUBMISSION_PORTS,
    Days,
    Hours,
    Inbound,
    ListenAddress,
    Outbound,
    Seconds,
)
from pbm.timekeeping import clocks

__all__ = [
    "DEFAULT_CLUB",
    "DKIM_SELECTOR",
    "HIDDEN",
    "IMAP_PORTS",
    "SECRET_SETTINGS",
    "SUBMISSION_PORTS",
    "Club",
    "ConfigError",
    "Inbound",
    "Limits",
    "ListenAddress",
    "Loaded",
    "Outbound",
    "Settings",
    "config_file",
    "default_home",
    "described",
    "load",
    "load_settings",
    "read_config_file",
    "secret_key",
    "shown",
    "signing_keys",
]


class ConfigError(Exception):
    """The environment does not describe a server we can run."""



Listen = BeforeValidator(values.listen_address)
"""A setting naming where to listen: ``HOST:PORT``."""


class Settings(BaseSettings):
    """The server's configuration; field `x` comes from variable ``PBM_X``."""

    model_config = SettingsConfigDict(env_prefix="PBM_", extra="ignore", frozen=True, env_ignore_empty=True)

    home: Path = Field(default_factory=lambda: default_home(os.environ))
    """The data directory (see the module's docstring): the defaults of PBM_DATABASE_URL and
    PBM_OUTBOUND, the secret key and the backups live in it."""
    database_url: str = "sqlite:///var/pbm.db"
    """Made from PBM_HOME when unset: ``sqlite:///HOME/pbm.db``."""
    smtp_listen: Annotated[ListenAddress, NoDecode, Listen] = ListenAddress("127.0.0.1", 2525)
    http_listen: Annotated[ListenAddress, NoDecode, Listen] = ListenAddress("127.0.0.1", 8080)
    address: str = "pbm@localhost"
    public_url: str | None = None
    """Where players reach the web pages (``https://games.example.org``): board mails link to
    their game's page, help to the rules and the calendar feed. Unset, mails carry no links:
    the server listens on PBM_HTTP_LISTEN, usually behind a proxy, and cannot know the name the
    world uses, and a link nobody can open is worse than none."""
    admin_contact: str | None = None
    """The address players write to about the server itself, named wherever a mail tells them
    to write to the administrator (unset: the mail says so without an address). No default: the
    server accepts mail for PBM_ADDRESS alone, so a guess such as postmaster@ may bounce."""
    trusted_authserv_id: str | None = None
    """The authserv-id our own MTA writes in the Authentication-Results headers it adds (RFC
    8601; ``mx.example.org``): its DMARC result is read from the topmost header naming it, and
    a reply-address move that fails DMARC is not played. Unset, no such header is read: anyone
    can write one."""
    reply_requires_dmarc_pass: bool = False
    """``on``: what a reply does without a password (a move, a vote, a chat by replying to a board
    or digest mail) needs our MTA's DMARC ``pass`` (`trusted_authserv_id`, which it requires); a
    reply without it is refused, and the player told to send the command with their password.
    ``off``: only a DMARC ``fail`` is refused (``none``, a domain without DMARC, plays)."""
    dkim_selector: str | None = None
    """The selector of the key the MTA signs pbm's mail with (``pbm2026``; deploy/mail-authentication.md):
    ``pbm doctor`` checks that its public key is published. pbm signs nothing itself."""
    language: str = "en"
    """The club's language (`pbm.i18n.languages`): what a player who chose none reads, and what the web
    shows a browser that prefers none of pbm's languages. Each player may choose their own
    (``language USERID PASSWORD fr``)."""
    outbound: Annotated[Outbound, NoDecode, BeforeValidator(values.outbound)] = Outbound(
        "maildir", path=Path("var/outbox")
    )
    """Made from PBM_HOME when unset: ``maildir:HOME/outbox``."""
    secret_key: str | None = Field(default=None, repr=False)
    metrics_listen: Annotated[ListenAddress | None, NoDecode, BeforeValidator(values.metrics_listen)] = None
    """Where Prometheus metrics are served (``/metrics``): ``HOST:PORT``, or a port alone for
    loopback. Unset: no metrics listener."""
    backup_keep: int = Field(default=14, ge=1)
    """Backups ``pbm backup`` keeps in HOME/backups: older ones are deleted after a new one is made."""
    max_message_size: int = Field(default=1024 * 1024, gt=1024)
    """Largest mail accepted over SMTP, in bytes; PBeM commands are tiny."""

    # How many connections each listener holds, and how long an idle one stays
    # (`pbm.listeners`): a flood of idle connections is refused past the caps
    # instead of using up the process's open files.
    smtp_max_connections: int = Field(default=100, ge=1)
    """SMTP connections held at once; past it a new one is answered 421 and closed."""
    smtp_max_connections_per_client: int = Field(default=20, ge=1)
    """SMTP connections one client (an IP address; for IPv6 a /64) may hold. A Postfix relaying
    to pbm on loopback opens up to 20 at once (its default_destination_concurrency_limit): keep
    this at least that."""
    smtp_idle_seconds: Annotated[int, Seconds] = Field(default=60, ge=1)
    """An SMTP session that takes no step of a mail (MAIL, RCPT, DATA) for this long is closed:
    NOOP, RSET and the like do not keep it open."""
    smtp_max_session_seconds: Annotated[int, Seconds] = Field(default=600, ge=1)
    """An SMTP session ends after this long whatever it does (after the mail under way), with a
    421 that makes the sending MTA open a new one: nobody holds a place for good."""
    smtp_max_commands_without_mail: int = Field(default=20, ge=1)
    """Commands other than MAIL, RCPT and DATA (EHLO, NOOP, RSET...) an SMTP session may send
    between two mails; past it, 421 and the session ends. A relaying MTA sends two or three."""
    http_max_connections: int = Field(default=400, ge=1)
    """HTTP connections held at once (open pages keep one each for their live updates); past it a
    new one is answered 503 and closed."""
    http_max_connections_per_client: int = Field(default=40, ge=1)
    """HTTP connections one client (an IP address; for IPv6 a /64) may hold. Behind a reverse
    proxy every connection comes from the proxy: there, set it to PBM_HTTP_MAX_CONNECTIONS."""
    http_max_event_streams_per_client: int = Field(default=10, ge=1)
    """Live-update streams (``/api/events``, one per open page) one client may hold; past it a
    page is told to try again in a minute. Well under the connection caps, so one client cannot
    fill the listener with streams. Behind a reverse proxy, it counts the proxy's clients
    (uvicorn reads X-Forwarded-For from a proxy on loopback)."""
    http_idle_seconds: Annotated[int, Seconds] = Field(default=60, ge=1)
    """An HTTP connection without a request for this long is closed, and a page's event stream
    that has carried no change for this long ends (the page opens it again where it left off)."""

    # What one received mail, or one sender, may cost. Every refusal says which
    # limit it met; nothing refused is lost (the mail stays in the inbox).
    max_commands_per_mail: int = Field(default=20, ge=1)
    """Commands carried out from one mail; the rest are answered with one summary."""
    max_replies_per_mail: int = Field(default=40, ge=2)
    """Mails one received mail may cause; past it, the sender is told instead."""
    max_mails_per_address_per_hour: int = Field(default=200, ge=1)
    """Mails the server sends one address in an hour; more wait in the outbox until the hour
    has room, and then go gathered into one mail. It protects a stranger whose address
    someone signed up; a player in several quick games at once gets a mail per move of
    each, well under it."""
    max_error_replies_per_sender_per_hour: int = Field(default=10, ge=1)
    """Error answers to one address in an hour: past it the server stops answering (what it
    did not send stays in the outbox, marked suppressed), which breaks a loop with an
    auto-responder that does not say it is one."""
    max_signups_per_sender_per_day: int = Field(default=3, ge=1)
    max_signups_per_host_per_day: int = Field(default=20, ge=1)
    """Signups from one sending host (the machine that handed the mail to our MTA) in a day:
    a From address costs nothing to change, a host does."""
    max_addresses_per_player: int = Field(default=5, ge=1)
    """Addresses one player may register (``signup``, ``add``, ``change address``)."""
    confirm_addresses: bool = True
    """``on``: an address gets nothing but a confirmation request until a reply from it
    confirms it. ``off``: for a closed club whose administrator vouches for every address."""
    max_confirmations_per_address_per_day: int = Field(default=1, ge=1)
    """Confirmation requests one address may be sent in a day, whoever names it."""
    max_confirmations_per_hour: int = Field(default=60, ge=1)
    """Confirmation requests the whole server may send in an hour."""
    max_unconfirmed_answers_per_hour: int = Field(default=60, ge=1)
    """Answers to mail whose From nobody confirmed (which may be forged) the whole server may send
    in an hour, as it may send confirmation requests."""
    max_unconfirmed_answers_per_host_per_hour: int = Field(default=10, ge=1)
    """Answers to mail whose From nobody confirmed, for mail one sending host handed us, in an
    hour: a forger's From costs nothing to change, a host does."""
    max_challenges_per_sender_per_hour: int = Field(default=10, ge=1)
    max_talks_per_sender_per_hour: int = Field(default=30, ge=1)
    """Chats and messages one player may send in an hour."""
    max_failed_passwords: int = Field(default=5, ge=1)
    """Wrong passwords in a row before a player's password commands wait, a minute at
    first and twice as long after each further failure (a day at most)."""
    max_password_resets_per_day: int = Field(default=3, ge=1)
    """Reset mails one player may be sent in a day; past it, asking again sends nothing."""
    admins: Annotated[frozenset[str], NoDecode, BeforeValidator(values.userids)] = frozenset()
    """Userids, separated by commas or spaces, allowed to ``broadcast`` to every player."""
    open_challenge_hours: Annotated[float, Hours] = Field(default=7 * 24, gt=0)
    """How long an open challenge (``challenge alice open``) waits for players to join."""
    password_reset_hours: Annotated[float, Hours] = Field(default=24, gt=0)
    """How long the reply address of a ``password reset`` mail works (once)."""
    nagtime: Annotated[timedelta, NoDecode, BeforeValidator(values.time_rule)] = clocks.NAG_AFTER
    """When the player to move is first reminded, for games whose challenge gives no --nagtime:
    bare days (7), or a span with its unit (12h)."""
    forfeittime: Annotated[timedelta, NoDecode, BeforeValidator(values.time_rule)] = clocks.FORFEIT_AFTER
    """When the player to move forfeits, for games whose challenge gives no --forfeittime."""
    vacation_days: Annotated[int, Days] = Field(default=30, ge=0, le=365)
    """Vacation one player may take in any 365 days (``vacation``)."""
    keep_sent_days: Annotated[float, Days] = Field(default=90, gt=0)
    """How long sent mail is kept in the outbox; the time pass forgets it then (never a mail
    waiting, held back or failed)."""
    time_pass_seconds: Annotated[float, Seconds] = Field(default=60, gt=0)
    """How often ``pbm serve`` runs the time pass (reminders, forfeits, vacations, expiries)."""
    bot_seconds: Annotated[float, Seconds] = Field(default=30, gt=0)
    """The longest a bot may think about one move or vote, by the wall clock. A bot's level counts
    its search in iterations (the same choice on any machine); this caps it on a slow or busy one."""
    rate_bot_games: bool = False
    """Whether games with a bot (``bot1`` ... ``bot4``) change the players' ratings, against the
    bot's rating from the ladder. Off: a game with a bot is rated for nobody."""
    bot_games_per_player: int = Field(default=4, ge=1)
    """Games with the server's bots one player may have going at once, whether they challenged
    the bots or a bot took their seek; an administrator's games of bots alone (``challenge bot1
    bot2``) count for the administrator. Past it a challenge is refused and a seek waits for a person."""
    bots_answer_seeks: Annotated[timedelta | None, NoDecode, BeforeValidator(values.bots_answer_seeks)] = None
    """``off``, or how long a ``seek`` waits for a person before a bot takes it: the level whose
    rating is nearest the seeker's (a span: ``30m``, ``2h``; a bare number is in hours)."""
    first_retry_seconds: Annotated[float, Seconds] = Field(default=60, gt=0)
    """How long a reply the relay did not take (down, or 4xx) waits before it is tried again;
    each further wait is twice as long, six hours at most, for 16 attempts."""
    mail_read_seconds: Annotated[float, Seconds] = Field(default=5.0, gt=0)
    """CPU time reading one mail (MIME, charsets, HTML) may take before it is given up."""
    mail_read_memory_mb: int = Field(default=512, ge=64)
    """Memory the process that reads mail may use."""
    max_quoted_lines: int = Field(default=40, ge=1)
    """Lines of the original an error reply quotes."""
    database_timeout: Annotated[float, Seconds] = Field(default=5.0, gt=0)
    """Seconds the SMTP listener and /healthz wait for the database before answering
    451 / 503, so a hung database is reported instead of hanging every client."""
    stuck_after: Annotated[int, Seconds] = Field(default=600, ge=1)
    """Seconds after which unprocessed mail counts as stuck (/healthz answers 503)."""

    # A club's mailbox at a provider (README: "A club with a mailbox at a provider").
    inbound: Annotated[Inbound | None, NoDecode, BeforeValidator(values.inbound)] = None
    """The club's mailbox, read over IMAP: ``imaps://USER@HOST[:PORT]/FOLDER`` (or ``imap://``
    with STARTTLS), the user percent-encoded (``games%40ourclub.org``). Unset: mail comes only
    to the SMTP listener."""
    mail_password_file: Path | None = None
    """A file holding the mailbox account's password (an app password): for PBM_INBOUND and a
    submission:// or smtps:// PBM_OUTBOUND."""
    mail_password_command: str | None = None
    """A program (and its arguments, split as a shell would, but run without one) that prints the
    password; read at each login. What it prints starting ``Bearer `` is an OAuth2 access token,
    given to the provider by XOAUTH2."""
    mail_ca_file: Path | None = None
    """A file of CA certificates the provider's IMAP and submission certificates are checked
    against, instead of the system's (a private CA)."""
    outbound_max_per_day: int | None = Field(default=None, ge=1)
    """Mails the provider lets the account send in a day (often 300 to 2 000): near it, mail waits
    in the outbox, answers to a player's own mail first. Unset: no cap."""
    inbound_keep_days: Annotated[float, Days] = Field(default=7, gt=0)
    """How long processed mail stays in the mailbox's folder of processed mail before it is expunged."""

    @model_validator(mode="before")
    @classmethod
    def _under_home(cls, data: Any) -> Any:
        """The database and the outbox live in the data directory unless placed elsewhere."""
        if not isinstance(data, dict):
            return data
        home = Path(data.get("home") or default_home(os.environ))
        data.setdefault("database_url", f"sqlite:///{home / 'pbm.db'}")
        data.setdefault("outbound", f"maildir:{home / 'outbox'}")
        return data

    @model_validator(mode="after")
    def _mailbox_password(self) -> Settings:
        """An account at a provider logs in: its password must come from somewhere."""
        needs = self.inbound is not None or self.outbound.kind in SUBMISSION_PORTS
        if needs and not (self.mail_password_file or self.mail_password_command):
            raise ValueError(
                "PBM_INBOUND and a submission:// or smtps:// PBM_OUTBOUND log in to the provider:"
                " set PBM_MAIL_PASSWORD_FILE or PBM_MAIL_PASSWORD_COMMAND"
            )
        return self

    @field_validator("forfeittime")
    @classmethod
    def _forfeit_after_nag(cls, value: timedelta, info: Any) -> timedelta:
        nag = info.data.get("nagtime")
        if nag is not None and nag >= value:
            raise ValueError("PBM_FORFEITTIME must be longer than PBM_NAGTIME: a reminder comes before the forfeit")
        return value

    @field_validator("address")
    @classmethod
    def _address(cls, value: str) -> str:
        local, at, domain = value.strip().partition("@")
        if not at or not local or not domain or "+" in local or any(c.isspace() for c in value.strip()):
            raise ValueError(f"expected a plain address such as pbm@example.org, got {value!r}")
        return f"{local}@{domain.lower()}"

    @field_validator("public_url")
    @classmethod
    def _public_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        text = value.strip()
        parts = urlsplit(text)
        if values.bad_port(parts):
            raise ValueError(f"bad port in {text!r}")
        if parts.scheme not in ("http", "https") or not parts.hostname or any(c.isspace() for c in text):
            raise ValueError(f"expected the pages' address, such as https://games.example.org, got {text!r}")
        if parts.username is not None or parts.password is not None:
            raise ValueError("must not hold a user name or password: every mail would carry it")
        if parts.query or parts.fragment or not re.fullmatch(r"[A-Za-z0-9._~/-]*", parts.path):
            raise ValueError(f"expected a plain path, without ?query or #fragment, got {text!r}")
        return f"{parts.scheme}://{parts.netloc.lower()}{parts.path.rstrip('/')}"

    @field_validator("trusted_authserv_id")
    @classmethod
    def _trusted_authserv_id(cls, value: str | None) -> str | None:
        if value is None:
            return None
        if not is_authserv_id(value):
            raise ValueError(f"expected the host name the MTA names itself by, such as mx.example.org, got {value!r}")
        return value.lower()

    @field_validator("reply_requires_dmarc_pass")
    @classmethod
    def _dmarc_pass_read_from_our_mta(cls, value: bool, info: Any) -> bool:
        if value and not info.data.get("trusted_authserv_id"):
            raise ValueError(
                "needs PBM_TRUSTED_AUTHSERV_ID: without it no DMARC result is read, and no reply would play"
            )
        return value

    @field_validator("dkim_selector")
    @classmethod
    def _dkim_selector(cls, value: str | None) -> str | None:
        if value is None or DKIM_SELECTOR.fullmatch(value):
            return value
        raise ValueError(f"expected a selector such as pbm2026 (letters, digits, - and _), got {value!r}")

    @field_validator("admin_contact")
    @classmethod
    def _admin_contact(cls, value: str | None) -> str | None:
        if value is None:
            return None
        address = mail_address(value)
        if address is None:
            raise ValueError(f"expected a plain address such as admin@example.org, got {value!r}")
        return address

    @field_validator("language")
    @classmethod
    def _language(cls, value: str) -> str:
        code = languages.language_named(value)
        if code is None:
            raise ValueError(f"expected one of {', '.join(languages.LANGUAGES)}, got {value!r}")
        return code

    @field_validator("database_url")
    @classmethod
    def _database_url(cls, value: str) -> str:
        if not value.startswith(("sqlite:", "postgresql")):
            raise ValueError(f"expected sqlite:///FILE or postgresql+psycopg://..., got {value!r}")
        return value

    @property
    def limits(self) -> Limits:
        return Limits(
            commands_per_mail=self.max_commands_per_mail,
            replies_per_mail=self.max_replies_per_mail,
            mails_per_address_per_hour=self.max_mails_per_address_per_hour,
            error_replies_per_sender_per_hour=self.max_error_replies_per_sender_per_hour,
            signups_per_sender_per_day=self.max_signups_per_sender_per_day,
            signups_per_host_per_day=self.max_signups_per_host_per_day,
            addresses_per_player=self.max_addresses_per_player,
            confirmations_per_address_per_day=self.max_confirmations_per_address_per_day,
            confirmations_per_hour=self.max_confirmations_per_hour,
            unconfirmed_answers_per_host_per_hour=self.max_unconfirmed_answers_per_host_per_hour,
            unconfirmed_answers_per_hour=self.max_unconfirmed_answers_per_hour,
            challenges_per_sender_per_hour=self.max_challenges_per_sender_per_hour,
            talks_per_sender_per_hour=self.max_talks_per_sender_per_hour,
            failed_passwords=self.max_failed_passwords,
            quoted_lines=self.max_quoted_lines,
        )

    @property
    def club(self) -> Club:
        return Club(
            admins=self.admins,
            open_challenge_expiry=timedelta(hours=self.open_challenge_hours),
            password_reset_expiry=timedelta(hours=self.password_reset_hours),
            password_resets_per_day=self.max_password_resets_per_day,
            time_control=clocks.TimeControl(nag=self.nagtime, forfeit=self.forfeittime),
            vacation_allowance=timedelta(days=self.vacation_days),
            confirm_addresses=self.confirm_addresses,
            keep_sent=timedelta(days=self.keep_sent_days),
            rate_bot_games=self.rate_bot_games,
            bots_answer_seeks=self.bots_answer_seeks,
            bot_games_per_player=self.bot_games_per_player,
            reply_requires_dmarc_pass=self.reply_requires_dmarc_pass,
        )

    @property
    def local_part(self) -> str:
        return self.address.partition("@")[0]

    @property
    def domain(self) -> str:
        return self.address.partition("@")[2]


def default_home(environ: Mapping[str, str]) -> Path:
    """``PBM_HOME``; else the directory systemd made for the unit (``$STATE_DIRECTORY``); else ``var``."""
    if environ.get("PBM_HOME"):
        return Path(environ["PBM_HOME"])
    if environ.get("STATE_DIRECTORY"):
        return Path(environ["STATE_DIRECTORY"].split(":")[0])  # the first, when the unit names several
    return Path("var")


def config_file(environ: Mapping[str, str]) -> Path | None:
    """The configuration file: ``PBM_CONFIG`` (which must exist), else ``pbm.toml`` in the data
    directory when there is one, else none."""
    if environ.get("PBM_CONFIG"):
        return Path(environ["PBM_CONFIG"])
    found = default_home(environ) / "pbm.toml"
    return found if found.is_file() else None


def read_config_file(path: Path) -> dict[str, Any]:
    """The settings a TOML file gives, by field name; a key that names no setting is an error
    (a misspelt key would otherwise be ignored in silence)."""
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ConfigError(f"cannot read the configuration file {path}: {error.strerror}") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path} is not valid TOML: {error}") from None
    unknown = sorted(key for key in table if key not in Settings.model_fields)
    if unknown:
        raise ConfigError(f"{path}: no such setting: {', '.join(unknown)} (keys are names like database_url)")
    # A list of userids may be written as a TOML array; the variable takes them comma-separated.
    return {key: ",".join(map(str, value)) if isinstance(value, list) else value for key, value in table.items()}


@dataclass(frozen=True)
class Loaded:
    """Settings and where each came from: ``"environment"``, ``"file"``, ``"argument"`` or ``"default"``."""

    settings: Settings
    sources: dict[str, str]
    file: Path | None


def load(**overrides: Any) -> Loaded:
    """Read and validate the settings from the file and the environment (the environment wins),
    noting where each came from; raise `ConfigError` naming each bad setting."""
    environ = os.environ
    path = config_file(environ)
    from_file = read_config_file(path) if path is not None else {}

    def in_environment(name: str) -> bool:
        return bool(environ.get(f"PBM_{name.upper()}"))

    # Arguments beat the environment in pydantic-settings, and the file is given as arguments:
    # what the environment sets is left out of them, so the environment wins.
    given = {name: value for name, value in from_file.items() if not in_environment(name)} | overrides
    sources = {
        name: "argument"
        if name in overrides
        else "environment"
        if in_environment(name)
        else "file"
        if name in given
        else "default"
        for name in Settings.model_fields
    }
    try:
        settings = Settings(**given)
    except ValidationError as error:
        problems = []
        for item in error.errors():
            name = str(item["loc"][0]) if item["loc"] else ""
            where = (
                f"{name} in {path}" if sources.get(name) == "file" else "PBM_" + name.upper() if name else "settings"
            )
            problems.append(f"{where}: {item['msg'].removeprefix('Value error, ')}")
        raise ConfigError("bad configuration:\n  " + "\n  ".join(problems)) from None
    return Loaded(settings, sources, path)


def load_settings(**overrides: Any) -> Settings:
    """Read and validate the settings (`load`); raise `ConfigError` naming each bad setting."""
    return load(**overrides).settings



def described(loaded: Loaded) -> list[tuple[str, str, str]]:
    """(variable, value as shown, where it came from) for every setting, in the order they are defined."""
    where = {"file": f"file {loaded.file}", "environment": "environment", "argument": "argument", "default": "default"}
    return [
        (f"PBM_{name.upper()}", shown(name, getattr(loaded.settings, name)), where[loaded.sources[name]])
        for name in Settings.model_fields
    ]


def secret_key(settings: Settings, var_dir: Path | None = None) -> bytes:
    """The server's HMAC key: ``PBM_SECRET_KEY``, else ``secret.key`` in the data directory
    (`var_dir`, default PBM_HOME), made on first run."""
    if settings.secret_key:
        return settings.secret_key.encode()
    path = (settings.home if var_dir is None else var_dir) / "secret.key"
    if not path.exists():
        create_once(path, secrets.token_hex(32) + "\n")  # two processes starting at once share one key
    key = path.read_text().strip()
    if len(key) < 32:
        raise ConfigError(f"{path} holds a key shorter than 32 characters; delete it to make a new one")
    return key.encode()


def signing_keys(settings: Settings, var_dir: Path | None = None) -> SigningKeys:
    """The server's Ed25519 keys for receipts and records: ``signing/`` in the data directory
    (`var_dir`, default PBM_HOME), made on first run like the secret key."""
    return SigningKeys((settings.home if var_dir is None else var_dir) / "signing")
