"""Every way a record can be wrong is refused with the fact that names it, never called genuine.

`pbm verify` stops at the first thing wrong (`pbm.records.verify`): each test here changes a
record the server exported in one way and checks the fact the verdict names, with its parameters.
Changes to what the chain hashes are also made *resealed*: every hash after them recomputed, the
move list rewritten to agree and the record signed anew, here by the server's own key, as a
forger with a key of their own (or a server gone wrong) would; only the replay of the moves
through the engine is left to catch those.

The records are played once for the module, through the handlers on one SQLite database
(`tests.records.conftest`), and each test changes a copy."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pbm.games
from pbm.commands import play, votes
from pbm.crypto import chain
from pbm.crypto.keys import SigningKeys
from pbm.facts import Fact
from pbm.games import UNDO, GameError
from pbm.records import verify
from pbm.views import record as document
from tests.commands.handlers.conftest import Desk
from tests.records.conftest import a_club, play_game, record_of


@pytest.fixture(scope="module")
def server(tmp_path_factory, sqlite_template) -> Iterator[tuple[Desk, SigningKeys]]:
    """A club on a SQLite database of this module's own, and its signing keys."""
    yield from a_club("sqlite", tmp_path_factory.mktemp('tampering'), sqlite_template, None)


@pytest.fixture(scope="module")
def keys(server) -> SigningKeys:
    return server[1]


@pytest.fixture(scope="module")
def finished_record(server) -> dict[str, Any]:
    """A Cephalopod game for two, played to its end."""
    desk, keys = server
    return record_of(desk, keys, "cephalopod", play_game(desk, "cephalopod", 2, {}, seed=3))


@pytest.fixture(scope="module")
def dodeca_record(server) -> dict[str, Any]:
    """A Dodeca game ended by a resignation: its seed and every roll revealed."""
    desk, keys = server
    return record_of(desk, keys, "dodeca", play_game(desk, "dodeca", 2, {}, seed=4, resign_at=6))


@pytest.fixture
def finished(finished_record) -> dict[str, Any]:
    return copy.deepcopy(finished_record)


@pytest.fixture
def dodeca(dodeca_record) -> dict[str, Any]:
    assert "seed" in dodeca_record["pbm"]["dice"]
    return copy.deepcopy(dodeca_record)


def problem(record: Any, keys: SigningKeys | None = None) -> Fact:
    """The first thing wrong `verify` names in `record` (with the server's keys pinned, given `keys`)."""
    verdict = verify.verify(record, known_keys=keys.public_keys() if keys is not None else None)
    assert verdict.problem is not None, "a changed record must not verify"
    assert verdict.checked == [], "nothing is said genuine of a record that is not"
    return verdict.problem


def reseal(record: dict[str, Any], keys: SigningKeys) -> dict[str, Any]:
    """`record` made consistent again after a change to its chain: every link's hash recomputed
    from the header on, the head and the ply count moved to the chain's end, the readable move
    list rewritten from the chain (its rows kept: the k-th move listed is the chain's k-th), and
    the whole signed by `keys`."""
    section = record["pbm"]
    previous = chain.sha256(section["header"])
    for link in section["chain"]:
        contents = {name: link.get(name) for name in ("ply", "seat", "player", "move", "time")}
        link["hash"] = previous = chain.sha256(
            {**contents, "game": section["game"], "board": section["board"], "previous": previous}
        )
    section["ply"] = len(section["chain"])
    section["head"] = previous
    moves = iter([link.get("move") for link in section["chain"]])
    for row in record["moves"]:
        for place, entry in enumerate(row):
            if entry is not None:
                move = next(moves, None)
                row[place] = None if move is None else {"move": move}
    record["moves"] = [row for row in record["moves"] if any(entry is not None for entry in row)]
    record["moves"].extend([{"move": move}] for move in moves)
    return document.sign(record, keys)


def test_a_record_resealed_unchanged_still_verifies(finished, keys):
    """The forger's tool below changes nothing by itself: what the tests resealing a record find
    wrong is what they changed."""
    assert verify.verify(reseal(finished, keys), known_keys=keys.public_keys()).genuine


# 1. The record's shape, and its readable header against its chain


