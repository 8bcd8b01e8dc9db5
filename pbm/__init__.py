"""pbm: a play-by-email board-game server in the style of the classic PBeM Server.

The developer's map. Each package's docstring is its guide. The layers, highest first: a module
imports only from the layers below its own (import-linter keeps the order: ``[tool.importlinter]``
in pyproject.toml, run by ``make lint`` and tests/test_layers.py).

``cli``, __main__     ``pbm`` on the command line: a table of subcommands, each beside its
                      arguments in ``commandline``
``serving``           ``pbm serve``: `serving.parts` builds every part, `serving.server`
                      starts and stops them (also ``doctor``: a domain's or a provider
                      mailbox's mail setup checked, ``translating``: the translators' tools)
``mail`` | ``web``    the two edges, neither importing the other: mail in (SMTP, a provider's
                      mailbox, ``pbm process``), the pipeline (how a mail is taken and applied:
                      its docstring), the outbox and its delivery; the pages, the JSON API,
                      the help topics (``/help``), the unsubscribe and calendar URLs
``words``             facts become words: every layer's catalogue, the reader's `Words`, the
                      templates (`words.templating`) and the site's links they write;
                      translating: `words.translating`; also ``listeners``: sockets and caps
``commands``          the command language: a mail's text -> commands (`commands.plan`,
                      `commands.verbs`: a verb is one entry; a new verb: its docstring), each
                      run by its handler into facts, store changes and mails to send
``config``            the settings, from ``PBM_*`` and ``pbm.toml`` (their kinds: ``settings``)
``views``, records    read models: what a mail or a page shows (facts only), the live board
                      of a command, a game's record; ``records`` reads and verifies records
``store``             the database: models (``store.models``), and every write, as functions
                      of one concern each
``timekeeping``,      time rules and turns, spans, zones; a reader's language (plurals,
``i18n``, ``crypto``, numbers, dates); passwords, keys, sealed backups, the records' chain;
``health``,           metrics and the bots' health; what an address is; Elo ratings;
``addresses``, ...    the files shipped beside the code
``bots``              computer players: the engines' positions in, a move out (levels 1 to 4)
``games``             the rules engines, pure (one module a game; more by entry point; a new
                      game: its docstring)
``facts``             the vocabulary every layer speaks: a `Fact` is a code and parameters

Beside the package: ``templates/`` (jinja2: mail/*.txt, help/<topic>.txt — the player's guide,
mail and web —, web/*.html), ``migrations/`` (alembic), ``deploy/`` (the administrator's manual,
deploy/README.md), ``benchmarks/`` (make bench; the bots' Elo table: make ladder).

Data flows one way: `mail` reads a message, `commands` plans and runs it against `games` and
`store`, `words` renders the replies over `views` into the outbox, and `mail` delivers them.
Facts are decided below the edge and said at it, in the reader's language (``pbm/locale``).
`../shared/DESIGN.md` keeps the contracts.
"""

__version__ = "0.1.0"
