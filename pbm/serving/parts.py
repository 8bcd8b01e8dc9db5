"""What `pbm serve` runs, built from the settings and wired to one another (`build`), and
nothing started: the database, the templates and the composer of mails, the mail pipeline and
its time pass, the bots' turns, the mailbox reader and delivery, the web application, and the
caps on both listeners. `pbm.serving.server` starts and stops them; the three callbacks it
gives (`Wakes`) are how one worker wakes another.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from starlette.applications import Starlette

import pbm.bots
from pbm.commands.unsubscribe import Unsubscribing
from pbm.config import Settings, secret_key, signing_keys
from pbm.crypto.keys import SigningKeys
from pbm.crypto.passwords import Passwords
from pbm.health.bot_health import BotHealth
from pbm.health.metrics import DatabaseState, Metrics
from pbm.listeners import ConnectionLimits
from pbm.mail.account import Account
from pbm.mail.answers import Answers
from pbm.mail.bot_turns import BotTurns, Think, Thinking
from pbm.mail.bounces import BounceAddresses
from pbm.mail.compose import Composer
from pbm.mail.delivery import Delivery, Transport
from pbm.mail.held import HeldMail
from pbm.mail.inbound import smtp_refusals
from pbm.mail.mailbox import MailboxReader
from pbm.mail.outgoing import Outgoing
from pbm.mail.pipeline.apply import Applying
from pbm.mail.pipeline.reply_address import ReplyAddresses
from pbm.mail.processing import Processor
from pbm.mail.reader import MailReader
from pbm.mail.submission import transport_for
from pbm.mail.time_pass import TimePass
from pbm.mail.tokens import Addressing, ReplyTokens
from pbm.mail.worker import Worker
from pbm.store import board_lists, inbox, outbox
from pbm.store.club_keys import secret_source
from pbm.store.database import Database
from pbm.web.app import HEALTH_REQUESTS, HTTP_REFUSALS, create_app
from pbm.web.live import GameChanges
from pbm.words.links import Links
from pbm.words.templating import Templates


@dataclass(frozen=True)
class Wakes:
    """How the parts tell the server's lifecycle that another worker has work (each called from a
    worker's thread): a batch of mail was `processed`, a bot `bot_decided`, the mailbox reader
    `stored` a mail."""

    processed: Callable[[], None]
    bot_decided: Callable[[], None]
    stored: Callable[[], None]


@dataclass
class Parts:
    """The server's parts, built and wired, none started: what `Server` runs and stops."""

    settings: Settings
    secret_key: bytes
    secret_source: str
    database: Database
    addressing: Addressing
    bounce_addresses: BounceAddresses
    signing: SigningKeys
    templates: Templates
    composer: Composer
    changes: GameChanges
    reader: MailReader
    owns_reader: bool
    """Whether the reader's child process is the server's own to close."""
    metrics: Metrics
    processor: Processor
    bot_health: BotHealth
    thinking: Thinking | None
    """The bots' thinking process, when the server has its own."""
    bots: BotTurns
    mailbox: MailboxReader | None
    delivery: Delivery
    web: Starlette
    smtp_limits: ConnectionLimits
    http_limits: ConnectionLimits


def build(
    settings: Settings,
    wakes: Wakes,
    *,
    passwords: Passwords | None = None,
    transport: Transport | None = None,
    var_dir: Path | None = None,
    now: Callable[[], datetime],
    reader: MailReader | None = None,
    think: Think | None = None,
) -> Parts:
    """Every part of the server, wired (`pbm.serving.server.Server` says what each argument is for)."""
    key = secret_key(settings, var_dir)
    database = Database(settings.database_url, timeout=settings.database_timeout)
    addressing = Addressing(settings.address)
    tokens = ReplyTokens(key)
    bounce_addresses = BounceAddresses(key, addressing)
    signing = signing_keys(settings, var_dir)
    templates, unsubscribing, composer = _words(settings, key, addressing, tokens, signing)
    owns_reader = reader is None
    reader = reader or _mail_reader(settings)
    worker = Worker.here()  # one name for this process's claims, reading and sending alike
    metrics = Metrics()
    bot_health, thinking, bots = _bots(settings, database, think, worker, metrics, wakes, now)
    unseal = _unsealing(tokens, unsubscribing)
    delivery = _delivery(settings, database, transport, bounce_addresses, unseal, worker, metrics, now)
    mailbox = _mailbox_reader(settings, database, addressing, worker, metrics, wakes, now)
    doors = _watched(metrics, database, mailbox, delivery)
    reply_addresses = ReplyAddresses(addressing, tokens, composer, now, bounce_addresses)
    processor = _processor(
        settings, database, reader, passwords or Passwords(), composer, reply_addresses, worker, metrics, wakes, now
    )
    changes = GameChanges(database)
    web = _web(settings, database, templates, changes, unsubscribing, signing, bot_health, doors, now)
    return Parts(
        settings=settings,
        secret_key=key,
        secret_source=secret_source(settings.home if var_dir is None else var_dir, bool(settings.secret_key)),
        database=database,
        addressing=addressing,
        bounce_addresses=bounce_addresses,
        signing=signing,
        templates=templates,
        composer=composer,
        changes=changes,
        reader=reader,
        owns_reader=owns_reader,
        metrics=metrics,
        processor=processor,
        bot_health=bot_health,
        thinking=thinking,
        bots=bots,
        mailbox=mailbox,
        delivery=delivery,
        web=web,
        smtp_limits=_smtp_limits(settings, addressing),
        http_limits=_http_limits(settings),
    )