@pytest.mark.parametrize("wrapped", [list, json.dumps], ids=["in-a-list", "encoded-twice"])
def test_a_record_that_is_no_json_object_is_named_as_lacking_one(finished, wrapped):
    record = wrapped([finished]) if wrapped is list else wrapped(finished)
    assert problem(record) == Fact("record-lacks", what="JSON object")


@pytest.mark.parametrize(
    ("path", "what"),
    [
        (("pbm",), "pbm section"),
        (("pbm", "game"), "game"),
        (("pbm", "board"), "board"),
        (("pbm", "header"), "header"),
        (("pbm", "chain"), "chain"),
        (("pbm", "ply"), "ply"),
        (("pbm", "head"), "head"),
        (("pbm", "signature"), "signature"),
        (("pbm", "header", "players"), "players"),
        (("header",), "APGameRecord header"),
        (("header", "players"), "APGameRecord players"),
        (("pbm", "signature", "public_key"), "public key"),
        (("pbm", "signature", "key_id"), "key id"),
        (("pbm", "signature", "value"), "signature"),
        (("moves",), "moves"),
    ],
    ids=lambda value: ".".join(value) if isinstance(value, tuple) else None,
)
def test_a_record_without_one_of_its_parts_is_named_by_the_part_it_lacks(finished, path, what):
    *inside, name = path
    container = finished
    for key in inside:
        container = container[key]
    del container[name]
    assert problem(finished) == Fact("record-lacks", what=what)


@pytest.mark.parametrize(
    ("name", "value"),
    [("ply", True), ("board", "101"), ("chain", {}), ("head", None), ("signature", "signed")],
    ids=["ply-true", "board-as-text", "chain-an-object", "head-null", "signature-as-text"],
)
def test_a_part_of_the_wrong_kind_is_named_as_lacking_and_true_is_no_number(finished, name, value):
    finished["pbm"][name] = value
    assert problem(finished) == Fact("record-lacks", what=name)


def test_a_readable_header_with_its_players_in_another_order_is_named_as_differing(finished):
    players = finished["header"]["players"]
    players.reverse()
    assert [player["userid"] for player in players] != finished["pbm"]["header"]["players"]
    assert problem(finished) == Fact("record-header-differs")


@pytest.mark.parametrize("name", ["game", "board"])
def test_a_game_or_board_that_is_not_the_hashed_headers_is_named_as_differing(finished, name):
    finished["pbm"][name] = {"game": "cubeo", "board": finished["pbm"]["board"] + 1}[name]
    assert problem(finished) == Fact("record-header-differs")


@pytest.mark.parametrize(
    ("part", "value"),
    [
        ("site", {"name": "games.test", "gameid": "cephalopod/102"}),
        ("site", {"name": "games.test", "gameid": "cubeo/101"}),
        ("site", None),
        ("game", {"name": "Cubeo"}),
        ("game", "Cephalopod"),
    ],
    ids=["another-board", "another-game", "no-site", "another-game-name", "a-name-alone"],
)
def test_a_readable_header_naming_another_game_or_board_is_named_as_differing(finished, part, value):
    """What other tools read a record as (Abstract Play's header: the game's name, the site's game
    id) must be the game the chain proves; a header naming another was called genuine."""
    assert finished["header"]["site"]["gameid"] == "cephalopod/101"
    assert finished["header"]["game"] == {"name": "Cephalopod"}
    if value is None:
        del finished["header"][part]
    else:
        finished["header"][part] = value
    assert problem(finished) == Fact("record-header-differs")


# 2. The chain


def test_a_chain_entry_that_is_no_object_is_named_by_its_place(finished):
    finished["pbm"]["chain"][4] = finished["pbm"]["chain"][4]["move"]
    assert problem(finished) == Fact("record-lacks", what="chain entry 5")


def test_two_plies_swapped_are_named_as_out_of_order(finished):
    links = finished["pbm"]["chain"]
    links[3], links[4] = links[4], links[3]
    assert problem(finished) == Fact("record-ply-out-of-order", index=4, ply="5")


def test_a_ply_taken_out_of_the_middle_of_the_chain_is_named_as_out_of_order(finished, keys):
    del finished["pbm"]["chain"][5]
    assert problem(finished) == Fact("record-ply-out-of-order", index=6, ply="7")
    assert problem(reseal(finished, keys), keys) == Fact("record-ply-out-of-order", index=6, ply="7")


