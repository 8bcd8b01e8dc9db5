"""Games with the server's bots (`pbm.commands.play`, `recipients`, `policy`): the people in them
are mailed what a person's opponents would be (once a turn, the bots' moves gathered, and the
end), a game ends once no person is left in play, only an administrator starts a game of bots
alone, and one player's games with bots are capped."""

from __future__ import annotations

from dataclasses import replace

import pytest

import pbm.bots
import pbm.games
from pbm.commands import finding, play, verbs, watching
from pbm.commands.effects import OutgoingMail, Sender
from pbm.facts import Fact
from pbm.mail.pipeline.read import BotDecision
from pbm.store import boards, players
from pbm.store.models import BoardStatus
from pbm.views.live import load
from pbm.words import Words
from tests.commands.handlers.conftest import Desk


def people(mails: list[OutgoingMail]) -> list[str]:
    """The addresses of the board mails among `mails` that go to someone (a bot has no address)."""
    return [mail.to for mail in mails if mail.template == "board" and mail.to]


def bot_moves(desk: Desk, userid: str, board: int = 101) -> list[OutgoingMail]:
    """The bot `userid` makes its move at `board`, as the mail workers carry out its decision."""
    with desk.database.transaction() as session:
        live = load(session, "cephalopod", board)
        assert live is not None
        move = pbm.bots.choose("cephalopod", live.state, 1, seed=live.row.move_count)
        decision = BotDecision(userid, "cephalopod", board, live.row.move_count, move=move)
        bot = players.find(session, userid)
        assert bot is not None
        ctx = desk.context(session, None)
        ctx.sender = Sender(None, [bot])  # what the mail workers carry out a bot's decision as
        return verbs.run(ctx, decision.command())


def person_moves(desk: Desk, userid: str, board: int = 101) -> list[OutgoingMail]:
    """`userid` mails a move of the position as it stands at `board`."""
    state = desk.board("cephalopod", board).state
    move = pbm.bots.choose("cephalopod", state, 1, seed=1)
    return desk.run(play.move, f"cephalopod move {board} {userid} {userid}-pw {move}", sender=userid)


def status(desk: Desk, board: int = 101) -> BoardStatus:
    return desk.board("cephalopod", board).row.status


@pytest.fixture
def carol_and_two_bots(desk: Desk) -> Desk:
    """Cephalopod board 101: carol (to move), bot1, bot2."""
    desk.sign_up("carol")
    desk.run(play.challenge, "cephalopod challenge carol bot1 bot2", sender="carol")
    return desk


def test_a_bots_move_that_gives_the_turn_to_a_bot_mails_no_person(carol_and_two_bots: Desk):
    desk = carol_and_two_bots
    assert people(person_moves(desk, "carol")) == ["carol@example.org"]
    assert people(bot_moves(desk, "bot1")) == [], "bot2 moves next: nobody needs the news yet"


def test_the_mail_at_a_persons_turn_tells_every_bots_move_since_theirs(carol_and_two_bots: Desk):
    desk = carol_and_two_bots
    person_moves(desk, "carol")
    bot_moves(desk, "bot1")
    (turn,) = [mail for mail in bot_moves(desk, "bot2") if mail.to]
    assert turn.to == "carol@example.org" and turn.context["gathered"]
    view = turn.context["view"]
    assert view.viewer_to_move
    assert [(move.number, view.seats[move.seat].userid) for move in view.moves_since_viewer()] == [
        (2, "bot1"),
        (3, "bot2"),
    ]


def test_a_game_ends_when_its_last_person_resigns_and_the_bots_share_it(carol_and_two_bots: Desk):
    desk = carol_and_two_bots
    person_moves(desk, "carol")
    bot_moves(desk, "bot1")
    bot_moves(desk, "bot2")
    mails = desk.run(play.resign, "cephalopod resign 101 carol carol-pw", sender="carol")
    row = desk.board("cephalopod", 101).row
    assert (row.status, row.winners) == (BoardStatus.FINISHED, [1, 2])
    assert row.end_fact == Fact("tied-when-left", userid="carol", did=Fact("resigned")).to_json()
    assert people(mails) == ["carol@example.org"], "the end is everyone's news"


def test_a_game_of_two_people_and_a_bot_goes_on_while_a_person_plays(desk: Desk):
    desk.sign_up("carol", "dave")
    desk.run(play.challenge, "cephalopod challenge carol dave bot1", sender="carol")
    person_moves(desk, "carol")
    person_moves(desk, "dave")
    bot_moves(desk, "bot1")
    person_moves(desk, "carol")
    desk.run(play.resign, "cephalopod resign 101 dave dave-pw", sender="dave")
    assert status(desk) == BoardStatus.ACTIVE, "carol still plays"
    assert people(bot_moves(desk, "bot1")) == ["carol@example.org"], "dave is out: he hears of the end alone"
    assert people(person_moves(desk, "carol")) == ["carol@example.org"]
    desk.run(watching.subscribe, "cephalopod subscribe 101 dave dave-pw", sender="dave")
    assert people(bot_moves(desk, "bot1")) == ["carol@example.org", "dave@example.org"], "unless he watches it"
    ended = desk.run(play.resign, "cephalopod resign 101 carol carol-pw", sender="carol")
    assert status(desk) == BoardStatus.FINISHED
    assert people(ended) == ["carol@example.org", "dave@example.org"]


