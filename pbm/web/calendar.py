"""``/players/<userid>/deadlines.ics``: the games waiting for a player's move, as an iCalendar feed.

A calendar app that subscribes to it shows each forfeit deadline, with a
reminder a day before. Each event's UID names the game and the move it waits
for, so when the player moves the event goes and the next turn's comes.
The feed is public like the player's page: it shows what that page shows.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from icalendar import Alarm, Calendar, Event
from starlette.requests import Request
from starlette.responses import Response

from pbm.facts import Fact
from pbm.i18n import languages
from pbm.web import params
from pbm.web.pages import page_language
from pbm.web.reads import Deadline, Reads
from pbm.words import Words

WARN_BEFORE = timedelta(days=1)


def deadline_calendar(
    userid: str, deadlines: list[Deadline], *, site: str, now: datetime, words: Words | None = None
) -> bytes:
    """The calendar of `userid`'s deadlines, in `words`' language (English by default); `site` is
    the server's web address (for links and UIDs)."""
    words = words or Words()
    calendar = Calendar()
    calendar.add("prodid", "-//pbm//forfeit deadlines//EN")
    calendar.add("version", "2.0")
    calendar.add("x-wr-calname", words.say(Fact("calendar-name", userid=userid)))
    for deadline in deadlines:
        game = deadline.game
        link = f"{site}/{game.game_type}/{game.board}"
        event = Event()
        event.add("uid", f"{game.game_type}-{game.board}-move-{game.move_count + 1}-{userid}@{_host(site)}")
        event.add("dtstamp", now)
        event.add("dtstart", deadline.forfeit_at)
        event.add("dtend", deadline.forfeit_at)
        event.add("summary", words.say(Fact("calendar-deadline", game=game.title, board=game.board)))
        details = Fact("calendar-deadline-details", userid=userid, game=game.title, board=game.board, why=deadline.why)
        event.add("description", f"{words.say(details)}\n{link}")
        event.add("url", link)
        alarm = Alarm()
        alarm.add("action", "DISPLAY")
        alarm.add("description", words.say(Fact("calendar-day-left", game=game.title, board=game.board)))
        alarm.add("trigger", -WARN_BEFORE)
        event.add_component(alarm)
        calendar.add_component(event)
    ical: bytes = calendar.to_ical()
    return ical


def _host(site: str) -> str:
    return site.split("://", 1)[-1].split("/", 1)[0]


def endpoint(reads: Reads, now: Callable[[], datetime], default_language: str) -> Callable[[Request], object]:
    """The feed's endpoint: in the language asked for (``?lang=``), else the player's own (what
    their mails are written in), else the language a page would be (the cookie, the calendar app's
    ``Accept-Language``, the club's `default_language`)."""

    async def deadlines(request: Request) -> Response:
        userid = request.path_params["userid"]
        found = await reads.run(reads.deadlines, userid)
        if found is None:
            raise params.NotFound("web-no-player", userid=userid)
        name, own_language, waiting = found
        site = str(request.base_url).rstrip("/")
        language, chosen = page_language(request, default_language)
        if not chosen and own_language is not None and own_language in languages.LANGUAGES:
            language = own_language  # the player's calendar, in the player's language
        body = deadline_calendar(name, waiting, site=site, now=now(), words=Words(language))
        headers = {"Content-Disposition": f'inline; filename="{name}-deadlines.ics"'}
        headers["Vary"] = "Accept-Language, Cookie"
        headers["Content-Language"] = language
        return Response(body, media_type="text/calendar; charset=utf-8", headers=headers)

    return deadlines