def test_a_ply_without_a_number_is_named_as_out_of_order(finished):
    del finished["pbm"]["chain"][0]["ply"]
    assert problem(finished) == Fact("record-ply-out-of-order", index=1, ply="None")


def test_a_time_no_json_can_hash_is_named_as_that_plys_hash_being_wrong(finished):
    """Python reads ``NaN`` in a JSON file as a number that canonical JSON refuses to write."""
    finished["pbm"]["chain"][2]["time"] = float("nan")
    text = json.dumps(finished)
    assert "NaN" in text
    assert problem(json.loads(text)) == Fact("record-hash-wrong", ply=3)


@pytest.mark.parametrize("plies", ["some", "none"])
def test_a_header_no_json_can_hash_is_named_as_the_first_plys_hash_or_the_head_being_wrong(finished, plies):
    """Nor can a header with ``NaN`` in it be hashed: no link can follow it (this stopped `pbm
    verify` with a ValueError)."""
    section = finished["pbm"]
    section["header"]["started"] = float("nan")
    if plies == "none":
        section["chain"], section["ply"], finished["moves"] = [], 0, []
    expected = Fact("record-hash-wrong", ply=1) if plies == "some" else Fact("record-head-wrong")
    assert problem(json.loads(json.dumps(finished))) == expected


@pytest.mark.parametrize(
    ("ply", "number"),
    [(1, True), (2, 2.0)],
    ids=["true-for-1", "2.0-for-2"],
)
def test_a_ply_numbered_by_anything_but_a_whole_number_is_named_as_out_of_order(finished, ply, number):
    """A link's hash covers its place in the chain, not the number written beside it: ``true``
    and ``2.0`` equal 1 and 2 in Python, and were taken for them."""
    finished["pbm"]["chain"][ply - 1]["ply"] = number
    assert problem(finished) == Fact("record-ply-out-of-order", index=ply, ply=str(number))


@pytest.mark.parametrize(
    "change",
    [
        {"move": None},
        {"move": 5},
        {"move": ["b3"]},
        {"seat": None},
        {"seat": "1"},
        {"seat": True},
        {"player": None},
        {"player": ["bob"]},
    ],
    ids=lambda change: "-".join(f"{name}-{json.dumps(value)}" for name, value in change.items()),
)
def test_a_chain_entry_without_its_seat_player_or_move_is_named_as_lacking(finished, keys, change):
    """Resealed, such an entry stopped `pbm verify` with a KeyError or a TypeError; seat ``true``
    was taken for seat 1 and the record called genuine."""
    link = finished["pbm"]["chain"][3]
    assert (link["seat"], link["player"]) == (1, "bob")
    for name, value in change.items():
        if value is None:
            del link[name]
        else:
            link[name] = value
    assert problem(reseal(finished, keys), keys) == Fact("record-lacks", what="chain entry 4")


def test_a_chain_cut_short_is_named_as_its_head_being_wrong(finished):
    del finished["pbm"]["chain"][-1]
    assert problem(finished) == Fact("record-head-wrong")


@pytest.mark.parametrize("changed", ["ply", "head"])
def test_a_ply_count_or_head_other_than_the_chains_end_is_named_as_the_head_being_wrong(finished, changed):
    section = finished["pbm"]
    if changed == "ply":
        section["ply"] -= 1
    else:
        section["head"] = section["chain"][-2]["hash"]
    assert problem(finished) == Fact("record-head-wrong")


# 3. The signature


def test_a_key_id_that_is_not_the_public_keys_is_named(finished):
    signature = finished["pbm"]["signature"]
    signature["key_id"] = ("0" if signature["key_id"][0] != "0" else "1") + signature["key_id"][1:]
    assert problem(finished) == Fact("record-key-id-wrong", key_id=signature["key_id"])


def test_another_public_key_under_the_same_key_id_is_named_as_the_key_id_being_wrong(finished, tmp_path):
    signature = finished["pbm"]["signature"]
    signature["public_key"] = document.sign(copy.deepcopy(finished), SigningKeys(tmp_path))["pbm"]["signature"][
        "public_key"
    ]
    assert problem(finished) == Fact("record-key-id-wrong", key_id=signature["key_id"])


