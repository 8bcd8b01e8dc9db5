"""The fair-dice recipe: commitment, the roll mapping, its uniformity, and the verifier."""

from __future__ import annotations

import functools
import hashlib
import hmac
import io
import json
import random
import re
import subprocess
import sys
from collections import Counter

import pytest

from pbm.cli import main as pbm_main
from pbm.games import fairdice
from pbm.games.dodeca import GAME

from .dodeca_support import SEED, random_game

# -- commitment and the roll mapping ------------------------------------------------------


def test_commitment_is_the_hex_sha256_of_the_seed():
    assert fairdice.commitment(SEED) == hashlib.sha256(SEED).hexdigest()


def test_new_seeds_are_32_random_bytes():
    seeds = {fairdice.new_seed() for _ in range(20)}
    assert len(seeds) == 20
    assert {len(seed) for seed in seeds} == {32}


def test_a_seed_must_be_32_bytes():
    with pytest.raises(ValueError, match="32 bytes"):
        fairdice.commitment(b"short")
    with pytest.raises(ValueError, match="32 bytes"):
        fairdice.roll(bytes(31), 0, 6)


def test_a_die_has_2_to_256_faces():
    with pytest.raises(ValueError, match="2 to 256 faces"):
        fairdice.roll(SEED, 0, 1)
    with pytest.raises(ValueError, match="2 to 256 faces"):
        fairdice.roll(SEED, 0, 257)


def _recipe() -> dict:
    """Run the copy-paste recipe from the module docstring, as a player would."""
    doc = fairdice.__doc__
    lines = doc.split("a file or an interpreter::\n", 1)[1].splitlines()
    end = next(i for i, line in enumerate(lines) if line.strip() and not line.startswith("    "))
    code = "\n".join(line[4:] for line in lines[:end])
    namespace: dict = {}
    exec(code, namespace)
    return namespace


def test_the_recipe_in_the_docstring_computes_the_same_rolls_as_the_server():
    recipe = _recipe()
    assert recipe["commitment"](SEED) == fairdice.commitment(SEED)
    for sides in (4, 6, 8, 10, 3, 129, 256):
        for index in range(300):
            assert recipe["roll"](SEED, index, sides) == fairdice.roll(SEED, index, sides)


def _hmac(label: str) -> bytes:
    return hmac.new(SEED, label.encode(), hashlib.sha256).digest()


def test_bytes_at_or_above_the_limit_are_skipped():
    # A d10 accepts bytes below 250; find a roll whose first byte is 250..255.
    index = next(i for i in range(10_000) if _hmac(f"roll:{i}")[0] >= 250)
    accepted = next(b for b in _hmac(f"roll:{index}") if b < 250)
    assert fairdice.roll(SEED, index, 10) == accepted % 10 + 1


def test_a_byte_below_the_limit_gives_byte_mod_sides_plus_one():
    for index in range(50):
        first = _hmac(f"roll:{index}")[0]
        if first < 252:
            assert fairdice.roll(SEED, index, 6) == first % 6 + 1


def test_when_all_32_bytes_are_rejected_the_roll_reads_roll_i_1_then_roll_i_2(monkeypatch):
    real = fairdice._digest
    rejected = {b"roll:7", b"roll:7:1"}

    def digest(seed: bytes, label: bytes) -> bytes:
        return b"\xff" * 32 if label in rejected else real(seed, label)

    monkeypatch.setattr(fairdice, "_digest", digest)
    accepted = next(b for b in _hmac("roll:7:2") if b < 250)
    assert fairdice.roll(SEED, 7, 10) == accepted % 10 + 1


def test_a_roll_depends_on_the_seed_and_the_roll_number_only():
    other = bytes(reversed(SEED))
    first = [fairdice.roll(SEED, i, 10) for i in range(100)]
    assert first == [fairdice.roll(SEED, i, 10) for i in range(100)]
    assert first != [fairdice.roll(other, i, 10) for i in range(100)]


# -- uniformity ----------------------------------------------------------------------------

