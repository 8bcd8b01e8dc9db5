"""The migrations build exactly the schema the models describe, on every backend."""

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from pbm.store.models import Base


def test_migrated_schema_matches_the_models(database):
    with database.engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        assert compare_metadata(context, Base.metadata) == []


def test_upgrading_twice_changes_nothing(database):
    database.upgrade()
    database.upgrade()


def test_the_newest_migration_can_be_undone_and_done_again(database):
    from alembic import command

    from pbm.store.database import alembic_config

    config = alembic_config(database)
    command.downgrade(config, "-1")
    command.upgrade(config, "head")
    with database.engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        assert compare_metadata(context, Base.metadata) == []