@pytest.mark.parametrize("public_key", ["clé publique", "", "not*base64*at*all"])
def test_a_public_key_that_is_no_base64_key_is_named_as_the_key_id_being_wrong(finished, public_key):
    finished["pbm"]["signature"]["public_key"] = public_key
    assert problem(finished) == Fact("record-key-id-wrong", key_id=finished["pbm"]["signature"]["key_id"])


# 4. The readable move list


@pytest.mark.parametrize("change", ["one-more", "one-less"])
def test_a_readable_list_with_a_move_more_or_less_than_the_chain_is_named_by_the_ply(finished, change):
    plies = len(finished["pbm"]["chain"])
    if change == "one-more":
        finished["moves"].append([{"move": "a1"}, None])
        assert problem(finished) == Fact("record-moves-differ", ply=plies + 1)
    else:
        last = finished["moves"][-1]
        last[max(place for place, entry in enumerate(last) if entry is not None)] = None
        assert problem(finished) == Fact("record-moves-differ", ply=plies)


# 5. Every move replayed through the engine (resealed: the chain and the signature hold)


def test_a_record_of_a_game_this_server_does_not_play_is_named_as_lacking_its_engine(finished, keys):
    finished["pbm"]["game"] = finished["pbm"]["header"]["game"] = "chess"
    finished["header"]["site"]["gameid"] = f"chess/{finished['pbm']['board']}"
    assert problem(reseal(finished, keys), keys) == Fact("record-lacks", what="game engine for chess")


def test_options_the_game_does_not_have_are_named_as_unreadable_in_the_engines_words(finished, keys):
    options = {"size": 99}
    with pytest.raises(GameError) as refused:
        pbm.games.get("cephalopod").new(players=2, options=options)
    finished["pbm"]["header"]["options"] = options
    assert problem(reseal(finished, keys), keys) == Fact("record-unreadable", why=str(refused.value))


@pytest.mark.parametrize("options", [["size", 5], "size=5", 5], ids=["a-list", "text", "a-number"])
def test_options_that_are_no_mapping_are_named_as_lacking(finished, keys, options):
    """Resealed, these stopped `pbm verify` with an AttributeError."""
    finished["pbm"]["header"]["options"] = options
    assert problem(reseal(finished, keys), keys) == Fact("record-lacks", what="options")


@pytest.mark.parametrize(
    "change",
    [{"player": "carol"}, {"seat": 2, "player": "carol"}, {"seat": -1}],
    ids=["a-player-not-in-the-game", "a-seat-past-the-last", "a-seat-before-the-first"],
)
def test_a_ply_whose_seat_is_not_its_players_is_named_as_the_header_differing(finished, keys, change):
    finished["pbm"]["chain"][2].update(change)
    assert problem(reseal(finished, keys), keys) == Fact("record-header-differs")


def test_a_move_by_the_seat_not_to_move_is_named_as_played_out_of_turn(finished, keys):
    first = finished["pbm"]["chain"][0]
    assert (first["seat"], first["player"]) == (0, "alice")
    first.update(seat=1, player="bob")
    assert problem(reseal(finished, keys), keys) == Fact("record-not-their-turn", ply=1, player="bob")


def test_a_move_onto_a_taken_cell_is_named_as_illegal_with_the_engines_reason(finished, keys):
    links = finished["pbm"]["chain"]
    engine = pbm.games.get("cephalopod")
    before = engine.replay(engine.new(players=2), [(link["seat"], link["move"]) for link in links[:2]])
    taken = links[0]["move"]
    with pytest.raises(GameError) as refused:
        engine.play(before, taken)
    links[2]["move"] = taken
    assert problem(reseal(finished, keys), keys) == Fact(
        "record-move-illegal", ply=3, player=links[2]["player"], move=taken, reason=refused.value.fact
    )


def test_an_undo_with_no_move_before_it_is_named_as_illegal(finished, keys):
    section = finished["pbm"]
    section["chain"] = section["chain"][:1]
    section["chain"][0]["move"] = UNDO
    assert problem(reseal(finished, keys), keys) == Fact(
        "record-move-illegal", ply=1, player="alice", move=UNDO, reason=Fact("no-move-to-take-back")
    )


