"""``vacation``: time away stops a player's clocks; opponents are told; the allowance holds."""

from tests.support import body_of
from tests.time.club import ADDRESSES, TimeClub


def subjects(mails) -> list[str]:
    return sorted(m["Subject"] for m in mails)


def test_a_vacation_booked_from_now_is_confirmed_with_the_allowance_left(club: TimeClub):
    club.send("bob", "vacation bob bob-pw now 10d")
    (reply,) = club.replies()
    assert reply["Subject"] == "Vacation: bob"
    body = body_of(reply)
    assert "Booked: away from 2026-11-22 12:00 until 2026-12-02 12:00 UTC." in body
    assert "bob is away until 2026-12-02 12:00 UTC" in body
    assert "bob has 20 days\nof it left." in body


def test_the_opponents_are_told_once_when_it_starts_and_when_it_ends_and_the_move_list_keeps_it(game: TimeClub):
    game.send("bob", "vacation bob bob-pw now 3d")
    game.replies()
    game.tick(minutes=1)
    (told,) = game.replies()
    assert told["To"].addresses[0].addr_spec == ADDRESSES["alice"]
    assert told["Subject"] == "Cephalopod Board 101: bob is away"
    assert "bob is away until 2026-11-25 12:00 UTC: their time stands still." in body_of(told)
    game.tick(minutes=1)
    assert game.replies() == []
    assert game.days(3) == ["Cephalopod Board 101: bob is back"]
    game.send("alice", "cephalopod show 101")
    body = body_of(game.replies()[0])
    assert "-- bob is away until 2026-11-25 12:00 UTC: their time stands still (2026-11-22)" in body
    assert "-- bob is back from vacation: their time runs again (2026-11-25)" in body


def test_while_away_nothing_nags_or_forfeits_and_the_wait_resumes_where_it_stood(game: TimeClub):
    game.tick(days=5)
    game.send("bob", "vacation bob bob-pw now 10d")
    away = [m["Subject"] for m in game.replies()] + game.days(10)
    assert sorted(away) == ["Cephalopod Board 101: bob is away", "Cephalopod Board 101: bob is back", "Vacation: bob"]
    assert [s for s in game.days(2) if s.startswith("Nag")] == ["Nag: Cephalopod Board 101 bob"]  # day 7 of the wait
    game.days(13)
    assert game.moves() == ["c3"]  # 20 days of waiting counted, not 30
    game.tick(days=1)
    assert game.moves() == ["c3", "forfeit"]


def test_the_player_to_move_on_vacation_shows_as_away_in_the_board(game: TimeClub):
    game.send("bob", "vacation bob bob-pw now 5d")
    game.tick(minutes=1)
    game.replies()
    game.send("alice", "cephalopod show 101")
    assert "bob is away until 2026-11-27 12:00 UTC; their time stands still." in body_of(game.replies()[0])


def test_off_ends_the_vacation_at_once_and_calls_off_those_booked_ahead(game: TimeClub):
    game.send("bob", "vacation bob bob-pw now 5d")
    game.send("bob", "vacation bob bob-pw 2026-12-20 2026-12-24")
    game.tick(days=1)
    game.replies()
    game.send("bob", "vacation bob bob-pw off")
    game.tick(minutes=1)
    mails = game.replies()
    assert subjects(mails) == ["Cephalopod Board 101: bob is back", "Vacation: bob"]
    body = body_of(next(m for m in mails if m["Subject"] == "Vacation: bob"))
    assert "Your vacation ends now" in body
    assert "Called off: from 2026-12-20 00:00 until 2026-12-25 00:00 UTC." in body
    assert "No vacation is booked." in body


def test_a_vacation_beyond_the_allowance_is_refused_and_says_what_is_left(club: TimeClub):
    club.send("bob", "vacation bob bob-pw now 31d")
    (refusal,) = club.replies()
    assert "takes more than your allowance: at most 30 days away in any 365 days" in body_of(refusal)
    club.send("bob", "vacation bob bob-pw 2026-12-01 2026-12-20")
    club.send("bob", "vacation bob bob-pw 2027-01-10 2027-01-24")
    mails = club.replies()
    assert "From 2027-01-10 you can take up to 10 days" in body_of(mails[-1])


