"""Reply tokens: the ``+token`` in a board mail's Reply-To address.

A token names one game and one player and carries an HMAC under the server's
secret key, so a reply to ``pbm+<token>@domain`` is that player's move in that
game without a password. Nothing else can be done with it: it does not name any
other game, and it cannot be forged without the key.

>>> tokens = ReplyTokens(b"k" * 32)
>>> tokens.read(tokens.make(game_id=12, player_id=3))
(12, 3)
>>> tokens.read("12-4-" + tokens.make(12, 3).rsplit("-", 1)[1]) is None
True
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re

_FORMAT = re.compile(r"^(\d{1,18})-(\d{1,18})-([a-z2-7]{20})$")


class ReplyTokens:
    def __init__(self, key: bytes) -> None:
        self._key = key

    def _mac(self, game_id: int, player_id: int) -> str:
        digest = hmac.new(self._key, f"reply:{game_id}:{player_id}".encode(), hashlib.sha256).digest()
        # 100 bits in lower-case base32: mail systems may lower-case local parts.
        return base64.b32encode(digest).decode()[:20].lower()

    def make(self, game_id: int, player_id: int) -> str:
        return f"{game_id}-{player_id}-{self._mac(game_id, player_id)}"

    def read(self, token: str) -> tuple[int, int] | None:
        """The (game id, player id) a genuine token names, or ``None``."""
        match = _FORMAT.match(token.strip().lower())
        if match is None:
            return None
        game_id, player_id = int(match[1]), int(match[2])
        if not hmac.compare_digest(match[3], self._mac(game_id, player_id)):
            return None
        return game_id, player_id


class Addressing:
    """The server's own address and its ``+token`` forms; nothing else is ours."""

    def __init__(self, address: str) -> None:
        self.address = address
        self.local, _, self.domain = address.partition("@")

    def token_of(self, recipient: str) -> str | None:
        """The token in ``local+token@domain``; ``""`` for the plain address; ``None`` if not ours."""
        local, at, domain = recipient.strip().strip("<>").rpartition("@")
        if not at or domain.lower() != self.domain.lower():
            return None
        base, plus, token = local.partition("+")
        if base.lower() != self.local.lower():
            return None
        return token if plus else ""

    def accepts(self, recipient: str) -> bool:
        # Any +token is accepted here: a damaged one deserves an answer, not a bounce.
        token = self.token_of(recipient)
        return token is not None and len(token) <= 64

    def reply_address(self, token: str) -> str:
        return f"{self.local}+{token}@{self.domain}"
