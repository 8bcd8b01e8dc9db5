"""The handlers that find opponents, read, talk, book time away, watch and set policies
(`pbm.commands.finding`, `queries`, `talk`, `vacations`, `watching`, `policy`): what each changes,
whom it mails, and each refusal by its code."""

from __future__ import annotations

from datetime import timedelta

import pytest

from pbm.commands import finding, play, policy, queries, talk, vacations, watching
from pbm.facts import Fact
from pbm.store import open_challenges, seeks
from pbm.store.models import BoardStatus
from tests.commands.handlers.conftest import Desk, to


@pytest.fixture
def game(desk: Desk) -> Desk:
    """Cephalopod board 101, alice (to move) against bob; carol and dave play elsewhere."""
    desk.sign_up("alice", "bob", "carol", "dave")
    desk.run(play.challenge, "cephalopod challenge alice bob", sender="alice")
    return desk


# -- finding opponents ------------------------------------------------------------


def test_two_seeks_that_fit_start_a_game(desk: Desk):
    desk.sign_up("alice", "bob")
    (told,) = desk.run(finding.seek, "cephalopod seek alice alice-pw 1", sender="alice")
    assert told.template == "seek" and told.context["paired"] == []
    mails = desk.run(finding.seek, "cephalopod seek bob bob-pw 1", sender="bob")
    (seek_mail,) = [m for m in mails if m.template == "seek"]
    assert seek_mail.context["paired"] == [(101, "alice")]
    (first, *_) = [m for m in mails if m.template == "board"]
    assert first.context["opening"].how == "paired" and first.context["opening"].userids == ("alice", "bob")
    assert desk.read(lambda s: seeks.waiting(s, "cephalopod")) == []


def test_join_fills_an_open_challenge_and_the_game_begins(game: Desk):
    game.run(play.challenge, "cephalopod challenge carol open", sender="carol")
    (listed,) = game.run(finding.list_open, "cephalopod games open", sender="dave")
    assert [c.board for c in listed.context["challenges"]] == [102]
    assert game.code(finding.join, "cephalopod join 102 carol carol-pw", sender="carol") == "seated-already"
    assert game.code(finding.join, "cephalopod join 101 dave dave-pw", sender="dave") == "not-an-open-challenge"
    mails = game.run(finding.join, "cephalopod join 102 dave dave-pw", sender="dave")
    assert to(mails, "board") == ["carol@example.org", "dave@example.org"]
    assert mails[0].context["opening"].userids == ("dave", "carol")
    assert game.board("cephalopod", 102).row.status == BoardStatus.ACTIVE


def test_an_open_challenge_past_its_time_cannot_be_joined_and_its_challenger_may_withdraw_it(game: Desk):
    game.run(play.challenge, "cephalopod challenge carol open", sender="carol")
    assert game.code(finding.resign, "cephalopod resign 102 dave dave-pw", sender="dave") == (
        "no-seat-at-open-challenge"
    )
    game.clock.advance(days=8)
    refusal = game.refusal(finding.join, "cephalopod join 102 dave dave-pw", sender="dave")
    assert refusal.fact.code == "open-challenge-expired"
    (closed,) = game.run(finding.resign, "cephalopod resign 102 carol carol-pw", sender="carol")
    assert closed.template == "open_challenge_closed"
    assert game.read(lambda s: open_challenges.at(s, "cephalopod", 102)) is None


def test_join_and_challenge_stop_at_a_players_limit(game: Desk):
    game.run(policy.limit, "cephalopod limit dave dave-pw 0", sender="dave")
    game.run(play.challenge, "cephalopod challenge carol open", sender="carol")
    refusal = game.refusal(finding.join, "cephalopod join 102 dave dave-pw", sender="dave")
    assert refusal.fact == Fact("at-game-limit", userid="dave", playing=0, title="Cephalopod")
    assert str(refusal) == "dave plays 0 Cephalopod games, as many as dave takes at once"


# -- policies -----------------------------------------------------------------------


def test_take_challenges_and_limit_tell_the_player_their_policy(desk: Desk):
    desk.sign_up("bob")
    (told,) = desk.run(policy.take_challenges, "cephalopod reject bob bob-pw", sender="bob")
    assert told.template == "policy" and told.context["policy"].accepts is False
    (limited,) = desk.run(policy.limit, "cephalopod limit bob bob-pw 3", sender="bob")
    assert limited.context["policy"].most_games == 3
    assert desk.code(policy.limit, "cephalopod limit bob wrong-pw 3", sender="bob") == "wrong-password"


# -- reading ------------------------------------------------------------------------------


def test_show_mails_the_board_as_it_stands_or_after_a_move(game: Desk):
    game.run(play.move, "cephalopod move 101 alice alice-pw a1", sender="alice")
    (now,) = game.run(queries.show, "cephalopod show 101", sender="bob")
    assert now.context["view"].viewer == 1 and now.at_ply == 1
    (then,) = game.run(queries.show, "cephalopod show 101#0", sender="carol")
    assert then.context["view"].at_move == 0 and then.context["view"].viewer is None and then.player_id is None
    assert game.code(queries.show, "cephalopod show 101#2", sender="carol") == "fewer-moves"
    assert game.code(queries.show, "cephalopod show 109", sender="carol") == "no-such-board"


def test_games_history_and_standings_list_what_the_store_holds(game: Desk):
    (active,) = game.run(queries.games, "cephalopod games alice", sender="carol")
    assert [g.board for g in active.context["games"]] == [101]
    (waiting,) = game.run(queries.games, "cephalopod games next", sender="alice")
    assert [g.board for g in waiting.context["games"]] == [101]
    assert game.code(queries.games, "cephalopod games next", sender="stranger@x.example") == "games-next-nobody"
    (history,) = game.run(queries.history, "cephalopod history", sender="carol")
    assert history.context["games"] == []
    (standings,) = game.run(queries.standings, "cephalopod standings", sender="carol")
    assert standings.template == "standings" and standings.context["rated"] == 0


