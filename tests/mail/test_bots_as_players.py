"""Bots as players: challenged like anyone, moving and voting by themselves through the inbox,
never mailed, never reminded, never out of time.

The bots play only when a test says so (`Mailroom.play_bots`, as `pbm serve` does between
mails), in this process, with the searching replaced where a test needs it (`think`).
Every test runs on SQLite and, when configured, on PostgreSQL.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta

import pytest
from sqlalchemy import select

import pbm.games
from pbm import elo
from pbm.bots.answers import ACCEPT, Question, answer
from pbm.mail.bot_turns import BotTurns, ThinkingFailed, ThinkingStopped
from pbm.mail.pipeline.read import BotDecision
from pbm.mail.worker import Worker
from pbm.store import bot_players, inbox
from pbm.store.models import (
    Board,
    InboundMessage,
    InboundStatus,
    MoveRecord,
    Offer,
    OutboxMessage,
    Player,
    Rating,
    Seek,
    utcnow,
)
from tests.support import Clock, body_of, mail, reply_to_board

ALICE = "alice@example.org"
CEPHALOPOD = pbm.games.get("cephalopod")


def quick(question: Question, seconds: float) -> str:
    """A bot's answer at level 1, whatever its level: the playout policy, at once."""
    return answer(replace(question, level=1), seconds)


@pytest.fixture
def room(make_mailroom):
    room = make_mailroom(think=quick)
    room.send(mail(ALICE, "signup alice alice-pw"))
    room.replies()
    return room


def board(room) -> Board:
    with room.database.reading() as session:
        return session.scalar(select(Board))


def proposals(room) -> int:
    with room.database.reading() as session:
        return len(session.scalars(select(Offer)).all())


def state_of(room):
    row = board(room)
    return CEPHALOPOD.resume(row.state, row.secret)


def last_board_mail(messages):
    return [m for m in messages if "Board 101" in str(m["Subject"])][-1]


def reply(room, board_mail, first_line: str) -> None:
    room.send(reply_to_board(board_mail, ALICE, first_line), to=board_mail["Reply-To"].addresses[0].addr_spec)


def a_move(room) -> str:
    """A move of the position as it stands, as level 1 would choose it (of the seeds that make short
    games on 3x3 against bot1, one)."""
    return pbm.bots.choose("cephalopod", state_of(room), 1, seed=board(room).move_count + 12_000)


def alice_plays(room, board_mail) -> None:
    """Alice replies to her board mail with a move of the position it shows."""
    reply(room, board_mail, a_move(room))


def alice_moves(room) -> None:
    """Alice mails a move of the position as it stands."""
    room.send(mail(ALICE, f"cephalopod move 101 alice alice-pw {a_move(room)}"))


def test_every_level_has_its_bot_signed_up_the_first_time_anyone_names_it(database):
    with database.transaction() as session:
        assert bot_players.all_bots(session) == [], "a club that never named a bot has none"
        bot_players.sign_up_named(session, ["bot4", "bot1", "BOT1", "bot99", "bob", "robot2"], utcnow())
        bot_players.sign_up_named(session, ["bot1"], utcnow())  # once
        named = [(bot.userid, bot.bot_level, bot.addresses) for bot in bot_players.all_bots(session)]
        assert named == [("bot1", 1, []), ("bot4", 4, [])]
        everyone = bot_players.sign_up_all(session, utcnow())
    assert [bot.userid for bot in everyone] == [f"bot{level}" for level in range(1, bot_players.most_levels() + 1)]
    for game in ("cephalopod", "cubeo", "dodeca"):
        assert [bot.bot_level for bot in everyone if bot_players.plays(game, bot.bot_level)] == pbm.bots.levels(game)


