"""A French club's players are met in French from their first mail: a signup written with French
words (``inscription``) or a club whose language is French (``PBM_LANGUAGE=fr``) gets its welcome
and its confirmation in French, and every welcome names the other language in that language. The
time pass's report (``pbm tick --now``) shows a French player's reminder as they read it: in
French, on their wall clock."""

from __future__ import annotations

import pytest

from tests.conftest import ON_SQLITE_ONLY
from tests.support import Clock, body_of, confirmation_reply, mail

pytestmark = ON_SQLITE_ONLY  # the words of mails: the same on every database

MARIE, PAUL = "marie@exemple.fr", "paul@example.org"


def test_a_signup_written_in_french_is_welcomed_in_french_and_told_of_english(make_mailroom):
    room = make_mailroom(confirming=False)
    room.send(mail(MARIE, "inscription marie marie-pw"))
    (welcome,) = room.replies_to(MARIE)
    assert welcome["Subject"] == "Bienvenue sur le PBeM Server, marie"
    body = body_of(welcome)
    assert "L’identifiant marie est maintenant inscrit." in body
    assert body.endswith("To read the server's mails in English, send:\n    language marie PASSWORD en\n")


def test_an_english_welcome_names_french_in_french(make_mailroom):
    room = make_mailroom(confirming=False)
    room.send(mail(PAUL, "signup paul paul-pw"))
    (welcome,) = room.replies_to(PAUL)
    assert welcome["Subject"] == "Welcome to the PBeM Server, paul"
    expected = "Pour lire les courriels du serveur en français, envoyez\u202f:\n    language paul MOTDEPASSE fr\n"
    assert body_of(welcome).endswith(expected)


def test_the_confirmation_of_a_french_signup_is_french_and_so_is_what_follows(make_mailroom):
    room = make_mailroom(confirming=False)
    room.send(mail(MARIE, "inscription marie marie-pw"))
    (welcome,) = room.replies_to(MARIE)
    reply = confirmation_reply(welcome)
    assert reply is not None
    room.send(reply, to=welcome["Reply-To"].addresses[0].addr_spec)
    (confirmed,) = room.replies_to(MARIE)
    assert confirmed["Subject"] == "Adresse confirmée pour marie"
    assert "To read the server's mails in English, send:" in body_of(confirmed)
    room.send(mail(MARIE, "aide"))
    (help_,) = room.replies_to(MARIE)
    assert help_["Subject"] == "Aide du PBeM Server"


def test_a_french_club_meets_every_newcomer_in_french(make_mailroom):
    room = make_mailroom(confirming=False, language="fr")
    room.send(mail(PAUL, "signup paul paul-pw"))
    (welcome,) = room.replies_to(PAUL)
    assert welcome["Subject"] == "Bienvenue sur le PBeM Server, paul"
    assert "To read the server's mails in English, send:\n    language paul PASSWORD en" in body_of(welcome)


@pytest.fixture
def clock() -> Clock:
    return Clock()


def test_the_time_pass_reports_a_french_players_reminder_in_french_on_their_clock(make_mailroom, clock):
    room = make_mailroom(clock=clock)
    room.send(mail(MARIE, "inscription marie marie-pw"))
    room.send(mail(MARIE, "timezone marie marie-pw Europe/Paris"))
    room.send(mail(PAUL, "signup paul paul-pw"))
    room.send(mail(PAUL, "cephalopod challenge paul marie"))
    room.send(mail(PAUL, "cephalopod move 101 paul paul-pw c3"))
    clock.advance(days=8)
    report = room.server.processor.time_pass.run()
    (line,) = [line for line in report.done if line.startswith("for marie")]
    assert line.startswith("for marie: Rappel : Cephalopod, partie 101 marie -- La partie 101 de Cephalopod")
    assert "CET" in line and "UTC" not in line
