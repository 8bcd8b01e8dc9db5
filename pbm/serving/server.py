"""`pbm serve`: the whole server's lifecycle, over the parts `pbm.serving.parts` wires.

One asyncio loop runs the SMTP listener, the web server, the worker that
processes stored mail, the worker that delivers the outbox and the one that
plays the bots' turns (their searching in a process of its own, so it holds
up no mail). Database work runs in threads so a slow query never stalls the
SMTP conversation. The web
pages follow the games through one change feed, woken by the processing
worker after each commit and polling for moves other processes apply. Each
listener lets in so many connections, from one client and in all
(`pbm.listeners`), so that neither can use up the files the other needs.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import signal
import socket
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import cast

import uvicorn
from uvicorn.protocols.http.auto import AutoHTTPProtocol

import pbm.bots
import pbm.games
from pbm.config import ConfigError, Settings
from pbm.crypto.passwords import Passwords
from pbm.health.metrics import MetricsServer
from pbm.listeners import BACKLOG, AcceptFailures, allow_open_files, bind
from pbm.mail.bot_turns import Think
from pbm.mail.delivery import Transport
from pbm.mail.inbound import InboundHandler, smtp_factory
from pbm.mail.reader import MailReader
from pbm.serving.parts import Parts, Wakes, build
from pbm.serving.systemd import notify
from pbm.store import club_keys
from pbm.store.errors import DatabaseUnavailable, Failure, classify
from pbm.store.holding import Held, Hold
from pbm.store.models import utcnow

log = logging.getLogger(__name__)

IDLE_POLL_SECONDS = 30.0
"""Workers look again at least this often even when nothing woke them: the time pass falls
due, and another worker's queued replies are found (delivery also wakes when a retry is due)."""
FIRST_OUTAGE_WAIT = 0.5
LONGEST_OUTAGE_WAIT = 10.0
"""While the database is unreachable, processing tries again after a wait that doubles
from FIRST_OUTAGE_WAIT up to this, and at once when a mail arrives: the listener could
store it, so the database is back."""
STOP_GRACE_SECONDS = 10
"""How long a stopping server lets a worker finish the mail in hand."""


