"""Checking a record offline: `pbm verify FILE`.

In order, stopping at the first thing wrong (a `Fact`, said by `pbm.records.messages`):

1. the record's shape, and that its readable header names the chain's game, board and players
   (its ``site``'s ``gameid``, its players' userids; the game's name, once 5 finds its engine);
2. every link of the chain: each ply's hash recomputed from its contents and the hash before it,
   from the header's hash on (`pbm.crypto.chain`);
3. the server's signature over how far the chain goes, by the key the record names (and, given
   the server's known keys, one of them). Without them, any key that signs consistently passes:
   the verdict then names the key, for the reader to compare with the one the game's page or a
   receipt shows (``record-key-not-pinned``);
4. the readable move list against the chain;
5. every move replayed through the game's engine: each legal, each by the seat whose turn it
   was, ending in the position the record gives, and, where the moves end the game, in the
   result its readable header gives;
6. for a game with server-side dice, once it is over: the revealed seed against the commitment
   in the (hashed) header, and every published roll against the seed (`pbm.games.fairdice`).
   Before its end the seed stays secret, so its rolls, and the moves that depend on them, are
   checked only when a record of the finished game is.

Nothing here reads a database or a network: a player checks a record with the record alone, or
an APGameRecord with its proof read apart (`combined`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pbm.games
from pbm.crypto import chain
from pbm.crypto.keys import check, key_id, unb64
from pbm.facts import Fact
from pbm.games import LEAVING, UNDO, GameError
from pbm.games.fairdice import commitment, roll


@dataclass(frozen=True)
class Verdict:
    """What a check found: the first thing wrong, or None; and what was checked."""

    problem: Fact | None
    checked: list[Fact] = field(default_factory=list)

    @property
    def genuine(self) -> bool:
        return self.problem is None


class _Wrong(Exception):
    def __init__(self, fact: Fact) -> None:
        super().__init__(fact.code)
        self.fact = fact


def verify(record: Any, *, known_keys: Mapping[str, str] | None = None) -> Verdict:
    """Check `record` (parsed JSON); `known_keys` (key id -> public key) pins the server's keys."""
    checked: list[Fact] = []
    try:
        _verify(record, known_keys, checked)
    except _Wrong as wrong:
        return Verdict(wrong.fact, checked)
    return Verdict(None, checked)


PROOF = "pbm"
"""The key of the proof (the signed chain, the dice) in a combined record."""


def combined(readable: Any, proof: Any) -> Any:
    """The combined record to check, from an APGameRecord (``record.json``) and its proof
    (``record.proof.json``) read apart; anything that is not a JSON object is left for `verify`
    to name."""
    if not isinstance(readable, dict):
        return readable
    return {**{key: value for key, value in readable.items() if key != PROOF}, PROOF: proof}


PROOF_FILE = "record.proof.json"
"""The name the server serves a record's proof under, beside its ``record.json``."""


def proof_apart(record: Any) -> bool:
    """Whether `record` is a ``record.json`` as served (an APGameRecord: a header and moves) whose
    proof, served beside it as ``record.proof.json``, was not given with it."""
    return isinstance(record, dict) and PROOF not in record and "header" in record and "moves" in record


def _need(container: Any, key: str, kind: type | tuple[type, ...], what: str | None = None) -> Any:
    value = container.get(key) if isinstance(container, dict) else None
    if not isinstance(value, kind) or isinstance(value, bool) and kind is int:
        raise _Wrong(Fact("record-lacks", what=what or key))
    return value


def _whole(value: Any) -> bool:
    """Whether `value` is a whole number as JSON writes one: not ``true``, not ``1.0``."""
    return type(value) is int


