"""Player passwords, stored only as argon2id hashes.

The cost parameters are the deployment's choice: the defaults follow the OWASP
minimum for argon2id (19 MiB, 2 iterations), which keeps a move mailed with a
password well under a core-millisecond budget of tens; tests pass a cheaper
hasher explicitly.
"""

from __future__ import annotations

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

MIN_LENGTH = 4
MAX_LENGTH = 128


class WeakPassword(ValueError):
    pass


class Passwords:
    def __init__(self, hasher: PasswordHasher | None = None) -> None:
        self._hasher = hasher or PasswordHasher(time_cost=2, memory_cost=19 * 1024, parallelism=1)

    def hash(self, password: str) -> str:
        if not MIN_LENGTH <= len(password) <= MAX_LENGTH:
            raise WeakPassword(f"A password must be {MIN_LENGTH} to {MAX_LENGTH} characters long")
        return self._hasher.hash(password)

    def verify(self, password_hash: str, password: str) -> bool:
        try:
            return self._hasher.verify(password_hash, password)
        except (VerificationError, InvalidHashError):
            return False


def fast_passwords() -> Passwords:
    """Cheap hashing for tests and benchmarks of everything but hashing."""
    return Passwords(PasswordHasher(time_cost=1, memory_cost=8, parallelism=1))
