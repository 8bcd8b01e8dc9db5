"""The README says what the server does in the words the server itself uses."""

from pathlib import Path

from pbm.commands import verbs

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()


def test_the_readme_lists_every_command_as_help_writes_it():
    for verb in verbs.ACCOUNT_VERBS:
        assert verb.usage() in README
    for verb in verbs.GAME_VERBS:
        assert verb.usage("GAME") in README


def test_the_readme_starts_with_the_two_commands_for_a_fresh_machine():
    first_lines = [line.strip() for line in README.splitlines()[:5] if line.strip()]
    assert first_lines[1:3] == ["make run", "make test"]
