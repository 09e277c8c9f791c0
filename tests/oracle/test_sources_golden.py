"""The Oracle statements of imported rows (V16): ids by external key, a task's links, the sync cursor, tasks by
key and one transaction per page, each pinned to its golden text and binds (what is SENT: the conformance suite's
Oracle leg runs them)."""

from __future__ import annotations

import datetime as dt

import pytest

from app.records_model import TaskLink
from app.engines.base import ConflictError
from app.entities import EMPLOYEES, TASKS

from .fakes import Reply, golden, ora_error

JIRA = "jira:https://acme.atlassian.net"


def test_find_by_external_binds_the_source_and_each_key(fake_engine, conn):
    conn.replies.append(("FROM TASKS", Reply(rows=[("PAY-1", 11)])))
    assert fake_engine.find_by_external(TASKS, JIRA, ["PAY-1", "PAY-2", "PAY-1"]) == {"PAY-1": 11}
    (call,) = conn.calls
    assert call.sql == golden("find_by_external_tasks")
    assert call.binds == {"source_name": JIRA, "k0": "PAY-1", "k1": "PAY-2"}  # repeats sent once
    conn.calls.clear()
    assert fake_engine.find_by_external(EMPLOYEES, JIRA, ["5b10ac8d82e05b22cc7d4ef5"]) == {}
    assert conn.calls[0].sql == golden("find_by_external_employees")
    assert fake_engine.find_by_external(TASKS, JIRA, []) == {} and len(conn.calls) == 1  # no key: no statement


def test_find_by_external_without_keys_reads_every_row_of_the_source(fake_engine, conn):
    conn.replies.append(("FROM TASKS", Reply(rows=[("PAY-1", 11), ("PAY-2", 12)])))
    assert fake_engine.find_by_external(TASKS, JIRA, None) == {"PAY-1": 11, "PAY-2": 12}
    assert conn.calls[0].sql == golden("find_by_external_all_tasks") and conn.calls[0].binds == {"source_name": JIRA}


def test_find_by_external_splits_long_key_lists_under_the_in_list_limit(fake_engine, conn):
    fake_engine.find_by_external(TASKS, JIRA, [f"PAY-{i}" for i in range(1, 1202)])
    assert [len(c.binds) - 1 for c in conn.calls] == [500, 500, 201]  # ORA-01795: at most 1000 per IN list


def test_replace_task_links_resolves_targets_and_writes_only_the_difference(fake_engine, conn):
    conn.replies += [
        ("SELECT SOURCE FROM TASKS", Reply(rows=[(JIRA,)])),
        ("FROM TASKS\nWHERE SOURCE", Reply(rows=[("PAY-56", 56)])),
        ("FROM TASK_LINKS WHERE TASK_ID", Reply(rows=[(1, "RELATES", "MOB-9", None), (2, "BLOCKS", "PAY-80", None),
                                                      (3, "BLOCKED_BY", "PAY-56", None)])),
    ]
    changed = fake_engine.replace_task_links(77, [TaskLink("BLOCKED_BY", "PAY-56"), TaskLink("BLOCKS", "PAY-80"),
                                                  TaskLink("RELATES", "PAY-90", 90)])
    assert changed is True
    assert conn.sqls == [golden("task_source"), golden("find_by_external_tasks"), golden("links_of_task"),
                         golden("delete_link"), golden("retarget_link"), golden("insert_link")]
    assert conn.calls[0].binds == {"task_id": 77}
    assert conn.calls[1].binds == {"source_name": JIRA, "k0": "PAY-56", "k1": "PAY-80"}  # the targets without ids
    assert conn.calls[3].binds == {"link_id": 1}  # RELATES MOB-9 is gone
    assert conn.calls[4].binds == {"target_task_id": 56, "link_id": 3}  # PAY-56 is imported now
    assert conn.calls[5].binds == {"task_id": 77, "link_type": "RELATES", "target_key": "PAY-90", "target_task_id": 90}
    assert conn.events == ["commit"]


def test_replace_task_links_with_nothing_to_change_writes_nothing(fake_engine, conn):
    conn.replies += [("SELECT SOURCE FROM TASKS", Reply(rows=[(None,)])),  # a native task: no key to resolve
                     ("FROM TASK_LINKS WHERE TASK_ID", Reply(rows=[(4, "RELATES", "PAY-1", 12)]))]
    assert fake_engine.replace_task_links(5, [TaskLink("RELATES", "PAY-1", 12)]) is False
    assert conn.sqls == [golden("task_source"), golden("links_of_task")]