def _words(
    settings: Settings, key: bytes, addressing: Addressing, tokens: ReplyTokens, signing: SigningKeys
) -> tuple[Templates, Unsubscribing | None, Composer]:
    """The templates, the unsubscribe links (with a public address to link to) and the composer of mails."""
    templates = Templates(
        links=Links(settings.public_url),
        admin_contact=settings.admin_contact,
        default_language=settings.language,
        signing=signing,
    )
    unsubscribing = Unsubscribing(key, settings.public_url) if settings.public_url else None
    unsubscribe_url = unsubscribing.url_for if unsubscribing is not None else None
    composer = Composer(templates, addressing, tokens, key, unsubscribe_url=unsubscribe_url, signing=signing)
    return templates, unsubscribing, composer


def _mail_reader(settings: Settings) -> MailReader:
    """The child process that reads received mail (hostile bytes) apart from the server."""
    return MailReader(
        loop_marker=settings.address, seconds=settings.mail_read_seconds, memory_mb=settings.mail_read_memory_mb
    )


def _watched(
    metrics: Metrics, database: Database, mailbox: MailboxReader | None, delivery: Delivery
) -> Callable[[], dict[str, dict[str, object]]]:
    """The health of the mail doors (`mail_health`), which the metrics and ``/healthz`` show, once
    the metrics watch it and the database."""
    doors = functools.partial(mail_health, mailbox, delivery)
    metrics.watch(functools.partial(database_state, database))
    metrics.watch_doors(doors)
    return doors


def _bots(
    settings: Settings,
    database: Database,
    think: Think | None,
    worker: Worker,
    metrics: Metrics,
    wakes: Wakes,
    now: Callable[[], datetime],
) -> tuple[BotHealth, Thinking | None, BotTurns]:
    """The bots' turns, their thinking (a process of the server's own unless `think` is given) and
    the health they report."""
    metrics.bots_play(sorted(pbm.bots.PLANS))
    health = BotHealth(
        now=now,
        on_unthought=lambda game: metrics.bot_unthought_answers.labels(game).inc(),
        on_replaced=lambda reason: metrics.bot_thinking_replaced.labels(reason).inc(),
    )
    thinking = None
    if think is None:
        think = thinking = Thinking(on_replaced=health.replaced)
    turns = BotTurns(
        database,
        think,
        seconds=settings.bot_seconds,
        now=now,
        worker=worker,
        on_decided=wakes.bot_decided,
        health=health,
    )
    return health, thinking, turns


def _delivery(
    settings: Settings,
    database: Database,
    transport: Transport | None,
    bounce_addresses: BounceAddresses,
    unseal: Callable[[bytes, str, int | None], bytes],
    worker: Worker,
    metrics: Metrics,
    now: Callable[[], datetime],
) -> Delivery:
    """Delivery of the outbox: through `transport`, else the one ``PBM_OUTBOUND`` names."""
    return Delivery(
        database,
        transport or transport_for(settings.outbound, account_for(settings, settings.outbound.user)),
        settings.address,
        envelope_sender=bounce_addresses.address_for,
        now=now,
        first_retry=timedelta(seconds=settings.first_retry_seconds),
        worker=worker,
        metrics=metrics,
        unseal=unseal,
        max_per_day=settings.outbound_max_per_day,
    )


def _web(
    settings: Settings,
    database: Database,
    templates: Templates,
    changes: GameChanges,
    unsubscribing: Unsubscribing | None,
    signing: SigningKeys,
    bot_health: BotHealth,
    doors: Callable[[], dict[str, dict[str, object]]],
    now: Callable[[], datetime],
) -> Starlette:
    """The web application: pages, API, ``/healthz`` (which shows the bots' and the mail doors' health)."""
    return create_app(
        database,
        templates,
        changes,
        address=settings.address,
        stuck_after=settings.stuck_after,
        time_control=settings.club.time_control,
        vacation_allowance=settings.club.vacation_allowance,
        idle_seconds=settings.http_idle_seconds,
        event_streams_per_client=settings.http_max_event_streams_per_client,
        now=now,
        unsubscribing=unsubscribing,
        signing=signing,
        site=settings.public_url or None,
        bot_health=bot_health,
        mail_health=doors,
    )


