"""The migrations build exactly the schema the models describe, on every backend."""

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from pbm.store.models import Base


def test_migrated_schema_matches_the_models(database):
    with database.engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        assert compare_metadata(context, Base.metadata) == []


def test_upgrading_twice_changes_nothing(database):
    def revision_and_schema():
        with database.engine.connect() as connection:
            context = MigrationContext.configure(connection, opts={"compare_type": True})
            return context.get_current_revision(), compare_metadata(context, Base.metadata)

    database.upgrade()
    once = revision_and_schema()
    database.upgrade()
    assert revision_and_schema() == once
    assert once[1] == [] and once[0] is not None


def test_the_newest_migration_can_be_undone_and_done_again(database):
    from alembic import command

    from pbm.store.database import alembic_config

    config = alembic_config(database)
    command.downgrade(config, "-1")
    command.upgrade(config, "head")
    with database.engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        assert compare_metadata(context, Base.metadata) == []


def test_results_recorded_before_get_their_code_and_are_worded_after_the_winners_names(database):
    """0004: a finished game gets the code of its ending, and its end_reason the words after the winners' names."""
    from datetime import datetime, timezone

    from alembic import command
    from sqlalchemy import JSON, column, insert, select, table

    import pbm.games
    from pbm.facts import Fact
    from pbm.store.database import alembic_config
    from pbm.store.models import Board
    from pbm.words import Words

    config = alembic_config(database)
    command.downgrade(config, "0003")
    cephalopod = pbm.games.get("cephalopod")
    full = cephalopod.from_position("a1a1b1/b1a1b1/a1b1a1 b")
    old_words = {
        101: ("Paren wins, holding 5 of the 9 cells", ("most-cells", "won, holding 5 of the 9 cells")),
        102: ("alice resigned", ("resigned", "won when alice resigned")),
        103: ("won, holding 5 of the 9 cells", ("most-cells", "won, holding 5 of the 9 cells")),
    }
    # The games table as 0003 left it: the model's has columns added since.
    games_0003 = table(
        "games",
        *(column(name) for name in ("game_type", "board", "status", "move_count", "to_move", "end_reason")),
        *(column(name) for name in ("created_at", "updated_at")),
        *(column(name, JSON) for name in ("options", "state", "winners")),
    )
    with database.engine.begin() as connection:
        for board, (old, _) in old_words.items():
            connection.execute(
                insert(games_0003).values(
                    game_type="cephalopod",
                    board=board,
                    options={},
                    created_at=datetime.now(timezone.utc),
                    updated_at=datetime.now(timezone.utc),
                    status="finished",
                    state=cephalopod.dump(full),
                    move_count=9,
                    to_move=None,
                    winners=[0],
                    end_reason=old,
                )
            )
    command.upgrade(config, "head")
    with database.engine.connect() as connection:
        rows = connection.execute(select(Board.board, Board.end_code, Board.end_fact)).all()
    # Kept as facts since 0020: their words are what 0004 wrote.
    ended = {board: (code, Words().say(Fact.from_json(fact))) for board, code, fact in rows}
    assert ended == {b: new for b, (_, new) in old_words.items()}


def test_wrong_passwords_counted_before_count_as_strangers_after(database):
    """0016: whoever sent the wrong passwords a player had, they count as those of the addresses the
    player never registered: guessing stays slowed, and no player's own address waits. The players
    keep everything else (their addresses, which a copied table would have taken along)."""
    from datetime import datetime, timezone

    from alembic import command
    from sqlalchemy import select, text

    from pbm.store.database import alembic_config
    from pbm.store.models import PasswordWait, PlayerAddress

    config = alembic_config(database)
    command.downgrade(config, "0015")
    until = datetime(2026, 11, 23, 12, 0, tzinfo=timezone.utc)
    with database.engine.begin() as connection:
        for userid, failures, locked_until in (("alice", 7, until), ("bob", 0, None), ("carol", 2, None)):
            connection.execute(
                text(
                    "INSERT INTO players (userid, password_hash, created_at, password_failures, password_locked_until)"
                    " VALUES (:userid, 'hash', :now, :failures, :until)"
                ),
                {"userid": userid, "now": until, "failures": failures, "until": locked_until},
            )
        connection.execute(
            text(
                "INSERT INTO player_addresses (player_id, address, position) SELECT id, 'a@example.org', 0 FROM players"
            )
        )
    command.upgrade(config, "head")
    with database.reading() as session:
        waits = session.execute(
            select(PasswordWait.sender, PasswordWait.failures, PasswordWait.until).order_by(PasswordWait.player_id)
        ).all()
        addresses = session.scalars(select(PlayerAddress.address)).all()
    assert [tuple(wait) for wait in waits] == [("", 7, until), ("", 2, None)]
    assert addresses == ["a@example.org"] * 3


