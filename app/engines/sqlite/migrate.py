"""Flyway-style migrations for the SQLite engine: ``V<n>__<name>.sql``, each applied once, in order.

Every applied file is recorded in SCHEMA_VERSION with its SHA-256; editing an applied file is
refused instead of silently diverging from databases that ran the old text.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

import apsw

from app.engines.base import EngineError
from app.engines.migration_files import migrations_dir
from app.engines.sqlite import statements as sql

MIGRATIONS_DIR = migrations_dir("sqlite")
_FILE_NAME = re.compile(r"V(\d+)__(\w+)\.sql")
# A migration that rebuilds tables starts with this line: SQLite's documented procedure for schema
# changes ALTER TABLE cannot make (https://sqlite.org/lang_altertable.html#otheralter) runs with
# foreign keys off, since DROP TABLE of a parent would otherwise fire its ON DELETE actions, and
# checks every foreign key before it commits.
FOREIGN_KEYS_OFF = "-- migrate: foreign_keys=off"

class MigrationError(EngineError):
    """The migration files and the database disagree; the message says which file and how."""


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    path: Path
    sql: str
    checksum: str


def discover(directory: Path = MIGRATIONS_DIR) -> list[Migration]:
    if not directory.is_dir():
        raise MigrationError(f"migration directory {directory} does not exist (is the repository checked out?)")
    found: dict[int, Migration] = {}
    for path in sorted(directory.glob("*.sql")):
        match = _FILE_NAME.fullmatch(path.name)
        if not match:
            raise MigrationError(f"{path.name}: migration files must be named V<n>__<name>.sql")
        version = int(match.group(1))
        if version in found:
            raise MigrationError(f"two migrations share version {version}: {found[version].path.name}, {path.name}")
        raw = path.read_bytes()
        found[version] = Migration(version, match.group(2), path, raw.decode("utf-8"), hashlib.sha256(raw).hexdigest())
    return [found[v] for v in sorted(found)]


def applied(conn: apsw.Connection) -> dict[int, str]:
    """Applied version -> checksum (empty on a fresh database). Does not write."""
    exists = conn.execute(sql.VERSION_TABLE_EXISTS).fetchone()
    if not exists:
        return {}
    return dict(conn.execute(sql.APPLIED_VERSIONS).fetchall())


def verify(conn: apsw.Connection, migrations: list[Migration]) -> list[Migration]:
    """Raise if an applied file changed or vanished; return the pending migrations."""
    done = applied(conn)
    by_version = {m.version: m for m in migrations}
    for version, checksum in sorted(done.items()):
        migration = by_version.get(version)
        if migration is None:
            raise MigrationError(f"version {version} is applied but its V{version}__*.sql file is missing")
        if migration.checksum != checksum:
            raise MigrationError(
                f"{migration.path.name} changed after it was applied (checksum {checksum[:12]} in the database, "
                f"{migration.checksum[:12]} on disk): restore the file and put the change in a new version"
            )
    return [m for m in migrations if m.version not in done]


def migrate(conn: apsw.Connection, directory: Path = MIGRATIONS_DIR) -> list[str]:
    """Apply pending migrations, each in its own transaction; return the versions applied now."""
    migrations = discover(directory)
    conn.execute(sql.CREATE_VERSION_TABLE)
    verify(conn, migrations)
    done_now: list[str] = []
    for migration in migrations:
        if _apply(conn, migration):
            done_now.append(str(migration.version))
    return done_now


def _apply(conn: apsw.Connection, migration: Migration) -> bool:
    """Apply one migration in its own transaction; False when another migrator got there first."""
    rebuilds = migration.sql.startswith(FOREIGN_KEYS_OFF)
    if rebuilds:
        broken = conn.execute(sql.FOREIGN_KEY_CHECK).fetchall()
        if broken:  # left by a client that ran with foreign keys off; the check after the rebuild would blame it
            raise MigrationError(
                f"{migration.path.name} was not applied: the database already has {len(broken)} broken foreign "
                f"key(s) (table, rowid, parent, fk): {broken[:5]}. Fix or delete those rows, then migrate again")
        conn.execute("PRAGMA foreign_keys = OFF")  # a no-op inside a transaction: set it before BEGIN
    # BEGIN IMMEDIATE serialises concurrent migrators; re-check inside the lock.
    conn.execute("BEGIN IMMEDIATE")
    try:
        if migration.version in applied(conn):
            conn.execute("ROLLBACK")
            return False
        conn.execute(migration.sql)
        if rebuilds:
            broken = conn.execute(sql.FOREIGN_KEY_CHECK).fetchall()
            if broken:
                raise MigrationError(f"{migration.path.name} left {len(broken)} broken foreign key(s): {broken[:5]}")
        conn.execute(sql.RECORD_VERSION, (migration.version, migration.name, migration.checksum))
        conn.execute("COMMIT")
    except BaseException as exc:
        if not conn.getautocommit():
            conn.execute("ROLLBACK")
        if isinstance(exc, apsw.Error):
            raise MigrationError(f"{migration.path.name} failed: {exc}") from exc
        raise
    finally:
        if rebuilds:
            conn.execute("PRAGMA foreign_keys = ON")
    return True