def test_a_bot_plays_by_itself_to_the_end_of_a_game_by_mail(room):
    room.send(mail(ALICE, "cephalopod challenge -size=3 alice bot1"))
    started = room.replies()
    assert [m["Subject"] for m in started] == ["New Cephalopod Board 101 alice"]
    assert "alice challenged bot1 (computer, level 1) to a new game." in body_of(started[0])
    latest, read = started[0], []
    while board(room).status == "active":
        alice_plays(room, latest)
        assert room.play_bots() == (1 if board(room).status == "active" else 0)
        read += room.replies()
        latest = last_board_mail(read)
    with room.database.reading() as session:
        moves = session.scalars(select(MoveRecord).order_by(MoveRecord.number)).all()
        decided = session.scalars(select(InboundMessage).where(InboundMessage.envelope_from == "bot1 (bot)")).all()
    assert [m.seat for m in moves] == [i % 2 for i in range(len(moves))]
    assert len(decided) == len(moves) // 2 and {m.status for m in decided} == {"processed"}
    assert {m.inbound_id for m in moves if m.seat == 1} == {m.id for m in decided}
    assert "won by" in str(latest["Subject"])
    bot_moves = [m for m in read if body_of(m).startswith("bot1 (computer, level 1) played ")]
    assert len(bot_moves) == len(decided), "each of its moves is news as a player's is"


def test_a_bot_is_never_mailed_in_a_game_of_three_with_another_bot(room):
    room.send(mail(ALICE, "cephalopod challenge -size=3 bot2 alice bot1"))
    assert room.play_bots() == 1  # bot2 moves first
    latest = last_board_mail(room.replies())
    while board(room).status == "active":
        if board(room).to_move == 1:
            alice_plays(room, latest)
        room.play_bots()
        latest = last_board_mail(room.replies() or [latest])
    with room.database.reading() as session:
        bot_ids = {bot.id for bot in bot_players.all_bots(session)}
        sent = session.execute(select(OutboxMessage.recipient, OutboxMessage.player_id)).all()
    assert sent and {recipient for recipient, _ in sent} == {ALICE}
    assert not {player_id for _, player_id in sent} & bot_ids


def test_a_bot_is_never_reminded_and_never_forfeits(make_mailroom):
    clock = Clock()
    room = make_mailroom(think=quick, clock=clock)
    room.send(mail(ALICE, "signup alice alice-pw"))
    room.send(mail(ALICE, "cephalopod challenge -size=3 --nagtime=1 --forfeittime=2 alice bot1"))
    alice_plays(room, last_board_mail(room.replies()))
    room.replies()
    clock.advance(days=30)
    room.server.processor.pass_time()
    assert room.replies() == []
    assert board(room).status == "active" and board(room).to_move == 1
    assert room.play_bots() == 1
    assert board(room).to_move == 0


def test_a_bot_answers_a_draw_proposal_as_its_search_says(make_mailroom):
    asked: list[Question] = []

    def think(question: Question, seconds: float) -> str:
        if question.draw:
            asked.append(question)
            return ACCEPT
        return quick(question, seconds)

    room = make_mailroom(think=think)
    room.send(mail(ALICE, "signup alice alice-pw"))
    room.send(mail(ALICE, "cephalopod challenge -size=3 alice bot1"))
    alice_plays(room, last_board_mail(room.replies()))
    room.play_bots()
    room.send(mail(ALICE, "cephalopod move 101 alice alice-pw propose"))
    room.replies()
    assert room.play_bots() == 1
    assert [(q.seat, q.level, q.in_play) for q in asked] == [(1, 1, 2)]
    ended = last_board_mail(room.replies())
    assert "bot1 accepts alice's draw proposal." in body_of(ended)
    assert board(room).end_code == "agreed"
    with room.database.reading() as session:
        assert session.scalars(select(Rating)).all() == [], "a game with a bot is rated for nobody"