def test_reset_mails_queued_before_lose_their_tokens_once_gone(database):
    """0017: a reset mail that went, or never will, keeps no token; one still waiting keeps it until it goes."""
    from datetime import datetime, timezone

    from alembic import command
    from sqlalchemy import select, text

    from pbm.store.database import alembic_config
    from pbm.store.models import OutboxMessage

    config = alembic_config(database)
    command.downgrade(config, "0016")
    now = datetime(2026, 11, 23, 12, 0, tzinfo=timezone.utc)
    token = "reset-" + "0123456789abcdef" * 2
    with database.engine.begin() as connection:
        for number, (status, kind) in enumerate(
            [("sent", "password_reset"), ("failed", "password_reset"), ("pending", "password_reset"), ("sent", "board")]
        ):
            connection.execute(
                text(
                    "INSERT INTO outbox_messages (recipient, message_id, raw, status, kind, attempts,"
                    " next_attempt_at, last_error, created_at) VALUES ('a@example.org', :id, :raw, :status, :kind,"
                    " 0, :now, '', :now)"
                ),
                {
                    "id": f"<{number}@pbm>",
                    "raw": f"Reply-To: PBeM Server <pbm+{token}@localhost>\n\nhi\n".encode(),
                    "status": status,
                    "kind": kind,
                    "now": now,
                },
            )
    command.upgrade(config, "head")
    with database.reading() as session:
        rows = session.execute(
            select(OutboxMessage.raw, OutboxMessage.raw_without_secret).order_by(OutboxMessage.id)
        ).all()
    kept = b"Reply-To: PBeM Server <pbm+removed@localhost>\n\nhi\n"
    original = f"Reply-To: PBeM Server <pbm+{token}@localhost>\n\nhi\n".encode()
    assert [tuple(row) for row in rows] == [(kept, None), (kept, None), (original, kept), (original, None)]


def test_addresses_in_use_when_confirmations_begin_count_as_confirmed(database):
    """0019: every player's address already in use is confirmed for that player, whatever its case."""
    from datetime import datetime, timezone

    from alembic import command
    from sqlalchemy import column, insert, select, table

    from pbm.store.database import alembic_config
    from pbm.store.models import AddressConfirmation

    config = alembic_config(database)
    command.downgrade(config, "0015")
    players_0015 = table("players", *(column(n) for n in ("id", "userid", "password_hash", "created_at")))
    addresses_0015 = table("player_addresses", *(column(n) for n in ("player_id", "address", "position")))
    with database.engine.begin() as connection:
        connection.execute(
            insert(players_0015).values(id=1, userid="alice", password_hash="x", created_at=datetime.now(timezone.utc))
        )
        connection.execute(
            insert(addresses_0015),
            [
                {"player_id": 1, "address": "Alice@example.org", "position": 0},
                {"player_id": 1, "address": "alice@work.example", "position": 1},
            ],
        )
    command.upgrade(config, "head")
    with database.engine.connect() as connection:
        rows = connection.execute(
            select(AddressConfirmation.player_id, AddressConfirmation.address, AddressConfirmation.confirmed_at)
        ).all()
    assert sorted((player, address) for player, address, _ in rows) == [
        (1, "alice@example.org"),
        (1, "alice@work.example"),
    ]
    assert all(confirmed is not None for _, _, confirmed in rows)


def test_words_kept_before_0020_become_facts_and_the_downgrade_writes_them_back(database):
    """0020: a game's ending and each move's report, stored in English, are read back into facts
    (a sentence no template made is kept as it is); the downgrade gives back the same words."""
    from datetime import datetime, timezone

    from alembic import command
    from sqlalchemy import JSON, column, insert, select, table

    from pbm.facts import Fact
    from pbm.store.database import alembic_config
    from pbm.words import Words

    config = alembic_config(database)
    command.downgrade(config, "0019")
    now = datetime.now(timezone.utc)
    games = table(
        "games",
        *(column(name) for name in ("id", "game_type", "board", "status", "move_count", "to_move", "end_reason")),
        *(column(name) for name in ("end_code", "created_at", "updated_at")),
        *(column(name, JSON) for name in ("options", "state", "winners")),
    )
    moves = table(
        "moves",
        *(column(name) for name in ("id", "game_id", "number", "seat", "notation", "comment", "created_at")),
        column("report", JSON),
    )
    endings = {
        101: "won when bob forfeited on time (no move in 21 days)",
        102: "alice won, holding 13 of the 25 cells in the first round",
        103: "Paren wins, as an old version said",
    }
    filling = {
        "text": "played e1, filling the board",
        "eliminated": [2],
        "why": "is out, holding the fewest cells (7) when the board filled up with a tie for first place",
        "tally": [9, 9, 7],
    }
    reports = [{"text": "played c3=b3+d3, capturing 2 dice (a 1 and a 2)"}, filling, {"text": "resigned"}]
    with database.engine.begin() as connection:
        for board, words in endings.items():
            connection.execute(
                insert(games).values(
                    id=board, game_type="cephalopod", board=board, options={}, created_at=now, updated_at=now,
                    status="finished", state={}, move_count=3, to_move=None, winners=[0], end_code="x",
                    end_reason=words,
                )
            )  # fmt: skip
        for number, report in enumerate(reports, start=1):
            connection.execute(
                insert(moves).values(
                    game_id=101, number=number, seat=0, notation="c3", comment="", created_at=now, report=report
                )
            )
    command.upgrade(config, "head")
    with database.engine.connect() as connection:
        ended = dict(connection.execute(select(games.c.id, column("end_fact", JSON)).select_from(games)).all())
        kept = [row.report for row in connection.execute(select(moves.c.report).order_by(moves.c.number))]
    assert Fact.from_json(ended[101]) == Fact(
        "won-when-left",
        userid="bob",
        did=Fact("forfeited-on-time", why=Fact("no-move-in", span=Fact("days", count=21))),
    )
    assert Fact.from_json(ended[103]) == Fact("unconverted-words", text="Paren wins, as an old version said")
    assert {board: Words().say(Fact.from_json(fact)) for board, fact in ended.items()} == endings
    codes = [Fact.from_json(report["fact"]).code for report in kept]
    assert codes == ["cephalopod-captured", "cephalopod-filled", "resigned"]
    assert kept[1]["why"] == Fact("cephalopod-out-holding-fewest", fewest=7).to_json()
    assert (kept[1]["eliminated"], kept[1]["tally"]) == ([2], [9, 9, 7])
    command.downgrade(config, "0019")
    with database.engine.connect() as connection:
        assert dict(connection.execute(select(games.c.id, games.c.end_reason)).all()) == endings
        assert [row.report for row in connection.execute(select(moves.c.report).order_by(moves.c.number))] == reports
    command.upgrade(config, "head")


