"""The handlers of play (`pbm.commands.play`, `votes`, `queueing`, `previews`): what a move, a
resignation, a proposal, a vote, a queue, a submission and a preview change, whom they mail, and
each refusal by its code."""

from __future__ import annotations

import pytest

from pbm.commands import finding, play, previews, queueing, votes
from pbm.commands import language as lang
from pbm.facts import Fact
from pbm.store import boards, offers, queues
from pbm.store.models import BoardStatus
from tests.commands.handlers.conftest import Desk, to


@pytest.fixture
def game(desk: Desk) -> Desk:
    """Cephalopod board 101: alice (to move) against bob; carol plays elsewhere."""
    desk.sign_up("alice", "bob", "carol")
    desk.run(play.challenge, "cephalopod challenge alice bob", sender="alice")
    return desk


def moves(desk: Desk) -> list[str]:
    return desk.read(lambda s: [m.notation for m in boards.moves_of(s, boards.find(s, "cephalopod", 101))])


def test_challenge_starts_a_board_and_mails_it_to_each_player(desk: Desk):
    desk.sign_up("alice", "bob")
    mails = desk.run(play.challenge, "cephalopod challenge alice bob", sender="alice")
    assert to(mails, "board") == ["alice@example.org", "bob@example.org"]
    assert all(m.starts_thread and m.context["new"] for m in mails)
    board = desk.board("cephalopod", 101)
    assert board.row.status == BoardStatus.ACTIVE and board.row.to_move == 0


def test_challenge_refusals(desk: Desk):
    desk.sign_up("alice", "bob", "carol")
    desk.sign_up("dave", confirmed=False)
    assert desk.code(play.challenge, "cephalopod challenge alice alice", sender="alice") == "seat-named-twice"
    assert desk.code(play.challenge, "cephalopod challenge alice nobody", sender="alice") == "no-player-signed-up"
    refusal = desk.refusal(play.challenge, "cephalopod challenge alice bob", sender="carol")
    assert (refusal.fact.code, str(refusal.fact["userids"])) == (
        "challenge-not-from-player",
        str(Fact("comma-list", first="alice", rest="bob")),
    )
    assert str(refusal).endswith("registered address of one of alice, bob")
    unconfirmed = desk.refusal(play.challenge, "cephalopod challenge alice dave", sender="alice")
    assert unconfirmed.fact.code == "challenge-unconfirmed" and unconfirmed.headline == Fact("invalid-challenge")
    assert desk.code(play.challenge, "cephalopod challenge dave alice", sender="dave") == "not-confirmed"
    code = desk.code(play.challenge, "cephalopod challenge alice bob carol dave bob alice carol", sender="alice")
    assert code == "seat-named-twice"


def test_a_challenge_against_a_players_policy_names_every_refusal(desk: Desk):
    from pbm.commands import policy

    desk.sign_up("alice", "bob", "carol")
    desk.run(policy.take_challenges, "cephalopod reject bob bob-pw", sender="bob")
    desk.run(policy.take_challenges, "cephalopod reject carol carol-pw", sender="carol")
    refusal = desk.refusal(play.challenge, "cephalopod challenge alice bob carol", sender="alice")
    assert refusal.fact.code == "challenge-policies"
    assert str(refusal) == "bob takes no Cephalopod challenges; carol takes no Cephalopod challenges"


def test_challenges_a_player_starts_are_limited_an_hour(desk: Desk):
    desk.sign_up("alice", "bob")
    for _ in range(desk.limits.challenges_per_sender_per_hour):
        desk.run(play.challenge, "cephalopod challenge alice bob", sender="alice")
    refusal = desk.refusal(play.challenge, "cephalopod challenge alice bob", sender="alice")
    assert refusal.fact.code == "challenges-per-hour" and refusal.fact["userid"] == "alice"


def test_move_records_the_move_and_mails_the_board_to_both_players(game: Desk):
    mails = game.run(play.move, "cephalopod move 101 alice alice-pw a1", sender="alice", comment="Hi bob")
    assert to(mails, "board") == ["alice@example.org", "bob@example.org"]
    assert all(m.context["announce"] and m.context["comment"] == "Hi bob" for m in mails)
    assert [m.at_ply for m in mails] == [1, 1]
    board = game.board("cephalopod", 101)
    assert moves(game) == ["a1"] and board.row.to_move == 1
    assert board.engine.to_position(board.state) == board.engine.to_position(
        board.engine.play(board.engine.new(players=2, options={}), "a1")
    )