def _verify(record: Any, known_keys: Mapping[str, str] | None, checked: list[Fact]) -> None:
    """The checks of the module's docstring, in its order; each raises `_Wrong` at what it finds."""
    # 1. the record's shape, and its readable header against its chain
    if not isinstance(record, dict):
        raise _Wrong(Fact("record-lacks", what="JSON object"))
    section = _need(record, "pbm", dict, "pbm section")
    game_type = _need(section, "game", str)
    board = _need(section, "board", int)
    header = _need(section, "header", dict)
    links = _need(section, "chain", list)
    ply = _need(section, "ply", int)
    head = _need(section, "head", str)
    signature = _need(section, "signature", dict)
    players = _need(header, "players", list)
    readable = _need(record, "header", dict, "APGameRecord header")
    named = [p.get("userid") for p in _need(readable, "players", list, "APGameRecord players") if isinstance(p, dict)]
    site = readable.get("site")
    gameid = site.get("gameid") if isinstance(site, dict) else None
    if (
        header.get("game") != game_type
        or header.get("board") != board
        or named != players
        or gameid != f"{game_type}/{board}"
    ):
        raise _Wrong(Fact("record-header-differs"))
    ends_at = _check_chain(game_type, board, header, links)
    if ply != len(links) or head != ends_at:
        raise _Wrong(Fact("record-head-wrong"))
    signed_by = _check_signature(signature, chain.statement(game_type, board, ply, head), known_keys)
    pinned = [] if known_keys is not None else [_unpinned(signature)]
    _check_move_list(_need(record, "moves", list), links)

    # 5 and 6. the moves through the engine, the dice against the seed
    try:
        engine = pbm.games.get(game_type)
    except GameError:
        raise _Wrong(Fact("record-lacks", what=f"game engine for {game_type}")) from None
    shown = readable.get("game")
    if not isinstance(shown, dict) or shown.get("name") != engine.title:
        raise _Wrong(Fact("record-header-differs"))
    genuine = Fact("record-genuine", game=engine.title, board=board, plies=ply, key_id=signed_by)
    dice = section.get("dice")
    seed: bytes | None = None
    if header.get("dice_commitment") is not None:
        seed = _revealed_seed(header["dice_commitment"], dice, readable.get("status"))
        if seed is None:
            checked += [genuine, Fact("record-dice-still-secret"), *pinned]
            return  # without the seed, nobody can replay the rolls yet: the chain and signature are what holds
    replayed = _replay(engine, header, links, seed)
    state = replayed.state
    if section.get("position") != engine.to_position(state):
        raise _Wrong(Fact("record-position-differs"))
    _check_ending(engine, replayed, readable, len(players))
    if seed is not None:
        _check_rolls(engine, state, seed, dice)
    # Said only once everything checked: a record is genuine as a whole or not at all.
    checked.append(genuine)
    if seed is not None:
        checked.append(Fact("record-dice-genuine"))
    checked += pinned


def _unpinned(signature: dict[str, Any]) -> Fact:
    """What a check without the server's keys must say: which key signed, and that only comparing
    it with the server's tells the server's record from one re-signed by anyone."""
    return Fact("record-key-not-pinned", key_id=signature["key_id"], public_key=signature["public_key"])


def _check_chain(game_type: str, board: int, header: dict[str, Any], links: list[Any]) -> str:
    """2. Every link of the chain: its shape, its number, and its hash recomputed from its contents
    and the hash before it, from the header's hash on. Returns the hash the chain ends with."""
    try:
        previous = chain.sha256(header)
    except (TypeError, ValueError):  # a value JSON has no canonical form of (NaN): no link can follow it
        raise _Wrong(Fact("record-hash-wrong", ply=1) if links else Fact("record-head-wrong")) from None
    for index, link in enumerate(links, start=1):
        if not isinstance(link, dict) or not (
            _whole(link.get("seat")) and isinstance(link.get("player"), str) and isinstance(link.get("move"), str)
        ):
            raise _Wrong(Fact("record-lacks", what=f"chain entry {index}"))
        if not _whole(link.get("ply")) or link["ply"] != index:
            raise _Wrong(Fact("record-ply-out-of-order", index=index, ply=str(link.get("ply"))))
        contents = {
            "game": game_type,
            "board": board,
            "ply": index,
            "seat": link.get("seat"),
            "player": link.get("player"),
            "move": link.get("move"),
            "time": link.get("time"),
            "previous": previous,
        }
        try:
            recomputed = chain.sha256(contents)
        except (TypeError, ValueError):
            raise _Wrong(Fact("record-hash-wrong", ply=index)) from None
        if link.get("hash") != recomputed:
            raise _Wrong(Fact("record-hash-wrong", ply=index))
        previous = recomputed
    return previous


