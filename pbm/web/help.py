"""The player's guide on the web: the help topics the ``help`` verb mails, rendered from the same
templates (``templates/help/<topic>.txt``), in the visitor's language (`pbm.web.pages.page_language`:
``?lang=``, the switch's cookie, else ``Accept-Language``).

``/help`` lists the topics, and each game's rules page (``help GAME`` by mail); ``/help/<topic>``
shows one, as the mail ``help <topic>`` says it. The topics are the files of ``templates/help``:
any other name is answered 404, and nothing of the address reaches a template's name.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import PurePosixPath
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

import pbm.games
from pbm.timekeeping.clocks import TimeControl
from pbm.views.ladders import BotLadder
from pbm.web import params
from pbm.web.pages import Pages
from pbm.web.reads import Reads
from pbm.words.templating import Templates

FOLDER = "help"
FIRST = "commands"
"""The topic the index starts with: the commands, what a bare ``help`` mails."""


def topics(templates: Templates) -> list[str]:
    """The help topics, as ``templates/help`` holds them: the commands first, then by name."""
    names = templates.speaking().list_templates(filter_func=lambda name: name.startswith(f"{FOLDER}/"))
    return sorted((PurePosixPath(name).stem for name in names if name.endswith(".txt")), key=lambda t: (t != FIRST, t))


class HelpPages:
    """``/help`` and ``/help/<topic>``: `pages` renders them, `reads` gives the bots' ladders (``help
    bots``); the club's time rules and vacation allowance are what ``help time`` says."""

    def __init__(self, pages: Pages, reads: Reads, time_control: TimeControl, vacation_allowance: timedelta) -> None:
        self.pages = pages
        self.reads = reads
        self.time_control = time_control
        self.vacation_allowance = vacation_allowance
        self.topics = topics(pages.templates)

    def written(self, language: str, topic: str, ladders: list[BotLadder]) -> tuple[str, str]:
        """The title and the text of `topic` in `language`, as the help mail gives them, without the
        title's own lines (the page has its heading)."""
        context: dict[str, Any] = {
            "games": pbm.games.all_games(),
            "defaults": self.time_control,
            "allowance": self.vacation_allowance,
            "ladders": ladders,
        }
        module = self.pages.templates.speaking(language).get_template(f"{FOLDER}/{topic}.txt").make_module(context)
        lines = str(module).splitlines()
        if len(lines) > 1 and lines[1] and set(lines[1]) == {"="}:
            lines = lines[2:]
        return str(getattr(module, "title", topic)), "\n".join(lines).strip("\n")

    async def index(self, request: Request) -> Response:
        language, _ = self.pages.language(request)
        ladders = await self.reads.run(self.reads.bots)
        listed = [(topic, self.written(language, topic, ladders)[0]) for topic in self.topics]
        return self.pages.render(request, "help.html", topics=listed, title=None, text=None)

    async def topic(self, request: Request) -> Response:
        topic = request.path_params["topic"]
        if topic not in self.topics:
            raise params.NotFound("web-no-page")
        language, _ = self.pages.language(request)
        ladders = await self.reads.run(self.reads.bots) if topic == "bots" else []
        title, text = self.written(language, topic, ladders)
        return self.pages.render(request, "help.html", topics=[], topic=topic, title=title, text=text)
