"""Read models: what a mail or a page shows about a game, a player or a rating, ready to render.

Facts only: built from stored rows and the game's engine, so that templates need neither the
database nor the rules, and said in each reader's words at the edge (`pbm.words`). Private data
stays out: no addresses, no reply tokens, and the engine's hidden state only through its public
notes (a dice commitment, the seed once the game is over) and the cells the board shows anyway.

One module a read model:

- `board`: one game in full (`BoardView`), as a board mail and a game page show it, made of
  `seats`, `moves` (and the events between them), `offers` and `timing` (clocks, whose turn);
- `standing`: where a game stands, and one line of a list of games (`GameSummary`), made from
  the stored row alone so that lists of many games stay cheap;
- `ratings`: a player's rating in one game type; `challenges`: an open challenge and its seats;
  `ladders`: the bots' measured strength, level by level;
- `record`: a game's record as a document (APGameRecord, with its signed chain);
- `live`: a board loaded once for a command, its view made when a mail needs it.
"""
