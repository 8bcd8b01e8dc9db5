"""Reply tokens: the ``+token`` in a board mail's Reply-To address.

A token names one board, one player and the move number of the board its mail
showed, and carries an HMAC under the server's secret key, so a reply to
``pbm+<token>@domain`` is that player's move in that game without a password,
judged against that board: a reply to an older board mail is stale, like a
move with an old ``#N``, whether it carries a move, resigns, proposes or
votes (`pbm.commands.context.Context.check_reply_is_current`); only ``show``
and ``chat``, which change nothing on the board, work from any board mail of
the game. Nothing else can be done with it: it names no other game, and it
cannot be forged without the key.

>>> tokens = ReplyTokens(b"k" * 32)
>>> tokens.read(tokens.make(board_id=12, player_id=3, ply=7))
(12, 3, 7)
>>> tokens.read("12-3-8-" + tokens.make(12, 3, 7).rsplit("-", 1)[1]) is None
True

A token made for one address (``101-3-7-t<mac>``: every board mail since tokens were tied) is
tied to it: it is genuine only while that address is one of the player's (the caller names
them), so removing an address from the account ends the tokens of every mail sent to it; the
reply itself may come from any address the player registered, as before (`pbm.commands`
checks that). Tokens made before carry no ``t`` and are read as they were.

>>> tied = tokens.make(12, 3, 7, "Bob@example.org")
>>> tokens.read(tied, ["bob@work.example", "bob@example.org"]), tokens.read(tied, ["eve@example.org"])
((12, 3, 7), None)

Tokens of mails sent before boards were numbered in them (``game-player-mac``)
are still read, without a move number: nobody can tell which board such a
reply answers, so it may show the board or chat, and anything else is
refused with the board as it stands and a reply address for it.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from collections.abc import Iterable

from pbm.addresses import comparable

_FORMAT = re.compile(r"^(\d{1,18})-(\d{1,18})(?:-(\d{1,9}))?-(t?)([a-z2-7]{20})$")


class ReplyTokens:
    def __init__(self, key: bytes) -> None:
        self._key = key

    def _mac(self, board_id: int, player_id: int, ply: int | None, address: str | None = None) -> str:
        message = f"reply:{board_id}:{player_id}" + (f":{ply}" if ply is not None else "")
        if address is not None:
            message += f":to:{comparable(address)}"
        digest = hmac.new(self._key, message.encode(), hashlib.sha256).digest()
        # 100 bits in lower-case base32: mail systems may lower-case local parts.
        return base64.b32encode(digest).decode()[:20].lower()

    def make(self, board_id: int, player_id: int, ply: int, address: str | None = None) -> str:
        """The token of a board mail to `player_id` showing `board_id` after `ply` moves; mailed to
        `address`, it is tied to it (``t`` before its MAC): only a reply from that address counts."""
        tied = "t" if address is not None else ""
        return f"{board_id}-{player_id}-{ply}-{tied}{self._mac(board_id, player_id, ply, address)}"

    def read(self, token: str, addresses: Iterable[str] | str = ()) -> tuple[int, int, int | None] | None:
        """The (game id, player id, move number) a genuine token names, or ``None``; a token tied
        to an address is genuine only when that address (any case) is among `addresses`: the
        player's addresses now (or the reply's sender alone, where the player is not looked up)."""
        match = _FORMAT.match(token.strip().lower())
        if match is None:
            return None
        board_id, player_id = int(match[1]), int(match[2])
        ply = int(match[3]) if match[3] is not None else None
        if not match[4]:
            return (
                (board_id, player_id, ply)
                if hmac.compare_digest(match[5], self._mac(board_id, player_id, ply, None))
                else None
            )
        candidates = [addresses] if isinstance(addresses, str) else list(addresses)
        if any(hmac.compare_digest(match[5], self._mac(board_id, player_id, ply, a)) for a in candidates[:10]):
            return board_id, player_id, ply
        return None

    @staticmethod
    def player_named(token: str) -> int | None:
        """The player id a board mail's token names, unchecked: whose addresses to check it with."""
        match = _FORMAT.match(token.strip().lower())
        return int(match[2]) if match is not None else None

    def make_digest(self, player_id: int) -> str:
        """The token of `player_id`'s digests: a reply to one plays a move at each board it names."""
        return f"{DIGEST_PREFIX}{player_id}-{self._digest_mac(player_id)}"

    def read_digest(self, token: str) -> int | None:
        """The player a genuine digest token names, or ``None``."""
        match = _DIGEST.match(token.strip().lower())
        if match is None or not hmac.compare_digest(match[2], self._digest_mac(int(match[1]))):
            return None
        return int(match[1])

    def _digest_mac(self, player_id: int) -> str:
        digest = hmac.new(self._key, f"digest:{player_id}".encode(), hashlib.sha256).digest()
        return base64.b32encode(digest).decode()[:20].lower()


DIGEST_PREFIX = "digest-"
_DIGEST = re.compile(r"^digest-(\d{1,18})-([a-z2-7]{20})$")


def is_digest_token(token: str | None) -> bool:
    return token is not None and token.lower().startswith(DIGEST_PREFIX)


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
