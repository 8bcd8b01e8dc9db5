"""Passwords: argon2 hashes, checked once per process and made ahead of the transaction that needs them."""

from __future__ import annotations

import logging

import pytest
from argon2 import PasswordHasher

from pbm.crypto.passwords import Passwords, fast_passwords

SECRET = "s3cret-word"


class CountingHasher(PasswordHasher):
    def __init__(self) -> None:
        super().__init__(time_cost=1, memory_cost=8, parallelism=1)
        self.verified = 0

    def verify(self, hash: str | bytes, password: str | bytes) -> bool:
        self.verified += 1
        return super().verify(hash, password)


class BrokenHasher(CountingHasher):
    def verify(self, hash: str | bytes, password: str | bytes) -> bool:
        raise RuntimeError("the hasher broke")


def test_a_check_made_ahead_is_remembered_when_the_transaction_makes_it_again():
    hasher = CountingHasher()
    passwords = Passwords(hasher)
    hashed = passwords.hash(SECRET)
    with passwords.ahead() as ahead:
        ahead.verify(hashed, SECRET)
        ahead.verify(hashed, "wrong-word")
        ahead.verify(hashed, SECRET)  # the same check again in the batch: started once
    assert hasher.verified == 2
    assert passwords.verify(hashed, SECRET) is True
    assert passwords.verify(hashed, "wrong-word") is False
    assert hasher.verified == 2


def test_a_hash_prepared_ahead_is_used_once_and_its_salt_never_shared():
    passwords = fast_passwords()
    with passwords.ahead() as ahead:
        ahead.prepare(SECRET)
        ahead.prepare(SECRET)
    first, second, third = passwords.hash(SECRET), passwords.hash(SECRET), passwords.hash(SECRET)
    assert len({first, second, third}) == 3
    assert all(passwords.verify(h, SECRET) for h in (first, second, third))


def test_a_check_that_fails_ahead_is_logged_without_the_password_and_made_again_later(caplog):
    broken = Passwords(BrokenHasher())
    hashed = fast_passwords().hash(SECRET)
    with caplog.at_level(logging.WARNING), broken.ahead() as ahead:
        ahead.verify(hashed, SECRET)
    assert "RuntimeError" in caplog.text and SECRET not in caplog.text
    with pytest.raises(RuntimeError):
        broken.verify(hashed, SECRET)  # nothing was remembered: the transaction checks again
