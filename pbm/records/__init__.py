"""Every game kept, replayable and provable.

- `chain`: the per-game hash chain each accepted move extends (pure);
- `keys`: the server's Ed25519 signing keys, made on first start and rotatable;
- `document`: a game as an APGameRecord-compatible JSON record with a ``pbm`` section;
- `verify`: checking such a record offline (`pbm verify FILE`);
- `messages`: the words of what a check finds, and of a receipt.
"""
