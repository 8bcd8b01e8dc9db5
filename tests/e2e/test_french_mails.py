"""A French-speaking player, over real SMTP: once ``language USERID PASSWORD fr`` is sent, the
help, the rules, the errors and a password reset come in French, with no English word left but
the server's own words (commands, userids, game names), and ``aide`` is understood as ``help``."""

from __future__ import annotations

import re
from email.message import EmailMessage

import pytest

import pbm.games
from pbm.commands import verbs
from tests.conftest import ON_SQLITE_ONLY
from tests.e2e.club import ADDRESSES, send, signed_up
from tests.support import body_of, mail

pytestmark = ON_SQLITE_ONLY  # the French of mails

ENGLISH = frozenset(
    "the and you your yours is are was were has have had to of for with this that these not from by at "
    "be been it its no there here which what when will can cannot only please mail mails board boards "
    "password passwords game games player players reply error wrong turn rules days hours until after "
    "before now send sent did mean command commands more than every any".split()
)
"""Common English words, none of them French nor a word the server reads (its verbs are listed in
`SERVER_WORDS`): one of them in a French mail is a sentence that escaped translation."""

SERVER_WORDS = frozenset(
    {
        word
        for verb in (*verbs.ACCOUNT_VERBS, *verbs.GAME_VERBS)
        for name in (verb.name, *verb.aliases)
        for word in name.split()
    }
    | set(pbm.games.names())
    | {"off", "all", "if", "then", "else", "new", "open", "inf", "active", "next", "now", "today"}
    | {"tutorial", "ratings", "time", "bots"}
)
"""What a French mail may quote as the server reads it: verbs, game names, literal arguments, help topics."""


def english_left(message: EmailMessage) -> list[str]:
    """The English words of `message` (its subject and body) outside what the server reads: the
    quoted mail of an error, addresses, links, userids, command words and the capitals that stand
    for what a player writes (USERID, MOTDEPASSE) are left out."""
    body = body_of(message)
    for marker in ("---------- votre courriel ----------", "---------- your message ----------"):
        body = body.split(marker)[0]
    text = re.sub(r"https?://\S+|\S+@\S+", " ", f"{message['Subject']}\n{body}")
    text = re.sub(r"\b[A-Z][A-Z0-9]+\b", " ", text)
    words = {word.lower() for word in re.findall(r"[A-Za-z]+", text)} - set(ADDRESSES) - SERVER_WORDS
    return sorted(words & ENGLISH)


def french(message: EmailMessage) -> str:
    """`message`'s body, once checked to be French through and through."""
    assert english_left(message) == [], f"English in {message['Subject']!r}:\n{body_of(message)}"
    return body_of(message)


@pytest.fixture
def alice_in_french(server, sink):
    signed_up(server, sink, "alice", "bob")
    send(server, "alice", "language alice alice-pw fr")
    return sink.wait(1)[0]


def test_choosing_french_is_answered_in_french(alice_in_french):
    assert alice_in_french["Subject"] == "Langue pour alice"
    assert "Désormais, tous les courriels adressés à alice\nseront écrits en français." in french(alice_in_french)


def test_the_english_check_finds_an_english_sentence(server, sink):
    """The check the other tests rely on: an English mail fails it."""
    signed_up(server, sink, "dave")
    send(server, "dave", "help")
    assert {"the", "your", "mail"} <= set(english_left(sink.wait(1)[0]))


@pytest.mark.parametrize("line", ["help", "aide", "AIDE"])
def test_help_comes_in_french_with_the_usage_lines_in_french_words(server, sink, alice_in_french, line):
    send(server, "alice", line)
    (answer,) = sink.wait(1)
    assert answer["Subject"] == "Aide du PBeM Server"
    body = french(answer)
    assert "\n    signup IDENTIFIANT MOTDEPASSE [ADRESSE...]\n" in body
    assert "\n    JEU move PARTIE IDENTIFIANT MOTDEPASSE COUP[#N]\n" in body
    assert "Plus d’aide\u202f: help tutorial, help ratings, help queue, help time, help bots,\nhelp JEU." in body


@pytest.mark.parametrize("line", ["help cephalopod", "cephalopod help", "cephalopod aide"])
def test_a_games_help_sends_its_french_rules_and_options(server, sink, alice_in_french, line):
    send(server, "alice", line)
    (answer,) = sink.wait(1)
    assert answer["Subject"] == "Aide pour Cephalopod"
    body = french(answer)
    assert body.startswith("Cephalopod, un jeu de Mark Steere\n=================================\n")
    assert "Placement avec capture\n" in body
    assert "Options de la commande challenge\u202f:\n    -size=3..9       Un tablier de N x N cases" in body
    assert "\n    cephalopod resign PARTIE IDENTIFIANT MOTDEPASSE\n" in body


def test_a_wrong_password_is_refused_in_french(server, sink, alice_in_french):
    send(server, "alice", "cephalopod limit alice not-her-password 3")
    (answer,) = sink.wait(1)
    assert answer["Subject"] == "Cephalopod Erreur"
    body = french(answer)
    assert body.startswith("Votre commande n’a pas pu être exécutée, et rien n’a été changé\u202f:\n")
    assert "\n> cephalopod limit alice ******** 3\n" in body


def test_a_misspelt_command_is_answered_in_french_with_what_was_meant(server, sink, alice_in_french):
    send(server, "alice", "hepl")
    (answer,) = sink.wait(1)
    assert answer["Subject"] == "PBeM Server Erreur"
    assert "hepl" in french(answer) and "help" in body_of(answer)


def test_a_usage_line_in_an_error_names_the_arguments_in_french(server, sink, alice_in_french):
    send(server, "alice", "signoff alice")
    (answer,) = sink.wait(1)
    assert "signoff IDENTIFIANT MOTDEPASSE." in french(answer)


def test_a_password_reset_comes_in_french_and_so_does_its_end(server, sink, alice_in_french):
    send(server, "alice", "password reset alice")
    (reset,) = sink.wait(1)  # to her registered address, which asked: no other answer
    assert reset["Subject"] == "Réinitialisation du mot de passe pour alice"
    assert "répondez à ce courriel avec le\nnouveau mot de passe seul sur la première ligne" in french(reset)
    address = reset["Reply-To"].addresses[0].addr_spec
    quoted = "\n".join("> " + line for line in body_of(reset).splitlines())
    server.send(mail(ADDRESSES["alice"], f"n3w-secret\n\n{quoted}\n", to=address), ADDRESSES["alice"], [address])
    (changed,) = sink.wait(1)
    assert changed["Subject"] == "Mot de passe changé pour alice"
    assert "Le mot de passe de l’identifiant alice a été changé" in french(changed)


def test_a_player_who_chose_no_language_still_reads_english(server, sink, alice_in_french):
    send(server, "bob", "aide")
    (answer,) = sink.wait(1)
    assert answer["Subject"] == "Help for the PBeM Server"


def test_what_reading_a_mail_noticed_is_told_in_french(server, sink, alice_in_french):
    html = (
        f"From: {ADDRESSES['alice']}\r\nTo: pbm@localhost\r\nSubject: \r\nMessage-ID: <html-1@example.org>\r\n"
        "MIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<p>aide</p>\r\n"
    ).encode()
    server.send(html, ADDRESSES["alice"])
    (answer,) = sink.wait(1)
    assert answer["Subject"] == "Aide du PBeM Server"
    assert "\n  - La partie HTML a été convertie en texte.\n" in body_of(answer)
