"""The command language and its verbs: what a line of a mail asks for, and the handlers that do it.

This is the pbmserv language: one command per line, words separated by white space, verbs in
any case. `pbm.commands.plan` turns a mail into its command block (pure: no database, no mail),
`pbm.commands.verbs` is the one table of verbs (parser, usage lines, help texts, secrets,
ordering, handlers: the account's verbs in `verbs.account`, the games' in `verbs.game`, what
every entry shares in `verbs.verb`), `pbm.commands.language` holds the nouns (what each command
is), `pbm.commands.reading` the readers of its words, `pbm.commands.usage` reads a usage line as
the spec of its arguments.
The other modules are the handlers, grouped by what they touch (`accounts`, `play`,
`queries` ...): each takes a `Context` and its command and returns the mails it causes
(`effects.OutgoingMail`), or raises `effects.Refused` with a fact. Handlers decide facts;
words are in the catalogues and templates.

A new verb
----------

A verb is one entry in the table of `pbm.commands.verbs`, a noun, one handler and its test.
Say players may ``pause`` a board (``GAME pause BOARD USERID PASSWORD``):

1. Its entry in ``pbm/commands/verbs/game.py`` (or ``account.py``, for a verb without a game)
   holds every word of it: its name, its usage line, what it does (its help text, in English),
   its noun and its handler, and any aliases::

       Verb(
           "pause",
           "BOARD USERID PASSWORD",
           "Stop the clocks of a board until every player has asked to go on.",
           lang.Pause,
           play.pause,
       ),

   The usage line the help shows is the spec its words are read by (`pbm.commands.usage`:
   ``BOARD`` fills ``board``, ``USERID`` ``userid``, ``PASSWORD`` ``secret``, ``MOVE`` ``move``,
   ``ADDRESS...`` ``addresses``, ``TO...`` ``to``), so there is no parser to write and no
   argument count to check. The password is masked wherever the mail is quoted, and mails
   naming the same board or player are applied in the order they came, because the usage line
   names a ``PASSWORD``, a ``BOARD`` and a ``USERID``. The help mail, ``/help/commands`` and
   the rules pages list the verb from the table; the help text and the arguments' names reach
   the translators from it (`verbs.verb_catalogue`: ``about-pause``, and the arguments under
   the code of the first verb that takes the same, here ``arguments-join``, already translated).
   A verb whose words may mean another noun says how to choose
   (``build=``, as ``move`` and ``accept`` do); one whose words no usage line can describe
   brings its own parser (``parse=``, as ``challenge`` and ``vacation`` do), in its entry too.

2. Its noun, in `pbm.commands.language`: the fields its arguments fill. A command that carries
   a password takes them from `language.WithPassword`, named first::

       @dataclass(frozen=True)
       class Pause(WithPassword, BoardCommand):
           pass  # game, board, userid and secret: the usage line's arguments

3. Its handler, ``play.pause(ctx, command) -> list[OutgoingMail]``, refusing with a code
   (``raise Refused("board-ended", board=...)``; the refusal's English in
   `pbm.commands.messages`), and its test in ``tests/commands/handlers/``. A mail of its own is
   a template, ``templates/mail/pause.txt``.

4. ``make messages``, then the French of each line it asks for: the help text in ``facts.po``
   (and the arguments, when no verb took them before), the mail's words in ``mails.po``
   (`pbm.translating`).

``tests/commands/test_verb_table.py`` reads every entry, so the new verb's parsing, secrets,
ordering and help code are checked without a line more; ``tests/e2e/test_the_whole_language.py``
asks for a specification of each verb by mail, and the French season
(``tests/i18n/test_no_english_for_a_french_reader.py``) for each mail template in French.
``deadlines USERID`` was added so: its commit touched the table (8 lines), the noun (7), the
handler (``queries.deadlines``), its mail template, its tests and the catalogues, and nothing else.
"""