# -- talking ---------------------------------------------------------------------------------


def test_chat_passes_the_words_to_the_players_and_watchers(game: Desk):
    game.run(watching.subscribe, "cephalopod subscribe 101 dave dave-pw", sender="dave")
    mails = game.run(talk.chat, "cephalopod chat 101 alice alice-pw", sender="alice", comment="Good luck!")
    assert to(mails, "chat") == ["alice@example.org", "bob@example.org", "dave@example.org"]
    assert [m.to_watcher for m in mails] == [False, False, True]
    assert all(m.context["comment"] == "Good luck!" for m in mails)
    assert game.code(talk.chat, "cephalopod chat 101 alice alice-pw", sender="alice") == "nothing-to-pass-on"
    assert game.code(talk.chat, "cephalopod chat 101 carol carol-pw", sender="carol", comment="hi") == (
        "not-playing-at"
    )


def test_message_reaches_the_players_named_and_the_author_hears_whom(game: Desk):
    mails = game.run(talk.message, "message alice alice-pw bob carol", sender="alice", comment="Hello")
    assert to(mails, "message") == ["bob@example.org", "carol@example.org"]
    assert to(mails, "message_sent") == ["alice@example.org"]
    assert game.code(talk.message, "message alice alice-pw nobody", sender="alice", comment="x") == (
        "no-player-signed-up"
    )


def test_talk_is_limited_an_hour(game: Desk):
    for _ in range(game.limits.talks_per_sender_per_hour):
        game.run(talk.message, "message alice alice-pw bob", sender="alice", comment="Hello")
    refusal = game.refusal(talk.message, "message alice alice-pw bob", sender="alice", comment="Hello")
    assert refusal.fact.code == "talks-per-hour" and refusal.fact["count"] == game.limits.talks_per_sender_per_hour


def test_broadcast_is_for_administrators_and_reaches_every_other_player(game: Desk):
    assert game.code(talk.broadcast, "broadcast alice alice-pw", sender="alice", comment="News") == (
        "broadcast-admins-only"
    )
    game.club = game.club.__class__(**{**vars(game.club), "admins": frozenset({"alice"})})
    mails = game.run(talk.broadcast, "broadcast alice alice-pw", sender="alice", comment="News")
    assert sorted(to(mails, "broadcast")) == ["bob@example.org", "carol@example.org", "dave@example.org"]
    (sent,) = [m for m in mails if m.template == "message_sent"]
    assert (sent.context["everyone"], sent.context["announcement"]) == (3, True)


# -- vacations ---------------------------------------------------------------------------------


def test_vacation_books_time_away_and_off_ends_it(desk: Desk):
    desk.sign_up("alice")
    (booked,) = desk.run(vacations.vacation, "vacation alice alice-pw now 7d", sender="alice")
    news = booked.context["news"]
    assert news.booked is not None and news.booked.end - news.booked.start == timedelta(days=7)
    assert booked.context["away"] == desk.clock() + timedelta(days=7)
    (ended,) = desk.run(vacations.vacation, "vacation alice alice-pw off", sender="alice")
    assert ended.context["news"].ended and ended.context["away"] is None
    assert desk.code(vacations.vacation, "vacation alice alice-pw off", sender="alice") == "not-away"


def test_vacation_refusals(desk: Desk):
    desk.sign_up("alice")
    assert desk.code(vacations.vacation, "vacation alice alice-pw 2020-01-01 3d", sender="alice") == (
        "vacation-in-the-past"
    )
    desk.run(vacations.vacation, "vacation alice alice-pw now 7d", sender="alice")
    assert desk.code(vacations.vacation, "vacation alice alice-pw now 3d", sender="alice") == "vacation-overlaps"
    refusal = desk.refusal(vacations.vacation, "vacation alice alice-pw 2026-12-20 40d", sender="alice")
    assert refusal.fact.code == "vacation-over-allowance"
    assert (refusal.fact["length"], refusal.fact["left"]) == (Fact("days", count=40), Fact("days", count=23))
    assert "(40 days) takes more than your allowance: at most 30 days away" in str(refusal)


# -- watching ------------------------------------------------------------------------------------


def test_subscribe_unsubscribe_and_notify(game: Desk):
    (told,) = game.run(watching.subscribe, "cephalopod subscribe 101 carol carol-pw", sender="carol")
    assert told.template == "watching" and told.context["watching"] is True
    refusal = game.refusal(watching.subscribe, "cephalopod subscribe 101 carol carol-pw", sender="carol")
    assert refusal.fact == Fact("watches-board-already", userid="carol", title="Cephalopod", board=101)
    assert game.code(watching.subscribe, "cephalopod subscribe 101 alice alice-pw", sender="alice") == "plays-there"
    game.run(watching.unsubscribe, "cephalopod unsubscribe 101 carol carol-pw", sender="carol")
    assert game.code(watching.unsubscribe, "cephalopod unsubscribe carol carol-pw all", sender="carol") == (
        "not-watching-game"
    )
    (notices,) = game.run(watching.notify, "cephalopod notify dave dave-pw 101", sender="dave")
    assert notices.template == "notices" and [b.board for b in notices.context["boards"]] == [101]
    game.run(play.move, "cephalopod move 101 alice alice-pw a1", sender="alice")
    game.run(play.move, "cephalopod move 101 bob bob-pw a2", sender="bob")
    mails = game.run(finding.resign, "cephalopod resign 101 bob bob-pw", sender="bob")
    assert to(mails, "game_over") == ["dave@example.org"]
