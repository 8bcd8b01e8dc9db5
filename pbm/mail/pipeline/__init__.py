"""The path of one received mail, a module for each step, in the order a mail takes them.

1. **claim** — `pbm.store.inbox` leases pending mail to one worker (`claim_unread`, then
   `claim_ready`), so any number of workers share the work without doing any of it twice.
2. **read** (`read`) — the reader child turns the raw bytes into a `ParsedMail`; the mail's
   plan follows, and from it the keys that order it after earlier mails.
3. **resolve the reply address** (`reply_address`) — what the address the mail came to
   stands for (a player's board, a password reset, a confirmation), or which of our mails a
   mail to the plain address answers.
4. **check passwords ahead** (`passwords_ahead`) — the slow half of every password check,
   done before any write transaction.
5. **apply** (`apply`) — a plain function over a session: run the commands, decide the
   answers, and return what was decided (mails, notes, status). No scheduling, no commit.
6. **queue the replies** (`replies`) — compose what was decided into the outbox and mark the
   mail done.
7. **failure mail** (`failure`) — a mail whose applying failed is marked so, and its sender
   told.

`pbm.mail.processing.Processor` only schedules these steps (batches, savepoints, retries,
claims); `pbm.serving.server` wires them.
"""