def _check_signature(signature: dict[str, Any], statement: bytes, known_keys: Mapping[str, str] | None) -> str:
    """3. The server's signature over how far the chain goes, by the key the record names (and, given
    the server's known keys, one of them); returns that key's id."""
    public_key = _need(signature, "public_key", str, "public key")
    signed_by: str = _need(signature, "key_id", str, "key id")
    try:
        actual_id = key_id(unb64(public_key))
    except ValueError:
        actual_id = ""
    if actual_id != signed_by:
        raise _Wrong(Fact("record-key-id-wrong", key_id=signed_by))
    if known_keys is not None and known_keys.get(signed_by) != public_key:
        raise _Wrong(Fact("record-key-unknown", key_id=signed_by))
    if not check(public_key, statement, _need(signature, "value", str, "signature")):
        raise _Wrong(Fact("record-signature-wrong"))
    return signed_by


def _check_move_list(rows: list[Any], links: list[dict[str, Any]]) -> None:
    """4. The readable move list (rounds of seats) against the chain, move for move."""
    listed = [
        entry.get("move") if isinstance(entry, dict) else entry
        for row in rows
        for entry in (row if isinstance(row, list) else [row])
        if entry is not None
    ]
    for index, link in enumerate(links, start=1):
        if index > len(listed) or listed[index - 1] != link["move"]:
            raise _Wrong(Fact("record-moves-differ", ply=index))
    if len(listed) > len(links):
        raise _Wrong(Fact("record-moves-differ", ply=len(links) + 1))


def _revealed_seed(committed: Any, dice: Any, status: Any) -> bytes | None:
    """6, first half. The dice seed of a finished game, checked against the commitment the hashed
    header holds; None while the game is under way (its seed is still secret)."""
    if not isinstance(dice, dict) or dice.get("commitment") != committed:
        raise _Wrong(Fact("record-dice-commitment-wrong"))
    revealed = dice.get("seed")
    if revealed is None and status != "active":
        raise _Wrong(Fact("record-lacks", what="dice seed"))  # revealed at the end: the rolls are checked then
    if revealed is None:
        return None
    try:
        seed = bytes.fromhex(revealed)
        made = commitment(seed)  # raises ValueError on a seed of another length than 32 bytes
    except (TypeError, ValueError):
        raise _Wrong(Fact("record-dice-commitment-wrong")) from None
    if made != committed:
        raise _Wrong(Fact("record-dice-commitment-wrong"))
    if status == "active":
        raise _Wrong(Fact("record-seed-too-early"))
    return seed


@dataclass(frozen=True)
class _Replayed:
    """Where a chain's moves lead: the position, the seats that left (resigned, forfeited), whether
    every seat has a move that stands (`pbm.store.boards.everyone_moved`), and whether a seat left
    before that, which calls the game off where it stands (`pbm.store.boards.finish`)."""

    state: Any
    left: set[int]
    everyone_moved: bool
    called_off: bool


