"""Step 3: what the address a mail came to stands for, and which of our mails it answers.

A reply address carries a token (`pbm.mail.tokens`): a player's board, signed; a password
reset; a request to confirm an address; or a player's digest. A mail to the plain address may still answer one
of our mails, named in its In-Reply-To or References. Each answer is looked up in the
database once, while the mail is read, and kept with the reading.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.orm import Session

from pbm.addresses import same
from pbm.commands.effects import ReplyAs
from pbm.commands.plan import AnsweredFacts, ConfirmFacts, DigestFacts, ReplyFacts, ResetFacts
from pbm.mail.bounces import BounceAddresses
from pbm.mail.compose import Composer
from pbm.mail.parse import ParsedMail
from pbm.mail.tokens import Addressing, ReplyTokens, is_digest_token
from pbm.store import board_lists, boards, confirmations, outbox, players, resets

ANSWERED_LOOKUPS = 10
"""Message-IDs of a mail's In-Reply-To and References (the newest) looked up as ours: the mail
it answers is among the newest, and the header is the sender's to fill."""

ReplyAddress = ReplyFacts | ResetFacts | ConfirmFacts | DigestFacts | bool | None
"""What a reply address stands for: a player's board, a password reset, a request to confirm an
address; True when it is damaged or forged, or stands for nothing here; None for the plain
address."""


@dataclass(frozen=True)
class ReplyAddresses:
    """Reads the tokens of reply addresses, and the Message-IDs of our own mails."""

    addressing: Addressing
    tokens: ReplyTokens
    composer: Composer
    now: Callable[[], datetime]
    bounce_addresses: BounceAddresses

    def _token(self, envelope_to: tuple[str, ...]) -> str | None:
        return next((t for t in map(self.addressing.token_of, envelope_to) if t), None)

    def resolve(self, session: Session, envelope_to: tuple[str, ...], sender: str | None) -> ReplyAddress:
        """What the reply address a mail from `sender` came to stands for (see `ReplyAddress`)."""
        token = self._token(envelope_to)
        if token is None:
            return None
        if resets.is_reset_token(token):
            player = resets.player_of(session, token, self.now())
            genuine = player is not None and player.active and self.tokens.secret_genuine(token, player.id)
            return ResetFacts(token, player.userid if genuine and player is not None else None)
        if confirmations.is_confirmation_token(token):
            asked = confirmations.find(session, token)
            genuine = asked is not None and self.tokens.secret_genuine(token, asked.player_id, asked.address)
            return ConfirmFacts(token, confirmations.userid_of(session, token, self.now()) if genuine else None)
        if is_digest_token(token):
            return self._digest(session, token)
        # The addresses a tied token may have been sent to and still count are those of the player
        # it names (a reply from one of them, or from elsewhere, is judged later); read with what
        # the ids stand for, which counts only once the token proved them.
        named = self.tokens.named(token)
        found = boards.reply_to(session, *named) if named is not None else boards.ReplyTo([], None)
        ids = self.tokens.read(token, found.addresses)
        if ids is None or found.names is None:
            return True
        return ReplyFacts(found.names.userid, found.names.game_type, found.names.board, ids[2])

    def _digest(self, session: Session, token: str) -> DigestFacts | bool:
        """A digest's reply address: its player, and the games waiting for their move now, each at
        the move number the digest showed it at (a game moved on since is stale, as a reply to an
        older board mail is; a digest of the older kind names none)."""
        read = self.tokens.read_digest(token)
        named = players.by_ids(session, [read[0]]) if read is not None else []
        if read is None or not named or not named[0].active:
            return True
        waiting = board_lists.waiting_for(session, named[0].id)
        mark = read[1]
        shown = boards.plies_by(session, [g.id for g in waiting], mark) if mark is not None else {}
        return DigestFacts(named[0].userid, tuple((g.game_type, g.board, shown.get(g.id)) for g in waiting))

    def same_reply_address(self, envelope_to: tuple[str, ...], sender: str | None) -> ReplyAs | None:
        """The board mail a reply came to the reply address of, for an error answering it to carry
        the same (none for a token of the older kind, which is not handed out again)."""
        token = self._token(envelope_to)
        ids = self.tokens.read(token, sender or ()) if token is not None else None
        if ids is None:
            return None
        board_id, player_id, at_ply = ids
        return ReplyAs(board_id, player_id, at_ply) if at_ply is not None else None

    def to_reset_address(self, envelope_to: tuple[str, ...]) -> bool:
        """Whether a mail came to a password reset's reply address: its text holds a password."""
        return any(token and resets.is_reset_token(token) for token in map(self.addressing.token_of, envelope_to))

    def answered(self, session: Session, mail: ParsedMail) -> AnsweredFacts | None:
        """Which of our mails `mail` answers, when its In-Reply-To or References name one that a
        reply address would have served: a mail of the sender's own thread of a board (its root
        names board and player, signed), or a message or an announcement passed on. The newest
        named is the one answered; at most `ANSWERED_LOOKUPS` are looked up."""
        ours = "@" + self.addressing.domain.lower() + ">"
        named = dict.fromkeys([mail.in_reply_to, *reversed(mail.references)])
        candidates = [i for i in named if i is not None and i.lower().endswith(ours)][:ANSWERED_LOOKUPS]
        sent = outbox.answerable(session, candidates)
        for message_id in candidates:
            thread = self.composer.thread_named(message_id)
            if thread is not None:
                names = boards.reply_names(session, *thread)
                senders = players.with_address(session, mail.from_address) if mail.from_address else []
                if names is not None and names.userid in {player.userid for player in senders}:
                    return AnsweredFacts("board", names.game_type, names.board, names.userid)
            elif message_id in sent:
                found = self._answered_unthreaded(session, sent[message_id], mail.from_address)
                if found is not None:
                    return found
        return None

    def _answered_unthreaded(
        self, session: Session, mail: outbox.Answerable, sender: str | None
    ) -> AnsweredFacts | None:
        """A message or an announcement passed on; or a board mailed to someone who plays no part
        in it (the answer to their ``show``), when they are the one answering."""
        if mail.kind in ("message", "broadcast"):
            return AnsweredFacts(mail.kind)
        # a player's own board mails are answered through their thread, above
        game_id = mail.game_id if mail.kind == "board" and mail.player_id is None else None
        if game_id is not None and sender and same(mail.recipient, sender):
            shown = boards.by_id(session, game_id)
            if shown is not None:
                return AnsweredFacts("board-shown", shown.game_type, shown.board)
        return None