def test_events_kept_as_words_before_0022_become_facts_and_forfeit_comments_go(database):
    """0022: a board's events, stored in English, are read back into facts (one no template made is
    kept as it is); a forfeit on time keeps no English comment, its report says it; the downgrade
    gives back the same words."""
    from datetime import datetime, timezone

    from alembic import command
    from sqlalchemy import JSON, column, insert, select, table

    from pbm.facts import Fact
    from pbm.store.database import alembic_config
    from pbm.words import Words

    config = alembic_config(database)
    command.downgrade(config, "0021")
    now = datetime.now(timezone.utc)
    games = table(
        "games",
        *(column(name) for name in ("id", "game_type", "board", "status", "move_count", "to_move")),
        *(column(name) for name in ("created_at", "updated_at")),
        *(column(name, JSON) for name in ("options", "state", "winners")),
    )
    events = table("board_events", *(column(name) for name in ("id", "game_id", "after_move", "text", "created_at")))
    moves = table(
        "moves", *(column(name) for name in ("id", "game_id", "number", "seat", "notation", "comment", "created_at"))
    )
    said = [
        "bob is away until 2026-12-01 10:00 UTC: their time stands still",
        "bob is back from vacation: their time runs again",
        "bob went fishing",
    ]
    with database.engine.begin() as connection:
        connection.execute(
            insert(games).values(
                id=101, game_type="cephalopod", board=101, options={}, created_at=now, updated_at=now,
                status="active", state={}, move_count=2, to_move=0, winners=[],
            )
        )  # fmt: skip
        for text in said:
            connection.execute(insert(events).values(game_id=101, after_move=1, text=text, created_at=now))
        for number, comment in enumerate(["good luck", "Forfeit by the time rules of this game: no move in 21 days."]):
            connection.execute(
                insert(moves).values(
                    game_id=101, number=number + 1, seat=0, notation="c3", comment=comment, created_at=now
                )
            )
    command.upgrade(config, "head")
    with database.engine.connect() as connection:
        facts = [
            Fact.from_json(f)
            for f in connection.execute(
                select(column("fact", JSON)).select_from(events).order_by(column("id"))
            ).scalars()
        ]
        comments = list(connection.execute(select(moves.c.comment).order_by(moves.c.number)).scalars())
    assert facts[0] == Fact("event-away", userid="bob", until=datetime(2026, 12, 1, 10, 0))
    assert facts[1] == Fact("event-back", userid="bob")
    assert facts[2] == Fact("unconverted-words", text="bob went fishing")
    assert [Words().say(fact) for fact in facts] == said
    assert comments == ["good luck", ""]
    command.downgrade(config, "0021")
    with database.engine.connect() as connection:
        assert list(connection.execute(select(events.c.text).order_by(events.c.id)).scalars()) == said
    command.upgrade(config, "head")


def test_the_first_upgrade_of_a_new_sqlite_database_prints_no_warning(tmp_path):
    """``make run`` upgrades a new database first: SQLAlchemy warned that it could not reflect the
    expression index on players (SQLite's batch migrations reflect the tables a table refers to),
    which the index survives, as checked here."""
    import sqlite3
    import warnings

    from pbm.store.database import Database

    database = Database(f"sqlite:///{tmp_path}/pbm.db")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            database.upgrade()
    finally:
        database.dispose()
    with sqlite3.connect(tmp_path / "pbm.db") as connection:
        (sql,) = connection.execute(
            "SELECT sql FROM sqlite_master WHERE name = 'ix_players_lower_signup_sender_created'"
        ).fetchone()
    assert "lower(signup_sender)" in sql
