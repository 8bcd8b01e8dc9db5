"""Player passwords, stored only as argon2id hashes.

The cost parameters are the deployment's choice: the defaults follow the OWASP
minimum for argon2id (19 MiB, 2 iterations), which keeps a move mailed with a
password well under a core-millisecond budget of tens; tests pass a cheaper
hasher explicitly.

argon2 is slow on purpose, and a write transaction must not wait for it (on
SQLite it holds up every other writer, the SMTP listener's too). So the mail
worker does the slow part ahead, outside any transaction: `verify` answers
are remembered, and `prepare` makes the hash of a new password before the
command that sets it runs. What is remembered lives in this process only,
keyed by an HMAC under a key made at start: neither a password nor anything
that could be checked against one is kept.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
import secrets
import threading
from collections import OrderedDict
from concurrent.futures import Future, ThreadPoolExecutor
from types import TracebackType
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

log = logging.getLogger(__name__)

MIN_LENGTH = 4
MAX_LENGTH = 128
AHEAD_THREADS = min(4, os.cpu_count() or 1)
"""Threads that make a batch's password checks side by side (each check takes 19 MiB)."""


class WeakPassword(ValueError):
    pass


class Passwords:
    def __init__(self, hasher: PasswordHasher | None = None, *, remember: int = 4096) -> None:
        self._hasher = hasher or PasswordHasher(time_cost=2, memory_cost=19 * 1024, parallelism=1)
        self._key = secrets.token_bytes(32)
        self._remember = remember
        self._verdicts: OrderedDict[bytes, bool] = OrderedDict()
        self._prepared: OrderedDict[bytes, list[str]] = OrderedDict()
        self._lock = threading.Lock()

    def hash(self, password: str) -> str:
        """A new hash of `password`: one `prepare` made, if any, else made now."""
        _check_length(password)
        with self._lock:
            ready = self._prepared.get(self._mac("new", password))
            if ready:
                return ready.pop()  # each prepared hash is used once: salts are never shared
        return self._hasher.hash(password)

    def prepare(self, password: str) -> None:
        """Make a hash of `password` now, for the next `hash(password)` to use."""
        try:
            _check_length(password)
        except WeakPassword:
            return  # `hash` will refuse it, with the reason
        made = self._hasher.hash(password)
        with self._lock:
            self._prepared.setdefault(self._mac("new", password), []).append(made)
            self._trim(self._prepared)

    def verify(self, password_hash: str, password: str) -> bool:
        key = self._mac("check", password_hash, password)
        with self._lock:
            if key in self._verdicts:
                self._verdicts.move_to_end(key)
                return self._verdicts[key]
        verdict: bool
        try:
            verdict = self._hasher.verify(password_hash, password)
        except (VerificationError, InvalidHashError):
            verdict = False
        with self._lock:
            self._verdicts[key] = verdict
            self._trim(self._verdicts)
        return verdict

    def ahead(self, threads: int = AHEAD_THREADS) -> Ahead:
        """Checks and hashes to make on threads of their own, waited for at the end of a ``with``."""
        return Ahead(self, threads)

    def _mac(self, *parts: str) -> bytes:
        message = "\0".join(parts).encode("utf-8", "surrogatepass")
        return hmac.new(self._key, message, hashlib.sha256).digest()

    def _trim(self, remembered: OrderedDict[bytes, Any]) -> None:
        while len(remembered) > self._remember:
            remembered.popitem(last=False)


class Ahead:
    """A batch's password work, made on other threads while the batch goes on being read.

    argon2 lets go of the GIL: while a check runs on another core, the mail
    worker reads the next mail instead of waiting 20 ms for each player's
    first check. Leaving the ``with`` waits for all of it, so the transaction
    that applies the batch finds every answer remembered; work that failed
    here is only made again there. The same check is started once a batch.
    """

    def __init__(self, passwords: Passwords, threads: int) -> None:
        self._passwords = passwords
        self._pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="pbm-password")
        self._started: set[bytes] = set()
        self._work: list[Future[object]] = []

    def verify(self, password_hash: str, password: str) -> None:
        key = self._passwords._mac("check", password_hash, password)
        if key not in self._started:
            self._started.add(key)
            self._work.append(self._pool.submit(self._passwords.verify, password_hash, password))

    def prepare(self, password: str) -> None:
        self._work.append(self._pool.submit(self._passwords.prepare, password))

    def close(self) -> None:
        """Wait for all the work started."""
        for work in self._work:
            if (error := work.exception()) is not None:
                log.warning("a password check made ahead failed (%s); it is made when its mail is applied",
                            type(error).__name__)  # fmt: skip
        self._pool.shutdown()

    def __enter__(self) -> Ahead:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()


def _check_length(password: str) -> None:
    if not MIN_LENGTH <= len(password) <= MAX_LENGTH:
        raise WeakPassword(f"A password must be {MIN_LENGTH} to {MAX_LENGTH} characters long")


def fast_passwords() -> Passwords:
    """Cheap hashing for tests and benchmarks of everything but hashing."""
    return Passwords(PasswordHasher(time_cost=1, memory_cost=8, parallelism=1))
