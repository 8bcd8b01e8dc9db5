"""initial schema

Revision ID: 0001
Revises: 
Create Date: 2026-11-21
"""

from alembic import op
import sqlalchemy as sa


revision = '0001'
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('board_counters',
    sa.Column('game_type', sa.String(length=32), nullable=False),
    sa.Column('next_board', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('game_type', name=op.f('pk_board_counters'))
    )
    op.create_table('games',
    sa.Column('id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), nullable=False),
    sa.Column('game_type', sa.String(length=32), nullable=False),
    sa.Column('board', sa.Integer(), nullable=False),
    sa.Column('options', sa.JSON(), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('state', sa.JSON(), nullable=False),
    sa.Column('secret', sa.LargeBinary(), nullable=True),
    sa.Column('move_count', sa.Integer(), nullable=False),
    sa.Column('to_move', sa.Integer(), nullable=True),
    sa.Column('winners', sa.JSON(), nullable=True),
    sa.Column('end_reason', sa.Text(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('finished_at', sa.DateTime(timezone=True), nullable=True),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_games')),
    sa.UniqueConstraint('game_type', 'board', name=op.f('uq_games_game_type'))
    )
    with op.batch_alter_table('games', schema=None) as batch_op:
        batch_op.create_index('ix_games_status_updated', ['status', 'updated_at'], unique=False)
        batch_op.create_index('ix_games_type_status_board', ['game_type', 'status', 'board'], unique=False)

    op.create_table('inbound_messages',
    sa.Column('id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), nullable=False),
    sa.Column('raw', sa.LargeBinary(), nullable=False),
    sa.Column('message_id', sa.String(length=998), nullable=True),
    sa.Column('dedupe_key', sa.String(length=128), nullable=True),
    sa.Column('envelope_from', sa.String(length=320), nullable=False),
    sa.Column('envelope_to', sa.Text(), nullable=False),
    sa.Column('peer', sa.String(length=128), nullable=False),
    sa.Column('received_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('note', sa.Text(), nullable=False),
    sa.Column('processed_at', sa.DateTime(timezone=True), nullable=True),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_inbound_messages')),
    sa.UniqueConstraint('dedupe_key', name=op.f('uq_inbound_messages_dedupe_key'))
    )
    with op.batch_alter_table('inbound_messages', schema=None) as batch_op:
        batch_op.create_index('ix_inbound_status_id', ['status', 'id'], unique=False)

    op.create_table('players',
    sa.Column('id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), nullable=False),
    sa.Column('userid', sa.String(length=32), nullable=False),
    sa.Column('password_hash', sa.String(length=255), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('signed_off_at', sa.DateTime(timezone=True), nullable=True),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_players')),
    sa.UniqueConstraint('userid', name=op.f('uq_players_userid'))
    )
    op.create_table('moves',
    sa.Column('id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), nullable=False),
    sa.Column('game_id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), nullable=False),
    sa.Column('number', sa.Integer(), nullable=False),
    sa.Column('seat', sa.Integer(), nullable=False),
    sa.Column('notation', sa.String(length=64), nullable=False),
    sa.Column('comment', sa.Text(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('inbound_id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), nullable=True),
    sa.ForeignKeyConstraint(['game_id'], ['games.id'], name=op.f('fk_moves_game_id_games'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['inbound_id'], ['inbound_messages.id'], name=op.f('fk_moves_inbound_id_inbound_messages')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_moves')),
    sa.UniqueConstraint('game_id', 'number', name=op.f('uq_moves_game_id'))
    )
    op.create_table('outbox_messages',
    sa.Column('id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), nullable=False),
    sa.Column('recipient', sa.String(length=320), nullable=False),
    sa.Column('message_id', sa.String(length=255), nullable=False),
    sa.Column('raw', sa.LargeBinary(), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('attempts', sa.Integer(), nullable=False),
    sa.Column('next_attempt_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('last_error', sa.Text(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('sent_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('inbound_id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), nullable=True),
    sa.Column('game_id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), nullable=True),
    sa.ForeignKeyConstraint(['game_id'], ['games.id'], name=op.f('fk_outbox_messages_game_id_games')),
    sa.ForeignKeyConstraint(['inbound_id'], ['inbound_messages.id'], name=op.f('fk_outbox_messages_inbound_id_inbound_messages')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_outbox_messages')),
    sa.UniqueConstraint('message_id', name=op.f('uq_outbox_messages_message_id'))
    )
    with op.batch_alter_table('outbox_messages', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_outbox_messages_game_id'), ['game_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_outbox_messages_inbound_id'), ['inbound_id'], unique=False)
        batch_op.create_index('ix_outbox_status_due', ['status', 'next_attempt_at'], unique=False)

    op.create_table('player_addresses',
    sa.Column('id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), nullable=False),
    sa.Column('player_id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), nullable=False),
    sa.Column('address', sa.String(length=320), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['player_id'], ['players.id'], name=op.f('fk_player_addresses_player_id_players'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_player_addresses')),
    sa.UniqueConstraint('player_id', 'position', name=op.f('uq_player_addresses_player_id'))
    )
    with op.batch_alter_table('player_addresses', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_player_addresses_address'), ['address'], unique=False)
        batch_op.create_index(batch_op.f('ix_player_addresses_player_id'), ['player_id'], unique=False)

    op.create_table('ratings',
    sa.Column('id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), nullable=False),
    sa.Column('player_id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), nullable=False),
    sa.Column('game_type', sa.String(length=32), nullable=False),
    sa.Column('rating', sa.Double(), nullable=False),
    sa.Column('games', sa.Integer(), nullable=False),
    sa.Column('wins', sa.Integer(), nullable=False),
    sa.Column('losses', sa.Integer(), nullable=False),
    sa.Column('draws', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['player_id'], ['players.id'], name=op.f('fk_ratings_player_id_players')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_ratings')),
    sa.UniqueConstraint('player_id', 'game_type', name=op.f('uq_ratings_player_id'))
    )
    with op.batch_alter_table('ratings', schema=None) as batch_op:
        batch_op.create_index('ix_ratings_type_rating', ['game_type', 'rating'], unique=False)

    op.create_table('seats',
    sa.Column('id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), nullable=False),
    sa.Column('game_id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), nullable=False),
    sa.Column('seat', sa.Integer(), nullable=False),
    sa.Column('player_id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), nullable=False),
    sa.ForeignKeyConstraint(['game_id'], ['games.id'], name=op.f('fk_seats_game_id_games'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['player_id'], ['players.id'], name=op.f('fk_seats_player_id_players')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_seats')),
    sa.UniqueConstraint('game_id', 'seat', name=op.f('uq_seats_game_id'))
    )
    with op.batch_alter_table('seats', schema=None) as batch_op:
        batch_op.create_index('ix_seats_player_game', ['player_id', 'game_id'], unique=False)



def downgrade() -> None:
    with op.batch_alter_table('seats', schema=None) as batch_op:
        batch_op.drop_index('ix_seats_player_game')

    op.drop_table('seats')
    with op.batch_alter_table('ratings', schema=None) as batch_op:
        batch_op.drop_index('ix_ratings_type_rating')

    op.drop_table('ratings')
    with op.batch_alter_table('player_addresses', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_player_addresses_player_id'))
        batch_op.drop_index(batch_op.f('ix_player_addresses_address'))

    op.drop_table('player_addresses')
    with op.batch_alter_table('outbox_messages', schema=None) as batch_op:
        batch_op.drop_index('ix_outbox_status_due')
        batch_op.drop_index(batch_op.f('ix_outbox_messages_inbound_id'))
        batch_op.drop_index(batch_op.f('ix_outbox_messages_game_id'))

    op.drop_table('outbox_messages')
    op.drop_table('moves')
    op.drop_table('players')
    with op.batch_alter_table('inbound_messages', schema=None) as batch_op:
        batch_op.drop_index('ix_inbound_status_id')

    op.drop_table('inbound_messages')
    with op.batch_alter_table('games', schema=None) as batch_op:
        batch_op.drop_index('ix_games_type_status_board')
        batch_op.drop_index('ix_games_status_updated')

    op.drop_table('games')
    op.drop_table('board_counters')
