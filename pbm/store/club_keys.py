"""One club, one set of keys, whatever the number of workers and hosts.

Every worker (``pbm serve``, ``pbm process``, ``pbm tick``) keeps its keys in its own data
folder, and several workers on one database may have one each (two hosts). Left alone, each
made its own signing key, and nothing stopped two of them running with different secret keys:
receipts and records split between keys, and reply addresses one worker made refused by the
other. So the database names the club's keys (`ClubKey`), and each worker agrees with it as it
starts (`agree`):

- **The secret key** is known by a fingerprint (an HMAC of a fixed text under the key: it
  tells keys apart and gives nothing a reply address does not already give). The first worker
  records it; a worker with another key refuses to start, saying where to copy the club's from.
- **The signing keys** are recorded with their public keys, the current one with its private
  key *sealed* (AES-GCM under a key derived from the secret key by HKDF): the database, or a
  backup of it, signs nothing without the secret key. A worker whose folder has no signing
  key, or a key the club rotated away, takes the club's current key from the database; one
  with a key the club does not know refuses to start. Every worker lists every public key
  the club ever signed with, so ``pbm verify --keys`` with any worker's folder verifies all.
- **Rotating** (`rotate`, ``pbm keys rotate``) records the new key as current: each running
  ``pbm serve`` takes it up within a minute (`pbm.serving.server`), any other worker as it starts.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from pathlib import Path

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from sqlalchemy import select, text, update
from sqlalchemy.orm import Session

from pbm.crypto.keys import SigningKeys, b64, key_id, unb64
from pbm.store.database import Database
from pbm.store.models import ClubKey

SECRET = "secret"
SIGNING = "signing"
FINGERPRINT_TEXT = b"pbm: the fingerprint of a club's secret key"
SEALING_INFO = b"pbm: the club's signing keys, sealed in its database"
AGREEING_LOCK = 0x70626D6B657973  # "pbmkeys": workers starting at once agree one after the other


class KeysDisagree(Exception):
    """This worker's keys are not the club's: the message tells the administrator what to copy where."""


def fingerprint(secret: bytes) -> str:
    return hmac.new(secret, FINGERPRINT_TEXT, hashlib.sha256).hexdigest()[:32]


def _sealer(secret: bytes) -> AESGCM:
    return AESGCM(HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=SEALING_INFO).derive(secret))


def seal(secret: bytes, identifier: str, private: bytes) -> str:
    nonce = os.urandom(12)
    return b64(nonce + _sealer(secret).encrypt(nonce, private, identifier.encode()))


def unseal(secret: bytes, identifier: str, sealed: str) -> bytes:
    data = unb64(sealed)
    return _sealer(secret).decrypt(data[:12], data[12:], identifier.encode())


def agree(database: Database, secret: bytes, keys: SigningKeys, *, secret_source: str) -> None:
    """Make this worker's keys the club's, or `KeysDisagree`: the first worker records its keys,
    the others take or check them (see the module's docstring)."""
    with database.transaction() as session:
        _one_at_a_time(session)
        _agree_on_the_secret(session, secret, secret_source)
        _agree_on_signing(session, secret, keys)


def rotate(database: Database, secret: bytes, keys: SigningKeys, *, secret_source: str) -> SigningKeys:
    """A new current signing key, made here and recorded as the club's; returns it."""
    agree(database, secret, keys, secret_source=secret_source)
    with database.transaction() as session:
        _one_at_a_time(session)
        rotated = keys.rotate()
        session.execute(update(ClubKey).where(ClubKey.kind == SIGNING).values(current=False))
        session.add(_signing_row(secret, rotated, current=True))
    return rotated


def _one_at_a_time(session: Session) -> None:
    """Two workers starting at once must not both record a first key. SQLite's write lock
    (BEGIN IMMEDIATE) already orders them; PostgreSQL takes a lock for the transaction."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": AGREEING_LOCK})


def _agree_on_the_secret(session: Session, secret: bytes, source: str) -> None:
    recorded = session.scalar(select(ClubKey).where(ClubKey.kind == SECRET, ClubKey.current))
    mine = fingerprint(secret)
    if recorded is None:
        session.add(ClubKey(kind=SECRET, key_id=mine, current=True))
    elif recorded.key_id != mine:
        raise KeysDisagree(
            f"the secret key ({source}) is not the club's: this database was first used with another, and "
            "reply addresses one worker mails would be refused by another. Give every worker the club's key: "
            "copy secret.key (and signing/) from the data folder of the first host, or set the same "
            "PBM_SECRET_KEY, or restore a backup with pbm restore (it brings the keys back)"
        )


def _agree_on_signing(session: Session, secret: bytes, keys: SigningKeys) -> None:
    rows = session.scalars(select(ClubKey).where(ClubKey.kind == SIGNING).order_by(ClubKey.id)).all()
    current = next((row for row in rows if row.current), None)
    if current is None:
        _record_first(session, secret, keys)
        return
    local = keys.on_disk()
    local_id = None if local is None else key_id(_raw_public(local))
    public = {row.key_id: row.public_key for row in rows if row.public_key}
    if local_id == current.key_id:
        keys.list_public(public)
    elif local_id is None or local_id in public:  # none yet, or one the club rotated away since
        keys.adopt(_unsealed(secret, current), public)
    else:
        raise KeysDisagree(
            f"the signing key in {keys.folder} ({local_id}) is not the club's: the club signs with "
            f"{current.key_id}, which another worker made. Stop this worker, move {keys.folder} away and "
            "start it again: it then takes the club's key from the database (or copy signing/ and "
            "secret.key from the first host)"
        )


def _record_first(session: Session, secret: bytes, keys: SigningKeys) -> None:
    """The first worker's keys become the club's: its current key, and the ones it rotated away."""
    known = set(session.scalars(select(ClubKey.key_id).where(ClubKey.kind == SIGNING)))
    for identifier, public in keys.public_keys().items():
        if identifier != keys.key_id and identifier not in known:
            session.add(ClubKey(kind=SIGNING, key_id=identifier, public_key=public, current=False))
    if keys.key_id in known:
        session.execute(
            update(ClubKey).where(ClubKey.kind == SIGNING, ClubKey.key_id == keys.key_id).values(current=True)
        )
    else:
        session.add(_signing_row(secret, keys, current=True))


def _signing_row(secret: bytes, keys: SigningKeys, *, current: bool) -> ClubKey:
    return ClubKey(
        kind=SIGNING,
        key_id=keys.key_id,
        public_key=b64(keys.public_key),
        sealed_private=seal(secret, keys.key_id, keys.private_bytes()),
        current=current,
    )


def _unsealed(secret: bytes, row: ClubKey) -> bytes:
    try:
        if row.sealed_private is None:
            raise ValueError("no private key recorded")
        return unseal(secret, row.key_id, row.sealed_private)
    except (InvalidTag, ValueError):
        raise KeysDisagree(
            f"the club's signing key {row.key_id} cannot be unsealed with this worker's secret key: copy "
            "signing/ and secret.key from the first host"
        ) from None


def _raw_public(private: Ed25519PrivateKey) -> bytes:
    return private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


def current_signing_key(database: Database) -> str | None:
    """The key id of the club's current signing key, or None before any worker recorded one."""
    with database.reading() as session:
        return session.scalar(select(ClubKey.key_id).where(ClubKey.kind == SIGNING, ClubKey.current))


def secret_source(home: Path, from_setting: bool) -> str:
    """Where a worker's secret key comes from, as the administrator names it."""
    return "PBM_SECRET_KEY" if from_setting else str(home / "secret.key")
