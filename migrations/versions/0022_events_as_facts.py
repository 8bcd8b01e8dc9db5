"""facts, not words, for the rest of a game's record: events between moves, and forfeits

`board_events.text` (English: "alice is away until 2026-12-01 10:00 UTC: their time stands still")
becomes `board_events.fact`; a forfeit on time no longer writes "Forfeit by the time rules of this
game: ..." into the move's comment (its report already holds that fact). Sentences no template of
pbm wrote are kept as `unconverted-words`. The downgrade writes the English back.

Revision ID: 0022
Revises: 0021
Create Date: 2026-11-26
"""

import re
from datetime import datetime

import sqlalchemy as sa
from alembic import op

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None

_EVENTS = sa.table(
    "board_events", sa.column("id", sa.Integer), sa.column("text", sa.Text), sa.column("fact", sa.JSON)
)
_MOVES = sa.table("moves", sa.column("id", sa.Integer), sa.column("notation", sa.String), sa.column("comment", sa.Text))
_AWAY = re.compile(r"^(?P<userid>\S+) is away until (?P<until>\d{4}-\d\d-\d\d \d\d:\d\d) UTC: their time stands still$")
_BACK = re.compile(r"^(?P<userid>\S+) is back from vacation: their time runs again$")
_FORFEIT_COMMENT = "Forfeit by the time rules of this game: %"


def event_fact(text: str) -> dict:
    """The fact an event's English said (`pbm.facts.Fact.to_json`)."""
    away, back = _AWAY.match(text), _BACK.match(text)
    if away:
        until = datetime.strptime(away["until"], "%Y-%m-%d %H:%M")
        return {"code": "event-away", "params": {"userid": away["userid"], "until": {"utc": until.isoformat()}}}
    if back:
        return {"code": "event-back", "params": {"userid": back["userid"]}}
    return {"code": "unconverted-words", "params": {"text": text}}


def upgrade() -> None:
    with op.batch_alter_table("board_events", schema=None) as batch_op:
        batch_op.add_column(sa.Column("fact", sa.JSON(), nullable=True))
    connection = op.get_bind()
    for row in connection.execute(sa.select(_EVENTS.c.id, _EVENTS.c.text)).all():
        connection.execute(sa.update(_EVENTS).where(_EVENTS.c.id == row.id).values(fact=event_fact(row.text)))
    # SQLite copies the table to make the column NOT NULL: safe here, as no table refers to
    # board_events (0020 could not copy `games`, whose seats and moves would have gone with it).
    with op.batch_alter_table("board_events", schema=None) as batch_op:
        batch_op.alter_column("fact", existing_type=sa.JSON(), nullable=False)
        batch_op.drop_column("text")
    connection.execute(sa.update(_MOVES).where(_MOVES.c.comment.like(_FORFEIT_COMMENT)).values(comment=""))


def downgrade() -> None:
    from pbm.facts import Fact
    from pbm.words import Words

    words = Words()
    with op.batch_alter_table("board_events", schema=None) as batch_op:
        batch_op.add_column(sa.Column("text", sa.Text(), nullable=True))
    connection = op.get_bind()
    for row in connection.execute(sa.select(_EVENTS.c.id, _EVENTS.c.fact)).all():
        text = words.say(Fact.from_json(row.fact))
        connection.execute(sa.update(_EVENTS).where(_EVENTS.c.id == row.id).values(text=text))
    with op.batch_alter_table("board_events", schema=None) as batch_op:
        batch_op.alter_column("text", existing_type=sa.Text(), nullable=False)
        batch_op.drop_column("fact")