def test_a_bot_takes_back_the_proposers_own_move_and_never_its_own(make_mailroom):
    thought: list[Question] = []

    def think(question: Question, seconds: float) -> str:
        thought.append(question)
        return quick(question, seconds)

    room = make_mailroom(think=think)
    room.send(mail(ALICE, "signup alice alice-pw"))
    room.send(mail(ALICE, "cephalopod challenge -size=3 alice bot1"))
    alice_moves(room)
    room.send(mail(ALICE, "cephalopod move 101 alice alice-pw undo"))  # before bot1 moved: her own move
    room.replies()
    assert room.play_bots() == 1
    assert thought == [], "a vote on taking a move back needs no search"
    assert "bot1 accepts alice's proposal to take back a move." in body_of(last_board_mail(room.replies()))
    assert board(room).to_move == 0 and proposals(room) == 0
    alice_moves(room)
    room.play_bots()
    room.send(mail(ALICE, "cephalopod move 101 alice alice-pw undo"))  # bot1's move is the last
    room.replies()
    assert room.play_bots() == 1
    assert "bot1 rejects alice's proposal to take back a move; the game goes on." in body_of(
        last_board_mail(room.replies())
    )
    assert board(room).to_move == 0 and proposals(room) == 0


def test_nobody_signs_up_or_in_as_a_bot(room):
    room.send(mail(ALICE, "signup bot7 some-password"))
    (refused,) = room.replies()
    assert "'bot7' cannot be a userid: bot1, bot2 and so on are the server's computer players" in body_of(refused)
    room.send(mail(ALICE, "cephalopod challenge -size=3 alice bot1"))
    room.replies()
    room.send(mail(ALICE, "cephalopod move 101 bot1 ! b2"))
    (refused,) = room.replies()
    assert "Wrong password for bot1" in body_of(refused)
    assert board(room).move_count == 0


def test_two_workers_think_about_a_bot_turn_once(room):
    """Several `pbm serve` on one database: a turn claimed by one is not thought about by another."""
    room.send(mail(ALICE, "cephalopod challenge -size=3 alice bot1"))
    alice_moves(room)
    other = BotTurns(room.database, quick, seconds=30, worker=Worker("elsewhere:1:0"))
    during: list[int] = []

    def think(question: Question, seconds: float) -> str:
        during.append(other.play_due())  # the other worker looks while this one thinks
        return quick(question, seconds)

    first = BotTurns(room.database, think, seconds=30, worker=Worker("here:1:0"))
    assert first.play_due() == 1
    assert during == [0]
    assert other.play_due() == 0, "its decision waits in the inbox: nobody decides again"
    room.server.processor.process_pending()
    assert board(room).move_count == 2


def test_a_decision_the_board_moved_past_is_dropped(room):
    room.send(mail(ALICE, "cephalopod challenge -size=3 alice bot1"))
    alice_moves(room)

    def think(question: Question, seconds: float) -> str:
        room.send(mail(ALICE, "cephalopod resign 101 alice alice-pw"))  # while the bot thinks
        return quick(question, seconds)

    assert BotTurns(room.database, think, seconds=30).play_due() == 0
    with room.database.reading() as session:
        assert session.scalars(select(InboundMessage).where(InboundMessage.envelope_from == "bot1 (bot)")).all() == []


def test_a_stale_decision_in_the_inbox_is_refused_as_a_stale_reply_and_nobody_hears_of_it(room):
    room.send(mail(ALICE, "cephalopod challenge -size=3 alice bot1"))
    alice_moves(room)
    room.play_bots()
    room.replies()
    stale = BotDecision("bot1", "cephalopod", 101, 0, move="a1")  # bot1's move after move 0: long past
    with room.database.transaction() as session:
        inbox.save_read(session, b"", sender="bot1 (bot)", parsed=stale.stored(), keys=set(), now=utcnow())
    room.server.processor.process_pending()
    assert board(room).move_count == 2
    assert room.replies() == []
    with room.database.reading() as session:
        notes = session.scalars(select(InboundMessage.note).where(InboundMessage.envelope_from == "bot1 (bot)"))
        assert "bot1's 'a1#1' refused: reply-stale" in list(notes)


