"""The migration runner on a real SQLite file: once, in order, recorded, and tamper-evident."""

from __future__ import annotations

import shutil

import apsw
import pytest

from app.domain import TurnFacts
from app.engines.base import EngineError
from app.engines.sqlite import migrate as migrations
from app.engines.sqlite import statements as sql
from app.engines.sqlite.engine import SQLiteEngine
from app.engines.sqlite.migrate import MigrationError
from app.entities import DOCUMENTS


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


def test_v4_adds_doc_type_and_requeues_the_typed_documents_that_have_chunks(tmp_path):
    """An upgraded database: doc chunks written before V4 have no DOC_TYPE, so their typed documents
    are queued again for the worker to write it (nothing else is queued)."""
    directory = tmp_path / "migrations"
    directory.mkdir()
    for path in migrations.MIGRATIONS_DIR.glob("V[123]__*.sql"):
        shutil.copy(path, directory)
    conn = SQLiteEngine(str(tmp_path / "old.db")).conn
    assert migrations.migrate(conn, directory) == ["1", "2", "3"]
    conn.execute("INSERT INTO DOCUMENTS (DOCUMENT_ID, TITLE, DOC_TYPE) VALUES (1, 'a', 'WIKI'), (2, 'b', NULL),"
                 " (3, 'c', 'WIKI')")
    conn.execute("INSERT INTO RAG_CHUNK (SOURCE_TYPE, SOURCE_ID, CHUNK_IX, AUDIENCE, CONTENT, CONTENT_HASH)"
                 " VALUES ('doc', 1, 0, 0, 'a', 'h'), ('doc', 2, 0, 0, 'b', 'h')")
    conn.execute("DELETE FROM RAG_DIRTY")
    shutil.copy(next(migrations.MIGRATIONS_DIR.glob("V4__*.sql")), directory)
    assert migrations.migrate(conn, directory) == ["4"]
    assert conn.execute("SELECT SOURCE_TYPE, SOURCE_ID, ACTION FROM RAG_DIRTY").fetchall() == [("doc", 1, "UPSERT")]
    assert conn.execute("SELECT DOC_TYPE FROM RAG_CHUNK").fetchall() == [(None,), (None,)]


def test_v5_rebuilds_the_source_tables_keeping_rows_triggers_and_foreign_keys(tmp_path):
    """An upgraded database: V5 rebuilds the six source tables with AUTOINCREMENT (foreign keys off
    while it runs); every row, id and reference survives, the queue triggers still fire, foreign keys
    are enforced again afterwards, and the highest deleted id is never handed out again."""
    directory = tmp_path / "migrations"
    directory.mkdir()
    for path in migrations.MIGRATIONS_DIR.glob("V[1234]__*.sql"):
        shutil.copy(path, directory)
    conn = SQLiteEngine(str(tmp_path / "old.db")).conn
    assert migrations.migrate(conn, directory) == ["1", "2", "3", "4"]
    conn.execute("INSERT INTO EMPLOYEES (EMPLOYEE_ID, FIRST_NAME) VALUES (1, 'Mia'), (2, 'Ana'), (3, 'Bob')")
    conn.execute("INSERT INTO PROJECTS (PROJECT_ID, NAME) VALUES (1, 'Apollo')")
    conn.execute("INSERT INTO SPRINTS (SPRINT_ID, PROJECT_ID, NAME) VALUES (1, 1, 'S1')")
    conn.execute("INSERT INTO TASKS (TASK_ID, TITLE, PROJECT_ID, SPRINT_ID, ASSIGNEE_ID) VALUES (7, 't', 1, 1, 3)")
    conn.execute("INSERT INTO COMMENTS (COMMENT_ID, TASK_ID, AUTHOR_ID, BODY) VALUES (9, 7, 2, 'hi')")
    conn.execute("INSERT INTO DOCUMENTS (DOCUMENT_ID, TITLE, PROJECT_ID, OWNER_EMPLOYEE_ID) VALUES (4, 'd', 1, 2)")
    before = {t: conn.execute(f"SELECT * FROM {t} ORDER BY 1").fetchall()
              for t in ("EMPLOYEES", "PROJECTS", "SPRINTS", "TASKS", "COMMENTS", "DOCUMENTS")}
    conn.execute("DELETE FROM RAG_DIRTY")
    shutil.copy(next(migrations.MIGRATIONS_DIR.glob("V5__*.sql")), directory)
    assert migrations.migrate(conn, directory) == ["5"]
    assert {t: conn.execute(f"SELECT * FROM {t} ORDER BY 1").fetchall() for t in before} == before
    assert conn.execute("PRAGMA foreign_keys").fetchone() == (1,)
    assert not conn.execute("PRAGMA foreign_key_check").fetchall()
    sql = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'EMPLOYEES'").fetchone()[0]
    assert "AUTOINCREMENT" in sql
    conn.execute("UPDATE TASKS SET TITLE = 'u' WHERE TASK_ID = 7")  # V3's queue trigger, created again
    assert conn.execute("SELECT SOURCE_TYPE, SOURCE_ID FROM RAG_DIRTY").fetchall() == [("task", 7)]
    with pytest.raises(apsw.ConstraintError):
        conn.execute("INSERT INTO TASKS (TITLE, ASSIGNEE_ID) VALUES ('x', 99)")
    conn.execute("DELETE FROM COMMENTS WHERE AUTHOR_ID = 3")
    conn.execute("DELETE FROM EMPLOYEES WHERE EMPLOYEE_ID = 3")  # the highest id
    assert conn.execute("SELECT ASSIGNEE_ID FROM TASKS WHERE TASK_ID = 7").fetchone() == (None,)
    conn.execute("INSERT INTO EMPLOYEES (FIRST_NAME) VALUES ('Neo')")
    assert conn.execute("SELECT MAX(EMPLOYEE_ID) FROM EMPLOYEES").fetchone() == (4,)


