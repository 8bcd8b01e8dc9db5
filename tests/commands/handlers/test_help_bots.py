"""``help bots`` (`pbm.commands.accounts.help_`): the sender is mailed each game's bot levels with
the strength the ladder measured (``pbm/bots/strength.json``), how to challenge one, and how far
the measure can be trusted; in English and in French."""

from __future__ import annotations

import re
from datetime import datetime

import pytest

import pbm.bots
from pbm.commands import accounts
from pbm.i18n import languages
from pbm.mail.compose import Composer
from pbm.mail.tokens import Addressing, ReplyTokens
from pbm.views.ladders import WIDE_ELO, bot_ladders
from pbm.words.links import Links
from pbm.words.templating import Templates
from tests.commands.handlers.conftest import Desk

GAMES = {"cephalopod": "Cephalopod", "cubeo": "Cubeo", "dodeca": "Dodeca"}
WORDS = {
    "en": {
        "to": "to",
        "measured": "Measured on {day} over {games} games",
        "few": "too few to rate the levels",
        "unproven": "stronger than the level below (the random player, for bot1):",
    },
    "fr": {
        "to": "à",
        "measured": "Mesuré le {day} sur {games} parties",
        "few": "trop peu pour\ncoter les niveaux",
        "unproven": "pas encore établie pour\u202f:",
    },
}


def written(mail, language: str, links: Links | None = None) -> tuple[str, str]:
    """The subject and body `mail` is sent with, in `language`."""
    composer = Composer(Templates(links=links), Addressing("pbm@example.org"), ReplyTokens(b"k" * 32), b"t" * 32)
    return composer.render(mail.template, mail.context, language)


def section(body: str, title: str) -> str:
    """The part of the help about one game: from its title, underlined, to the next game's."""
    start = body.index(f"\n{title}\n{'-' * len(title)}\n")
    ends = [body.find(f"\n{other}\n{'-' * len(other)}\n", start + 1) for other in GAMES.values()]
    return body[start : min([end for end in ends if end > start] or [len(body)])]


def test_help_bots_mails_the_sender_every_games_bots_as_the_ladder_measured_them(desk: Desk):
    (mail,) = desk.run(accounts.help_, "help bots", sender="stranger@example.net")
    assert (mail.template, mail.to) == ("help_bots", "stranger@example.net")
    assert mail.context["ladders"] == bot_ladders()
    (french,) = desk.run(accounts.help_, "aide bots", sender="stranger@example.net")
    assert french.template == "help_bots"


def test_help_on_a_topic_there_is_none_on_names_bots_among_the_topics(desk: Desk):
    refusal = desk.refusal(accounts.help_, "help robots", sender="stranger@example.net")
    assert "queue, time, bots, cephalopod" in str(refusal)


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_table_shows_each_levels_numbers_from_the_ladders_file(desk: Desk, language):
    (mail,) = desk.run(accounts.help_, "help bots", sender="stranger@example.net")
    _, body = written(mail, language)
    words = WORDS[language]
    for game, title in GAMES.items():
        measured = pbm.bots.strength(game)
        assert measured is not None
        part = section(body, title)
        day = languages.day(datetime.strptime(measured["measured"], "%Y-%m-%d"), language)
        assert words["measured"].format(day=day, games=measured["games"]) in part
        rough = any(row["elo_95"][1] - row["elo_95"][0] > WIDE_ELO for row in measured["levels"])
        assert (words["few"] in part) == rough, "wide intervals are said to come from few games"
        for row in measured["levels"][1:]:
            level = row["level"]
            line = re.search(
                rf"^    bot{level} +{level} +(-?\d+) +(-?\d+) {words['to']} (-?\d+) +(\d+) +(< 0[.,]01|[\d.,]+)$",
                part,
                re.M,
            )
            assert line is not None, f"no row for bot{level} in\n{part}"
            elo, low, high, games, seconds = line.groups()
            assert [int(elo), int(low), int(high), int(games)] == [row["elo"], *row["elo_95"], row["games"]]
            typical = row["seconds_per_move"]
            if typical < 0.01:
                assert seconds.startswith("<")
            else:
                assert float(seconds.replace(",", ".")) == pytest.approx(typical, rel=0.05)
        unproven = [f"bot{row['level']}" for row in measured["levels"][1:] if row["lead_95"][0] <= 0]
        said = re.search(re.escape(words["unproven"]) + r" (.*?)\.", re.sub(r"[ \n]+", " ", part))
        named = re.findall(r"bot\d+", said.group(1)) if said else []
        assert named == unproven, "the levels the ladder has not shown stronger than the one below are named"


@pytest.mark.parametrize(
    ("language", "subject", "words"),
    [
        (
            "en",
            "Bots on the PBeM Server: their levels and strength",
            ["    cephalopod challenge alice bot3\n", "    Bot    Level", "on the web: https://games.example.org/bots"],
        ),
        (
            "fr",
            "Les robots du PBeM Server\u202f: leurs niveaux et leur force",
            [
                "    cephalopod challenge alice bot3\n",
                "    Robot   Niveau",
                "Défiez un robot comme n’importe\nquel joueur",
                "sur le web\u202f: https://games.example.org/bots",
            ],
        ),
    ],
)
def test_the_help_says_how_to_challenge_a_bot_in_the_readers_language(desk: Desk, language, subject, words):
    (mail,) = desk.run(accounts.help_, "help bots", sender="stranger@example.net")
    written_subject, body = written(mail, language, Links("https://games.example.org"))
    assert written_subject == subject.replace("\u202f", " "), "a subject's spaces are plain ones"
    for expected in words:
        assert expected in body
    assert max(len(line) for line in body.splitlines()) <= 76
