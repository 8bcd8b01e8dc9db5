"""A file encrypted to an X25519 public key: what ``pbm backup --encrypt-to`` writes.

The administrator keeps the private key off the server (``openssl genpkey -algorithm x25519``
makes one, ``openssl pkey -pubout`` its public half; PEM or DER files): a stolen backup, or
a stolen server, then gives neither the players' data nor the club's keys.

The envelope, in the manner of age: a fresh ephemeral X25519 key agrees a secret with the
recipient's key; HKDF-SHA256 (salted with both public keys) makes a ChaCha20-Poly1305 key of
it; the file is encrypted in chunks of `CHUNK` bytes, each with its own nonce (its number, and
a flag on the last), each authenticating the header. A chunk changed, moved, dropped, or the
file cut short, fails to decrypt; so does every chunk under another key. Layout::

    MAGIC | ephemeral public key (32) | recipient's key id (8) | chunks
    chunk: ciphertext length (4, big-endian) | ciphertext (plaintext + 16-byte tag)
"""

from __future__ import annotations

import hashlib
import io
import os
import struct
from pathlib import Path
from typing import BinaryIO

from cryptography.exceptions import InvalidTag, UnsupportedAlgorithm
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

MAGIC = b"pbm-sealed-v1\n"
CHUNK = 1 << 20
TAG = 16
INFO = b"pbm backup sealed to an administrator's key"


class SealError(Exception):
    """A key file that is no X25519 key, or a sealed file that will not open: the message says which."""


def is_sealed(path: Path) -> bool:
    with open(path, "rb") as file:
        return file.read(len(MAGIC)) == MAGIC


def _raw(public: X25519PublicKey) -> bytes:
    return public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def _key_id(public: bytes) -> bytes:
    return hashlib.sha256(public).digest()[:8]


def _read_key(path: Path, *, private: bool) -> object:
    """The key in the PEM or DER file at `path` (whatever kind), or `SealError`."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise SealError(f"cannot read the key file {path}: {error.strerror}") from None
    pem = data.lstrip().startswith(b"-----BEGIN")
    try:
        if private:
            load_private = serialization.load_pem_private_key if pem else serialization.load_der_private_key
            return load_private(data, None)
        return (serialization.load_pem_public_key if pem else serialization.load_der_public_key)(data)
    except (ValueError, TypeError, UnsupportedAlgorithm):
        return None


def public_key(path: Path) -> X25519PublicKey:
    """The X25519 public key in the file at `path` (PEM or DER), or `SealError` saying it is none."""
    key = _read_key(path, private=False)
    if not isinstance(key, X25519PublicKey):
        raise SealError(f"{path} is not an X25519 public key (PEM or DER, as openssl pkey -pubout writes it)")
    return key


def private_key(path: Path) -> X25519PrivateKey:
    """The X25519 private key in the file at `path` (PEM or DER), or `SealError` saying it is none."""
    key = _read_key(path, private=True)
    if not isinstance(key, X25519PrivateKey):
        raise SealError(f"{path} is not an X25519 private key (PEM or DER, as openssl genpkey writes it)")
    return key


def _cipher(shared: bytes, ephemeral: bytes, recipient: bytes) -> ChaCha20Poly1305:
    key = HKDF(algorithm=hashes.SHA256(), length=32, salt=ephemeral + recipient, info=INFO).derive(shared)
    return ChaCha20Poly1305(key)


def _nonce(number: int, last: bool) -> bytes:
    return number.to_bytes(11, "big") + (b"\x01" if last else b"\x00")


def seal(source: Path, destination: Path, recipient: X25519PublicKey) -> None:
    """Encrypt `source` to `recipient` into `destination` (readable by its owner alone)."""
    ephemeral = X25519PrivateKey.generate()
    ephemeral_public, recipient_raw = _raw(ephemeral.public_key()), _raw(recipient)
    cipher = _cipher(ephemeral.exchange(recipient), ephemeral_public, recipient_raw)
    header = MAGIC + ephemeral_public + _key_id(recipient_raw)
    fd = os.open(destination, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with open(source, "rb") as plain, os.fdopen(fd, "wb") as out:
        out.write(header)
        number, chunk = 0, plain.read(CHUNK)
        while True:
            following = plain.read(CHUNK)
            sealed = cipher.encrypt(_nonce(number, not following), chunk, header)
            out.write(struct.pack(">I", len(sealed)) + sealed)
            if not following:
                break
            number, chunk = number + 1, following
        out.flush()
        os.fsync(out.fileno())


def unseal(source: Path, destination: Path, key: X25519PrivateKey) -> None:
    """Decrypt `source` with `key` into `destination` (readable by its owner alone);
    `SealError` when the file is not sealed to `key`, or was changed."""
    recipient_raw = _raw(key.public_key())
    with open(source, "rb") as sealed:
        header = sealed.read(len(MAGIC) + 32 + 8)
        if len(header) < len(MAGIC) + 40 or not header.startswith(MAGIC):
            raise SealError(f"{source} is not an encrypted pbm backup")
        ephemeral_public = header[len(MAGIC) : len(MAGIC) + 32]
        if header[len(MAGIC) + 32 :] != _key_id(recipient_raw):
            raise SealError(f"{source} is not encrypted to this key")
        try:
            shared = key.exchange(X25519PublicKey.from_public_bytes(ephemeral_public))
        except ValueError:
            raise SealError(f"{source} has been changed or damaged") from None
        cipher = _cipher(shared, ephemeral_public, recipient_raw)
        fd = os.open(destination, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as out:
            _unseal_chunks(sealed, out, cipher, header, source)


def _unseal_chunks(
    sealed: io.BufferedReader, out: BinaryIO, cipher: ChaCha20Poly1305, header: bytes, source: Path
) -> None:
    damaged = SealError(f"{source} has been changed or damaged (or cut short): it does not decrypt")
    number = 0
    while True:
        length = sealed.read(4)
        if len(length) != 4:
            raise damaged  # ended before its last chunk
        (size,) = struct.unpack(">I", length)
        if size > CHUNK + TAG:
            raise damaged
        chunk = sealed.read(size)
        last = not sealed.peek(1)
        try:
            out.write(cipher.decrypt(_nonce(number, last), chunk, header))
        except InvalidTag:
            raise damaged from None
        if last:
            return
        number += 1
