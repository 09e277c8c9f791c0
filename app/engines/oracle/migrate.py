"""Oracle migration runner: Flyway-style ``V<n>__<description>.sql`` files, applied once each.

Scripts are written the way SQL*Plus reads them: plain statements end with ``;`` at the end of a
line; PL/SQL units (CREATE ... TRIGGER/PROCEDURE/FUNCTION/PACKAGE/TYPE, BEGIN, DECLARE) end with a
line holding a single ``/``. python-oracledb takes one statement per execute: plain statements are
sent without their ``;``, PL/SQL units with their final ``;`` and without the ``/`` (FACTS.md §10).

CREATE TRIGGER with compilation errors does not raise: python-oracledb sets ``cursor.warning``
(DPY-7000). The runner turns that into a failure carrying USER_ERRORS (FACTS.md §10).
Oracle DDL commits implicitly, so a version that fails halfway is not rolled back: fix the script,
undo what it created, and rerun; the version is recorded only after all its statements succeed. A rerun after a
process died between a version's DDL and its version row keeps the objects the catalogue shows are that DDL's own
(ORA-00955 / ORA-01430 on them, REVIEW-3 U5).
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from pathlib import Path

from app.engines.base import EngineError
from app.engines.migration_files import migrations_dir
from app.engines.oracle import schema_statements as sql
from app.engines.oracle.errors import ora_error_number
from app.engines.oracle.migration_objects import already_ours
from app.engines.oracle.task_values import backfill as backfill_task_values

log = logging.getLogger(__name__)

MIGRATIONS_DIR = migrations_dir("oracle")
_FILE_NAME = re.compile(r"V(\d+)__(\w+)\.sql")
# Data work a version needs that no confirmed SQL shape does, run after its statements and before its version row
# (so a run that dies in it runs it again; each is idempotent): V18's TASK_VALUES from the display text of V16.
AFTER_STATEMENTS = {(18, "tracker fields"): backfill_task_values}
_PLSQL_START = re.compile(
    r"^\s*(BEGIN|DECLARE|CREATE\s+(OR\s+REPLACE\s+)?"
    r"(EDITIONABLE\s+|NONEDITIONABLE\s+)?(TRIGGER|PROCEDURE|FUNCTION|PACKAGE|TYPE)\b)",
    re.IGNORECASE,
)


class MigrationError(EngineError):
    """A migration script is malformed or failed; the message names the version and statement."""


@dataclass(frozen=True)
class Migration:
    version: int
    description: str
    path: Path

    def statements(self) -> list[str]:
        return split_statements(self.path.read_text(encoding="utf-8"), self.path.name)


def discover(directory: Path = MIGRATIONS_DIR) -> list[Migration]:
    found: dict[int, Migration] = {}
    for path in sorted(directory.glob("*.sql")):
        match = _FILE_NAME.fullmatch(path.name)
        if not match:
            raise MigrationError(f"{path.name}: migration files are named V<n>__<description>.sql")
        version = int(match.group(1))
        if version in found:
            raise MigrationError(f"two migrations with version {version}: {found[version].path.name}, {path.name}")
        found[version] = Migration(version, match.group(2).replace("_", " "), path)
    return [found[v] for v in sorted(found)]


def split_statements(script: str, name: str = "<script>") -> list[str]:
    """Split a script into the statements python-oracledb executes one by one."""
    statements: list[str] = []
    current: list[str] = []
    plsql = False
    for number, line in enumerate(script.splitlines(), start=1):
        stripped = line.strip()
        if not current:
            if not stripped or stripped.startswith("--"):
                continue  # comments and blank lines between statements
            if stripped == "/":
                raise MigrationError(f"{name}:{number}: '/' without a PL/SQL block before it")
            plsql = bool(_PLSQL_START.match(line))
        if plsql:
            if stripped == "/":
                text = "\n".join(current).rstrip()
                if not text.endswith(";"):
                    raise MigrationError(f"{name}:{number}: PL/SQL block does not end with ';' before '/'")
                statements.append(text)
                current = []
            else:
                current.append(line.rstrip())
            continue
        code = without_line_comment(line).rstrip()
        if code.endswith(";"):
            # The ';' ends the statement; a '-- comment' after it is dropped with it. A comment line
            # that happens to end with ';' (code is empty) does not end anything.
            current.append(code[:-1].rstrip())
            statements.append("\n".join(current).rstrip())
            current = []
        else:
            current.append(line.rstrip())
    if current:
        kind = "PL/SQL block (missing a '/' line)" if plsql else "statement (missing ';')"
        raise MigrationError(f"{name}: unterminated {kind} at the end of the script")
    return statements


def without_line_comment(line: str) -> str:
    """The line up to a ``--`` comment that is not inside a '...' literal."""
    quoted = False
    for index, char in enumerate(line):
        if char == "'":
            quoted = not quoted
        elif char == "-" and not quoted and line.startswith("--", index):
            return line[:index]
    return line


def applied_versions(connection) -> set[int]:
    with connection.cursor() as cursor:
        cursor.execute(sql.VERSION_TABLE_EXISTS)
        (exists,) = cursor.fetchone()
        if not exists:
            cursor.execute(sql.CREATE_VERSION_TABLE)
            return set()
        cursor.execute(sql.APPLIED_VERSIONS)
        return {int(version) for (version,) in cursor.fetchall()}


def execute_checked(connection, statement: str, where: str) -> None:
    """Execute one statement; a compilation warning (DPY-7000) becomes a MigrationError. An object the statement
    creates that the catalogue shows already there, as this statement makes it, is kept: the version's earlier run
    died before its version row (REVIEW-3 U5, app/engines/oracle/migration_objects.py)."""
    with connection.cursor() as cursor:
        try:
            cursor.execute(statement)
        except Exception as exc:
            kept = already_ours(cursor, ora_error_number(exc), statement)
            if kept is None:
                raise MigrationError(f"{where} failed: {exc}\n--- statement ---\n{statement}") from exc
            state = "is already gone, as this statement drops it" if kept.kind == "dropped" else \
                "already exists as this statement creates it"
            log.warning("%s: %s %s (a run that stopped before recording its version): kept", where, kept.describe(),
                        state)
            return
        warning = cursor.warning
    if warning is not None:
        with connection.cursor() as cursor:
            cursor.execute(sql.COMPILATION_ERRORS)
            errors = "\n".join(
                f"  {name} ({kind}) line {line}, col {position}: {text}"
                for name, kind, line, position, text in cursor.fetchall()
            )
        raise MigrationError(
            f"{where} compiled with errors ({warning}):\n{errors or '  (USER_ERRORS is empty)'}"
            f"\n--- statement ---\n{statement}"
        )


def migrate(connection, migrations: list[Migration] | None = None) -> list[str]:
    """Apply pending migrations in version order; return the versions applied now."""
    migrations = discover() if migrations is None else migrations
    done = applied_versions(connection)
    applied: list[str] = []
    for migration in migrations:
        if migration.version in done:
            continue
        for index, statement in enumerate(migration.statements(), start=1):
            execute_checked(connection, statement, f"V{migration.version} statement {index}")
        after = AFTER_STATEMENTS.get((migration.version, migration.description))
        if after is not None:
            log.info("V%s: %s wrote %d task(s)", migration.version, after.__name__, after(connection))
        with connection.cursor() as cursor:
            cursor.execute(
                sql.RECORD_VERSION,
                version_no=migration.version,
                version_desc=migration.description[:200],
            )
        connection.commit()
        applied.append(str(migration.version))
    return applied


def pending(connection, migrations: list[Migration] | None = None) -> list[int]:
    """Versions not applied yet. Does not create or change anything except the version table."""
    migrations = discover() if migrations is None else migrations
    done = applied_versions(connection)
    return [m.version for m in migrations if m.version not in done]


# --- `ragctl oracle migration-rerun` (REVIEW-4 U2, §4 step 2): the rerun path proven on a real database ----------

class _Kept(logging.Handler):
    """Counts the runner's "already exists as this statement creates it ... kept" warnings."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.kept: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage().endswith(": kept"):
            self.kept.append(record.getMessage())