def test_v6_adds_conversations_and_project_summaries_to_an_upgraded_database(tmp_path, embedder):
    """A database at V5 with data: V6 adds the tables and the summary columns, keeps every row, and
    the engine's conversation methods work on it."""
    directory = tmp_path / "migrations"
    directory.mkdir()
    for path in migrations.MIGRATIONS_DIR.glob("V[12345]__*.sql"):
        shutil.copy(path, directory)
    db = str(tmp_path / "old.db")
    conn = SQLiteEngine(db).conn
    assert migrations.migrate(conn, directory) == ["1", "2", "3", "4", "5"]
    conn.execute("INSERT INTO EMPLOYEES (FIRST_NAME, ROLE) VALUES ('Ana', 'DEVELOPER')")
    conn.execute("INSERT INTO PROJECTS (NAME, DESCRIPTION) VALUES ('Apollo', 'Launch')")
    conn.execute("DELETE FROM RAG_DIRTY")
    shutil.copy(next(migrations.MIGRATIONS_DIR.glob("V6__*.sql")), directory)
    assert migrations.migrate(conn, directory) == ["6"]
    assert conn.execute("SELECT NAME, DESCRIPTION, AUTO_SUMMARY, AUTO_SUMMARY_AT FROM PROJECTS").fetchall() == [
        ("Apollo", "Launch", None, None)]
    assert conn.execute("SELECT COUNT(*) FROM RAG_DIRTY").fetchone() == (0,)  # nothing to re-index
    index = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'MESSAGES_CONVERSATION_IDX'").fetchone()[0]
    assert "(CONVERSATION_ID, MESSAGE_ID)" in index
    with pytest.raises(apsw.ConstraintError):  # the CHECK refuses a scope another client writes badly
        conn.execute("INSERT INTO CONVERSATIONS (EMPLOYEE_ID, RAG_SCOPE) VALUES (1, '0')")
    # V7 adds the fingerprint of a summary's inputs: unknown (NULL) for every existing project.
    shutil.copy(next(migrations.MIGRATIONS_DIR.glob("V7__*.sql")), directory)
    assert migrations.migrate(conn, directory) == ["7"]
    assert conn.execute("SELECT AUTO_SUMMARY_INPUTS FROM PROJECTS").fetchall() == [(None,)]
    # V9 adds what each answer rested on; a message written before it reads with empty facts.
    conn.execute("INSERT INTO CONVERSATIONS (EMPLOYEE_ID, RAG_SCOPE) VALUES (1, 'all')")
    conn.execute("INSERT INTO MESSAGES (CONVERSATION_ID, ROLE, CONTENT) VALUES (1, 'assistant', 'old answer')")
    for path in migrations.MIGRATIONS_DIR.glob("V[89]__*.sql"):
        shutil.copy(path, directory)
    assert migrations.migrate(conn, directory) == ["8", "9"]
    # The rest (V12 among them: an answer's entities, none recorded for one written before it).
    for path in migrations.MIGRATIONS_DIR.glob("V*__*.sql"):
        shutil.copy(path, directory)
    assert "12" in migrations.migrate(conn, directory)
    engine = SQLiteEngine(db, embedder=embedder)
    old = engine.list_messages(1, None, 10).items
    assert [(m.content, m.facts) for m in old] == [("old answer", TurnFacts())]
    try:
        conv = engine.create_conversation(1, "1", 1, "upgraded")
        user, answer = engine.append_turn(conv.conversation_id, "q", "a", ["[PROJECT #1]"])
        assert [m.message_id for m in engine.recent_messages(conv.conversation_id, 5)] == [user.message_id,
                                                                                            answer.message_id]
        assert engine.set_project_summary(1, "Apollo launches.") and engine.projects_for_matching()[0].auto_summary
    finally:
        engine.close()