def test_replace_task_links_of_a_missing_task_or_target_is_a_conflict(fake_engine, conn):
    with pytest.raises(ConflictError, match="does not exist"):
        fake_engine.replace_task_links(5, [TaskLink("RELATES", "PAY-1")])
    assert conn.events == ["rollback"]
    conn.replies += [("SELECT SOURCE FROM TASKS", Reply(rows=[(JIRA,)])),
                     ("INSERT INTO TASK_LINKS", Reply(error=ora_error(2291, "integrity constraint violated")))]
    with pytest.raises(ConflictError, match="task_links"):
        fake_engine.replace_task_links(5, [TaskLink("RELATES", "PAY-1", 999)])


def test_sync_cursor_reads_and_merges_by_source(fake_engine, conn):
    conn.replies.append(("FROM SYNC_CURSORS", Reply(rows=[("2026-11-20T10:00:00.000+0000",)])))
    assert fake_engine.sync_cursor(JIRA) == "2026-11-20T10:00:00.000+0000"
    assert fake_engine.sync_cursor("github:octo/repo") is None
    fake_engine.set_sync_cursor(JIRA, "2026-11-21T08:30:00.000+0000")
    assert conn.sqls == [golden("read_sync_cursor")] * 2 + [golden("write_sync_cursor")]
    assert conn.calls[0].binds == {"source_name": JIRA}
    assert conn.calls[2].binds == {"source_name": JIRA, "cursor_value": "2026-11-21T08:30:00.000+0000"}
    assert conn.events == ["commit"]
    with pytest.raises(ValueError, match="4000 bytes"):
        fake_engine.set_sync_cursor(JIRA, "é" * 2001)
    assert len(conn.calls) == 3  # refused before anything was sent


def test_two_first_cursor_writes_at_once_are_a_conflict(fake_engine, conn):
    conn.replies.append(("MERGE INTO SYNC_CURSORS", Reply(error=ora_error(1, "unique constraint violated"))))
    with pytest.raises(ConflictError, match="sync_cursors"):
        fake_engine.set_sync_cursor(JIRA, "page-2")


def test_an_import_pass_coalesces_its_queue_rows_after_its_mark_skipping_rows_a_worker_holds(fake_engine, conn):
    conn.replies += [("MAX(DIRTY_ID)", Reply(rows=[(41,)])),
                     ("FOR UPDATE SKIP LOCKED", Reply(rows=[(43,), (47,)])),
                     ("DELETE FROM RAG_DIRTY", Reply(rowcount=2))]
    with fake_engine.batch() as tx:
        mark = tx.queue_mark()
        assert tx.coalesce_queued(mark) == 2
    assert conn.sqls == [golden("queue_mark"), golden("superseded_queue_rows"), golden("delete_queue_rows")]
    assert conn.calls[1].binds == {"after": 41} and conn.calls[2].binds == {"id0": 43, "id1": 47}
    assert conn.events == ["commit"]
    conn.calls.clear()
    with fake_engine.batch() as tx:
        assert tx.coalesce_queued(41) == 0  # nothing superseded: no DELETE sent
    assert conn.sqls == [golden("superseded_queue_rows")]


def test_tasks_by_key(fake_engine, conn):
    conn.replies.append(("WHERE EXTERNAL_KEY", Reply(rows=[(11,), (40,)])))
    assert fake_engine.tasks_by_key("PAY-1210") == [11, 40]
    assert conn.calls[0].sql == golden("tasks_by_key") and conn.calls[0].binds == {"external_key": "PAY-1210"}


def test_a_batch_is_one_transaction_committed_once_at_its_end(fake_engine, conn):
    conn.replies += [("INSERT INTO TASKS", Reply(rowcount=1, out={"new_id": [42]})),
                     ("FROM TASKS WHERE TASK_ID", Reply(rows=[(42, "Refund fails") + (None,) * 26])),
                     ("MERGE INTO SYNC_CURSORS", Reply(rowcount=1))]
    with fake_engine.batch() as tx:
        row = tx.create(TASKS, {"TITLE": "Refund fails", "SOURCE": JIRA, "EXTERNAL_KEY": "PAY-1210",
                                "LABELS": [f"label-{i:03d}-" + "x" * 30 for i in range(100)]})
        assert conn.events == []  # nothing committed inside the page
        tx.set_sync_cursor(JIRA, "page-2")
    assert row["task_id"] == 42 and conn.events == ["commit"]
    insert = conn.calls[0]
    assert insert.binds["v_source"] == JIRA and insert.binds["v_external_key"] == "PAY-1210"
    assert "v_labels" in insert.inputsizes  # past LONG_BIND_BYTES a label list travels as a temporary CLOB (LOB_COLUMNS)


def test_a_batch_that_raises_rolls_back_and_commits_nothing(fake_engine, conn):
    conn.replies.append(("INSERT INTO TASKS", Reply(rowcount=1, out={"new_id": [42]})))
    with pytest.raises(RuntimeError):
        with fake_engine.batch() as tx:
            tx.set_sync_cursor(JIRA, "page-2")
            raise RuntimeError("crash between two pages")
    assert conn.events == ["rollback"]