# Chi-square critical values at significance 0.001 for sides - 1 degrees of
# freedom (scipy.stats.chi2.ppf(0.999, df); scipy is not a dependency). A fair
# die exceeds them once in a thousand samples; the seed is fixed, so the test
# is deterministic.
CRITICAL = {4: 16.266, 6: 20.515, 8: 24.322, 10: 27.877}

# Sample sizes. The realistic mistake is `byte % sides` without rejection:
# 256 bytes spread over 10 faces give faces 1-6 a share of 26/256 and 7-10 of
# 25/256, over 6 faces 43/256 against 42/256. That adds N * sum((p - 1/n)^2 * n)
# to the expected statistic: about N * 3.7e-4 for a d10 and N * 1.2e-4 for a
# d6, i.e. 73 and 49 here, far above the bounds of 27.9 and 20.5. The d4 and
# d8 divide 256, so any one-byte mapping is already exact; smaller samples do.
SAMPLES = {4: 40_000, 6: 400_000, 8: 40_000, 10: 200_000}


def _chi_square(faces: list[int], sides: int) -> float:
    counts = Counter(faces)
    expected = len(faces) / sides
    return sum((counts[face] - expected) ** 2 / expected for face in range(1, sides + 1))


@functools.cache
def _fair_faces(sides: int) -> list[int]:
    return [fairdice.roll(SEED, index, sides) for index in range(SAMPLES[sides])]


def _byte_modulo_faces(sides: int) -> list[int]:
    return [_hmac(f"roll:{index}")[0] % sides + 1 for index in range(SAMPLES[sides])]


@pytest.mark.parametrize("sides", [4, 6, 8, 10])
def test_rolls_of_each_die_are_uniform(sides):
    faces = _fair_faces(sides)
    assert set(faces) == set(range(1, sides + 1))
    assert _chi_square(faces, sides) < CRITICAL[sides]


@pytest.mark.parametrize("sides", [6, 10])
def test_the_uniformity_bound_catches_byte_modulo_bias(sides):
    assert _chi_square(_byte_modulo_faces(sides), sides) > CRITICAL[sides]


# -- the verifier --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def finished_game():
    seed = hashlib.sha256(b"a finished game").digest()
    moves, state = random_game(seed, random.Random(4))
    assert GAME.result(state) is not None
    return seed, moves, state


def _record(finished_game) -> dict:
    seed, moves, state = finished_game
    return fairdice.make_record(game="dodeca", seed=seed, moves=moves, rolls=state.rolls)


def test_replaying_a_finished_game_from_its_record_reproduces_every_roll(finished_game):
    seed, moves, state = finished_game
    record = json.loads(json.dumps(_record(finished_game)))
    replayed = GAME.new(seed=bytes.fromhex(record["seed"]))
    for move in record["moves"]:
        replayed = GAME.play(replayed, move)
    assert replayed == state
    assert [r.face for r in replayed.rolls] == record["rolls"]
    assert any(r.move > 0 for r in replayed.rolls), "the game should contain rerolls"


def test_the_verifier_accepts_an_honest_record(finished_game):
    _, _, state = finished_game
    verification = fairdice.verify(_record(finished_game))
    assert verification.ok, verification.problems
    assert verification.rolls == list(state.rolls)


def test_the_verifier_reports_a_tampered_reroll_with_its_move_number(finished_game):
    _, _, state = finished_game
    record = _record(finished_game)
    reroll = next(r for r in state.rolls if r.move > 0)
    record["rolls"][reroll.index] = reroll.face % reroll.sides + 1
    problems = fairdice.verify(record).problems
    assert problems[0].startswith(f"roll mismatch at roll {reroll.index} (move {reroll.move}: roll ")
    assert f"the game published {reroll.face % reroll.sides + 1}, the seed gives {reroll.face}" in problems[0]


def test_the_verifier_reports_a_tampered_setup_roll(finished_game):
    record = _record(finished_game)
    record["rolls"][0] = record["rolls"][0] % 6 + 1
    assert fairdice.verify(record).problems == [
        f"roll mismatch at roll 0 (setup a1: South Cube, d6): the game published {record['rolls'][0]}, "
        f"the seed gives {finished_game[2].rolls[0].face}"
    ]