def test_an_administrator_starts_a_game_of_bots_alone_which_plays_on(desk: Desk):
    desk.club = replace(desk.club, admins=frozenset({"alice"}))
    desk.sign_up("alice")
    mails = desk.run(play.challenge, "cephalopod challenge -size=3 bot1 bot2", sender="alice")
    assert people(mails) == ["alice@example.org"], "the host is sent the first board"
    assert desk.board("cephalopod", 101).row.exhibition
    bot_moves(desk, "bot1")
    bot_moves(desk, "bot2")
    assert status(desk) == BoardStatus.ACTIVE, "no person was ever in it: it plays on"


def test_a_game_of_bots_alone_is_refused_to_anyone_else_in_both_languages(desk: Desk):
    desk.sign_up("carol", "dave")
    refusal = desk.refusal(play.challenge, "cephalopod challenge bot1 bot2", sender="carol")
    assert refusal.fact == Fact("bots-alone-for-admins", userids=Fact("comma-list", first="bot1", rest="bot2"))
    assert refusal.headline == Fact("invalid-challenge")
    english, french = Words().say(refusal.fact), Words("fr").say(refusal.fact)
    assert "administrators" in english and "address" not in english
    assert "administrat" in french and french != english
    mixed = desk.refusal(play.challenge, "cephalopod challenge dave bot1", sender="carol")
    assert mixed.fact["userids"] == "dave", "a bot has no address to mail a challenge from"


def test_one_players_games_with_bots_are_capped(desk: Desk):
    desk.club = replace(desk.club, bot_games_per_player=2)
    desk.sign_up("carol", "dave")
    desk.run(play.challenge, "cephalopod challenge carol bot1", sender="carol")
    desk.run(play.challenge, "cephalopod challenge carol bot2 bot3", sender="carol")
    refusal = desk.refusal(play.challenge, "cephalopod challenge carol bot1", sender="carol")
    assert refusal.fact == Fact("bot-games-at-limit", userid="carol", playing=2, most=2)
    assert desk.code(play.challenge, "cephalopod challenge dave carol bot1", sender="dave") == "bot-games-at-limit"
    assert "Finish or resign one first" in str(refusal) and Words("fr").say(refusal.fact) != str(refusal)
    desk.run(play.challenge, "cephalopod challenge carol dave", sender="carol")  # a game of people: no cap
    desk.run(play.resign, "cephalopod resign 101 carol carol-pw", sender="carol")
    desk.run(play.challenge, "cephalopod challenge carol bot1", sender="carol")


def test_an_administrators_games_of_bots_alone_count_against_the_cap(desk: Desk):
    desk.club = replace(desk.club, admins=frozenset({"alice"}), bot_games_per_player=1)
    desk.sign_up("alice")
    desk.run(play.challenge, "cephalopod challenge bot1 bot2", sender="alice")
    assert desk.code(play.challenge, "cephalopod challenge bot3 bot4", sender="alice") == "bot-games-at-limit"


def test_a_game_ends_when_a_bots_move_puts_its_last_person_out(desk: Desk):
    desk.sign_up("carol")
    desk.run(play.challenge, "cephalopod challenge bot1 bot2 carol", sender="carol")
    bot_moves(desk, "bot1")
    bot_moves(desk, "bot2")
    person_moves(desk, "carol")
    engine = pbm.games.get("cephalopod")
    # bot1 fills the board at 9-9-7: carol, with the fewest cells, is out (the engine's own example).
    filling = engine.from_position("a6a6a6a6a6/a6a6a6b6b6/b6b6b6b6b6/b6b6c6c6c6/c6c6c6c6. a", ply=3)
    with desk.database.transaction() as session:
        row = boards.find(session, "cephalopod", 101)
        row.state, row.to_move = engine.dump(filling), 0
    mails = bot_moves(desk, "bot1")
    row = desk.board("cephalopod", 101).row
    assert (row.status, row.winners) == (BoardStatus.FINISHED, [0, 1])
    assert row.end_fact == Fact("tied-no-person-left").to_json()
    assert people(mails) == ["carol@example.org"], "she hears of the end"
    assert "no person was left in play" in Words().say(Fact("tied-no-person-left"))


def test_joining_an_open_challenge_with_a_bot_counts_against_the_cap(desk: Desk):
    desk.club = replace(desk.club, bot_games_per_player=1)
    desk.sign_up("carol", "dave")
    desk.run(play.challenge, "cephalopod challenge dave bot1", sender="dave")
    desk.run(play.challenge, "cephalopod challenge carol bot2 open", sender="carol")
    assert desk.code(finding.join, "cephalopod join 102 dave dave-pw", sender="dave") == "bot-games-at-limit"
    assert status(desk, 101) == BoardStatus.ACTIVE and desk.read(lambda s: boards.find(s, "cephalopod", 102)) is None
