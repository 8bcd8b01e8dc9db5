"""Every game kept, replayable and provable: the tools that read a record back.

- `reading`: a record file read, whatever it holds;
- `verify`: checking such a record offline (`pbm verify FILE`): its chain, its signature, its
  dice, and every move replayed by the engine;
- `messages`: the words of what a check finds, and of a receipt.

A game becomes a record as a read model (`pbm.views.record`: APGameRecord-compatible JSON with a
``pbm`` section); the hash chain each accepted move extends and the server's signing keys are
below the store (`pbm.crypto.chain`, `pbm.crypto.keys`).
"""
