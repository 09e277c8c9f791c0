"""The migration runner on a real SQLite file: once, in order, recorded, and tamper-evident."""

from __future__ import annotations

import shutil

import pytest

from app.engines.base import EngineError
from app.engines.sqlite import migrate as migrations
from app.engines.sqlite.engine import SQLiteEngine
from app.engines.sqlite.migrate import MigrationError


def test_migrations_apply_once_in_order_and_are_recorded(sqlite_settings, embedder):
    engine = SQLiteEngine.open(sqlite_settings, embedder=embedder)
    try:
        with pytest.raises(EngineError, match="not migrated"):
            engine.ping()
        files = migrations.discover()
        applied = engine.migrate()
        assert applied == [str(m.version) for m in files] and applied[:3] == ["1", "2", "3"]
        rows = engine.conn.execute("SELECT VERSION, NAME, CHECKSUM, APPLIED_AT FROM SCHEMA_VERSION ORDER BY VERSION").fetchall()
        assert [(v, n, c) for v, n, c, _ in rows] == [(m.version, m.name, m.checksum) for m in files]
        assert all(at for *_, at in rows)
        assert engine.migrate() == []  # nothing twice
        engine.ping()
    finally:
        engine.close()


def test_changed_applied_migration_is_refused(tmp_path, sqlite_engine):
    directory = tmp_path / "migrations"
    shutil.copytree(migrations.MIGRATIONS_DIR, directory)
    conn = SQLiteEngine(str(tmp_path / "other.db")).conn
    assert migrations.migrate(conn, directory)
    first = sorted(directory.glob("V1__*.sql"))[0]
    first.write_text(first.read_text() + "\n-- edited after it was applied\n")
    with pytest.raises(MigrationError, match="changed after it was applied"):
        migrations.migrate(conn, directory)


def test_failing_migration_rolls_back_and_is_not_recorded(tmp_path):
    directory = tmp_path / "migrations"
    directory.mkdir()
    (directory / "V1__ok.sql").write_text("CREATE TABLE A (X INTEGER);")
    (directory / "V2__broken.sql").write_text("CREATE TABLE B (X INTEGER); INSERT INTO NOPE VALUES (1);")
    conn = SQLiteEngine(str(tmp_path / "m.db")).conn
    with pytest.raises(MigrationError, match="V2__broken.sql"):
        migrations.migrate(conn, directory)
    assert conn.execute("SELECT VERSION FROM SCHEMA_VERSION").fetchall() == [(1,)]
    assert not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'B'").fetchall()


def test_badly_named_file_is_refused(tmp_path):
    (tmp_path / "V1_core.sql").write_text("SELECT 1;")
    with pytest.raises(MigrationError, match="V<n>__<name>.sql"):
        migrations.discover(tmp_path)
