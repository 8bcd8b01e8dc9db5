"""The web pages' addresses as a mail writes them: absolute, on the server's public URL.

`PBM_PUBLIC_URL` is where players reach the pages (``https://games.example.org``).
The server cannot work it out: it listens on `PBM_HTTP_LISTEN`, usually behind a
proxy, under a name only the operator knows. So with none set a mail carries no
link at all rather than one nobody can open, and every method here answers None.

A link names only what its page shows anyone: a game, a game's rules, a
player's deadlines (public on their page anyway). Never a reply token, a
password or anything from a received mail but a userid, which the server
checked when the player signed up.

>>> links = Links("https://games.example.org")
>>> links.game("cephalopod", 101)
'https://games.example.org/cephalopod/101'
>>> links.deadlines("alice"), Links().rules("cubeo")
('https://games.example.org/players/alice/deadlines.ics', None)
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote


@dataclass(frozen=True)
class Links:
    public_url: str | None = None
    """``https://host[:port][/path]``, without a trailing slash (`pbm.config.Settings.public_url`)."""

    def front_page(self) -> str | None:
        return self._to("/")

    def game(self, game_type: str, board: int) -> str | None:
        return self._to(f"/{game_type}/{board}")

    def rules(self, game_type: str) -> str | None:
        return self._to(f"/{game_type}/rules")

    def bots(self) -> str | None:
        """The bots' levels and measured strength."""
        return self._to("/bots")

    def help(self, topic: str | None = None) -> str | None:
        """The help topics as pages (`pbm.web.help`): their index, or one of them."""
        return self._to("/help" if topic is None else f"/help/{quote(topic, safe='')}")

    def deadlines(self, userid: str) -> str | None:
        """The player's calendar feed of forfeit deadlines."""
        return self._to(f"/players/{quote(userid, safe='')}/deadlines.ics")

    def _to(self, path: str) -> str | None:
        return None if self.public_url is None else self.public_url + path
