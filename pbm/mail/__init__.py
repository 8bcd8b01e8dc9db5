"""Mail in and out: SMTP and the club's mailbox in, reading a mail, applying it, composing the
answers, delivery.

How a mail is taken, applied and answered
-----------------------------------------

A received mail is committed to the database before the SMTP 250. It is then
*read* (MIME to text, in a process of its own with a time and memory limit,
outside any write transaction) and *applied* in one transaction with its
replies (a transactional outbox), so a crash loses nothing and applies nothing
twice: a mail that comes again (a retry, a second MX) is kept as a duplicate
of the first copy and not applied again. A copy is the same Message-ID and
text or, for a mail without a Message-ID, the same text and the same first
`Received` header (the first mail server's stamp on that one sending); the
same words sent again are another mail. Mails are applied in the order
received among those that share a key (their sender, or a player or board they
name), so several `pbm serve` workers on one PostgreSQL database keep each
sender's order while unrelated mail runs side by side. A worker claims what it
reads and sends under its name (host, pid namespace, pid) for a short lease;
when a worker stops, another on the same host sees that its process is gone
and takes its claims over at once, and one elsewhere when the lease ends
(15 s). A mail whose own processing fails is marked failed and its sender
told; it never holds up another. See ``../shared/DESIGN.md`` for the contracts
this keeps.

Throughput comes from waiting for the disk less often, never from promising
less: mails that arrive together are committed together before their 250s;
ready mails are applied a batch to a transaction, each in a savepoint of its
own (a failing mail ends its batch, the mails before it are kept, and it is
dealt with alone); delivery records its sends a moment's worth at a time and
keeps one relay connection for a burst. A mail about a move reads the end of
the move list only, and the store resumes a game without re-checking what it
wrote itself, so a move costs the same at move 3 and move 300. A batch's
password checks run on threads of their own (argon2 lets go of the GIL), each
once per player and process; and `pbm serve` starts its mail reader, imports
the game engines, compiles its templates and makes its one full garbage
collection before it listens, so the first mail after a restart does not wait
for them. Received mail, the queue's own bookkeeping (claims, readings, the outbox)
and the move list's rows are plain statements on the transaction's
connection: the ORM's planning cost twice what they do. `make bench` prints
the numbers beside a bare SMTP sink in a process of its own
(`benchmarks/smtp_load.py`: reply moves, password moves to a cold and to a
warm server; SQLite, and PostgreSQL with 1, 2 and 4 workers) and the cost of
a move as the club and the game grow (`benchmarks/move_cost.py`).

SMTP and the web share one event loop and one interpreter. The pages read in
one thread of their own, so a flood of page requests waits its turn there
instead of keeping the loop from answering SMTP (`benchmarks/page_flood.py`
times a small mail with and without such a flood).
"""