def catalogue(connection) -> tuple[list[tuple], list[tuple]]:
    """The schema's objects (type, name, status) and columns, as the data dictionary lists them."""
    with connection.cursor() as cursor:
        cursor.execute(sql.CATALOGUE_OBJECTS)
        objects = [tuple(row) for row in cursor.fetchall()]
        cursor.execute(sql.CATALOGUE_COLUMNS)
        return objects, [tuple(row) for row in cursor.fetchall()]


def rerun_newest(connection, migrations: list[Migration] | None = None) -> str:
    """Forget the newest applied version, as a run that died before its version row leaves it, and apply it again:
    every statement must be kept (the catalogue shows it is its own) or rerun harmlessly (CREATE OR REPLACE, DML),
    the version recorded once more and the catalogue unchanged. Raises MigrationError otherwise."""
    migrations = discover() if migrations is None else migrations
    done = applied_versions(connection)
    newest = max(done) if done else None
    if newest is None or newest != max(m.version for m in migrations):
        raise MigrationError(f"migrate first: the newest applied version is {newest}, the newest file "
                             f"V{max(m.version for m in migrations)}")
    before = catalogue(connection)
    with connection.cursor() as cursor:
        cursor.execute(sql.DELETE_NEWEST_VERSION)
    connection.commit()
    counter = _Kept()
    log.addHandler(counter)
    try:
        applied = migrate(connection, migrations)
    finally:
        log.removeHandler(counter)
    after = catalogue(connection)
    statements = len(next(m for m in migrations if m.version == newest).statements())
    if applied != [str(newest)]:
        raise MigrationError(f"the rerun applied {applied}, expected V{newest} alone")
    if after != before:
        changed = sorted(set(before[0]) ^ set(after[0])) + sorted(set(before[1]) ^ set(after[1]))
        raise MigrationError(f"V{newest} rerun changed the catalogue: {changed[:10]}")
    return (f"V{newest} rerun: {statements} statement(s), {len(counter.kept)} kept as already there, "
            f"{statements - len(counter.kept)} ran again harmlessly; version recorded, catalogue unchanged "
            f"({len(after[0])} objects, {len(after[1])} columns)")
