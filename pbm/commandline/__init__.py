"""The subcommands of ``pbm`` (`pbm.cli`), a module per group, each subcommand's arguments beside
the function that reads them.

- `running`: ``serve``, ``db upgrade``, ``tick``: the server and its time pass;
- `mail`: ``process``, ``inbox``, ``outbox``: mail in and out, by hand;
- `games`: ``perft``, ``verify-dice``, ``dice-record``: the engines and their dice, checked;
- `records`: ``verify``, ``keys``: game records and the keys that sign them;
- `backups`: ``backup``, ``restore``;
- `configuration`: ``config show``, ``doctor``: the settings, and the domain's DNS for mail;
- `opening`: what a subcommand opens (the database alone, or the whole server), and no more.

A subcommand is a function of the parsed arguments returning the exit status, made a
`Subcommand` by `subcommand`, which holds what ``pbm --help`` says of it and the arguments it
takes. `pbm.cli.SUBCOMMANDS` names them all.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass

Arguments = Callable[[argparse.ArgumentParser], None]
"""Adds a subcommand's arguments to its parser."""


class UsageError(Exception):
    """Arguments the parser took that the subcommand cannot: said as the parser says its own."""


def _none(parser: argparse.ArgumentParser) -> None:
    """A subcommand without arguments."""


@dataclass(frozen=True)
class Subcommand:
    """One ``pbm`` subcommand: what ``pbm --help`` says of it, its arguments, and the function that runs it."""

    run: Callable[[argparse.Namespace], int]
    help: str
    description: str | None = None
    epilog: str | None = None
    arguments: Arguments = _none

    def __call__(self, args: argparse.Namespace) -> int:
        return self.run(args)

    def add_to(self, commands: argparse._SubParsersAction[argparse.ArgumentParser], name: str) -> None:
        """Its parser, named `name`, among `commands`."""
        parser = commands.add_parser(name, help=self.help, description=self.description, epilog=self.epilog)
        self.arguments(parser)


def subcommand(
    help: str, *, description: str | None = None, epilog: str | None = None, arguments: Arguments = _none
) -> Callable[[Callable[[argparse.Namespace], int]], Subcommand]:
    """Make the function below a `Subcommand` with this help and these arguments."""

    def made(run: Callable[[argparse.Namespace], int]) -> Subcommand:
        return Subcommand(run, help, description, epilog, arguments)

    return made