def test_v8_rebuilds_the_lexical_index_with_stemming_and_keeps_every_chunk_searchable(tmp_path, embedder):
    """A database at V7 with indexed chunks: V8 recreates RAG_FTS with the porter tokenizer and
    refills it, so old chunks match stemmed words, and the chunk triggers keep it in step."""
    from app.domain import Caller, Role, Scope
    from tests.support import document, drain_all

    directory = tmp_path / "migrations"
    directory.mkdir()
    for path in migrations.MIGRATIONS_DIR.glob("V[1234567]__*.sql"):
        shutil.copy(path, directory)
    db = str(tmp_path / "v7.db")
    engine = SQLiteEngine(db, embedder=embedder)
    try:
        assert migrations.migrate(engine.conn, directory)[-1] == "7"
        doc = document(engine, "Runbook", "The nightly jobs keep running when the tumours table grows.")
        drain_all(engine)
        match = "SELECT rowid FROM RAG_FTS WHERE RAG_FTS MATCH ?"
        assert engine.conn.execute(match, ("tumour",)).fetchall() == []  # unicode61 alone: no stemming
        shutil.copy(next(migrations.MIGRATIONS_DIR.glob("V8__*.sql")), directory)
        assert migrations.migrate(engine.conn, directory) == ["8"]
        (chunk_id,) = engine.conn.execute("SELECT CHUNK_ID FROM RAG_CHUNK WHERE SOURCE_ID = ?", (doc,)).fetchone()
        for word in ("tumour", "runs", "job", "RUNBOOK", "grow"):
            assert engine.conn.execute(match, (word,)).fetchall() == [(chunk_id,)], word
        engine.conn.execute("INSERT INTO RAG_FTS (RAG_FTS, rank) VALUES ('integrity-check', 1)")  # index = content
        manager = Caller(1, Role.MANAGER)
        found = engine.search(engine.embed_query("tumour"), "tumour", manager, 5, Scope(), "lexical")
        assert [(h.source_type, h.source_id) for h in found.hits] == [("doc", doc)]
        engine.update(DOCUMENTS, doc, {"BODY": "Archived."})  # the triggers write into the new table
        drain_all(engine)
        assert engine.conn.execute(match, ("tumour",)).fetchall() == []
        assert engine.conn.execute(match, ("archive",)).fetchall() == [(chunk_id,)]
    finally:
        engine.close()