def test_a_claim_left_by_a_worker_that_stopped_is_taken_once_its_lease_ends(database):
    with database.transaction() as session:
        bot = bot_players.sign_up_all(session, utcnow())[0]
        board_id = _a_board_with(session, bot)
    start = utcnow()
    lease = timedelta(seconds=90)

    def claim(worker: str, at: datetime) -> bot_players.Claim:
        with database.transaction() as session:
            return bot_players.claim(session, board_id, bot.id, "move 0", worker=worker, now=at, lease=lease)

    assert claim("a:1:0", start) == bot_players.Claim.TAKEN
    assert claim("b:1:0", start + timedelta(seconds=89)) == bot_players.Claim.BUSY
    assert claim("b:1:0", start + timedelta(seconds=91)) == bot_players.Claim.TAKEN


def test_a_decision_waiting_in_the_inbox_keeps_its_task_from_everyone_until_it_is_applied(database):
    with database.transaction() as session:
        bot = bot_players.sign_up_all(session, utcnow())[0]
        board_id = _a_board_with(session, bot)
    start, lease = utcnow(), timedelta(seconds=90)

    def claim(worker: str, at: datetime) -> bot_players.Claim:
        with database.transaction() as session:
            return bot_players.claim(session, board_id, bot.id, "move 0", worker=worker, now=at, lease=lease)

    assert claim("a:1:0", start) == bot_players.Claim.TAKEN
    with database.transaction() as session:
        decision = BotDecision("bot1", "cephalopod", 101, 0, move="a1")
        inbound_id = inbox.save_read(session, b"", sender="bot1 (bot)", parsed=decision.stored(), keys=set(), now=start)
        row = bot_players.still_claimed(session, board_id, bot.id, "move 0", worker="a:1:0")
        assert row is not None
        bot_players.decided(row, inbound_id)
    later = start + 2 * lease
    assert claim("b:1:0", later) == bot_players.Claim.BUSY, "its decision waits: nobody decides again"
    with database.transaction() as session:
        assert bot_players.still_claimed(session, board_id, bot.id, "move 0", worker="a:1:0") is None
        session.get(InboundMessage, inbound_id).status = InboundStatus.PROCESSED
    assert claim("b:1:0", later) == bot_players.Claim.TAKEN, "applied, and the board still asks: refused, try again"


def test_a_task_whose_decisions_are_refused_again_and_again_is_given_up_once_and_then_left(database):
    with database.transaction() as session:
        bot = bot_players.sign_up_all(session, utcnow())[0]
        board_id = _a_board_with(session, bot)
    at, lease = utcnow(), timedelta(seconds=90)
    said = []
    for _ in range(bot_players.MOST_ATTEMPTS + 3):
        at += 2 * lease  # each claim's lease has ended: its worker stopped, or its decision was refused
        with database.transaction() as session:
            said.append(bot_players.claim(session, board_id, bot.id, "move 0", worker="a:1:0", now=at, lease=lease))
    taken, given_up, busy = bot_players.Claim.TAKEN, bot_players.Claim.GIVEN_UP, bot_players.Claim.BUSY
    assert said == [taken] * bot_players.MOST_ATTEMPTS + [given_up, busy, busy]
    with database.transaction() as session:
        assert bot_players.claim(session, board_id, bot.id, "move 1", worker="a:1:0", now=at, lease=lease) == taken, (
            "the next task starts afresh"
        )


def test_a_claim_let_go_does_not_count_among_the_attempts(database):
    with database.transaction() as session:
        bot = bot_players.sign_up_all(session, utcnow())[0]
        board_id = _a_board_with(session, bot)
    at, lease = utcnow(), timedelta(seconds=90)
    for _ in range(bot_players.MOST_ATTEMPTS + 2):
        with database.transaction() as session:
            assert bot_players.claim(session, board_id, bot.id, "move 0", worker="a:1:0", now=at, lease=lease) == (
                bot_players.Claim.TAKEN
            )
            row = bot_players.still_claimed(session, board_id, bot.id, "move 0", worker="a:1:0")
            bot_players.let_go(row)  # the server stopped while it thought


