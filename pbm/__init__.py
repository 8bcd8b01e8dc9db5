"""pbm: a play-by-email board-game server in the style of the classic PBeM Server.

A developer's map. The layers, highest first: a module imports only from the layers below
its own (import-linter keeps the order: ``[tool.importlinter]`` in pyproject.toml, run by
``make lint`` and tests/test_layers.py).

``cli``, __main__     ``pbm`` on the command line: a table of subcommands
``serving``           ``pbm serve``: `serving.parts` builds every part, `serving.server`
                      starts and stops them (also ``doctor``: a domain's mail setup checked,
                      ``translating``: the translators' tools)
``mail`` | ``web``    the two edges, neither importing the other: mail in (SMTP, a provider's
                      mailbox, ``pbm process``), the pipeline, the outbox and its delivery;
                      the pages, the JSON API, the unsubscribe and calendar URLs
``words``             facts become words: every layer's catalogue, the reader's `Words`, the
                      templates (`words.templating`) and the site's links they write; also
                      ``listeners``: the sockets and their caps
``commands``          the command language: a mail's text -> commands (`commands.plan`,
                      `commands.verbs`: a verb is one entry), each run by its handler into
                      facts, store changes and mails to send
``config``            the settings, from ``PBM_*`` and ``pbm.toml``
``views``, records    read models: what a mail or a page shows (facts only), the live board
                      of a command, a game's record; ``records`` reads and verifies records
``store``             the database: models, and every write, as functions of one concern each
``timekeeping``,      time rules and turns, spans, zones; a reader's language (plurals,
``i18n``, ``crypto``, numbers, dates); passwords, keys, sealed backups, the records' chain;
``health``,           metrics and the bots' health; what an address is; Elo ratings;
``addresses``, ...    the files shipped beside the code
``bots``              computer players: the engines' positions in, a move out
``games``             the rules engines, pure (one module a game; more by entry point)
``facts``             the vocabulary every layer speaks: a `Fact` is a code and parameters

Data flows one way: `mail` reads a message, `commands` plans and runs it against `games` and
`store`, `words` renders the replies over `views` into the outbox, and `mail` delivers them.
Facts are decided below the edge and said at it, in the reader's language (``pbm/locale``).
A new verb: an entry in `commands.verbs` and a handler. A new game: a module with a
``pbm.games`` entry point (`pbm.games`). A new language: `pbm.i18n.languages`.
"""

__version__ = "0.1.0"