def test_v11_queues_every_task_and_keeps_existing_rows_native(tmp_path):
    """An upgraded database: every task's chunk text changes (comment authors and dates), so V11 queues them
    all; existing rows get NULL keys, and the widened rename trigger reaches the tasks a person commented on."""
    directory = tmp_path / "migrations"
    directory.mkdir()
    for path in migrations.MIGRATIONS_DIR.glob("V*.sql"):
        if int(path.name[1:].split("__")[0]) <= 10:
            shutil.copy(path, directory)
    conn = SQLiteEngine(str(tmp_path / "v10.db")).conn
    assert migrations.migrate(conn, directory)[-1] == "10"
    conn.execute("INSERT INTO EMPLOYEES (EMPLOYEE_ID, FIRST_NAME) VALUES (1, 'Chen'), (2, 'Ana')")
    conn.execute("INSERT INTO TASKS (TASK_ID, TITLE, ASSIGNEE_ID) VALUES (1, 'a', 2), (2, 'b', NULL), (3, 'c', NULL)")
    conn.execute("INSERT INTO COMMENTS (TASK_ID, AUTHOR_ID, BODY) VALUES (2, 1, 'seen')")
    conn.execute("DELETE FROM RAG_DIRTY")
    shutil.copy(next(migrations.MIGRATIONS_DIR.glob("V11__*.sql")), directory)
    assert migrations.migrate(conn, directory) == ["11"]
    assert conn.execute("SELECT SOURCE_TYPE, SOURCE_ID FROM RAG_DIRTY ORDER BY SOURCE_ID").fetchall() == [
        ("task", 1), ("task", 2), ("task", 3)]
    assert conn.execute("SELECT COUNT(*) FROM TASKS WHERE SOURCE IS NULL AND EXTERNAL_KEY IS NULL").fetchone() == (3,)
    conn.execute("DELETE FROM RAG_DIRTY")
    conn.execute("UPDATE EMPLOYEES SET FIRST_NAME = 'Wei' WHERE EMPLOYEE_ID = 1")  # assigned nothing, commented once
    assert conn.execute("SELECT SOURCE_TYPE, SOURCE_ID FROM RAG_DIRTY").fetchall() == [("task", 2)]