def _a_board_with(session, bot) -> int:
    """A board where `bot` is to move, made directly in the store."""
    from pbm.store import boards
    from pbm.timekeeping import clocks

    state = CEPHALOPOD.new(players=2, options={"size": 3})
    person = Player(userid="zoe", password_hash="x")
    session.add(person)
    session.flush()
    row = boards.start(
        session,
        "cephalopod",
        players=[bot, person],
        options={"size": 3},
        state=CEPHALOPOD.dump(state),
        secret=None,
        to_move=0,
        challenger=person,
        now=utcnow(),
        time_control=clocks.TimeControl(),
    )
    return row.id


def test_a_seek_nobody_answers_is_taken_by_the_bot_nearest_the_seekers_rating(make_mailroom):
    clock = Clock()
    room = make_mailroom(think=quick, clock=clock, bots_answer_seeks="2h")
    room.send(mail(ALICE, "signup alice alice-pw"))
    room.send(mail(ALICE, "cephalopod seek alice alice-pw 1 -size=3"))
    room.replies()
    clock.advance(hours=1)
    room.server.processor.pass_time()
    assert board(room) is None, "within the time a person may still answer it"
    clock.advance(hours=1, minutes=1)
    room.server.processor.pass_time()
    nearest = min(range(1, 5), key=lambda level: abs(bot_players.rating("cephalopod", level) - 1600))
    (started,) = room.replies()
    assert started["Subject"] == "New Cephalopod Board 101 alice"
    assert body_of(started).startswith(
        f"Nobody else sought a Cephalopod game in time, so bot{nearest} (computer, level {nearest}) took alice's seek."
    )
    with room.database.reading() as session:
        assert session.scalars(select(Seek)).all() == []
    assert [seat.player.userid for seat in board(room).seats] == ["alice", f"bot{nearest}"]


def test_a_club_may_rate_games_with_bots_against_the_ladder(make_mailroom):
    room = make_mailroom(think=quick, rate_bot_games=True)
    room.send(mail(ALICE, "signup alice alice-pw"))
    room.send(mail(ALICE, "cephalopod challenge -size=3 alice bot3"))
    alice_moves(room)
    room.play_bots()
    room.replies()
    room.send(mail(ALICE, "cephalopod resign 101 alice alice-pw"))
    ended = last_board_mail(room.replies())
    ladder = bot_players.rating("cephalopod", 3)
    with room.database.reading() as session:
        rated = {r.player.userid: (round(r.rating), r.games, r.losses) for r in session.scalars(select(Rating))}
    after = round(elo.rate([elo.START, ladder], winners={1})[0])
    assert rated == {"alice": (after, 1, 1), "bot3": (round(ladder), 1, 0)}
    assert f"alice's rating is {after} (provisional)." in body_of(ended)
    assert "bot3's rating" not in body_of(ended), "a bot's rating is the ladder's, which no game moves"


def test_a_bot_whose_search_gives_no_answer_in_time_plays_its_quick_move(room):
    room.send(mail(ALICE, "cephalopod challenge -size=3 alice bot3"))
    alice_moves(room)

    def late(question: Question, seconds: float) -> str:
        raise ThinkingFailed(f"no answer within {seconds:.0f} s")

    assert BotTurns(room.database, late, seconds=30).play_due() == 1
    room.server.processor.process_pending()
    assert board(room).move_count == 2


def test_a_bot_stopped_while_it_thinks_leaves_its_turn_to_the_next_start(room):
    room.send(mail(ALICE, "cephalopod challenge -size=3 alice bot1"))
    alice_moves(room)

    def stopped(question: Question, seconds: float) -> str:
        raise ThinkingStopped

    assert BotTurns(room.database, stopped, seconds=30).play_due() == 0
    assert room.play_bots() == 1, "at once: the stopped worker let its claim go"
    assert board(room).move_count == 2