def test_the_verifier_reports_a_wrong_commitment(finished_game):
    record = _record(finished_game)
    record["commitment"] = fairdice.commitment(bytes(32))
    problems = fairdice.verify(record).problems
    assert len(problems) == 1
    assert problems[0].startswith(f"commitment mismatch: the game published {fairdice.commitment(bytes(32))}")


def test_the_verifier_reports_published_rolls_the_moves_do_not_make(finished_game):
    record = _record(finished_game)
    count = len(record["rolls"])
    record["rolls"].append(3)
    assert fairdice.verify(record).problems == [f"the record lists {count + 1} rolls, but the moves make {count}"]


def test_the_verifier_reports_a_move_that_cannot_be_replayed(finished_game):
    record = _record(finished_game)
    record["moves"][3] = "a1-a9=2"
    problems = fairdice.verify(record).problems
    assert problems[0].startswith("move 4 'a1-a9=2' cannot be replayed from the revealed seed: ")


def test_the_verifier_lists_the_rolls_when_no_faces_were_published(finished_game):
    record = _record(finished_game)
    del record["rolls"]
    verification = fairdice.verify(record)
    assert verification.ok
    assert [r.face for r in verification.rolls] == [r.face for r in finished_game[2].rolls]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"seed": None}, '"seed"'),
        ({"seed": "abc"}, '"seed"'),
        ({"commitment": None}, '"commitment"'),
        ({"rolls": "1 2 3"}, '"rolls"'),
        ({"moves": "c2-c6"}, '"moves"'),
        ({"game": "chess"}, "no game called 'chess'"),
        ({"players": 3}, "exactly 2 players"),
        ({"options": ["size", 5]}, '"options"'),
        ({"options": {"size": 5}}, "has no option -size"),
    ],
)
def test_the_verifier_refuses_an_unusable_record(finished_game, change, message):
    record = _record(finished_game) | change
    with pytest.raises(fairdice.RecordError, match=re.escape(message)):
        fairdice.verify(record)


def test_commitments_differ_per_game_and_match_the_revealed_seed():
    games = [GAME.new() for _ in range(5)]
    notes = [GAME.public_notes(state)[0] for state in games]
    assert len(set(notes)) == 5
    for state, note in zip(games, notes):
        assert note.endswith(hashlib.sha256(GAME.secret_of(state)).hexdigest())


# -- the command line -------------------------------------------------------------------------


def test_verify_dice_exits_0_on_an_honest_record(finished_game, tmp_path, capsys):
    path = tmp_path / "record.json"
    path.write_text(json.dumps(_record(finished_game)))
    assert pbm_main(["verify-dice", str(path)]) == 0
    assert capsys.readouterr().out.startswith("OK: the commitment matches the seed;")


def test_verify_dice_exits_1_and_names_each_mismatch(finished_game, tmp_path, capsys):
    record = _record(finished_game)
    record["rolls"][5] = record["rolls"][5] % 4 + 1
    record["commitment"] = "0" * 64
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    assert pbm_main(["verify-dice", str(path)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("commitment mismatch")
    assert lines[1].startswith("roll mismatch at roll 5 (setup f1: South Dodeca, d10)")
    assert lines[-1] == "FAILED: 2 problem(s)"


def test_verify_dice_reads_standard_input_and_lists_rolls(finished_game, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(_record(finished_game))))
    assert pbm_main(["verify-dice", "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(finished_game[2].rolls) + 1
    assert lines[0].split() == ["0", "d6", str(finished_game[2].rolls[0].face), "setup", "a1:", "South", "Cube"]


def test_verify_dice_exits_2_on_a_broken_record(tmp_path, capsys):
    path = tmp_path / "record.json"
    path.write_text("{not json")
    assert pbm_main(["verify-dice", str(path)]) == 2
    assert capsys.readouterr().err.startswith("verify-dice: ")


def test_verify_dice_runs_as_a_program(finished_game, tmp_path):
    path = tmp_path / "record.json"
    path.write_text(json.dumps(_record(finished_game)))
    done = subprocess.run(
        [sys.executable, "-m", "pbm", "verify-dice", str(path)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert f"{len(finished_game[2].rolls)} rolls recomputed" in done.stdout