def test_a_game_with_a_move_taken_back_verifies_with_the_undo_replayed(server):
    desk, keys = server
    number = play_game(desk, "cephalopod", 2, {}, seed=6, moves=3)
    desk.run(votes.propose, f"cephalopod move {number} alice alice-pw undo", sender="alice")
    desk.run(votes.vote, f"cephalopod move {number} bob bob-pw accept", sender="bob")
    live = desk.board("cephalopod", number)
    again = live.engine.legal_moves(live.state)[-1]
    desk.run(play.move, f"cephalopod move {number} alice alice-pw {again}", sender="alice")
    record = record_of(desk, keys, "cephalopod", number)
    assert [link["move"] for link in record["pbm"]["chain"]][3:] == [UNDO, again]
    verdict = verify.verify(record, known_keys=keys.public_keys())
    assert verdict.genuine, verdict.problem
    assert verdict.checked[0]["plies"] == 5
    # The undo is replayed, not skipped: without it, alice would have moved twice in a row.
    del record["pbm"]["chain"][3]
    for ply, link in enumerate(record["pbm"]["chain"], start=1):
        link["ply"] = ply
    assert problem(reseal(record, keys), keys) == Fact("record-not-their-turn", ply=4, player="alice")


def test_a_position_other_than_the_one_the_moves_lead_to_is_named(finished):
    engine = pbm.games.get("cephalopod")
    finished["pbm"]["position"] = engine.to_position(engine.new(players=2))
    assert problem(finished) == Fact("record-position-differs")


@pytest.mark.parametrize(
    "change",
    [
        lambda header: [player.update(result=1 - player["result"]) for player in header["players"]],
        lambda header: [player.update(result=1) for player in header["players"]],  # the rules give one winner
        lambda header: header["players"][0].pop("result"),
        lambda header: header.update(status="active"),
        lambda header: header.update(status="cancelled"),
    ],
    ids=["winner-swapped", "both-won", "result-left-out", "said-active", "said-cancelled"],
)
def test_a_readable_header_giving_another_result_than_the_moves_is_named(finished, change):
    """The readable header is outside the chain: what it says of the end is checked by the replay."""
    assert sorted(player["result"] for player in finished["header"]["players"]) == [0, 1]
    change(finished["header"])
    assert problem(finished) == Fact("record-result-differs")


def test_a_game_resigned_says_the_player_left_standing_won(dodeca):
    """A resignation is a move of the chain: replayed, it ends the game, and the header must agree."""
    assert verify.verify(dodeca).genuine
    for player in dodeca["header"]["players"]:
        player["result"] = 1 - player["result"]
    assert problem(dodeca) == Fact("record-result-differs")


# 6. The dice against the seed


@pytest.mark.parametrize("change", ["section-gone", "commitment-changed"])
def test_a_dice_section_that_does_not_give_the_headers_commitment_is_named(dodeca, change):
    if change == "section-gone":
        del dodeca["pbm"]["dice"]
    else:
        dice = dodeca["pbm"]["dice"]
        dice["commitment"] = ("0" if dice["commitment"][0] != "0" else "1") + dice["commitment"][1:]
    assert problem(dodeca) == Fact("record-dice-commitment-wrong")


@pytest.mark.parametrize(
    "seed",
    ["zz" * 32, 12, ["00"], "", "00" * 31, "00" * 33],
    ids=["not-hex", "a-number", "a-list", "empty", "31-bytes", "33-bytes"],
)
def test_a_seed_that_is_not_32_bytes_of_hex_is_named_as_not_the_committed_one(dodeca, seed):
    """One of another length stopped `pbm verify` with a ValueError (from `fairdice.commitment`)."""
    dodeca["pbm"]["dice"]["seed"] = seed
    assert problem(dodeca) == Fact("record-dice-commitment-wrong")


@pytest.mark.parametrize("change", ["taken-out", "null"])
def test_a_finished_games_record_without_its_seed_is_named_as_lacking_it(dodeca, change):
    """Without the seed nothing checks the rolls, nor the moves that depend on them: a finished
    game's record that left it out was called genuine, its dice said to stay secret until the end."""
    if change == "taken-out":
        del dodeca["pbm"]["dice"]["seed"]
    else:
        dodeca["pbm"]["dice"]["seed"] = None
    assert problem(dodeca) == Fact("record-lacks", what="dice seed")


