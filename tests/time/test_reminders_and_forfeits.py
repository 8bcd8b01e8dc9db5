"""The time pass at a game: reminders from the nag time, a last warning, the forfeit; each once."""

import re

from pbm.store.models import BoardStatus
from tests.support import body_of
from tests.time.club import ADDRESSES, TimeClub


def to(messages, userid):
    return [m for m in messages if m["To"].addresses[0].addr_spec == ADDRESSES[userid]]


def test_nothing_is_sent_before_the_nag_time(game: TimeClub):
    assert game.days(6) == []


def test_the_player_to_move_is_nagged_at_the_nag_time_and_daily_after(game: TimeClub):
    game.tick(days=7)
    (nag,) = to(game.replies(), "bob")
    assert nag["Subject"] == "Nag: Cephalopod Board 101 bob"
    body = body_of(nag)
    assert "has waited for your move for 7 days" in body
    assert "You forfeit on 2026-12-13 12:00 UTC unless you move" in body
    assert "bob forfeits on 2026-12-13" in body
    assert nag["Reply-To"].addresses[0].addr_spec.startswith("pbm+")  # a reply plays the move
    assert game.days(3) == ["Nag: Cephalopod Board 101 bob"] * 3


def test_a_last_warning_comes_a_day_before_the_forfeit_and_no_reminder_after_it(under_way: TimeClub):
    game = under_way
    game.tick(days=19, hours=23)
    game.replies()
    game.tick(hours=1)
    (warning,) = game.replies()
    assert warning["Subject"] == "Nag: Cephalopod Board 101 bob (last warning)"
    assert "LAST WARNING" in body_of(warning)
    # The day that follows brings no reminder, only the forfeit's board mails at its end.
    assert game.days(1) == ["Cephalopod Board 101 won by alice"] * 2


def test_at_the_forfeit_time_the_player_to_move_forfeits_rated_as_a_loss(under_way: TimeClub):
    game = under_way
    game.tick(days=20, hours=23, minutes=59)
    game.replies()
    assert game.board().status == BoardStatus.ACTIVE
    game.tick(minutes=1)
    mails = game.replies()
    assert sorted(m["Subject"] for m in mails) == ["Cephalopod Board 101 won by alice"] * 2
    body = body_of(to(mails, "alice")[0])
    assert "bob forfeited on time (no move in 21 days)." in body
    assert "4 Forfeit" in body
    assert game.moves() == ["c3", "a1", "e5", "forfeit"]
    assert game.board().end_code == "forfeit"
    alice, bob = game.rating("alice"), game.rating("bob")
    assert alice is not None and bob is not None
    assert (alice.wins, bob.losses) == (1, 1)
    assert alice.rating > bob.rating


def test_a_forfeit_on_time_in_the_first_round_calls_the_game_off_unrated(game: TimeClub):
    game.tick(days=21)
    mails = game.replies()
    assert sorted(m["Subject"] for m in mails) == ["Cephalopod Board 101 cancelled"] * 2
    assert "The game was cancelled: bob forfeited on time (no move in 21 days) in the first round." in body_of(mails[0])
    assert game.moves() == ["c3", "forfeit"]
    assert game.rating("alice") is None and game.rating("bob") is None


def test_in_a_game_of_three_a_forfeit_in_the_first_round_calls_the_game_off_for_everyone(club: TimeClub):
    club.send("alice", "cephalopod challenge alice bob carol")
    club.send("alice", "cephalopod move 101 alice alice-pw c3")
    club.replies()
    club.tick(days=21)
    mails = club.replies()
    assert sorted(m["Subject"] for m in mails) == ["Cephalopod Board 101 cancelled"] * 3
    assert club.board().status == BoardStatus.CANCELLED
    assert club.rating("alice") is None


def test_a_move_in_time_starts_the_next_turn_afresh(game: TimeClub):
    game.tick(days=10)
    game.replies()
    game.send("bob", "cephalopod move 101 bob bob-pw a1")
    game.replies()
    assert game.days(6) == []
    game.tick(days=1)
    assert [m["Subject"] for m in game.replies()] == ["Nag: Cephalopod Board 101 alice"]


