"""``/unsubscribe/<token>``: one click ends the mails a watcher asked for (RFC 8058).

A POST acts at once, without a login, and says what it did: the token in the URL is the
proof (`pbm.commands.unsubscribe`). A GET only asks: link checkers and mail scanners open every
link in a mail, and must not end anyone's subscription. Ending what has ended already says so,
and is no error: a mail client may send the POST twice.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session
from starlette.requests import Request
from starlette.responses import Response

import pbm.games
from pbm.commands.unsubscribe import DIGESTS, ENDINGS, WORKS_FOR, Stop, Unsubscribing
from pbm.facts import Fact
from pbm.store import outbox, preferences, watchers
from pbm.store.database import Database
from pbm.store.models import Board, Player
from pbm.web import params

Render = Callable[..., Response]


def endpoint(
    database: Database, unsubscribing: Unsubscribing, render: Render, now: Callable[[], datetime]
) -> Callable[[Request], Any]:
    """The route's handler: `render` makes a page (`pbm.web.pages.Pages.render`)."""

    async def unsubscribe(request: Request) -> Response:
        stop = unsubscribing.read(request.path_params["token"])
        if stop is None:
            raise params.NotFound("web-no-unsubscribe")
        if stop.lapsed(now()):
            raise params.NotFound("web-unsubscribe-lapsed", days=WORKS_FOR.days)
        acting = request.method == "POST"
        said = await database.call(lambda: _stop(database, stop, acting=acting, now=now))
        if said is None:
            raise params.NotFound("web-no-unsubscribe")
        return render(request, "unsubscribe.html", said=said, acting=acting, action=request.url.path)

    return unsubscribe


def _stop_digests(session: Session, player: Player, *, acting: bool, now: datetime) -> Fact:
    """Digests end; what waited for the next one goes as mails of their own."""
    if not acting:
        return Fact("unsubscribe-digest-ask", userid=player.userid)
    if not preferences.digest_times(player):
        return Fact("unsubscribe-digest-none", userid=player.userid)
    preferences.set_digest(player, (), None)
    outbox.release_digest_mail(session, player.id, now)
    return Fact("unsubscribe-digest-done", userid=player.userid)


def _stop(database: Database, stop: Stop, *, acting: bool, now: Callable[[], datetime]) -> Fact | None:
    """What ending `stop` does (or, not `acting`, would do), as a fact; None when its player or board is gone."""
    with database.transaction() as session:
        player = session.get(Player, stop.player_id)
        if player is None:
            return None
        if stop.kind == DIGESTS:
            return _stop_digests(session, player, acting=acting, now=now())
        if stop.game_type not in pbm.games.names():
            return None
        title = pbm.games.get(stop.game_type).title
        if stop.kind == ENDINGS:
            if not acting:
                return Fact("unsubscribe-endings-ask", userid=player.userid, title=title)
            ended = watchers.stop_notices(session, player, stop.game_type, made_by=stop.written_by)
            return Fact(
                "unsubscribe-endings-done" if ended else "unsubscribe-endings-none", userid=player.userid, title=title
            )
        board = session.get(Board, stop.board_id)
        if board is None:
            return None
        if not acting:
            return Fact("unsubscribe-watching-ask", userid=player.userid, title=title, board=board.board)
        ended = watchers.unsubscribe(session, player, stop.game_type, board, made_by=stop.written_by)
        every = watchers.unsubscribe(session, player, stop.game_type, None, made_by=stop.written_by)
        code = "unsubscribe-watching-done-every" if every else "unsubscribe-watching-done"
        return Fact(
            code if ended or every else "unsubscribe-watching-none",
            userid=player.userid,
            title=title,
            board=board.board,
        )
