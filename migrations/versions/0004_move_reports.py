"""move reports and results as data: what each move did, how each game ended

Each move keeps what the engine said it did when it was played (captures, who
it put out of the game and every seat's count then), because the position
after an elimination no longer shows it. A game that is over keeps the kind
of its ending (`end_code`: the engine's result code, "resigned" or
"cancelled") beside its words, and `end_reason` now holds the words that
follow the winners' names ("won, holding 15 of the 25 cells"). Games that
ended before are given their code, and results recorded in the older words
are worded again, from the final position (or, for a resignation, from who
resigned).

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-24
"""

import re

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

_RESIGNED = re.compile(r"^(?P<userid>\S+) resigned$")


def upgrade() -> None:
    with op.batch_alter_table("moves", schema=None) as batch_op:
        batch_op.add_column(sa.Column("report", sa.JSON(), nullable=True))
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("end_code", sa.String(length=32), nullable=True))
    _record_results()


def _record_results() -> None:
    import pbm.games

    connection = op.get_bind()
    games = sa.table(
        "games",
        sa.column("id", sa.Integer),
        sa.column("game_type", sa.String),
        sa.column("status", sa.String),
        sa.column("state", sa.JSON),
        sa.column("secret", sa.LargeBinary),
        sa.column("end_reason", sa.Text),
        sa.column("end_code", sa.String),
    )
    connection.execute(sa.update(games).where(games.c.status == "cancelled").values(end_code="cancelled"))
    finished = connection.execute(
        sa.select(games.c.id, games.c.game_type, games.c.state, games.c.secret, games.c.end_reason).where(
            games.c.status == "finished"
        )
    ).all()
    for row in finished:
        if resigned := _RESIGNED.match(row.end_reason or ""):
            code, words = "resigned", f"won when {resigned['userid']} resigned"
        else:
            engine = pbm.games.get(row.game_type)
            result = engine.result(engine.load(row.state, row.secret))
            if result is None:
                continue  # not ended by the rules and not a resignation we know: left as it was
            code, words = result.code, result.reason
        connection.execute(sa.update(games).where(games.c.id == row.id).values(end_code=code, end_reason=words))


def downgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_column("end_code")
    with op.batch_alter_table("moves", schema=None) as batch_op:
        batch_op.drop_column("report")
