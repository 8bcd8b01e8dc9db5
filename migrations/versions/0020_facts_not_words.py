"""facts, not words: how a game ended and what a move did are kept as facts

`games.end_reason` (the English that followed the winners' names) becomes `games.end_fact`, a
fact as JSON (`pbm.facts.Fact.to_json`); a move's `report` keeps `fact` and `why` as facts
instead of `text` and `why` as words. Every old sentence is read back into the fact that says
it (`pbm.store.old_words`); one no template made is kept as it is, as `unconverted-words`.
The downgrade writes the English back.

Revision ID: 0020
Revises: 0019
Create Date: 2026-11-28
"""

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None


def _games(*columns: sa.ColumnClause[Any]) -> sa.TableClause:
    return sa.table("games", sa.column("id", sa.Integer), *columns)


def _drop_games_column(name: str) -> None:
    # In place, never by copying the table: SQLite drops a copied table's old rows with foreign keys
    # on, and every game's seats and moves would go with them (ALTER TABLE DROP COLUMN: SQLite 3.35).
    with op.batch_alter_table("games", schema=None, recreate="never") as batch_op:
        batch_op.drop_column(name)


_MOVES = sa.table("moves", sa.column("id", sa.Integer), sa.column("report", sa.JSON))


def upgrade() -> None:
    from pbm.store.old_words import OldWords
    from pbm.words import every_catalogue

    import pbm.games

    builtin = {"cephalopod", "cubeo", "dodeca"}
    installed = [code for game in pbm.games.all_games() if game.name not in builtin for code in game.messages]
    reader = OldWords(every_catalogue(), more_results=installed)
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("end_fact", sa.JSON(), nullable=True))
    connection = op.get_bind()
    games = _games(sa.column("end_reason", sa.Text), sa.column("end_fact", sa.JSON))
    for row in connection.execute(sa.select(games.c.id, games.c.end_reason).where(games.c.end_reason.is_not(None))):
        if row.end_reason is None:
            continue
        fact = reader.end(row.end_reason)
        connection.execute(sa.update(games).where(games.c.id == row.id).values(end_fact=fact.to_json()))
    _drop_games_column("end_reason")
    for row in connection.execute(sa.select(_MOVES.c.id, _MOVES.c.report).where(_MOVES.c.report.is_not(None))).all():
        report = dict(row.report or {})
        if "text" not in report:
            continue
        report["fact"] = reader.move(report.pop("text")).to_json()
        why = report.pop("why", "")
        if why:
            report["why"] = reader.why(why, len(report.get("eliminated", ()))).to_json()
        connection.execute(sa.update(_MOVES).where(_MOVES.c.id == row.id).values(report=report))


def downgrade() -> None:
    from pbm.facts import Fact
    from pbm.words import Words

    words = Words()
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("end_reason", sa.Text(), nullable=True))
    connection = op.get_bind()
    games = _games(sa.column("end_reason", sa.Text), sa.column("end_fact", sa.JSON))
    for row in connection.execute(sa.select(games.c.id, games.c.end_fact).where(games.c.end_fact.is_not(None))).all():
        if row.end_fact is None:
            continue  # JSON null: no ending
        said = words.say(Fact.from_json(row.end_fact))
        connection.execute(sa.update(games).where(games.c.id == row.id).values(end_reason=said))
    _drop_games_column("end_fact")
    for row in connection.execute(sa.select(_MOVES.c.id, _MOVES.c.report).where(_MOVES.c.report.is_not(None))).all():
        report = dict(row.report or {})
        if "fact" not in report:
            continue
        old: dict[str, Any] = {"text": words.say(Fact.from_json(report.pop("fact")))}
        why = report.pop("why", None)
        if report.get("eliminated"):
            old.update(eliminated=report["eliminated"], why=words.say(Fact.from_json(why)) if why else "")
        if "tally" in report:
            old["tally"] = report["tally"]
        connection.execute(sa.update(_MOVES).where(_MOVES.c.id == row.id).values(report=old))
