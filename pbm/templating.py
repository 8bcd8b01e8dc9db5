"""The jinja2 environment for mails (``templates/mail``, ``templates/help``) and pages.

Plain-text templates are not escaped; HTML templates always are (``.html``).
Undefined names are errors, so a template typo fails a test instead of
mailing a blank.
"""

from __future__ import annotations

import jinja2

from pbm import elo
from pbm.commands import verbs
from pbm.facts import Fact, english_duration
from pbm.records.keys import SigningKeys
from pbm.resources import resource_dir
from pbm.views import INACTIVE_AFTER, BoardView
from pbm.web.links import Links
from pbm.words import Words


class _CompiledOnce(jinja2.BytecodeCache):
    """Templates compiled once per process, whichever environment asks: every environment
    `make_environment` makes compiles a template to the same code (same options, same
    extensions), and a template takes tens of milliseconds to compile. A template whose file
    changed has another checksum, and is compiled again."""

    def __init__(self) -> None:
        self._code: dict[str, tuple[str, object]] = {}

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        found = self._code.get(bucket.key)
        if found is not None and found[0] == bucket.checksum:
            bucket.code = found[1]  # type: ignore[assignment]  # a code object, as the bucket holds it

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self._code[bucket.key] = (bucket.checksum, bucket.code)


_COMPILED = _CompiledOnce()


def make_environment(
    *, links: Links | None = None, admin_contact: str | None = None, signing: SigningKeys | None = None
) -> jinja2.Environment:
    """The environment; `links` to the web pages (`PBM_PUBLIC_URL`) and `admin_contact`
    (`PBM_ADMIN_CONTACT`) are the server's, the same in every mail and page; `signing`, the
    server's keys, signs the receipt a board mail carries (none without them)."""
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(resource_dir("templates")),
        autoescape=jinja2.select_autoescape(["html"], default_for_string=False, default=False),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        bytecode_cache=_COMPILED,
    )
    # A span of time as the reader says it (the filter templates had before facts: English today).
    environment.filters["duration"] = english_duration
    # What the standings say of ratings: where everyone starts, how long a rating is provisional.
    environment.globals["elo"] = {"start": round(elo.START), "provisional_games": elo.PROVISIONAL_GAMES, "k": elo.K}
    environment.globals["inactive_days"] = INACTIVE_AFTER.days
    # The commands' usage lines and help texts, as the help mails and the rules page list them.
    environment.globals["verbs"] = verbs
    environment.globals["links"] = links or Links()
    environment.globals["admin_contact"] = admin_contact
    # Facts become words here: `say(fact)` in a template (one reader's language: English today).
    environment.globals["say"] = Words().say
    # A template's own sentence, as a fact of a catalogue: ``say(fact("replay-next"))``.
    environment.globals["fact"] = Fact

    def receipt(view: BoardView) -> Fact | None:
        """The signed receipt of the board `view` shows, when it is the current one."""
        if signing is None or view.chain_hash is None:
            return None
        return signing.receipt(view.game_type, view.board, view.move_count, view.chain_hash)

    environment.globals["receipt"] = receipt
    return environment


def load_templates(environment: jinja2.Environment, *folders: str) -> None:
    """Compile every template in `folders` now (jinja compiles one at its first use).

    A template takes tens of milliseconds to compile: done at start-up, the
    first player after a restart is not the one who waits for it.
    """
    prefixes = tuple(f"{folder}/" for folder in folders)
    for name in environment.list_templates():
        if name.startswith(prefixes):
            environment.get_template(name)
