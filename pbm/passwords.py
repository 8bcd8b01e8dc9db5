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
import secrets
import threading
from collections import OrderedDict
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

MIN_LENGTH = 4
MAX_LENGTH = 128


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

    def _mac(self, *parts: str) -> bytes:
        message = "\0".join(parts).encode("utf-8", "surrogatepass")
        return hmac.new(self._key, message, hashlib.sha256).digest()

    def _trim(self, remembered: OrderedDict[bytes, Any]) -> None:
        while len(remembered) > self._remember:
            remembered.popitem(last=False)


def _check_length(password: str) -> None:
    if not MIN_LENGTH <= len(password) <= MAX_LENGTH:
        raise WeakPassword(f"A password must be {MIN_LENGTH} to {MAX_LENGTH} characters long")


def fast_passwords() -> Passwords:
    """Cheap hashing for tests and benchmarks of everything but hashing."""
    return Passwords(PasswordHasher(time_cost=1, memory_cost=8, parallelism=1))
