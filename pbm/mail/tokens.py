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

**Sealed until handed over.** No token that works is ever written to the database (nor so to
its journal or its free pages): a mail is kept in the outbox with each token *sealed*, its MAC
replaced by `SEAL`, and `unseal` writes the MACs in as delivery hands the mail over, from the key
and the outbox row's own recipient and player. A sealed token names only the row's own player
(a board's or a digest's token for another player is left sealed, so text a mail quotes cannot
make one), and a board token is tied to the row's recipient.

>>> sealed = f"pbm+{tokens.sealed(12, 3, 7)}@example.org".encode()
>>> genuine = tokens.make(12, 3, 7, "bob@example.org")
>>> tokens.unseal(sealed, "Bob@example.org", 3) == f"pbm+{genuine}@example.org".encode()
True
>>> tokens.unseal(sealed, "eve@example.org", 4) == sealed
True

A digest's token names the last move the server had recorded when the digest was written
(`read_digest`), so a reply to it is judged against the boards the digest showed, as a reply to a
board mail is. A password reset's or a confirmation's token is its handle (only a hash of which
is stored) and a MAC of it for the player (and address) it was mailed to (`secret_genuine`).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from collections.abc import Iterable

from pbm.addresses import comparable

_FORMAT = re.compile(r"^(\d{1,18})-(\d{1,18})(?:-(\d{1,9}))?-(t?)([a-z2-7]{20})$")
SEAL = "0" * 20
"""What stands for a token's MAC until its mail is handed over: no MAC has a ``0`` in it."""
_SEALED = re.compile(rb"\+((?:[a-z0-9-]|=\n){1,80}?)((?:0(?:=\n)?){19}0)(=\n)?@")
"""A sealed token in a reply address as a mail's bytes carry it (a quoted-printable body may
break a line anywhere in it, with ``=`` at its end)."""
_SEALED_BOARD = re.compile(r"(\d{1,18})-(\d{1,18})-(\d{1,9})-t")
_SEALED_DIGEST = re.compile(r"digest-(\d{1,18})-(\d{1,18})-")
_SECRET = re.compile(r"^((?:reset|confirm)-[0-9a-f]{32})(?:-([a-z2-7]{20}))?$")


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
    def named(token: str) -> tuple[int, int] | None:
        """The (game id, player id) a board mail's token names, unchecked: what to look up with
        the player's addresses, before `read` checks the token with them."""
        match = _FORMAT.match(token.strip().lower())
        return (int(match[1]), int(match[2])) if match is not None else None

    def sealed(self, board_id: int, player_id: int, ply: int) -> str:
        """The token `make` makes for a board mail, sealed (`unseal` ties it to the mail's recipient)."""
        return f"{board_id}-{player_id}-{ply}-t{SEAL}"

    def make_digest(self, player_id: int, mark: int) -> str:
        """The token of `player_id`'s digest written when the last move recorded was `mark` (a move's
        id): a reply to it plays a move at each board it named, as the digest showed it."""
        return f"{DIGEST_PREFIX}{player_id}-{mark}-{self._digest_mac(player_id, mark)}"

    @staticmethod
    def sealed_digest(player_id: int, mark: int) -> str:
        return f"{DIGEST_PREFIX}{player_id}-{mark}-{SEAL}"

    def read_digest(self, token: str) -> tuple[int, int | None] | None:
        """The (player, mark) a genuine digest token names, or ``None``; a token of the older kind
        names no mark (nobody can tell which boards its digest showed)."""
        match = _DIGEST.match(token.strip().lower())
        if match is None:
            return None
        player_id, mark = int(match[1]), int(match[2]) if match[2] is not None else None
        if not hmac.compare_digest(match[3], self._digest_mac(player_id, mark)):
            return None
        return player_id, mark

    def _digest_mac(self, player_id: int, mark: int | None) -> str:
        message = f"digest:{player_id}" + (f":{mark}" if mark is not None else "")
        digest = hmac.new(self._key, message.encode(), hashlib.sha256).digest()
        return base64.b32encode(digest).decode()[:20].lower()

    def _secret_mac(self, handle: str, player_id: int, address: str | None) -> str:
        message = f"{handle}:{player_id}" + (f":to:{comparable(address)}" if address is not None else "")
        return base64.b32encode(hmac.new(self._key, message.encode(), hashlib.sha256).digest()).decode()[:20].lower()

    def secret_genuine(self, token: str, player_id: int, address: str | None = None) -> bool:
        """Whether a reset's or a confirmation's `token` was mailed for `player_id` (and `address`):
        its MAC is theirs. A token of the older kind carries none: its stored hash is its proof."""
        match = _SECRET.match(token.strip().lower())
        if match is None:
            return False
        return match[2] is None or hmac.compare_digest(match[2], self._secret_mac(match[1], player_id, address))

    def unseal(self, raw: bytes, recipient: str, player_id: int | None) -> bytes:
        """`raw`, a mail as the outbox keeps it, with each sealed token of its own player's made
        genuine (see the module's docstring): what is handed over to be sent."""
        if player_id is None or b"0" * 20 not in raw.replace(b"=\n", b""):
            return raw

        def genuine(found: re.Match[bytes]) -> bytes:
            text = found.group(0)
            token = found.group(1).replace(b"=\n", b"").decode("ascii")
            mac = self._mac_for_sealed(token, recipient, player_id)
            if mac is None:
                return text
            letters = iter(mac.encode("ascii"))
            seal = bytes(next(letters) if byte == ord("0") else byte for byte in found.group(2))
            return text[: found.start(2) - found.start(0)] + seal + (found.group(3) or b"") + b"@"

        return _SEALED.sub(genuine, raw)

    def _mac_for_sealed(self, token: str, recipient: str, player_id: int) -> str | None:
        """The MAC a sealed token (without its seal) takes for the mail's `recipient` and player;
        None for a token of another player, or one that is no sealed token of ours."""
        board = _SEALED_BOARD.fullmatch(token)
        if board is not None and int(board[2]) == player_id:
            return self._mac(int(board[1]), player_id, int(board[3]), recipient)
        digest = _SEALED_DIGEST.fullmatch(token)
        if digest is not None and int(digest[1]) == player_id:
            return self._digest_mac(player_id, int(digest[2]))
        secret = _SECRET.match(token.rstrip("-"))
        if secret is not None and token.endswith("-") and secret[2] is None:
            return self._secret_mac(secret[1], player_id, recipient if token.startswith("confirm-") else None)
        return None


DIGEST_PREFIX = "digest-"
_DIGEST = re.compile(r"^digest-(\d{1,18})-(?:(\d{1,18})-)?([a-z2-7]{20})$")


def sealed_secret(handle: str) -> str:
    """A reset's or a confirmation's token as the outbox keeps it: its `handle`, sealed."""
    return f"{handle}-{SEAL}"


def secret_handle(token: str) -> str:
    """The handle of a reset's or a confirmation's token (what its stored hash is of): the token
    without its MAC; a token of the older kind is its own handle."""
    match = _SECRET.match(token.strip().lower())
    return match[1] if match is not None else token.strip().lower()


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