def test_move_refusals_carry_the_board_and_the_engines_fact(game: Desk):
    refusal = game.refusal(play.move, "cephalopod move 101 bob bob-pw a1", sender="bob")
    assert (refusal.fact.code, refusal.fact["userid"]) == ("not-your-turn", "alice")
    assert refusal.view is not None and refusal.view.viewer == 1
    illegal = game.refusal(play.move, "cephalopod move 101 alice alice-pw z9", sender="alice")
    assert illegal.fact.code == "illegal-move" and isinstance(illegal.fact["reason"], Fact)
    stale = game.refusal(play.move, "cephalopod move 101 alice alice-pw a1#5", sender="alice")
    assert stale.fact.code == "move-is-stale"
    assert game.code(play.move, "cephalopod move 101 carol carol-pw a1", sender="carol") == "not-playing-at"
    assert game.code(play.move, "cephalopod move 102 alice alice-pw a1", sender="alice") == "no-such-board"
    assert moves(game) == []


def test_a_reply_to_an_older_board_mail_is_refused_with_the_board_as_it_stands(game: Desk):
    game.run(play.move, "cephalopod move 101 alice alice-pw a1", sender="alice")
    reply = {"secret": None, "replied_at": 0}  # a reply to a board mail: no password, the move its address named
    refusal = game.refusal(play.move, "cephalopod move 101 bob bob-pw a2", sender="bob", **reply)
    assert refusal.fact.code == "reply-stale" and refusal.fact["why"] == Fact("reply-moved-on", replied_at=0, now_at=2)
    assert refusal.reply_as is not None and refusal.reply_as.at_ply == 1
    stranger = game.refusal(play.move, "cephalopod move 101 bob bob-pw a2", sender="carol", **reply)
    assert stranger.fact.code == "reply-from-unregistered"


def test_resign_ends_a_game_of_two_and_the_other_wins(game: Desk):
    game.run(play.move, "cephalopod move 101 alice alice-pw a1", sender="alice")
    game.run(play.move, "cephalopod move 101 bob bob-pw a2", sender="bob")
    mails = game.run(finding.resign, "cephalopod resign 101 bob bob-pw", sender="bob")
    assert to(mails, "board") == ["alice@example.org", "bob@example.org"]
    board = game.board("cephalopod", 101)
    assert board.row.status == BoardStatus.FINISHED and board.row.winners == [0]
    refusal = game.refusal(finding.resign, "cephalopod resign 101 alice alice-pw", sender="alice")
    assert refusal.fact.code == "board-over" and refusal.view is not None


def test_not_allowed_says_the_game_has_no_pass_and_no_swap(game: Desk):
    passing = game.refusal(play.not_allowed, lang.NotAllowed(game="cephalopod", word="pass"), sender="alice")
    assert passing.fact == Fact("no-passing", title="Cephalopod")
    assert game.code(play.not_allowed, lang.NotAllowed(game="cephalopod", word="swap"), sender="alice") == "no-swap"


def test_propose_and_vote_on_a_draw(game: Desk):
    game.run(play.move, "cephalopod move 101 alice alice-pw a1", sender="alice")
    game.run(play.move, "cephalopod move 101 bob bob-pw a2", sender="bob")
    mails = game.run(votes.propose, "cephalopod move 101 alice alice-pw propose", sender="alice")
    assert [m.context["offer_news"].action for m in mails] == ["proposed", "proposed"]
    assert game.code(votes.propose, "cephalopod move 101 bob bob-pw propose", sender="bob") == "proposal-waiting"
    again = game.refusal(votes.vote, "cephalopod move 101 alice alice-pw accept", sender="alice")
    assert again.fact == Fact("proposed-it", proposal=Fact("draw-proposal"))
    game.run(votes.vote, "cephalopod move 101 bob bob-pw accept", sender="bob")
    board = game.board("cephalopod", 101)
    assert board.row.status == BoardStatus.FINISHED and board.row.end_code == votes.AGREED
    assert sorted(board.row.winners) == [0, 1]


def test_a_rejected_proposal_is_closed_and_votes_need_one(game: Desk):
    assert game.code(votes.vote, "cephalopod move 101 bob bob-pw accept", sender="bob") == "nothing-to-vote-on"
    game.run(votes.propose, "cephalopod move 101 alice alice-pw propose", sender="alice")
    mails = game.run(votes.vote, "cephalopod move 101 bob bob-pw reject", sender="bob")
    assert mails[0].context["offer_news"].action == "rejected"
    assert game.read(lambda s: offers.pending(s, boards.find(s, "cephalopod", 101))) is None