def test_vacations_cannot_be_stacked_across_the_turn_of_the_year(club: TimeClub):
    club.send("bob", "vacation bob bob-pw 2026-12-10 2027-01-08")  # 30 days: the whole allowance
    club.send("bob", "vacation bob bob-pw 2027-01-09 2027-01-20")
    mails = club.replies()
    assert "Booked" in body_of(mails[0])
    assert "takes more than your allowance" in body_of(mails[1])
    club.clock.advance(days=400)
    club.send("bob", "vacation bob bob-pw now 20d")
    assert "Booked" in body_of(club.replies()[0])


def test_a_vacation_cannot_start_in_the_past_or_overlap_another(club: TimeClub):
    club.send("bob", "vacation bob bob-pw 2026-11-01 2026-11-30")
    assert "A vacation cannot start in the past" in body_of(club.replies()[0])
    club.send("bob", "vacation bob bob-pw 2026-12-01 2026-12-05")
    club.send("bob", "vacation bob bob-pw 2026-12-04 2026-12-08")
    mails = club.replies()
    assert "That overlaps your vacation from 2026-12-01 00:00 until 2026-12-06 00:00 UTC" in body_of(mails[1])


def test_a_wrong_password_changes_nothing(club: TimeClub):
    club.send("bob", "vacation bob wrong now 5d")
    assert "Wrong password for bob" in body_of(club.replies()[0])
    club.send("bob", "vacation bob bob-pw")
    body = body_of(club.replies()[0])
    assert "bob is not away now." in body
    assert "No vacation is booked." in body


def test_off_with_nothing_booked_is_refused(club: TimeClub):
    club.send("bob", "vacation bob bob-pw off")
    assert "bob is not away and has no vacation booked" in body_of(club.replies()[0])


def test_a_vacation_beyond_a_year_ahead_or_longer_than_a_year_is_refused(club: TimeClub):
    club.send("bob", "vacation bob bob-pw 2026-12-01 9999-12-31")
    assert "A vacation can be booked at most a year ahead, for at most a year" in body_of(club.replies()[0])
    club.send("bob", "vacation bob bob-pw 9999-12-31 999d")
    assert "A vacation can be booked at most a year ahead, for at most a year" in body_of(club.replies()[0])
    club.send("bob", "vacation bob bob-pw")
    assert "No vacation is booked." in body_of(club.replies()[0])


def test_vacations_booked_and_called_off_between_two_passes_tell_the_opponents_nothing(game: TimeClub):
    for _ in range(5):
        game.send("bob", "vacation bob bob-pw now 3d")
        game.send("bob", "vacation bob bob-pw off")
    game.replies()
    game.tick(minutes=1)
    assert game.replies() == []
    game.send("alice", "cephalopod show 101")
    assert "vacation" not in body_of(game.replies()[0])


def test_vacations_toggled_between_two_passes_tell_the_opponents_only_where_they_end(game: TimeClub):
    for _ in range(5):
        game.send("bob", "vacation bob bob-pw now 3d")
        game.send("bob", "vacation bob bob-pw off")
    game.send("bob", "vacation bob bob-pw now 3d")
    game.replies()
    game.tick(minutes=1)
    (told,) = game.replies()
    assert told["Subject"] == "Cephalopod Board 101: bob is away"
    assert "bob is away until 2026-11-25 12:00 UTC" in body_of(told)


def test_a_vacation_called_off_and_booked_anew_tells_its_new_end_once(game: TimeClub):
    game.send("bob", "vacation bob bob-pw now 3d")
    game.tick(minutes=1)
    game.replies()
    game.send("bob", "vacation bob bob-pw off\nvacation bob bob-pw now 5d")  # the pass runs after the mail
    (told,) = [m for m in game.replies() if m["To"].addresses[0].addr_spec == ADDRESSES["alice"]]
    assert told["Subject"] == "Cephalopod Board 101: bob is away"
    assert "bob is away until 2026-11-27 12:01 UTC" in body_of(told)