class _EmbeddedUvicorn(uvicorn.Server):
    """uvicorn as one part of our process: the process, not uvicorn, owns the signals."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


@dataclass
class Wakeup:
    """An event a worker waits on, with a timeout so due retries are not missed."""

    event: asyncio.Event = field(default_factory=asyncio.Event)

    def set(self) -> None:
        self.event.set()

    async def wait(self, timeout: float) -> bool:
        """Until set, or `timeout` seconds; whether it was set (False: the time ran out)."""
        # asyncio.timeout, not wait_for: on 3.11 wait_for can swallow a cancel
        # that arrives as its inner task finishes, and the server never stops.
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                await self.event.wait()
        woken = self.event.is_set()
        self.event.clear()
        return woken


class Server:
    """`pbm serve`'s lifecycle: it starts the parts `pbm.serving.parts` builds (listeners,
    workers, the metrics endpoint), wakes each worker when another has work for it, and stops
    and closes them in order."""

    def __init__(
        self,
        settings: Settings,
        *,
        passwords: Passwords | None = None,
        transport: Transport | None = None,
        var_dir: Path | None = None,
        now: Callable[[], datetime] = utcnow,
        reader: MailReader | None = None,
        think: Think | None = None,
    ) -> None:
        """`reader`: a mail reader to share (its child process) instead of one of the server's own;
        whoever made it closes it. It must read with this server's address and limits. `think`:
        how bots answer (`pbm.bots.answers.answer` somewhere), instead of a process of the
        server's own."""
        self._processing = Wakeup()
        self._delivering = Wakeup()
        self._botting = Wakeup()
        self._following = Wakeup()
        wakes = Wakes(processed=self._processed, bot_decided=self._bot_decided, stored=self._processing.set)
        self.parts = build(
            settings,
            wakes,
            passwords=passwords,
            transport=transport,
            var_dir=var_dir,
            now=now,
            reader=reader,
            think=think,
        )
        self._name_the_parts(settings, self.parts)
        self._not_started()

    def _name_the_parts(self, settings: Settings, parts: Parts) -> None:
        """What the lifecycle below runs, and what tests and `pbm` reach through the server."""
        self.settings = settings
        self.database = parts.database
        self.addressing = parts.addressing
        self.bounce_addresses = parts.bounce_addresses
        self.signing = parts.signing
        self.templates = parts.templates
        self.composer = parts.composer
        self.changes = parts.changes
        self.reader = parts.reader
        self.metrics = parts.metrics
        self.processor = parts.processor
        self.bot_health = parts.bot_health
        """Whether this process's bots think (`pbm.health.bot_health`): the bots report,
        ``/healthz`` and ``/bots`` show."""
        self.bots = parts.bots
        self.mailbox = parts.mailbox
        self.delivery = parts.delivery
        self.web = parts.web
        self.smtp_limits = parts.smtp_limits
        self.http_limits = parts.http_limits

    def _not_started(self) -> None:
        """What starting sets, and stopping and closing let go of: none of it yet."""
        self.smtp_port: int | None = None
        self.http_port: int | None = None
        self.metrics_port: int | None = None
        self._metrics_server: MetricsServer | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._stopping = False
        self._hold: Hold | None = None
        self._smtp: list[asyncio.Server] = []
        self._http: _EmbeddedUvicorn | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def _processed(self) -> None:
        """A batch of mail was committed (called in the processing thread): the pages look for
        the moves, delivery sends the replies now, not once the whole backlog is done, and the
        bots look for their turns."""
        self.changes.wake()
        self._wake(self._delivering, self._botting)

    def _bot_decided(self) -> None:
        """A bot's decision went into the inbox (called in the bots' thread): processing applies it."""
        self._wake(self._processing)

    def _wake(self, *wakeups: Wakeup) -> None:
        """Set `wakeups` from a thread other than the loop's."""
        if self._loop is not None:
            for wakeup in wakeups:
                with contextlib.suppress(RuntimeError):  # the loop has closed: the server is stopping
                    self._loop.call_soon_threadsafe(wakeup.set)

    async def start(self, *, process: bool = True) -> None:
        """Listen and start the workers; returns once both listeners are bound."""
        await asyncio.to_thread(self.database.check_schema)
        await self.delivery.transport.check()  # stops us here if replies could never be written
        await asyncio.to_thread(self._hold_the_database)
        await asyncio.to_thread(self.agree_on_keys)  # before anything is signed or a reply address made
        settings = self.settings
        allow_open_files(
            settings.smtp_max_connections + settings.http_max_connections,
            "PBM_SMTP_MAX_CONNECTIONS and PBM_HTTP_MAX_CONNECTIONS",
        )
        # First: a listener that cannot bind stops the start before mail could arrive (close() stops it).
        self._listen_for_metrics()
        smtp_sockets, http_sockets = self._bind()
        loop = self._loop = asyncio.get_running_loop()
        loop.set_exception_handler(AcceptFailures())
        await self._serve_smtp(loop, smtp_sockets)
        await self.changes.start()
        await self._serve_http(http_sockets)
        self._start_workers(process=process)
        log.info(
            "listening: SMTP on %s:%s, HTTP on %s:%s",
            settings.smtp_listen.host,
            self.smtp_port,
            settings.http_listen.host,
            self.http_port,
        )

    def _listen_for_metrics(self) -> None:
        """Serve ``/metrics`` where ``PBM_METRICS_LISTEN`` says, when it says."""
        listen = self.settings.metrics_listen
        if listen is None:
            return
        try:
            self._metrics_server = self.metrics.serve(listen.host, listen.port)
        except OSError as error:
            raise ConfigError(f"PBM_METRICS_LISTEN: cannot listen on {listen}: {error.strerror}") from None
        self.metrics_port = self._metrics_server.port
        log.info("metrics on http://%s:%s/metrics", listen.host, self.metrics_port)

    def _bind(self) -> tuple[list[socket.socket], list[socket.socket]]:
        """The SMTP and the HTTP listeners' sockets, bound: both, or neither and `ConfigError`."""
        smtp_sockets = bind(self.settings.smtp_listen, "PBM_SMTP_LISTEN")
        try:
            http_sockets = bind(self.settings.http_listen, "PBM_HTTP_LISTEN")
        except ConfigError:
            for listener in smtp_sockets:
                listener.close()
            raise
        return smtp_sockets, http_sockets

    async def _serve_smtp(self, loop: asyncio.AbstractEventLoop, sockets: list[socket.socket]) -> None:
        """Accept mail on `sockets`, within the SMTP listener's caps, storing it into the inbox."""
        settings = self.settings
        handler = InboundHandler(self.database, self.addressing, on_stored=self._processing.set, metrics=self.metrics)
        smtp = self.smtp_limits.guard(
            smtp_factory(
                handler,
                hostname=self.addressing.domain,
                max_size=settings.max_message_size,
                idle_seconds=settings.smtp_idle_seconds,
                lifetime=settings.smtp_max_session_seconds,
                commands_without_mail=settings.smtp_max_commands_without_mail,
            )
        )
        self._smtp = [await loop.create_server(smtp, sock=listener, backlog=BACKLOG) for listener in sockets]
        self.smtp_port = sockets[0].getsockname()[1]

    async def _serve_http(self, sockets: list[socket.socket]) -> None:
        """Serve the web application on `sockets`, within the HTTP listener's caps; returns once it is up."""
        config = uvicorn.Config(
            self.web,
            # uvicorn calls it as it would a protocol class
            http=cast(type[asyncio.Protocol], self.http_limits.guard(AutoHTTPProtocol)),
            backlog=BACKLOG,
            log_level="warning",
            lifespan="off",
            timeout_keep_alive=self.settings.http_idle_seconds,
            timeout_graceful_shutdown=STOP_GRACE_SECONDS,
        )
        self._http = _EmbeddedUvicorn(config)
        self._tasks.append(asyncio.create_task(self._http.serve(sockets=sockets), name="http"))
        while not self._http.started:
            if self._tasks[-1].done():
                await self._tasks[-1]  # raises the reason the web server could not start
                raise RuntimeError("the web server stopped while starting")
            await asyncio.sleep(0.01)
        self.http_port = sockets[0].getsockname()[1]

    def _start_workers(self, *, process: bool) -> None:
        """The workers: processing and the bots (unless `process` is false), delivery, the club's
        keys, and the mailbox reader (which stores mail, as the SMTP listener does: with
        --no-process too)."""
        if process:
            self._tasks.append(asyncio.create_task(self._process_forever(), name="process"))
            self._tasks.append(asyncio.create_task(self._play_bots_forever(), name="bots"))
        self._tasks.append(asyncio.create_task(self._deliver_forever(), name="deliver"))
        self._tasks.append(asyncio.create_task(self._follow_club_keys_forever(), name="keys"))
        if self.mailbox is not None:
            self._tasks.append(asyncio.create_task(self.mailbox.run(), name="mailbox"))

    async def stop(self) -> None:
        """Stop listening, let the workers finish what they are doing, close the database."""
        self._stopping = True
        for listener in self._smtp:
            listener.close()
        await self.changes.close()  # ends the pages' event streams, so the web server can stop
        if self._http is not None:
            self._http.should_exit = True
        if self.parts.thinking is not None:
            self.parts.thinking.close()  # a bot thinking gives up: it thinks again after the restart
        if self.mailbox is not None:
            self.mailbox.stop()
        self._processing.set()
        self._delivering.set()
        self._botting.set()
        self._following.set()
        done, pending = await asyncio.wait(self._tasks, timeout=STOP_GRACE_SECONDS)
        for task in pending:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks.clear()
        for listener in self._smtp:
            await listener.wait_closed()
        self.smtp_limits.close()
        self.http_limits.close()
        self.close()

    def agree_on_keys(self) -> None:
        """Make this worker's keys the club's, as its database names them (`pbm.store.club_keys`):
        `ConfigError` telling the administrator what to copy where when they are not."""
        try:
            club_keys.agree(self.database, self.parts.secret_key, self.signing, secret_source=self.parts.secret_source)
        except club_keys.KeysDisagree as error:
            raise ConfigError(str(error)) from None

    def _hold_the_database(self) -> None:
        """Say, for as long as this server runs, that it holds its database (`pbm.store.holding`):
        a restore refuses to run under it."""
        try:
            self._hold = Hold(self.database, exclusive=False)
        except Held as error:
            raise ConfigError(str(error)) from None

    def close(self) -> None:
        """Let go of what the server holds: the metrics listener, the mail reader's process (when it
        is the server's own), the database connections and then its hold on the database."""
        if self._metrics_server is not None:
            self._metrics_server.close()
            self._metrics_server = None
        if self.parts.owns_reader:
            self.reader.close()
        if self.parts.thinking is not None:
            self.parts.thinking.close()
        self.database.dispose()
        if self._hold is not None:
            self._hold.release()
            self._hold = None

    def warm_up(self) -> None:
        """Do now what the first mail and the first page would otherwise wait for: start the
        mail reader's process, import the game engines (found through entry points, so only
        when first asked for) and compile the templates. Together some 250 ms, which the first
        mail after a restart, and the mails queued behind it, would otherwise add to their
        wait. Called once by `run`, like `settle`; tests that start many servers skip it."""
        self.reader.start()
        pbm.games.all_games()
        self.templates.load("mail", "help", "web")

    def settle(self) -> None:
        """Keep what start-up made out of the garbage collector's full passes.

        Modules, engines, templates and connection pools live as long as the
        process; left tracked, every full collection walks them again, and now
        and then a page takes 20-40 ms longer. Called once by `run` (not by
        `start`, which tests call many times in one process).
        """
        gc.collect()
        gc.freeze()

    async def run(self, *, process: bool = True) -> None:
        """Serve until SIGINT or SIGTERM."""
        stopping = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stopping.set)
        await asyncio.to_thread(self.warm_up)
        # Before the listeners open: the full collection holds every thread some 75 ms, which
        # the first mails after a restart would wait. What starting makes stays unfrozen; it is little.
        self.settle()
        try:
            await self.start(process=process)
        except BaseException:
            self.close()  # the mail reader's process, started by the warm-up
            raise
        notify("READY=1")  # under systemd (Type=notify): listening, units after this one may start
        await stopping.wait()
        log.info("stopping")
        notify("STOPPING=1")
        await self.stop()

    async def _process_forever(self) -> None:
        wait = 0.0
        idle = True
        while not self._stopping:
            try:
                # An idle poll also looks for mail a stopped worker had begun reading.
                processed = await asyncio.to_thread(self.processor.process_pending, look_for_dead_claims=idle)
                wait = 0.0
            except DatabaseUnavailable as outage:
                wait = min(max(2 * wait, FIRST_OUTAGE_WAIT), LONGEST_OUTAGE_WAIT)
                log.warning("database unavailable (%s): processing waits %.1f s or until mail arrives", outage, wait)
                await self._processing.wait(wait)
                continue
            except Exception:
                # A failure outside any one mail (each mail's own is recorded on it): a bug.
                log.exception("processing stopped; retrying")
                await self._processing.wait(LONGEST_OUTAGE_WAIT)
                continue
            if processed:
                self._delivering.set()
            idle = not await self._processing.wait(IDLE_POLL_SECONDS)

    async def _play_bots_forever(self) -> None:
        """Play the bots' turns as they come (`pbm.mail.bot_turns`): woken when mail was applied,
        and looking again now and then for what another worker left."""
        while not self._stopping:
            try:
                await asyncio.to_thread(self.bots.play_due)
            except Exception as error:
                if classify(error) is Failure.MAIL:
                    log.exception("the bots stopped; retrying")  # a bug
                else:
                    log.warning("the bots wait for the database (%s)", type(error).__name__)
                await self._botting.wait(LONGEST_OUTAGE_WAIT)
                continue
            await self._botting.wait(IDLE_POLL_SECONDS)

    def follow_club_keys(self) -> None:
        """Sign with the club's current key when another worker rotated it (`pbm keys rotate`)."""
        if club_keys.current_signing_key(self.database) != self.signing.key_id:
            self.agree_on_keys()

    async def _follow_club_keys_forever(self) -> None:
        while not self._stopping:
            await self._following.wait(2 * IDLE_POLL_SECONDS)
            if self._stopping:
                return
            try:
                await asyncio.to_thread(self.follow_club_keys)
            except Exception as error:  # the database is away, or the keys no longer agree: said, tried again
                log.warning("the club's signing key could not be checked (%s): this worker signs as before", error)

    async def _deliver_forever(self) -> None:
        while not self._stopping:
            try:
                await self.delivery.deliver_due()
                rest = await asyncio.to_thread(self.delivery.seconds_until_due, IDLE_POLL_SECONDS)
            except Exception as error:
                if classify(error) is Failure.MAIL:
                    log.exception("delivery stopped; retrying")  # a bug
                else:
                    log.warning("delivery waits for the database (%s)", type(error).__name__)
                await self._delivering.wait(5)  # woken at once by a stop, or by new replies
                continue
            await self._delivering.wait(rest)


class ServerThread:
    """A `Server` on its own event loop in a background thread.

    For programs that embed the server, and for tests and benchmarks that talk
    to it over real sockets from the calling thread::

        with ServerThread(Server(settings)) as server:
            print(server.smtp_port, server.http_port)
    """

    def __init__(self, server: Server, *, timeout: float = 60.0) -> None:
        self.server = server
        self.timeout = timeout
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="pbm-server", daemon=True)

    def start(self) -> Server:
        """Start the loop and the server; returns once both listeners are bound."""
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self.server.start(), self.loop).result(self.timeout)
        return self.server

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self.server.stop(), self.loop).result(self.timeout)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(self.timeout)

    def __enter__(self) -> Server:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