def test_running_the_pass_again_sends_nothing_again(game: TimeClub):
    game.tick(days=7)
    assert len(game.replies()) == 1
    for _ in range(3):
        game.tick(seconds=1)
    assert game.replies() == []


def test_after_a_long_downtime_the_newest_reminder_comes_once_and_no_backlog(under_way: TimeClub):
    game = under_way
    game.tick(days=12)
    assert [m["Subject"] for m in game.replies()] == ["Nag: Cephalopod Board 101 bob"]
    game.tick(days=30)
    mails = game.replies()
    assert sorted(m["Subject"] for m in mails) == ["Cephalopod Board 101 won by alice"] * 2
    assert game.moves() == ["c3", "a1", "e5", "forfeit"]


def test_a_move_that_came_in_time_but_waits_in_the_inbox_is_not_forfeited(game: TimeClub):
    from pbm.store.inbox import save_inbound
    from tests.support import mail

    game.clock.advance(days=20, hours=23)
    save_inbound(
        game.room.database,
        mail(ADDRESSES["bob"], "cephalopod move 101 bob bob-pw a1"),
        envelope_from=ADDRESSES["bob"],
        envelope_to=["pbm@localhost"],
    )
    game.tick(hours=2)  # the pass alone: the mail is not applied yet
    assert game.moves() == ["c3"]
    game.room.server.processor.process_pending()
    assert game.moves() == ["c3", "a1"]


def test_hours_serve_fast_clubs(club: TimeClub):
    club.send("alice", "cephalopod challenge --nagtime=12h --forfeittime=2 alice bob")
    (new, _) = club.replies()
    assert "reminders after 12 hours without a move; forfeit after 2 days" in body_of(new)
    assert "(--nagtime=12h --forfeittime=2)" in body_of(new)
    club.tick(hours=12)
    assert [m["Subject"] for m in club.replies()] == ["Nag: Cephalopod Board 101 alice"]
    club.tick(hours=12)
    assert [m["Subject"] for m in club.replies()] == ["Nag: Cephalopod Board 101 alice (last warning)"]
    club.tick(days=1)
    assert sorted(m["Subject"] for m in club.replies()) == ["Cephalopod Board 101 cancelled"] * 2


def test_a_time_rule_that_cannot_be_is_refused(club: TimeClub):
    club.send("alice", "cephalopod challenge --nagtime=30 alice bob")
    (error,) = club.replies()
    assert "--nagtime=30 is not shorter than --forfeittime=21" in body_of(error)
    club.send("alice", "cephalopod challenge --nagtime=soon alice bob")
    (error,) = club.replies()
    assert "write a number of days (7) or of hours (12h)" in body_of(error)


def test_total_time_forfeits_the_player_whose_own_thinking_time_runs_out(club: TimeClub):
    club.send("alice", "cephalopod challenge --totaltime=5 alice bob")
    club.replies()
    for mover, square in (("alice", "c3"), ("bob", "a1"), ("alice", "e5"), ("bob", "a5")):
        club.tick(days=1)
        club.send(mover, f"cephalopod move 101 {mover} {mover}-pw {square}")
    mails = club.replies()
    assert "Clocks: alice 3 days left, bob 3 days left." in body_of(mails[-1])
    club.tick(days=2, hours=23)
    club.replies()
    assert club.board().status == BoardStatus.ACTIVE
    club.tick(hours=1)
    mails = club.replies()
    assert "alice forfeited on time (the 5 days of thinking time ran out)." in body_of(mails[0])


def test_a_bank_gains_its_increment_with_each_move_up_to_its_cap(club: TimeClub):
    club.send("alice", "cephalopod challenge --clock=2+1/3 alice bob")
    club.replies()
    club.tick(hours=12)
    club.send("alice", "cephalopod move 101 alice alice-pw c3")
    mails = club.replies()
    assert "Clocks: alice 2 days 12 hours left, bob 2 days left." in body_of(mails[0])
    club.tick(hours=1)
    club.send("bob", "cephalopod move 101 bob bob-pw a1")
    assert "Clocks: alice 2 days 12 hours left, bob 2 days 23 hours left." in body_of(club.replies()[0])
    club.tick(days=2, hours=12)
    mails = club.replies()
    assert "alice forfeited on time (the clock ran out)." in body_of(mails[0])