def test_undo_takes_back_the_last_move_once_everyone_accepts(game: Desk):
    assert game.code(votes.propose, "cephalopod move 101 alice alice-pw undo", sender="alice") == (
        "nothing-to-take-back"
    )
    game.run(play.move, "cephalopod move 101 alice alice-pw a1", sender="alice")
    game.run(votes.propose, "cephalopod move 101 alice alice-pw undo", sender="alice")
    game.run(votes.vote, "cephalopod move 101 bob bob-pw accept", sender="bob")
    board = game.board("cephalopod", 101)
    assert moves(game) == ["a1", "undo"] and board.row.to_move == 0
    assert board.engine.legal_moves(board.state)[0] == "a1"


def test_queue_keeps_a_move_for_the_players_turn_and_plays_it_then(game: Desk):
    (shown,) = game.run(queueing.queue, "cephalopod queue 101 bob bob-pw if a1 then a2", sender="bob")
    assert shown.template == "queue" and shown.context["said"] == "queued"
    assert shown.context["view"].queued == ("if a1 then a2",)
    mails = game.run(play.move, "cephalopod move 101 alice alice-pw a1", sender="alice")
    assert moves(game) == ["a1", "a2"]
    assert len(to(mails, "board")) == 4  # the move's mails, then the queued move's
    assert game.read(lambda s: queues.at(s, boards.find(s, "cephalopod", 101))) == {}


def test_a_queue_that_matches_nothing_tells_its_owner_alone(game: Desk):
    game.run(queueing.queue, "cephalopod queue 101 bob bob-pw if a5 then a2", sender="bob")
    mails = game.run(play.move, "cephalopod move 101 alice alice-pw a1", sender="alice")
    assert [m.context.get("unmatched_queue") for m in mails] == [None, ["a1"]]
    assert moves(game) == ["a1"]


def test_queue_refusals(game: Desk):
    assert game.code(queueing.queue, "cephalopod queue 101 alice alice-pw if a1 then a2", sender="alice") == (
        "queue-on-own-turn"
    )
    assert game.code(queueing.queue, "cephalopod queue 101 bob bob-pw if a1 a2 then a3", sender="bob") == (
        "queue-own-turn-inside"
    )
    illegal = game.refusal(queueing.queue, "cephalopod queue 101 bob bob-pw if a1 then a1", sender="bob")
    assert illegal.fact.code == "queue-answer-illegal" and illegal.fact["move"] == "a1"
    assert game.code(queueing.queue, "cephalopod queue 101 bob bob-pw if z9 then a2", sender="bob") == (
        "preview-illegal"
    )
    (cleared,) = game.run(queueing.queue, "cephalopod queue 101 bob bob-pw off", sender="bob")
    assert cleared.context["said"] == "nothing-to-clear"


def test_submit_shows_the_move_and_confirm_plays_it_unless_the_board_changed(game: Desk):
    assert game.code(previews.confirm, "cephalopod confirm 101 alice alice-pw", sender="alice") == "nothing-submitted"
    (shown,) = game.run(previews.submit, "cephalopod submit 101 alice alice-pw a1", sender="alice")
    assert shown.template == "preview" and shown.context["submitted"] == "a1"
    assert moves(game) == []
    game.run(previews.confirm, "cephalopod confirm 101 alice alice-pw", sender="alice")
    assert moves(game) == ["a1"]
    game.run(previews.submit, "cephalopod submit 101 bob bob-pw a2", sender="bob")
    game.run(play.move, "cephalopod move 101 bob bob-pw a3", sender="bob")
    refusal = game.refusal(previews.confirm, "cephalopod confirm 101 bob bob-pw", sender="bob")
    assert refusal.fact == Fact("board-changed-since-submit", userid="bob", move="a2", now_at=3)
    assert moves(game) == ["a1", "a3"]


def test_preview_plays_moves_on_a_copy(game: Desk):
    (mail,) = game.run(previews.preview, "cephalopod preview 101 a1 a2", sender="carol")
    assert [(n, u, m) for n, u, m in mail.context["played"]] == [(1, "alice", "a1"), (2, "bob", "a2")]
    assert moves(game) == []
    assert game.code(previews.preview, "cephalopod preview 101#3 a1", sender="carol") == "fewer-moves"
    refusal = game.refusal(previews.preview, "cephalopod preview 101 a1 a1", sender="carol")
    assert (refusal.fact.code, refusal.fact["userid"], refusal.fact["count"]) == ("preview-illegal", "bob", 1)