def _smtp_limits(settings: Settings, addressing: Addressing) -> ConnectionLimits:
    return ConnectionLimits(
        "SMTP",
        total=settings.smtp_max_connections,
        per_client=settings.smtp_max_connections_per_client,
        refusals=smtp_refusals(addressing.domain),
    )


def _http_limits(settings: Settings) -> ConnectionLimits:
    return ConnectionLimits(
        "HTTP",
        total=settings.http_max_connections,
        per_client=settings.http_max_connections_per_client,
        refusals=HTTP_REFUSALS,
        # uvicorn times out a connection only between requests, not before its first
        first_bytes_within=settings.http_idle_seconds,
        reserved_for=HEALTH_REQUESTS,
    )


def mail_health(mailbox: MailboxReader | None, delivery: Delivery) -> dict[str, dict[str, object]]:
    """How the doors to a mail provider are doing, for ``/healthz``: the mailbox reader and the
    submission transport, when the server has them."""
    doors = {}
    if mailbox is not None:
        doors["mailbox"] = mailbox.health
    sending = getattr(delivery.transport, "health", None)
    if sending is not None:
        doors["submission"] = sending
    report = {name: door.to_json() | {"ok": door.ok} for name, door in doors.items()}
    if delivery.daily:
        report["daily_limit"] = {**delivery.daily, "ok": True}
    return report


def database_state(database: Database) -> DatabaseState:
    """What the gauges of `pbm.health.metrics` show, read at each scrape (in the metrics thread)."""
    with database.reading() as session:
        return DatabaseState(
            inbox=inbox.status_counts(session),
            outbox=outbox.counts(session),
            games=board_lists.counts_by_type(session),
        )


def _processor(
    settings: Settings,
    database: Database,
    reader: MailReader,
    passwords: Passwords,
    composer: Composer,
    reply_addresses: ReplyAddresses,
    worker: Worker,
    metrics: Metrics,
    wakes: Wakes,
    now: Callable[[], datetime],
) -> Processor:
    """The mail pipeline (`pbm.mail.pipeline`), each step given the services it needs."""
    limits, club = settings.limits, settings.club
    answers = Answers(limits.quoted_lines)
    outgoing = Outgoing(composer, limits, answers, club.confirm_addresses)
    applying = Applying(
        passwords, limits, answers, reply_addresses, now, club, trusted_authserv_id=settings.trusted_authserv_id
    )
    time_pass = TimePass(database, passwords, limits, outgoing, HeldMail(composer, limits), club=club, now=now)
    return Processor(
        database,
        reader,
        applying,
        outgoing,
        time_pass,
        time_pass_every=timedelta(seconds=settings.time_pass_seconds),
        read_seconds=settings.mail_read_seconds,
        database_timeout=settings.database_timeout,
        now=now,
        on_processed=wakes.processed,
        worker=worker,
        metrics=metrics,
    )


def _mailbox_reader(
    settings: Settings,
    database: Database,
    addressing: Addressing,
    worker: Worker,
    metrics: Metrics,
    wakes: Wakes,
    now: Callable[[], datetime],
) -> MailboxReader | None:
    """The reader of the club's mailbox at a provider (PBM_INBOUND), if it has one."""
    if settings.inbound is None:
        return None
    return MailboxReader(
        database,
        settings.inbound,
        account_for(settings, settings.inbound.user),
        addressing,
        on_stored=wakes.stored,
        max_size=settings.max_message_size,
        keep=timedelta(days=settings.inbound_keep_days),
        worker=worker,
        metrics=metrics,
        now=now,
    )


def account_for(settings: Settings, user: str | None) -> Account:
    """The club's account `user` at a mail provider (`pbm.mail.account`), with its secret's source."""
    return Account(user or "", settings.mail_password_file, settings.mail_password_command, settings.mail_ca_file)


def _unsealing(tokens: ReplyTokens, unsubscribing: Unsubscribing | None) -> Callable[[bytes, str, int | None], bytes]:
    """What delivery does to a mail as it hands it over: its sealed reply tokens and unsubscribe
    URL made to work, from the key (the database holds neither)."""
    if unsubscribing is None:
        return tokens.unseal
    return lambda raw, recipient, player_id: unsubscribing.unseal(tokens.unseal(raw, recipient, player_id), player_id)
