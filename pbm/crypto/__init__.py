"""The club's secrets and signatures, below the store: players' password hashes (`passwords`),
key files made once (`keyfiles`), sealed backups (`sealed`), the records' signing keys (`keys`)
and the hash chain that links a game's moves (`chain`)."""
