"""The Oracle migration runner: script splitting, PL/SQL handling, DPY-7000 as a failure, bookkeeping."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.engines.oracle import migrate
from app.engines.oracle.migrate import MigrationError, split_statements

from .fakes import FakeConnection, Reply, golden

SCRIPT = """\
-- leading comment
CREATE TABLE T (
    ID NUMBER, -- inline comment stays inside the statement
    TXT VARCHAR2(10)
);

CREATE INDEX T_IDX ON T (ID);

CREATE OR REPLACE TRIGGER T_TRG
AFTER INSERT ON T
FOR EACH ROW
BEGIN
    IF :NEW.ID > 0 THEN
        INSERT INTO U (X) VALUES (1);
    END IF;
END;
/

BEGIN
    NULL;
END;
/
"""


def test_split_plain_statements_drop_their_semicolon_and_plsql_keeps_its_own():
    statements = split_statements(SCRIPT)
    assert len(statements) == 4
    assert statements[0].startswith("CREATE TABLE T (") and statements[0].endswith(")")
    assert statements[1] == "CREATE INDEX T_IDX ON T (ID)"
    assert statements[2].startswith("CREATE OR REPLACE TRIGGER T_TRG") and statements[2].endswith("END;")
    assert "/" not in statements[2].splitlines()[-1]
    assert "INSERT INTO U (X) VALUES (1);" in statements[2]  # inner ';' do not split a block
    assert statements[3] == "BEGIN\n    NULL;\nEND;"


def test_comments_cannot_end_or_glue_statements():
    script = (
        "CREATE TABLE T (\n"
        "    -- a comment line ending with a semicolon;\n"
        "    ID NUMBER DEFAULT 0, -- and one inline;\n"
        "    TXT VARCHAR2(10) DEFAULT '--;'\n"
        ");\n"
        "CREATE INDEX T_IDX ON T (ID); -- trailing comment\n"
        "CREATE INDEX T_IDX2 ON T (TXT);\n"
    )
    statements = split_statements(script)
    assert len(statements) == 3
    assert statements[0].endswith("TXT VARCHAR2(10) DEFAULT '--;'\n)")
    assert statements[1] == "CREATE INDEX T_IDX ON T (ID)"
    assert statements[2] == "CREATE INDEX T_IDX2 ON T (TXT)"
    assert not any(s.rstrip().endswith(";") for s in statements)


@pytest.mark.parametrize("script, message", [
    ("CREATE TABLE T (ID NUMBER)", "missing ';'"),
    ("BEGIN\n  NULL;\nEND;\n", "missing a '/'"),
    ("/\n", "without a PL/SQL block"),
    ("BEGIN\n  NULL\n/\n", "does not end with ';'"),
])
def test_split_rejects_malformed_scripts(script, message):
    with pytest.raises(MigrationError, match=message):
        split_statements(script)


def test_shipped_migrations_split_cleanly():
    found = migrate.discover()
    assert [m.version for m in found] == [1, 5, 6, 7, 8, 9]
    by_version = {m.version: m.statements() for m in found}
    triggers = by_version[6]
    assert len(triggers) == 6 and all(t.startswith("CREATE OR REPLACE TRIGGER") and t.endswith("END;")
                                      for t in triggers)
    assert by_version[7][0] == (
        "CREATE VECTOR INDEX RAG_CHUNK_EMB_IDX ON RAG_CHUNK (EMBEDDING) ORGANIZATION NEIGHBOR PARTITIONS "
        "DISTANCE COSINE WITH TARGET ACCURACY 90"
    )
    assert by_version[7][1] == "CREATE SEARCH INDEX RAG_CHUNK_TEXT_IDX ON RAG_CHUNK (CONTENT)"
    chunk_ddl = by_version[5][0]
    assert "EMBEDDING         VECTOR(384, FLOAT32)" in chunk_ddl and "VARCHAR2(4000 BYTE)" in chunk_ddl
    doc_type_ddl, requeue = by_version[8]
    assert doc_type_ddl == "ALTER TABLE RAG_CHUNK ADD (DOC_TYPE VARCHAR2(40))"
    assert requeue.startswith("INSERT INTO RAG_DIRTY (SOURCE_TYPE, SOURCE_ID, ACTION)\nSELECT 'doc', d.DOCUMENT_ID")
    *access_triggers, backoff_ddl = by_version[9]
    assert [t.split("\n")[0] for t in access_triggers] == [
        f"CREATE OR REPLACE TRIGGER {table}_RAG_ACCESS_TRG" for table in ("TASKS", "DOCUMENTS", "SPRINTS", "PROJECTS")]
    assert all(t.endswith("END;") for t in access_triggers)
    assert "AFTER UPDATE OF TASK_ID, ASSIGNEE_ID, PROJECT_ID, SPRINT_ID OR DELETE ON TASKS" in access_triggers[0]
    assert backoff_ddl == "ALTER TABLE RAG_DIRTY ADD (NEXT_ATTEMPT_AT TIMESTAMP)"


def write(tmp_path: Path, name: str, text: str) -> None:
    (tmp_path / name).write_text(text)


def test_runner_applies_pending_versions_once_and_records_them(tmp_path):
    write(tmp_path, "V1__one.sql", "CREATE TABLE A (X NUMBER);\n")
    write(tmp_path, "V2__two_things.sql", "CREATE TABLE B (X NUMBER);\nBEGIN\n  NULL;\nEND;\n/\n")
    conn = FakeConnection([("USER_TABLES", Reply(rows=[(1,)])), ("SELECT VERSION", Reply(rows=[(1,)]))])
    applied = migrate.migrate(conn, migrate.discover(tmp_path))
    assert applied == ["2"]
    assert conn.sqls == [golden("version_table_exists"), golden("applied_versions"),
                         "CREATE TABLE B (X NUMBER)", "BEGIN\n  NULL;\nEND;", golden("record_version")]
    assert conn.calls[-1].binds == {"version_no": 2, "version_desc": "two things"}
    assert conn.events == ["commit"]


def test_runner_creates_its_version_table_on_a_fresh_schema(tmp_path):
    write(tmp_path, "V1__one.sql", "CREATE TABLE A (X NUMBER);\n")
    conn = FakeConnection([("USER_TABLES", Reply(rows=[(0,)]))])
    assert migrate.migrate(conn, migrate.discover(tmp_path)) == ["1"]
    assert conn.sqls[:2] == [golden("version_table_exists"), golden("create_version_table")]


def test_compilation_warning_dpy_7000_fails_the_migration_with_user_errors(tmp_path):
    write(tmp_path, "V1__trg.sql", "CREATE OR REPLACE TRIGGER BAD\nAFTER INSERT ON T\nFOR EACH ROW\nBEGIN\n  NOPE;\nEND;\n/\n")
    warning = "DPY-7000: creation succeeded with compilation errors"
    conn = FakeConnection([
        ("USER_TABLES", Reply(rows=[(1,)])),
        ("TRIGGER BAD", Reply(warning=warning)),
        ("USER_ERRORS", Reply(rows=[("BAD", "TRIGGER", 2, 3, "PLS-00201: identifier 'NOPE' must be declared")])),
    ])
    with pytest.raises(MigrationError, match="PLS-00201") as info:
        migrate.migrate(conn, migrate.discover(tmp_path))
    assert "DPY-7000" in str(info.value)
    assert conn.calls[-1].sql == golden("compilation_errors")
    assert golden("record_version") not in conn.sqls and "commit" not in conn.events


def test_a_failing_statement_names_its_version(tmp_path):
    from .fakes import ora_error

    write(tmp_path, "V3__x.sql", "CREATE TABLE A (X NUMBER);\n")
    conn = FakeConnection([("USER_TABLES", Reply(rows=[(1,)])),
                           ("CREATE TABLE A", Reply(error=ora_error(955, "name is already used")))])
    with pytest.raises(MigrationError, match="V3 statement 1"):
        migrate.migrate(conn, migrate.discover(tmp_path))


def test_bad_file_names_are_refused(tmp_path):
    write(tmp_path, "one.sql", "")
    with pytest.raises(MigrationError, match="V<n>__"):
        migrate.discover(tmp_path)


def test_shipped_migrations_use_no_reserved_words_as_column_names_and_no_binds():
    import re

    from .fakes import RESERVED

    column = re.compile(r"^\s+([A-Z][A-Z0-9_$#]*)\s+(NUMBER|VARCHAR2|CLOB|DATE|TIMESTAMP|VECTOR)\b")
    for migration in migrate.discover():
        for statement in migration.statements():
            assert not statement.rstrip().endswith("/")
            if statement.startswith("CREATE TABLE"):
                names = [m.group(1) for line in statement.splitlines() if (m := column.match(line))]
                assert names, statement
                assert not set(names) & RESERVED, (migration.path.name, sorted(set(names) & RESERVED))
            if not statement.startswith("CREATE OR REPLACE TRIGGER"):
                # DDL cannot take binds; only trigger bodies may say :NEW / :OLD.
                assert not re.search(r"(?<![\w:]):[A-Za-z]", statement), statement
            else:
                assert set(re.findall(r":(\w+)\.", statement)) <= {"NEW", "OLD"}, statement