def test_v13_adds_the_tracker_fields_backfills_values_and_widens_links_keeping_rows(tmp_path):
    """A database at V12 holding rows: V13 keeps every row and link id, splits the ", "-joined display text into
    one TASK_VALUES row per whole value, admits the new link types, never reuses a deleted link's id, and its
    triggers mark a task when its values or its reporter's name change."""
    directory = tmp_path / "migrations"
    directory.mkdir()
    for path in migrations.MIGRATIONS_DIR.glob("V*.sql"):
        if int(path.name[1:].split("__")[0]) <= 12:
            shutil.copy(path, directory)
    conn = SQLiteEngine(str(tmp_path / "v12.db")).conn
    assert migrations.migrate(conn, directory)[-1] == "12"
    conn.execute("INSERT INTO EMPLOYEES (EMPLOYEE_ID, FIRST_NAME) VALUES (1, 'Chen'), (2, 'Ana')")
    conn.execute("INSERT INTO TASKS (TASK_ID, TITLE, ASSIGNEE_ID, LABELS, COMPONENTS, FIX_VERSIONS) VALUES "
                 "(1, 'a', 2, 'backend, ui', NULL, 'Release 2.1'), (2, 'b', NULL, NULL, 'API, , Web', ''),"
                 " (3, 'c', NULL, NULL, NULL, NULL)")
    conn.execute("INSERT INTO TASK_LINKS (TASK_ID, LINK_TYPE, TARGET_KEY, TARGET_TASK_ID) VALUES "
                 "(1, 'BLOCKS', 'X-2', 2), (2, 'BLOCKED_BY', 'X-1', 1), (1, 'RELATES', 'Z-9', NULL)")
    conn.execute("DELETE FROM TASK_LINKS WHERE TARGET_KEY = 'Z-9'")  # the highest link id, never handed out again
    before = {t: conn.execute(f"SELECT * FROM {t} ORDER BY 1").fetchall() for t in ("EMPLOYEES", "TASK_LINKS")}
    tasks_before = conn.execute("SELECT * FROM TASKS ORDER BY 1").fetchall()
    conn.execute("DELETE FROM RAG_DIRTY")
    shutil.copy(next(migrations.MIGRATIONS_DIR.glob("V13__*.sql")), directory)
    assert migrations.migrate(conn, directory) == ["13"]
    assert {t: conn.execute(f"SELECT * FROM {t} ORDER BY 1").fetchall() for t in before} == before
    width = len(tasks_before[0])
    assert [row[:width] for row in conn.execute("SELECT * FROM TASKS ORDER BY 1").fetchall()] == tasks_before
    assert conn.execute("SELECT REPORTER_ID, CREATED_AT, RESOLUTION, PARENT_ID FROM TASKS WHERE TASK_ID = 1"
                        ).fetchone() == (None, None, None, None)
    assert conn.execute("SELECT * FROM TASK_VALUES ORDER BY 1, 2, 3").fetchall() == [
        (1, "FIX_VERSION", "Release 2.1"), (1, "LABEL", "backend"), (1, "LABEL", "ui"),
        (2, "COMPONENT", "API"), (2, "COMPONENT", "Web")]
    assert conn.execute("SELECT SOURCE_ID FROM RAG_DIRTY ORDER BY SOURCE_ID").fetchall() == [(1,), (2,), (3,)]
    assert conn.execute("PRAGMA foreign_keys").fetchone() == (1,)
    conn.execute("INSERT INTO TASK_LINKS (TASK_ID, LINK_TYPE, TARGET_KEY) VALUES (3, 'DEPENDED_ON_BY', 'Q-1')")
    assert conn.execute("SELECT LINK_ID FROM TASK_LINKS WHERE TARGET_KEY = 'Q-1'").fetchone() == (4,)
    with pytest.raises(apsw.ConstraintError):
        conn.execute("INSERT INTO TASK_LINKS (TASK_ID, LINK_TYPE, TARGET_KEY) VALUES (3, 'CAUSES', 'Q-2')")
    with pytest.raises(apsw.ConstraintError):
        conn.execute("INSERT INTO TASK_VALUES (TASK_ID, FIELD, VALUE) VALUES (3, 'LABEL', ?)", ("x" * 201,))
    conn.execute("DELETE FROM RAG_DIRTY")
    conn.execute("INSERT INTO TASK_VALUES (TASK_ID, FIELD, VALUE) VALUES (3, 'AFFECTS_VERSION', '1.0')")
    conn.execute("UPDATE TASKS SET REPORTER_ID = 1, PARENT_ID = 1 WHERE TASK_ID = 3")
    assert {r[0] for r in conn.execute("SELECT SOURCE_ID FROM RAG_DIRTY")} == {3}
    conn.execute("DELETE FROM RAG_DIRTY")
    conn.execute("UPDATE EMPLOYEES SET FIRST_NAME = 'Wei' WHERE EMPLOYEE_ID = 1")  # reported task 3 only
    assert conn.execute("SELECT SOURCE_ID FROM RAG_DIRTY").fetchall() == [(3,)]
    conn.execute("DELETE FROM TASKS WHERE TASK_ID = 1")  # the parent: its child keeps its row, loses the id
    assert conn.execute("SELECT PARENT_ID FROM TASKS WHERE TASK_ID = 3").fetchone() == (None,)
    assert conn.execute("SELECT COUNT(*) FROM TASK_VALUES WHERE TASK_ID = 1").fetchone() == (0,)
    conn.execute("DELETE FROM EMPLOYEES WHERE EMPLOYEE_ID = 1")
    assert conn.execute("SELECT REPORTER_ID FROM TASKS WHERE TASK_ID = 3").fetchone() == (None,)


