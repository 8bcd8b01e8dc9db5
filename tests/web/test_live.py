"""The change feed: every change a page could have missed reaches its event stream, once."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from sqlalchemy import update

from pbm.store.models import Board
from pbm.web.live import RESET, Change, GameChanges, Interest, event_stream


async def take(changes: GameChanges, after: str | None, count: int, timeout: float = 5.0) -> list:
    """The first `count` items the stream from `after` yields (keep-alives left out)."""
    taken: list = []
    stream = changes.follow(after, heartbeat=0.05)
    async with asyncio.timeout(timeout):
        async for item in stream:
            if item is not None:
                taken.append(item)
            if len(taken) == count:
                break
    await stream.aclose()
    return taken


def run(scenario):
    return asyncio.run(scenario())


def test_a_move_made_after_the_page_reaches_its_stream(database, club):
    club.signup("alice", "bob")
    club.challenge("cephalopod", "alice", "bob")

    async def scenario():
        changes = GameChanges(database)
        await changes.start()
        page_made_at = changes.position
        await asyncio.to_thread(club.move, "cephalopod", 101, "alice", "c3")
        changes.wake()
        [change] = await take(changes, page_made_at, 1)
        await changes.close()
        return change

    change = run(scenario)
    assert isinstance(change, Change)
    assert (change.game_type, change.board, change.move_count) == ("cephalopod", 101, 1)
    assert change.to_move == "bob"
    assert change.players == ("alice", "bob")


def counting_looks(changes: GameChanges) -> list[int]:
    """A list that grows by one at each look the feed takes."""
    looks: list[int] = []
    poll = changes._poll

    def counted():
        looks.append(1)
        return poll()

    changes._poll = counted
    return looks


def test_while_no_page_follows_a_burst_of_moves_costs_one_look_after_the_idle_time(database, club):
    club.signup("alice", "bob")
    club.challenge("cephalopod", "alice", "bob")

    async def scenario():
        changes = GameChanges(database, quiet_seconds=0.01, idle_seconds=2.0)
        await changes.start()
        looks = counting_looks(changes)
        for player, move in (("alice", "c3"), ("bob", "a1")):
            await asyncio.to_thread(club.move, "cephalopod", 101, player, move)
            changes.wake()
            await asyncio.sleep(0.05)
        looked_during_burst = len(looks)
        async with asyncio.timeout(10):
            while not looks:
                await asyncio.sleep(0.05)
        await asyncio.sleep(0.2)  # nothing woke the feed since: no further look comes
        await changes.close()
        return looked_during_burst, len(looks), changes.position

    looked_during_burst, looked, position = run(scenario)
    assert (looked_during_burst, looked) == (0, 1)
    assert position.endswith("-1")  # both moves, one change: the board as it stands


async def a_waiting_move(database, club) -> tuple[GameChanges, str]:
    """A started feed that no page follows, and a move announced to it after `position`."""
    club.signup("alice", "bob")
    club.challenge("cephalopod", "alice", "bob")
    changes = GameChanges(database, idle_seconds=60)
    await changes.start()
    position = changes.position
    await asyncio.to_thread(club.move, "cephalopod", 101, "alice", "c3")
    changes.wake()
    await asyncio.sleep(0.1)
    return changes, position


def test_a_stream_that_starts_while_moves_wait_gets_them_at_once(database, club):
    async def scenario():
        changes, page_made_at = await a_waiting_move(database, club)
        taken = await take(changes, page_made_at, 1, timeout=2)
        await changes.close()
        return taken

    assert [c.move_count for c in run(scenario)] == [1]


def test_a_page_opened_while_moves_wait_sees_them_in_its_position(database, club):
    async def scenario():
        changes, _ = await a_waiting_move(database, club)
        position = await changes.settled_position()
        await changes.close()
        return position

    assert run(scenario).endswith("-1")  # the move is behind the page, not news to its stream


def test_a_move_noticed_before_the_stream_opened_is_replayed_to_it(database, club):
    club.signup("alice", "bob")
    club.challenge("cephalopod", "alice", "bob")

    async def scenario():
        changes = GameChanges(database)
        await changes.start()
        page_made_at = changes.position
        await asyncio.to_thread(club.move, "cephalopod", 101, "alice", "c3")
        for game in await asyncio.to_thread(changes._poll):
            changes._publish(game)
        taken = await take(changes, page_made_at, 1)
        await changes.close()
        return taken

    assert [c.move_count for c in run(scenario)] == [1]


def test_games_that_were_there_before_the_start_are_not_news(database, club):
    club.signup("alice", "bob")
    club.challenge("cephalopod", "alice", "bob")

    async def scenario():
        changes = GameChanges(database)
        await changes.start()
        position = changes.position
        fresh = await asyncio.to_thread(changes._poll)
        await changes.close()
        return position, fresh

    position, fresh = run(scenario)
    assert position.endswith("-0")
    assert fresh == []


def test_a_change_is_told_once_however_often_the_feed_looks(database, club):
    club.signup("alice", "bob")
    club.challenge("cubeo", "alice", "bob")

    async def scenario():
        changes = GameChanges(database)
        await changes.start()
        await asyncio.to_thread(club.move, "cubeo", 101, "alice", "+0,1")
        first = await asyncio.to_thread(changes._poll)
        second = await asyncio.to_thread(changes._poll)
        await changes.close()
        return first, second

    first, second = run(scenario)
    assert [g.board for g in first] == [101]
    assert second == []


def test_a_commit_that_lands_after_a_later_one_is_still_noticed(database, club):
    club.signup("alice", "bob")
    club.challenge("cephalopod", "alice", "bob")
    club.challenge("cephalopod", "bob", "alice")

    async def scenario():
        changes = GameChanges(database)
        await changes.start()
        await asyncio.to_thread(club.move, "cephalopod", 102, "bob", "c3")
        seen_first = await asyncio.to_thread(changes._poll)
        # Board 101's move was stamped before board 102's but committed after it.
        await asyncio.to_thread(club.move, "cephalopod", 101, "alice", "c3")
        earlier = seen_first[0].updated_at - timedelta(seconds=1)
        with database.transaction() as session:
            session.execute(update(Board).where(Board.board == 101).values(updated_at=earlier))
        seen_second = await asyncio.to_thread(changes._poll)
        await changes.close()
        return seen_first, seen_second

    seen_first, seen_second = run(scenario)
    assert [g.board for g in seen_first] == [102]
    assert [g.board for g in seen_second] == [101]


def test_a_stream_further_behind_than_the_feed_keeps_is_told_to_reset(database, club):
    club.signup("alice", "bob")
    for _ in range(3):
        club.challenge("dodeca", "alice", "bob")

    async def scenario():
        changes = GameChanges(database, keep=2)
        await changes.start()
        old_position = changes.position
        for board in (101, 102, 103):
            await asyncio.to_thread(club.resign, "dodeca", board, "bob")
            for game in await asyncio.to_thread(changes._poll):
                changes._publish(game)
        taken = await take(changes, old_position, 1)
        await changes.close()
        return taken

    assert run(scenario) == [RESET]


def test_a_stream_from_before_a_restart_is_told_to_reset(database):
    async def scenario():
        changes = GameChanges(database)
        await changes.start()
        taken = await take(changes, "0badcafe-0", 1)
        await changes.close()
        return taken

    assert run(scenario) == [RESET]


def test_closing_the_feed_ends_its_streams(database):
    async def scenario():
        changes = GameChanges(database)
        await changes.start()
        items = []

        async def listen():
            async for item in changes.follow(changes.position, heartbeat=60):
                items.append(item)

        listener = asyncio.create_task(listen())
        await asyncio.sleep(0.05)
        await changes.close()
        async with asyncio.timeout(2):
            await listener
        return items

    assert run(scenario) == []


def test_a_stream_opened_after_the_feed_closed_ends_at_once(database):
    async def scenario():
        changes = GameChanges(database)
        await changes.start()
        await changes.close()
        async with asyncio.timeout(2):
            return [item async for item in changes.follow(None, heartbeat=60)]

    assert run(scenario) == []


def test_waking_a_feed_that_never_started_does_nothing(database):
    changes = GameChanges(database)
    changes.wake()

    async def scenario():
        # Started after the wake, the feed still begins at the present: nothing is pending for it.
        await changes.start()
        try:
            async with asyncio.timeout(0.5):
                return [item async for item in changes.follow(None, heartbeat=60)]
        except TimeoutError:
            return []
        finally:
            await changes.close()

    assert run(scenario) == []


def test_a_page_hears_only_of_the_games_it_shows():
    from datetime import datetime, timezone

    change = Change(1, "cubeo", 104, "active", 3, "bob", ("alice", "bob"), datetime.now(timezone.utc))
    assert change in Interest()
    assert change in Interest("cubeo")
    assert change in Interest("cubeo", 104)
    assert change in Interest(player="alice")
    assert change not in Interest("dodeca")
    assert change not in Interest("cubeo", 105)
    assert change not in Interest(player="carol")


def test_the_processor_tells_the_feed_only_once_its_mail_is_committed(make_mailroom):
    from sqlalchemy import select

    from pbm.store.models import InboundMessage
    from tests.support import mail

    room = make_mailroom(confirming=False)  # the one mail told of is the signup
    seen_by_others = []

    def told() -> None:
        with room.database.reading() as session:  # another session sees only committed rows
            seen_by_others.append(session.scalar(select(InboundMessage.status)))

    room.server.processor.on_processed = told
    room.send(mail("alice@example.org", "signup alice alice-pw"))
    assert seen_by_others == ["processed"]


def test_an_idle_event_stream_ends_with_the_position_it_has_seen_up_to(database, club):
    """The browser reopens the stream from there: it passes over what it left out already, once."""
    club.signup("alice", "bob")
    club.challenge("cephalopod", "alice", "bob")

    async def scenario():
        changes = GameChanges(database)
        await changes.start()
        page_made_at = changes.position
        await asyncio.to_thread(club.move, "cephalopod", 101, "alice", "c3")
        changes.wake()
        not_its_game = Interest(game_type="dodeca")
        async with asyncio.timeout(10):
            sent = [text async for text in event_stream(changes, page_made_at, not_its_game, idle_seconds=0.5)]
        await changes.close()
        return sent, changes.position

    sent, position = run(scenario)
    assert sent[0].startswith("retry: ")
    assert sent[-1] == f"id: {position}\n\n"
    assert not any("event: change" in text for text in sent)
