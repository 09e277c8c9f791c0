"""Access at once against what another SQLite client can do that the API never does: foreign keys
off, INSERT OR REPLACE, a changed primary key, and upgrading a database written before V5."""

from __future__ import annotations

import shutil

import apsw
import pytest

from app.engines.sqlite import migrate as migrations
from app.engines.sqlite.engine import SQLiteEngine
from app.entities import TASKS
from tests.support import document, drain_all, employee, task, visible


@pytest.fixture
def other_client(sqlite_engine):
    """A second client like the sqlite3 shell (with sqlite-vec loaded): foreign keys off, its default."""
    conn = SQLiteEngine(sqlite_engine.path)._connect()
    conn.execute("PRAGMA foreign_keys = OFF")
    yield conn
    conn.close()


def test_a_document_owner_cannot_be_deleted_even_with_foreign_keys_off(sqlite_engine, other_client):
    ana, bob = employee(sqlite_engine, "Ana", "Ruiz"), employee(sqlite_engine, "Bob", "Stone")
    doc = document(sqlite_engine, "Payroll secrets", "quarterly payroll export keys", owner_id=ana)
    drain_all(sqlite_engine)
    with pytest.raises(apsw.ConstraintError, match="owns documents"):
        other_client.execute("DELETE FROM EMPLOYEES WHERE EMPLOYEE_ID = ?", (ana,))
    assert ("doc", doc) not in visible(sqlite_engine, bob)


def test_a_dangling_document_owner_never_publishes_the_document(sqlite_engine, other_client):
    """Written around every guard (foreign keys off, owner id of nobody): the worker keeps it private."""
    bob = employee(sqlite_engine, "Bob", "Stone")
    other_client.execute("INSERT INTO DOCUMENTS (TITLE, BODY, OWNER_EMPLOYEE_ID) VALUES "
                         "('Payroll secrets', 'quarterly payroll export keys', 999)")
    drain_all(sqlite_engine)
    assert not any(t == "doc" for t, _ in visible(sqlite_engine, bob))


def test_insert_or_replace_moves_access_at_once(sqlite_engine, other_client):
    ana, bob = employee(sqlite_engine, "Ana", "Ruiz"), employee(sqlite_engine, "Bob", "Stone")
    t = task(sqlite_engine, "Quarterly payroll export", assignee_id=ana)
    drain_all(sqlite_engine)
    other_client.execute("INSERT OR REPLACE INTO TASKS (TASK_ID, TITLE, ASSIGNEE_ID) VALUES (?, ?, ?)",
                         (t, "Quarterly payroll export", bob))
    assert ("task", t) in visible(sqlite_engine, bob) and ("task", t) not in visible(sqlite_engine, ana)


def test_a_changed_id_takes_the_old_ids_chunks_with_it(sqlite_engine, other_client):
    ana = employee(sqlite_engine, "Ana", "Ruiz")
    t = task(sqlite_engine, "Quarterly payroll export", assignee_id=ana)
    drain_all(sqlite_engine)
    other_client.execute("UPDATE TASKS SET TASK_ID = 9000, ASSIGNEE_ID = NULL WHERE TASK_ID = ?", (t,))
    assert ("task", t) not in visible(sqlite_engine, ana)
    assert sqlite_engine.get(TASKS, 9000)["assignee_id"] is None


def _v4_database(tmp_path):
    directory = tmp_path / "migrations"
    directory.mkdir()
    for path in migrations.MIGRATIONS_DIR.glob("V[1234]__*.sql"):
        shutil.copy(path, directory)
    conn = SQLiteEngine(str(tmp_path / "old.db")).conn
    assert migrations.migrate(conn, directory) == ["1", "2", "3", "4"]
    return conn, directory


def test_the_upgrade_never_hands_out_an_indexed_id_and_brings_old_chunks_in_step(tmp_path):
    """Before V5 the worker could lag: Eve (the highest id) and task 3 are gone, their chunks are not."""
    conn, directory = _v4_database(tmp_path)
    conn.execute("INSERT INTO EMPLOYEES (EMPLOYEE_ID, FIRST_NAME) VALUES (1, 'Mia'), (2, 'Ana')")
    conn.execute("INSERT INTO TASKS (TASK_ID, TITLE, ASSIGNEE_ID) VALUES (2, 'ours', 2)")
    conn.execute("INSERT INTO RAG_CHUNK (SOURCE_TYPE, SOURCE_ID, CHUNK_IX, OWNER_EMPLOYEE_ID, AUDIENCE, CONTENT,"
                 " CONTENT_HASH) VALUES ('task', 2, 0, 3, 3, 'Eve secret salary review', 'h'),"
                 " ('task', 3, 0, 3, 3, 'deleted task text', 'h')")
    shutil.copy(next(migrations.MIGRATIONS_DIR.glob("V5__*.sql")), directory)
    assert migrations.migrate(conn, directory) == ["5"]
    assert conn.execute("SELECT SOURCE_ID, OWNER_EMPLOYEE_ID, AUDIENCE FROM RAG_CHUNK").fetchall() == [(2, 2, 2)]
    conn.execute("INSERT INTO EMPLOYEES (FIRST_NAME) VALUES ('Zed')")
    conn.execute("INSERT INTO TASKS (TITLE) VALUES ('new')")
    assert conn.execute("SELECT MAX(EMPLOYEE_ID) FROM EMPLOYEES").fetchone() == (4,)  # not Eve's 3
    assert conn.execute("SELECT MAX(TASK_ID) FROM TASKS").fetchone() == (4,)  # not the deleted task's 3


def test_the_upgrade_names_foreign_keys_broken_before_it(tmp_path):
    conn, directory = _v4_database(tmp_path)
    conn.execute("PRAGMA foreign_keys = OFF")
    conn.execute("INSERT INTO TASKS (TASK_ID, TITLE, ASSIGNEE_ID) VALUES (1, 't', 42)")
    conn.execute("PRAGMA foreign_keys = ON")
    shutil.copy(next(migrations.MIGRATIONS_DIR.glob("V5__*.sql")), directory)
    with pytest.raises(migrations.MigrationError, match="already has 1 broken foreign key"):
        migrations.migrate(conn, directory)
    assert conn.execute("SELECT MAX(VERSION) FROM SCHEMA_VERSION").fetchone() == (4,)