def test_a_dodeca_game_under_way_verifies_with_its_dice_left_for_its_end(server):
    desk, keys = server
    record = record_of(desk, keys, "dodeca", play_game(desk, "dodeca", 2, {}, seed=7, moves=3))
    assert record["header"]["status"] == "active" and "seed" not in record["pbm"]["dice"]
    verdict = verify.verify(record, known_keys=keys.public_keys())
    assert [fact.code for fact in verdict.checked] == ["record-genuine", "record-dice-still-secret"]
    record["header"]["status"] = "finished"
    assert problem(record, keys) == Fact("record-lacks", what="dice seed")


def test_a_seed_revealed_while_the_game_is_active_is_named_as_too_early(dodeca):
    dodeca["header"]["status"] = "active"
    assert problem(dodeca) == Fact("record-seed-too-early")


def test_a_dice_section_without_its_rolls_is_named_as_lacking_them(dodeca):
    del dodeca["pbm"]["dice"]["rolls"]
    assert problem(dodeca) == Fact("record-lacks", what="dice rolls")


def test_a_roll_more_than_the_moves_make_is_named_by_the_two_counts(dodeca):
    rolls = dodeca["pbm"]["dice"]["rolls"]
    made = len(rolls)
    rolls.append(rolls[-1])
    assert problem(dodeca) == Fact("record-dice-count-wrong", shown=made + 1, made=made)


def test_a_roll_written_as_a_fraction_is_named_as_wrong(dodeca):
    """``3.0`` equals 3 in Python, and was taken for it."""
    rolls = dodeca["pbm"]["dice"]["rolls"]
    face = rolls[7]
    rolls[7] = float(face)
    found = problem(dodeca)
    assert found.code == "record-dice-roll-wrong"
    assert {name: found[name] for name in ("index", "shown", "face")} == {
        "index": 7,
        "shown": f"{face}.0",
        "face": face,
    }


def test_the_last_roll_left_out_is_named_as_shown_as_nothing(dodeca):
    rolls = dodeca["pbm"]["dice"]["rolls"]
    face = rolls.pop()
    found = problem(dodeca)
    assert found.code == "record-dice-roll-wrong"
    assert {name: found[name] for name in ("index", "shown", "face")} == {
        "index": len(rolls),
        "shown": "nothing",
        "face": face,
    }


# Any one field changed


def proving_leaves(record: Any) -> list[tuple[Any, ...]]:
    """The paths of every value in what a record proves: the whole ``pbm`` section but its format
    name, the readable move list, and what the readable header says of the game, the board and
    the players. (The rest of that header, its dates, results and status, nothing proves.)"""

    def walk(value: Any, path: tuple[Any, ...]) -> Iterator[tuple[Any, ...]]:
        if isinstance(value, dict):
            for key, item in value.items():
                yield from walk(item, (*path, key))
        elif isinstance(value, list):
            for index, item in enumerate(value):
                yield from walk(item, (*path, index))
        else:
            yield path

    section = (path for path in walk(record["pbm"], ("pbm",)) if path != ("pbm", "format"))
    players = (("header", "players", seat, "userid") for seat in range(len(record["header"]["players"])))
    named = {("header", "site", "gameid"), ("header", "game", "name")}
    return sorted({*section, *walk(record["moves"], ("moves",)), *players, *named}, key=repr)


JSON_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-1, max_value=2**40),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=10),
)


def same_json(one: Any, other: Any) -> bool:
    """Whether two values are the same JSON value (``1``, ``1.0`` and ``true`` are not)."""
    return json.dumps(one) == json.dumps(other)


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_any_one_value_changed_in_what_a_record_proves_is_never_genuine(finished_record, dodeca_record, data):
    """Any value of it (a move, a hash, a seat, a roll, the seed, the signature...) made any other
    JSON value, of any kind: the record, read back from its JSON, is not genuine, and `verify`
    says so rather than raising. This found plies and rolls taken for the whole numbers they
    equal (true, 2.0), a finished game's seed taken out, and seeds of the wrong length."""
    record = copy.deepcopy(data.draw(st.sampled_from([finished_record, dodeca_record]), label="record"))
    *inside, name = data.draw(st.sampled_from(proving_leaves(record)), label="path")
    container = record
    for key in inside:
        container = container[key]
    value = data.draw(JSON_VALUES.filter(lambda value: not same_json(value, container[name])), label="value")
    container[name] = value
    verdict = verify.verify(json.loads(json.dumps(record)))
    assert not verdict.genuine
    assert verdict.checked == []
