"""The server's Ed25519 signing keys: made on first start, rotatable, never forgotten.

They live in one folder (``var/signing``): ``current.key``, the private key signing now
(hex, readable by the server alone), and ``<key id>.pub`` for every key the server ever
signed with, the current one included. Rotating (`rotate`) makes a new current key and
keeps the old public key beside the others, so a receipt or a record signed before stays
verifiable; the old private key is deleted, so it signs nothing more.

A key's id is the first 16 hex digits of the SHA-256 of its raw public key: a record and a
receipt name the key that signed them by it.
"""

from __future__ import annotations

import base64
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat, PublicFormat

from pbm.crypto import chain
from pbm.crypto.keyfiles import create_once
from pbm.facts import Fact

CURRENT = "current.key"
RECEIPT_PREFIX = 16
"""Hex digits of the chain hash a receipt shows: enough to find it in a record by eye; the
signature covers the whole hash."""


def key_id(public_key: bytes) -> str:
    return hashlib.sha256(public_key).hexdigest()[:16]


def b64(data: bytes) -> str:
    """Bytes as a record and a receipt write them: URL-safe base64 without padding."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64(text: str) -> bytes:
    """`b64` read back; raises ValueError on anything else."""
    if not isinstance(text, str) or not text.isascii():
        raise ValueError("not base64")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _raw_public(private: Ed25519PrivateKey) -> bytes:
    return private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


@dataclass(frozen=True)
class Signature:
    """A signature, with the key that made it."""

    key_id: str
    public_key: str
    """The raw public key, `b64`."""
    value: str
    """The 64-byte Ed25519 signature, `b64`."""


def check(public_key: str, message: bytes, signature: str) -> bool:
    """Whether `signature` (`b64`) is `public_key`'s (`b64`) over `message`."""
    try:
        Ed25519PublicKey.from_public_bytes(unb64(public_key)).verify(unb64(signature), message)
    except (InvalidSignature, ValueError, TypeError):
        return False
    return True


class SigningKeys:
    """The folder of keys; `sign` with the current one, `public_keys` of all."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._loaded: Ed25519PrivateKey | None = None

    @property
    def _private(self) -> Ed25519PrivateKey:
        """The current private key, read (or made) at its first use: a server that cannot write its
        data folder says so about what it tried first (the outbox), not here."""
        if self._loaded is None:
            self._loaded = self._load_or_create()
        return self._loaded

    @property
    def public_key(self) -> bytes:
        return _raw_public(self._private)

    @property
    def key_id(self) -> str:
        return key_id(self.public_key)

    def sign(self, message: bytes) -> Signature:
        return Signature(self.key_id, b64(self.public_key), b64(self._private.sign(message)))

    def receipt(self, game: str, board: int, ply: int, chain_hash: str) -> Fact:
        """A board mail's receipt: the ply, the chain hash's first `RECEIPT_PREFIX` digits, and the
        signature over the whole statement (`chain.statement`), which the game's record completes."""
        signature = self.sign(chain.statement(game, board, ply, chain_hash))
        return Fact(
            "move-receipt",
            ply=ply,
            chain=chain_hash[:RECEIPT_PREFIX],
            key_id=signature.key_id,
            signature=signature.value,
        )

    def public_keys(self) -> dict[str, str]:
        """Every key the server has signed with: key id -> public key (`b64`)."""
        return self.known(self.folder)

    @staticmethod
    def known(folder: Path) -> dict[str, str]:
        """The public keys of a key folder, read without its private key (what `pbm verify --keys`
        trusts): key id -> public key (`b64`)."""
        found = {}
        for path in sorted(folder.glob("*.pub")):
            text = path.read_text().strip()
            found[key_id(unb64(text))] = text
        return found

    def on_disk(self) -> Ed25519PrivateKey | None:
        """The current private key if the folder has one; nothing is made."""
        path = self.folder / CURRENT
        if not path.exists():
            return None
        return Ed25519PrivateKey.from_private_bytes(bytes.fromhex(path.read_text().strip()))

    def private_bytes(self) -> bytes:
        """The current private key, raw: for sealing it where other workers find it (`pbm.store.club_keys`)."""
        return self._private.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())

    def adopt(self, private: bytes, public_keys: dict[str, str]) -> None:
        """Make the raw `private` key the current one, and list every key of `public_keys` (key id
        -> `b64` public key): the keys another worker made, taken from the club's database."""
        for text in public_keys.values():
            self._write_public_text(text)
        adopted = Ed25519PrivateKey.from_private_bytes(private)
        self._write_public(adopted)
        temporary = self.folder / (CURRENT + ".new")
        _write_private(temporary, adopted)
        os.replace(temporary, self.folder / CURRENT)
        self._loaded = adopted

    def list_public(self, public_keys: dict[str, str]) -> None:
        """List the public keys of `public_keys` beside this folder's own (what `pbm verify --keys` reads)."""
        for text in public_keys.values():
            self._write_public_text(text)

    def rotate(self) -> SigningKeys:
        """A new current key; the old public key stays listed, its private key is gone."""
        self._write_public(self._private)  # the folder, and the key rotated away, exist first
        fresh = Ed25519PrivateKey.generate()
        self._write_public(fresh)
        temporary = self.folder / (CURRENT + ".new")
        _write_private(temporary, fresh)
        os.replace(temporary, self.folder / CURRENT)
        return SigningKeys(self.folder)

    def _load_or_create(self) -> Ed25519PrivateKey:
        path = self.folder / CURRENT
        if not path.exists():
            # Another process starting at the same moment may make it first: then theirs is used.
            create_once(path, _private_text(Ed25519PrivateKey.generate()))
        private = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(path.read_text().strip()))
        self._write_public(private)
        return private

    def _write_public(self, private: Ed25519PrivateKey) -> None:
        self._write_public_text(b64(_raw_public(private)))

    def _write_public_text(self, public: str) -> None:
        path = self.folder / f"{key_id(unb64(public))}.pub"
        if not path.exists():
            create_once(path, public + "\n", mode=0o644)


def _private_text(private: Ed25519PrivateKey) -> str:
    return private.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption()).hex() + "\n"


def _write_private(path: Path, private: Ed25519PrivateKey) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as file:
        file.write(_private_text(private))
