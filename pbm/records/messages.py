"""The words of records: what `pbm verify` finds, and a board mail's receipt line."""

from __future__ import annotations

from pbm.facts import Catalogue, Plural

MESSAGES: Catalogue = {
    "record-subject": "{title} Board {board} record",
    "record-attached": Plural(
        "plies",
        "The record of {title} board {board} is attached: {plies} "
        "move, linked by their hashes and signed by the server.",
        "The record of {title} board {board} is attached: {plies} "
        "moves, linked by their hashes and signed by the server.",
    ),
    "record-how-to-verify": "Anyone can check it, offline: pbm verify {filename}",
    "move-receipt": "Receipt for move {ply}: chain {chain}, key {key_id}, signature\n{signature}",
    "record-genuine": (
        "genuine: {game} board {board}, {plies} plies; every hash, the signature (key {key_id}) and every move check"
    ),
    "record-dice-genuine": "the dice match the revealed seed",
    "record-key-not-pinned": (
        "note: signed by key {key_id} ({public_key}), not checked against the server's keys, and anyone "
        "can sign a record with a key of their own: compare this key with the one the game's page or a "
        "move receipt shows, or check with --keys"
    ),
    "record-dice-still-secret": "the dice seed stays secret until the game is over: its dice are checked then",
    "record-unreadable": "the record cannot be read: {why}",
    "record-too-large": "the file is larger than {megabytes} MB, which no game record is",
    "record-too-deep": "the file nests arrays and objects more than {depth} levels deep, which no game record does",
    "record-number-too-long": "the file holds a number of more than {digits} digits, which no game record does",
    "record-lacks": "the record has no {what}",
    "record-proof-apart": (
        "this is a game record without its proof: the server serves the proof beside it "
        "({proof} at the same address); check both with: pbm verify {file} --proof {proof}"
    ),
    "record-header-differs": "the record's header names other players, another game or another board than its chain",
    "record-ply-out-of-order": "the chain's entry {index} is numbered ply {ply}",
    "record-hash-wrong": (
        "the hash of ply {ply} does not match what it records: its "
        "move, seat, player or time, or the hash before it, was changed"
    ),
    "record-head-wrong": "the record ends at a hash that is not its last ply's",
    "record-key-id-wrong": "the signature names key {key_id}, which is not the id of the public key it gives",
    "record-key-unknown": "the record is signed by key {key_id}, which is none of the server's keys given",
    "record-signature-wrong": (
        "the server's signature does not match the record's chain: it was changed after it was signed"
    ),
    "record-moves-differ": "the move list differs from the chain at ply {ply}",
    "record-move-illegal": "ply {ply}: {player} could not have played {move}: {reason}",
    "record-not-their-turn": "ply {ply}: it was not {player}'s turn",
    "record-position-differs": "the record's position is not the one its moves lead to",
    "record-result-differs": "the record's header gives another result than the one its moves lead to",
    "record-dice-commitment-wrong": (
        "the revealed dice seed does not match the commitment published when the game began"
    ),
    "record-dice-roll-wrong": "roll {index} ({what}): the record shows {shown}, the revealed seed gives {face}",
    "record-dice-count-wrong": "the record lists {shown} rolls, but its moves make {made}",
    "record-seed-too-early": "the record reveals a dice seed for a game that is not over",
}