def _replay(engine: Any, header: dict[str, Any], links: list[dict[str, Any]], seed: bytes | None) -> _Replayed:
    """5. Every move replayed through the engine from the game's start: each legal, each by the seat
    whose turn it was; the server's own rule for a game left in its first round (called off, the
    position as it stood, nothing after it)."""
    players = header["players"]
    options = header.get("options") or {}
    if not isinstance(options, dict):
        raise _Wrong(Fact("record-lacks", what="options"))
    try:
        state = engine.new(players=len(players), options=options, seed=seed)
    except (GameError, TypeError, ValueError) as error:
        raise _Wrong(Fact("record-unreadable", why=str(error))) from None
    before: list[Any] = []
    left: set[int] = set()
    standing: list[int] = []  # the seat of each move that stands, as the server counts them
    called_off = False
    for link in links:
        number, seat, move, player = link["ply"], link["seat"], link["move"], link["player"]
        if not 0 <= seat < len(players) or players[seat] != player:
            raise _Wrong(Fact("record-header-differs"))
        try:
            if called_off:
                raise GameError("game-over")
            if move in LEAVING:
                left.add(seat)
                called_off = len(set(standing)) < len(players)
                if not called_off:  # a game called off stays as it stood: nobody plays on
                    state = engine.resign(state, seat) or state
            elif move == UNDO:
                if not before:
                    raise GameError("no-move-to-take-back")
                state = engine.undo(before.pop(), state)
                if standing:
                    standing.pop()
            else:
                if state.to_move != seat:
                    raise _Wrong(Fact("record-not-their-turn", ply=number, player=player))
                before.append(state)
                state = engine.play(state, move)
                standing.append(seat)
        except GameError as error:
            raise _Wrong(Fact("record-move-illegal", ply=number, player=player, move=move, reason=error.fact)) from None
    return _Replayed(state, left, len(set(standing)) == len(players), called_off)


def _check_result(winners: Sequence[int], readable: dict[str, Any], seats: int) -> None:
    """Where the moves themselves end the game (the rules, or everyone else leaving), the readable
    header must say it is finished and that `winners` won: that part of a record is not in its
    chain, and a reader believes it. A game that ended otherwise (a draw agreed, a game cancelled)
    has no result its moves give, and its header is taken as it says."""
    players = [p for p in readable.get("players", ()) if isinstance(p, dict)]
    said = [player.get("result") for player in players]
    if readable.get("status") != "finished" or said != [int(seat in winners) for seat in range(seats)]:
        raise _Wrong(Fact("record-result-differs"))


def _check_ending(engine: Any, replayed: _Replayed, readable: dict[str, Any], seats: int) -> None:
    """Where the moves end the game, the readable header must say how: called off (left, or over,
    before every player had moved), or won by those the rules or the others' leaving make winners."""
    result = engine.result(replayed.state)
    standing = [seat for seat in range(seats) if seat not in replayed.left]
    if replayed.called_off or (not replayed.everyone_moved and (result is not None or len(standing) == 1)):
        _check_called_off(readable)
    elif result is not None:
        _check_result(result.winners, readable, seats)
    elif len(standing) == 1:  # everyone else resigned or forfeited
        _check_result(standing, readable, seats)


def _check_called_off(readable: dict[str, Any]) -> None:
    """Where the game ended before every player had made a move that stands, the server called it
    off, unrated and won by nobody (`pbm.store.boards.finish`): the readable header must say so."""
    said = [p.get("result") for p in readable.get("players", ()) if isinstance(p, dict)]
    if readable.get("status") != "cancelled" or len(set(map(repr, said))) > 1:
        raise _Wrong(Fact("record-result-differs"))


def _check_rolls(engine: Any, state: Any, seed: bytes, dice: dict[str, Any]) -> None:
    made = engine.published_rolls(state) or ()
    shown = dice.get("rolls")
    if not isinstance(shown, list):
        raise _Wrong(Fact("record-lacks", what="dice rolls"))
    for made_roll in made:
        face = roll(seed, made_roll.index, made_roll.sides)
        if made_roll.index >= len(shown) or not _whole(shown[made_roll.index]) or shown[made_roll.index] != face:
            raise _Wrong(
                Fact(
                    "record-dice-roll-wrong",
                    index=made_roll.index,
                    what=made_roll.what,
                    shown=str(shown[made_roll.index]) if made_roll.index < len(shown) else "nothing",
                    face=face,
                )
            )
    if len(shown) != len(made):
        raise _Wrong(Fact("record-dice-count-wrong", shown=len(shown), made=len(made)))