def test_comments_load_with_their_author_and_date(fake_engine, conn):
    task_row = (11, "Refund fails", "IN_REVIEW", "HIGH", None, None, None, None, None, None, None, None, None, None,
                None, "PAY-1210", "Bug", "In QE Test", "backend", "2026.12", "Payments API",
                8, "Chen", "Wei", dt.datetime(2026, 11, 2, 9, 30), None, None, "2.0.0", "Android 14", "PAY-7", 7,
                "Major", 1)
    at = dt.datetime(2026, 11, 20, 9, 15)
    conn.replies += [("FROM TASKS t", Reply(rows=[task_row])),
                     ("FROM COMMENTS", Reply(rows=[(11, "Blocked until the PSP answers", 3, "Chen", "Wei", at),
                                                   (11, "Gone author", None, None, None, at)])),
                     ("FROM TASK_LINKS", Reply(rows=[(11, "BLOCKED_BY", "PAY-56", 56)]))]
    record = fake_engine.load_records("task", [11])[11]
    first, second = record.comments
    assert (first.author_id, first.author_name, first.created_at) == (3, "Chen Wei", at)
    assert (second.author_id, second.author_name) == (None, None)
    assert (record.external_key, record.issue_type, record.status_name) == ("PAY-1210", "Bug", "In QE Test")
    assert (record.labels, record.fix_versions, record.components) == ("backend", "2026.12", "Payments API")
    assert record.links == (TaskLink("BLOCKED_BY", "PAY-56", 56),)
    assert (record.reporter_id, record.reporter_first, record.created_at, record.resolution) == (
        8, "Chen", dt.datetime(2026, 11, 2, 9, 30), None)
    assert (record.affects_versions, record.environment, record.parent_key, record.parent_id) == (
        "2.0.0", "Android 14", "PAY-7", 7)
    assert record.priority_name == "Major"  # V22: the tracker's own priority, shown beside ours
    assert record.restricted is True  # V23: the tracker restricts it


def test_set_task_restricted_writes_only_a_change(fake_engine, conn):
    """V23: an import sets or clears the flag; an UPDATE that finds the flag already so changes no row."""
    conn.replies += [("UPDATE TASKS SET RESTRICTED", Reply(rowcount=1)),
                     ("UPDATE TASKS SET RESTRICTED", Reply(rowcount=0))]
    with fake_engine.batch() as tx:
        assert tx.set_task_restricted(77, True) is True
        assert tx.set_task_restricted(77, False) is False
    assert conn.sqls == [golden("set_task_restricted")] * 2
    assert [c.binds for c in conn.calls] == [{"restricted": 1, "task_id": 77}, {"restricted": 0, "task_id": 77}]
    assert conn.events == ["commit"]


def test_replace_task_sprints_writes_only_the_difference(fake_engine, conn):
    """V22: every sprint a task was in; a re-import replaces the set, statement by statement."""
    conn.replies += [("SELECT SOURCE FROM TASKS", Reply(rows=[(JIRA,)])),
                     ("FROM TASK_SPRINTS WHERE TASK_ID", Reply(rows=[(3,), (5,)]))]
    with fake_engine.batch() as tx:
        assert tx.replace_task_sprints(77, [5, 8, 8]) is True
    assert conn.sqls == [golden("task_source"), golden("sprints_of_task"), golden("delete_task_sprint"),
                         golden("insert_task_sprint")]
    assert [c.binds for c in conn.calls] == [{"task_id": 77}, {"task_id": 77}, {"task_id": 77, "sprint_id": 3},
                                             {"task_id": 77, "sprint_id": 8}]
    assert conn.events == ["commit"]


def test_replace_task_sprints_unchanged_writes_nothing_and_a_missing_row_is_a_conflict(fake_engine, conn):
    conn.replies += [("SELECT SOURCE FROM TASKS", Reply(rows=[(None,)])),
                     ("FROM TASK_SPRINTS WHERE TASK_ID", Reply(rows=[(4,)]))]
    with fake_engine.batch() as tx:
        assert tx.replace_task_sprints(5, [4]) is False
    assert conn.sqls == [golden("task_source"), golden("sprints_of_task")]
    with pytest.raises(ConflictError, match="does not exist"), fake_engine.batch() as tx:
        tx.replace_task_sprints(6, [4])
    conn.replies += [("SELECT SOURCE FROM TASKS", Reply(rows=[(JIRA,)])),
                     ("INSERT INTO TASK_SPRINTS", Reply(error=ora_error(2291, "integrity constraint violated")))]
    with pytest.raises(ConflictError, match="task_sprints"), fake_engine.batch() as tx:
        tx.replace_task_sprints(5, [999])
    with pytest.raises(ValueError, match="sprint id"), fake_engine.batch() as tx:
        tx.replace_task_sprints(5, [0])