def test_in_a_game_of_three_the_forfeiting_player_leaves_and_the_game_goes_on(club: TimeClub):
    club.send("alice", "cephalopod challenge alice bob carol")
    for mover, square in (("alice", "c3"), ("bob", "a1"), ("carol", "e5"), ("alice", "a5")):
        club.send(mover, f"cephalopod move 101 {mover} {mover}-pw {square}")
    club.replies()
    club.tick(days=21)
    mails = club.replies()
    assert sorted(m["To"].addresses[0].addr_spec for m in mails) == sorted(
        ADDRESSES[u] for u in ("alice", "bob", "carol")
    )
    assert all(m["Subject"] == "Cephalopod Board 101 carol" for m in mails)
    assert "bob forfeited on time (no move in 21 days) and leaves the game; the others play on." in body_of(mails[0])
    assert club.board().status == BoardStatus.ACTIVE
    club.send("carol", "cephalopod move 101 carol carol-pw a1")
    assert [m["Subject"] for m in club.replies()][0] == "Cephalopod Board 101 alice"


def test_a_player_whose_account_is_deleted_forfeits_the_same_way(under_way: TimeClub):
    game = under_way
    game.send("bob", "signoff bob bob-pw")
    mails = game.replies()
    board_mail = to(mails, "alice")[0]
    assert board_mail["Subject"] == "Cephalopod Board 101 won by alice"
    assert "4 Forfeit" in body_of(board_mail)
    assert game.rating("alice").wins == 1


def test_a_draw_offer_nobody_answers_nags_the_silent_and_is_accepted_at_the_forfeit_time(club: TimeClub):
    club.send("alice", "cephalopod challenge --forfeittime=10 alice bob carol")
    for mover, square in (("alice", "c3"), ("bob", "a1"), ("carol", "e5")):
        club.send(mover, f"cephalopod move 101 {mover} {mover}-pw {square}")
    club.send("alice", "cephalopod move 101 alice alice-pw propose")
    club.send("bob", "cephalopod move 101 bob bob-pw accept")
    club.replies()
    club.tick(days=7)  # alice, to move, waits for carol's vote: her own time stands still
    (nag,) = club.replies()
    assert nag["Subject"] == "Nag: Cephalopod Board 101 carol to vote"
    assert nag["To"].addresses[0].addr_spec == ADDRESSES["carol"]
    assert "alice proposed a draw" in body_of(nag)
    club.tick(days=3)
    mails = club.replies()
    assert sorted(m["Subject"] for m in mails) == ["Cephalopod Board 101 tie: alice, bob and carol"] * 3
    assert "within the game's forfeit time, so it is accepted" in body_of(mails[0])


def test_a_proposal_turned_down_gives_back_the_time_it_waited(club: TimeClub):
    club.send("alice", "cephalopod challenge alice bob")
    club.send("alice", "cephalopod move 101 alice alice-pw c3")
    club.tick(days=5)
    club.send("bob", "cephalopod move 101 bob bob-pw propose")
    club.tick(days=5)
    club.send("alice", "cephalopod move 101 alice alice-pw reject")
    club.replies()
    assert club.days(1) == []  # bob's turn has counted 6 days, not 11
    club.tick(days=1)
    assert [m["Subject"] for m in club.replies()] == ["Nag: Cephalopod Board 101 bob"]


def test_the_forfeit_date_of_the_player_to_move_is_in_show_once_it_is_near(game: TimeClub):
    game.send("alice", "cephalopod show 101")
    assert "forfeits on" not in body_of(game.replies()[0])
    game.tick(days=19)
    game.replies()
    game.send("alice", "cephalopod show 101")
    assert "It is bob's turn (for 19 days); bob forfeits on 2026-12-13" in body_of(game.replies()[0])


def test_the_forfeit_date_and_time_are_said_together(game: TimeClub):
    game.tick(days=19)
    game.replies()
    game.send("alice", "cephalopod show 101")
    text = body_of(game.replies()[0])
    assert re.search(r"bob forfeits on 2026-12-13 \d\d:\d\d UTC unless bob moves first\.", text), text
