"""One-click unsubscribe (RFC 8058) for the mails a player asked for: a watcher's copy of a
board's news (``subscribe``), the mail that a game ended (``notify``), and a digest (``digest``:
unsubscribing ends the digests, and the player's turn mails go one a move again, so their own
games are never silenced).

Each such mail carries ``List-Unsubscribe: <https://.../unsubscribe/TOKEN>`` and
``List-Unsubscribe-Post: List-Unsubscribe=One-Click``, where the token names the player, what
the mail is about and when it was written, signed with the server's key: a POST to that URL
ends it at once, without a login (`pbm.web.unsubscribe`), and nobody can make up a URL for
someone else's subscription. It ends only the subscription the mail came of: not one made
again after the mail was written, and nothing once `WORKS_FOR` has passed since. The URL
needs the server's public address (``PBM_PUBLIC_URL``); without one, mails carry no such
header. A player's own games are never among what it ends: their board
mails carry no such header.

>>> unsubscribing = Unsubscribing(b"k" * 32, "https://games.example.org")
>>> written = datetime(2026, 11, 28, 12, 0, 0, 250000, tzinfo=timezone.utc)
>>> token = unsubscribing.token(Stop(WATCHING, 7, "cephalopod", 12, written))
>>> unsubscribing.read(token).written_by
datetime.datetime(2026, 11, 28, 12, 0, 1, tzinfo=datetime.timezone.utc)
>>> unsubscribing.read(token.replace("-7-", "-8-")) is None
True

The URL a mail carries is sealed in the outbox, like reply tokens (`pbm.mail.tokens`): only
delivery writes its MAC, for the mail's own player.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import math
import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from pbm.commands.effects import OutgoingMail

WATCHING = "w"
"""A watcher's copy of one board's news: the subscription to that board (and to the new games of its type) ends."""
ENDINGS = "e"
"""The mail that a game ended: the requests to hear of the type's games' ends end."""
DIGESTS = "d"
"""A player's digest: digests end, and their turn mails go one a move again (their own games are
never silenced)."""
EVERY_GAME = "all"
"""The game type a digest's stop names: it is about every game."""
WORKS_FOR = timedelta(days=30)
"""How long after its mail was written an unsubscribe URL acts: a newer mail carries a newer one."""
_TOKEN = re.compile(r"([wed])-(\d{1,18})-([a-z0-9]{1,32})-(\d{1,18})-(\d{1,12})-([a-z2-7]{24})")
_SEAL = "0" * 24
"""What stands for a URL's MAC until its mail is handed over: no MAC has a ``0`` in it."""
_SEALED = re.compile(rb"/unsubscribe/([wed]-\d{1,18}-[a-z0-9]{1,32}-\d{1,18}-\d{1,12}-)0{24}>")


@dataclass(frozen=True)
class Stop:
    """What one click ends: `kind`, for the player, about a game type and (watching) a board."""

    kind: str
    player_id: int
    game_type: str
    board_id: int
    written_by: datetime
    """When the mail was written (to the second after): only a subscription made by then ends."""

    def lapsed(self, now: datetime) -> bool:
        """Whether the URL acts no more: `WORKS_FOR` has passed since its mail was written."""
        return now - self.written_by > WORKS_FOR


class Unsubscribing:
    def __init__(self, key: bytes, public_url: str) -> None:
        self._key = key
        self.public_url = public_url

    def _mac(self, stop: Stop, written: int) -> str:
        message = f"unsubscribe:{stop.kind}:{stop.player_id}:{stop.game_type}:{stop.board_id}:{written}"
        return base64.b32encode(hmac.new(self._key, message.encode(), hashlib.sha256).digest()).decode()[:24].lower()

    def token(self, stop: Stop) -> str:
        # Rounded up to the second: a subscription made before the mail is never taken for a later one.
        written = math.ceil(stop.written_by.timestamp())
        return f"{stop.kind}-{stop.player_id}-{stop.game_type}-{stop.board_id}-{written}-{self._mac(stop, written)}"

    def read(self, token: str) -> Stop | None:
        """What a genuine token ends; None for any other word (and for the tokens of mails written
        before they named their time, which would end any later subscription)."""
        found = _TOKEN.fullmatch(token[:120].lower())
        if found is None:
            return None
        written = int(found[5])
        stop = Stop(found[1], int(found[2]), found[3], int(found[4]), datetime.fromtimestamp(written, timezone.utc))
        return stop if hmac.compare_digest(found[6], self._mac(stop, written)) else None

    def url_for(self, mail: OutgoingMail, now: datetime) -> str | None:
        """The one-click URL `mail`, written `now`, carries, sealed as the outbox keeps it (`unseal`
        makes it work as the mail is handed over); None for a mail that is not a watcher's."""
        stop = stop_of(mail, now)
        if stop is None:
            return None
        token = self.token(stop)
        return f"{self.public_url}/unsubscribe/{token[: -len(_SEAL)]}{_SEAL}"

    def unseal(self, raw: bytes, player_id: int | None) -> bytes:
        """`raw` with the sealed unsubscribe URL of its own player's made to work (a URL naming
        another player is left sealed): the database never holds one that acts."""
        if player_id is None or b"/unsubscribe/" not in raw:
            return raw

        def genuine(found: re.Match[bytes]) -> bytes:
            named = _TOKEN.fullmatch(found.group(1).decode("ascii") + "a" * 24)
            if named is None or int(named[2]) != player_id:
                return found.group(0)
            written = int(named[5])
            at = datetime.fromtimestamp(written, timezone.utc)
            stop = Stop(named[1], player_id, named[3], int(named[4]), at)
            return b"/unsubscribe/" + found.group(1) + self._mac(stop, written).encode("ascii") + b">"

        return _SEALED.sub(genuine, raw)


def stop_of(mail: OutgoingMail, now: datetime) -> Stop | None:
    """What unsubscribing from `mail` (written `now`) ends: a watcher's mail, or a digest; a
    player's own board mails have nothing to end."""
    if mail.template == "digest" and mail.player_id is not None:
        return Stop(DIGESTS, mail.player_id, EVERY_GAME, 0, now)
    if not mail.to_watcher or mail.player_id is None:
        return None
    view = mail.context.get("view")
    game_type = getattr(view, "game_type", None)
    if not isinstance(game_type, str) or not re.fullmatch(r"[a-z0-9]{1,32}", game_type):
        return None
    if mail.template == "board" and mail.board_id is not None:
        return Stop(WATCHING, mail.player_id, game_type, mail.board_id, now)
    if mail.template == "game_over":
        return Stop(ENDINGS, mail.player_id, game_type, 0, now)
    return None
