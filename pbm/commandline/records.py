"""``pbm verify`` and ``pbm keys``: a game record checked offline, and the keys that sign records."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pbm.commandline import opening, subcommand
from pbm.config import load_settings


def _verify_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="the record (JSON); - for standard input")
    parser.add_argument(
        "--proof",
        metavar="FILE",
        type=Path,
        help="the record's proof (record.proof.json), when the record is the APGameRecord alone",
    )
    parser.add_argument(
        "--keys",
        metavar="DIR",
        type=Path,
        help="a server's signing-key folder (var/signing): the signature must be by one of its keys",
    )


@subcommand(
    "check a game record offline: every hash, the signature, every move, the dice",
    description=(
        "Check a game record (GET /<game>/<board>/record.json with its proof, "
        "GET /<game>/<board>/record.proof.json; or the attachment of `GAME record BOARD`, which holds "
        "both): the hash chain, the server's signature, every move replayed through the game's engine, "
        "and for a finished game with dice every roll against the revealed seed. Exit 0 when genuine; 1 "
        "naming the first thing wrong; 2 when a file cannot be read."
    ),
    arguments=_verify_arguments,
)
def verify(args: argparse.Namespace) -> int:
    """``pbm verify``: 0 when the record is genuine, 1 naming the first thing wrong, 2 unreadable
    (or a served record.json given without its proof)."""
    from pbm.crypto.keys import SigningKeys
    from pbm.facts import Fact
    from pbm.records import verify
    from pbm.records.reading import Unreadable, read_json
    from pbm.words import Words

    words = Words()
    try:
        record = read_json(args.file)
        if args.proof is not None:
            record = verify.combined(record, read_json(str(args.proof)))
    except Unreadable as error:
        print("pbm verify: " + words.say(error.fact), file=sys.stderr)
        return 2
    if verify.proof_apart(record):
        # Not "not genuine": half of what is needed to say so was given.
        apart = Fact("record-proof-apart", file=args.file, proof=verify.PROOF_FILE)
        print("pbm verify: " + words.say(apart), file=sys.stderr)
        return 2
    known = SigningKeys.known(args.keys) if args.keys is not None else None
    verdict = verify.verify(record, known_keys=known)
    for fact in verdict.checked:
        print(words.say(fact))
    if verdict.problem is not None:
        print("pbm verify: " + words.say(verdict.problem), file=sys.stderr)
        return 1
    return 0


def _keys_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="keys_command", required=True, metavar="ACTION")
    actions.add_parser("show", help="print every public key, the current one first")
    actions.add_parser(
        "rotate", help="sign with a new key from now on; the old public key stays, so what it signed still verifies"
    )


@subcommand("the server's signing keys (receipts and records)", arguments=_keys_arguments)
def keys(args: argparse.Namespace) -> int:
    """``pbm keys show|rotate``: the signing keys in PBM_HOME/signing; rotating records the new key
    in the database as the club's, so that every worker takes it up."""
    from pbm.config import secret_key, signing_keys
    from pbm.store.club_keys import KeysDisagree, rotate, secret_source

    settings = load_settings()
    keys = signing_keys(settings)
    if args.keys_command == "rotate":
        database = opening.database(settings)
        try:
            source = secret_source(settings.home, bool(settings.secret_key))
            keys = rotate(database, secret_key(settings), keys, secret_source=source)
        except KeysDisagree as error:
            print(f"pbm keys: {error}", file=sys.stderr)
            return 1
        finally:
            database.dispose()
    print(f"{keys.key_id} {keys.public_keys()[keys.key_id]} current")
    for identifier, public in keys.public_keys().items():
        if identifier != keys.key_id:
            print(f"{identifier} {public}")
    return 0
