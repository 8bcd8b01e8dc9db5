"""pbm: a play-by-email board-game server in the style of the classic PBeM Server.

The developer's map. Each package's docstring is its guide; the layers go one way, from the
pure ones at the bottom to the edges that talk to the world at the top::

    pbm/games/     the rules engines: pure, one module per game, found through the pbm.games
                   entry points (a club installs a game as a package); a new game: its docstring
    pbm/bots/      computer opponents: a legal move for any position, levels 1 (weakest) to 4,
                   pure like the engines; how they play on the server: its docstring
    pbm/commands/  the command language: planning a mail (pure), the verb table (words, usage,
                   help, passwords, handler), the handlers; a new verb: its docstring
    pbm/store/     SQLAlchemy models and the unit of work: players, boards, ratings, board
                   lists, the inbox and the outbox
    pbm/records/   every game's hash chain, its signed record and proof (pbm verify)
    pbm/views      read models: what mails and pages show of a game, as facts
    pbm/live.py    a board loaded once for a command: its row, state and seats
    pbm/mail/      SMTP and IMAP in, reading a mail (mail/pipeline/), applying it, composing the
                   answers, delivery; how a mail is taken and applied: its docstring
    pbm/web/       the pages and JSON (Starlette), on the same loop as SMTP; /help serves the
                   help topics (pbm.web.help)
    pbm/locale/    the translations: gettext catalogues per domain, French rules and glossary;
                   translating: pbm.translating
    templates/     jinja2: mail/*.txt, help/<topic>.txt (the player's guide, mail and web),
                   web/*.html
    migrations/    alembic
    deploy/        the administrator's manual (deploy/README.md), systemd units, Postfix,
                   PostgreSQL, mail authentication
    benchmarks/    speed, reported as numbers: make bench; the bots' Elo table: make ladder

Data flows one way: a mail is read (`pbm.mail.parse`), planned into commands
(`pbm.commands.plan`), each run by its verb's handler (`pbm.commands.verbs`), which asks the
engine (`pbm.games`) and has the store record the result (`pbm.store`); the mails it causes
are rendered from templates over the read models (`pbm.views`) into the outbox, and
delivered. Handlers decide facts (a code and its parameters); the catalogues and templates
turn facts into words, in each reader's language. `../shared/DESIGN.md` keeps the contracts.
"""

__version__ = "0.1.0"
