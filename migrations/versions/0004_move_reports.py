"""move reports: what each move did, and results worded after the winners' names

Each move keeps what the engine said it did when it was played (captures, who
it put out of the game and every seat's count then), because the position
after an elimination no longer shows it. A finished game's `end_reason` now
holds the words that follow the winners' names ("won, holding 15 of the 25
cells"); results recorded in the older words are worded again from the final
position (or, for a resignation, from who resigned).

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
_NEW_WORDS = ("won", "tied")


def upgrade() -> None:
    with op.batch_alter_table("moves", schema=None) as batch_op:
        batch_op.add_column(sa.Column("report", sa.JSON(), nullable=True))
    _reword_results()


def _reword_results() -> None:
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
    )
    finished = connection.execute(
        sa.select(games.c.id, games.c.game_type, games.c.state, games.c.secret, games.c.end_reason).where(
            games.c.status == "finished"
        )
    ).all()
    for row in finished:
        reason = row.end_reason or ""
        if reason.startswith(_NEW_WORDS):
            continue
        if resigned := _RESIGNED.match(reason):
            words = f"won when {resigned['userid']} resigned"
        else:
            engine = pbm.games.get(row.game_type)
            result = engine.result(engine.load(row.state, row.secret))
            if result is None:
                continue  # not ended by the rules and not a resignation we know: left as it was
            words = result.reason
        connection.execute(sa.update(games).where(games.c.id == row.id).values(end_reason=words))


def downgrade() -> None:
    with op.batch_alter_table("moves", schema=None) as batch_op:
        batch_op.drop_column("report")