def test_v16_adds_the_trackers_priority_and_task_sprints_keeping_rows_and_queueing_nothing(tmp_path):
    """A database at V14 holding rows: V16 keeps every row (the new columns NULL), queues nothing (no chunk changes
    until a task has a priority name), and TASK_SPRINTS goes with its task and with its sprint."""
    directory = tmp_path / "migrations"
    directory.mkdir()
    for path in migrations.MIGRATIONS_DIR.glob("V*.sql"):
        if int(path.name[1:].split("__")[0]) <= 14:
            shutil.copy(path, directory)
    conn = SQLiteEngine(str(tmp_path / "v14.db")).conn
    assert migrations.migrate(conn, directory)[-1] == "14"
    conn.execute("INSERT INTO SPRINTS (SPRINT_ID, NAME) VALUES (1, 'Sprint 6'), (2, 'Sprint 7')")
    conn.execute("INSERT INTO TASKS (TASK_ID, TITLE, PRIORITY, SPRINT_ID) VALUES (1, 'a', 'HIGH', 2), (2, 'b', NULL, 2)")
    tasks_before = conn.execute("SELECT * FROM TASKS ORDER BY 1").fetchall()
    conn.execute("DELETE FROM RAG_DIRTY")
    shutil.copy(next(migrations.MIGRATIONS_DIR.glob("V16__*.sql")), directory)
    assert migrations.migrate(conn, directory) == ["16"]
    width = len(tasks_before[0])
    rows = conn.execute("SELECT * FROM TASKS ORDER BY 1").fetchall()
    assert [row[:width] for row in rows] == tasks_before
    assert conn.execute("SELECT PRIORITY_NAME, PRIORITY_RANK FROM TASKS").fetchall() == [(None, None), (None, None)]
    assert conn.execute("SELECT COUNT(*) FROM RAG_DIRTY").fetchone() == (0,)
    conn.execute("INSERT INTO TASK_SPRINTS (TASK_ID, SPRINT_ID) VALUES (1, 1), (1, 2), (2, 1)")
    assert conn.execute("SELECT COUNT(*) FROM RAG_DIRTY").fetchone() == (0,)  # the chunk shows the latest only
    with pytest.raises(apsw.ConstraintError):
        conn.execute("INSERT INTO TASK_SPRINTS (TASK_ID, SPRINT_ID) VALUES (1, 99)")
    conn.execute("DELETE FROM SPRINTS WHERE SPRINT_ID = 1")
    conn.execute("DELETE FROM TASKS WHERE TASK_ID = 2")
    assert conn.execute("SELECT * FROM TASK_SPRINTS").fetchall() == [(1, 2)]


def test_v17_adds_the_restricted_flag_zero_for_every_row_and_only_zero_or_one(tmp_path):
    """A database at V16 holding tasks: V17 keeps every row with RESTRICTED = 0 (no tracker restricts them yet) and
    refuses any value but 0 and 1; its partial index lists the restricted tasks the search reads."""
    directory = tmp_path / "migrations"
    directory.mkdir()
    for path in migrations.MIGRATIONS_DIR.glob("V*.sql"):
        if int(path.name[1:].split("__")[0]) <= 16:
            shutil.copy(path, directory)
    conn = SQLiteEngine(str(tmp_path / "v16.db")).conn
    assert migrations.migrate(conn, directory)[-1] == "16"
    conn.execute("INSERT INTO TASKS (TASK_ID, TITLE) VALUES (1, 'a'), (2, 'b')")
    tasks_before = conn.execute("SELECT * FROM TASKS ORDER BY 1").fetchall()
    shutil.copy(next(migrations.MIGRATIONS_DIR.glob("V17__*.sql")), directory)
    assert migrations.migrate(conn, directory) == ["17"]
    rows = conn.execute("SELECT * FROM TASKS ORDER BY 1").fetchall()
    assert [row[:-1] for row in rows] == tasks_before and [row[-1] for row in rows] == [0, 0]
    conn.execute("UPDATE TASKS SET RESTRICTED = 1 WHERE TASK_ID = 2")
    with pytest.raises(apsw.ConstraintError):
        conn.execute("UPDATE TASKS SET RESTRICTED = 2 WHERE TASK_ID = 1")
    # the search's read of the restricted tasks' chunks: the few restricted tasks first, their chunks by key
    plan = [row[3] for row in conn.execute("EXPLAIN QUERY PLAN " + sql.WITHHELD_CHUNKS)]
    assert plan == ["SCAN t USING COVERING INDEX TASKS_RESTRICTED_IDX",
                    "SEARCH c USING COVERING INDEX sqlite_autoindex_RAG_CHUNK_1 (SOURCE_TYPE=? AND SOURCE_ID=?)"]
