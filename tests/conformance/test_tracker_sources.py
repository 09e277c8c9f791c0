"""Imported rows, identical on both engines: external keys unique per source, a task's links, the sync cursor,
one transaction per page, and the triggers that queue what the chunk text now shows (links, comment authors)."""

from __future__ import annotations

import pytest

from app.records_model import TaskLink
from app.engines.base import ConflictError
from app.entities import COMMENTS, EMPLOYEES, PROJECTS, SPRINTS, TASKS
from tests.support import comment, drain_all, employee, peek_queue, task

JIRA = "jira:https://acme.atlassian.net"
GITHUB = "github:octo/repo"


def queued(engine):
    return {(r.source_type, r.source_id, r.action) for r in peek_queue(engine)}


def imported_task(engine, key, source=JIRA, **extra):
    return engine.create(TASKS, {"TITLE": f"Issue {key}", "SOURCE": source, "EXTERNAL_KEY": key, **extra})["task_id"]


def test_imported_columns_round_trip_and_native_rows_keep_them_null(engine):
    t = imported_task(engine, "PAY-1210", ISSUE_TYPE="Bug", STATUS="IN_REVIEW", STATUS_NAME="In QE Test",
                      LABELS=["refunds", "backend"], FIX_VERSIONS=["2026.12"], COMPONENTS=["Payments API"])
    row = engine.get(TASKS, t)
    assert (row["source"], row["external_key"], row["issue_type"], row["status_name"]) == (
        JIRA, "PAY-1210", "Bug", "In QE Test")
    assert (row["labels"], row["fix_versions"], row["components"]) == (["backend", "refunds"], ["2026.12"],
                                                                       ["Payments API"])
    record = engine.load_records("task", [t])[t]  # the display text, written from the same list
    assert (record.labels, record.fix_versions, record.components) == ("backend, refunds", "2026.12", "Payments API")
    native = engine.get(TASKS, task(engine, "Native task"))
    assert native["source"] is None and native["external_key"] is None and native["issue_type"] is None


def test_external_keys_are_unique_per_source_and_set_with_their_source(engine):
    first = imported_task(engine, "PAY-1")
    with pytest.raises(ConflictError):
        imported_task(engine, "PAY-1")
    other_source = imported_task(engine, "PAY-1", source=GITHUB)  # the same key in another source is another row
    assert other_source != first
    with pytest.raises(ConflictError):  # a key without its source (or a source without a key) is refused
        engine.create(TASKS, {"TITLE": "Orphan key", "EXTERNAL_KEY": "PAY-2"})
    with pytest.raises(ConflictError):
        engine.create(EMPLOYEES, {"FIRST_NAME": "Chen", "SOURCE": JIRA})
    native = [task(engine, "Native one"), task(engine, "Native two")]  # NULL keys never collide
    assert len(set(native)) == 2


def test_find_by_external_maps_keys_of_one_source_to_ids(engine):
    pay = imported_task(engine, "PAY-1210")
    mob = imported_task(engine, "MOB-231")
    imported_task(engine, "PAY-1210", source=GITHUB)
    assert engine.find_by_external(TASKS, JIRA, ["PAY-1210", "MOB-231", "NOPE-1"]) == {"PAY-1210": pay, "MOB-231": mob}
    assert engine.find_by_external(TASKS, JIRA, []) == {}
    assert engine.find_by_external(TASKS, JIRA, None) == {"PAY-1210": pay, "MOB-231": mob}  # a reconciliation's view
    chen = engine.create(EMPLOYEES, {"FIRST_NAME": "Chen", "LAST_NAME": "Wei", "SOURCE": JIRA,
                                     "EXTERNAL_ID": "5b10ac8d82e05b22cc7d4ef5"})["employee_id"]
    assert engine.find_by_external(EMPLOYEES, JIRA, ["5b10ac8d82e05b22cc7d4ef5"]) == {"5b10ac8d82e05b22cc7d4ef5": chen}
    p = engine.create(PROJECTS, {"NAME": "Payments", "SOURCE": JIRA, "EXTERNAL_KEY": "PAY"})["project_id"]
    s = engine.create(SPRINTS, {"NAME": "PAY Sprint 7", "PROJECT_ID": p, "SOURCE": JIRA, "EXTERNAL_KEY": "37"})["sprint_id"]
    c = engine.create(COMMENTS, {"TASK_ID": pay, "BODY": "Seen again", "SOURCE": JIRA, "EXTERNAL_KEY": "10042"})
    assert engine.find_by_external(PROJECTS, JIRA, ["PAY"]) == {"PAY": p}
    assert engine.find_by_external(SPRINTS, JIRA, ["37"]) == {"37": s}
    assert engine.find_by_external(COMMENTS, JIRA, ["10042"]) == {"10042": c["comment_id"]}
    assert engine.tasks_by_key("PAY-1210") == sorted([pay, engine.find_by_external(TASKS, GITHUB, ["PAY-1210"])["PAY-1210"]])


@pytest.mark.parametrize("source, keys", [
    ("", ["PAY-1"]), (" jira", ["PAY-1"]), (JIRA, ["PAY-1\n"]), (JIRA, ["x" * 201]), (JIRA, "PAY-1"), (JIRA, [7]),
])
def test_find_by_external_refuses_malformed_keys(engine, source, keys):
    with pytest.raises(ValueError):
        engine.find_by_external(TASKS, source, keys)


def test_replace_task_links_writes_only_what_differs_and_queues_the_task_only_then(engine):
    t = imported_task(engine, "PAY-77")
    blocker = imported_task(engine, "PAY-56")
    drain_all(engine)
    links = [TaskLink("BLOCKED_BY", "PAY-56"), TaskLink("RELATES", "MOB-9"), TaskLink("BLOCKS", "PAY-80")]
    assert engine.replace_task_links(t, links) is True
    assert queued(engine) == {("task", t, "UPSERT")}
    stored = engine.load_records("task", [t])[t].links
    # The not-yet-imported target keeps its key; the imported one is found by key in the task's own source.
    assert stored == (TaskLink("BLOCKED_BY", "PAY-56", blocker), TaskLink("BLOCKS", "PAY-80"),
                      TaskLink("RELATES", "MOB-9"))
    drain_all(engine)

    assert engine.replace_task_links(t, list(reversed(links))) is False  # the same set: nothing written
    assert queued(engine) == set()

    later = imported_task(engine, "PAY-80")  # the target arrives: the next replace fills its id
    drain_all(engine)
    assert engine.replace_task_links(t, links) is True
    assert TaskLink("BLOCKS", "PAY-80", later) in engine.load_records("task", [t])[t].links
    drain_all(engine)

    assert engine.replace_task_links(t, [TaskLink("RELATES", "MOB-9")]) is True
    assert engine.load_records("task", [t])[t].links == (TaskLink("RELATES", "MOB-9"),)
    assert queued(engine) == {("task", t, "UPSERT")}


def test_links_go_with_their_task_and_lose_a_deleted_target(engine):
    t = imported_task(engine, "PAY-77")
    target = imported_task(engine, "PAY-56")
    engine.replace_task_links(t, [TaskLink("BLOCKED_BY", "PAY-56", target)])
    drain_all(engine)
    assert engine.delete(TASKS, target)
    assert engine.load_records("task", [t])[t].links == (TaskLink("BLOCKED_BY", "PAY-56"),)  # the key stays
    assert ("task", t, "UPSERT") in queued(engine)
    drain_all(engine)
    assert engine.delete(TASKS, t)
    assert ("task", t, "DELETE") in queued(engine)
    assert engine.replace_task_links(imported_task(engine, "PAY-78"), []) is False


def test_replace_task_links_refuses_a_missing_task_or_target(engine):
    with pytest.raises(ConflictError):
        engine.replace_task_links(987654, [TaskLink("RELATES", "PAY-1")])
    t = imported_task(engine, "PAY-77")
    with pytest.raises(ConflictError):
        engine.replace_task_links(t, [TaskLink("RELATES", "PAY-1", 987654)])
    assert engine.load_records("task", [t])[t].links == ()
    with pytest.raises(ValueError):
        TaskLink("CAUSES", "PAY-1")  # a kind no tracker link maps to (app.sources.mapping reads unknown as RELATES)


def test_sync_cursor_is_stored_per_source(engine):
    assert engine.sync_cursor(JIRA) is None
    engine.set_sync_cursor(JIRA, "2026-11-20T10:00:00.000+0000")
    engine.set_sync_cursor(GITHUB, '{"since": "2026-11-20T10:00:00Z"}')
    engine.set_sync_cursor(JIRA, "2026-11-21T08:30:00.000+0000")
    assert engine.sync_cursor(JIRA) == "2026-11-21T08:30:00.000+0000"
    assert engine.sync_cursor(GITHUB) == '{"since": "2026-11-20T10:00:00Z"}'
    with pytest.raises(ValueError):
        engine.set_sync_cursor(JIRA, "é" * 2001)  # 4,002 bytes
    assert engine.sync_cursor(JIRA) == "2026-11-21T08:30:00.000+0000"


class _Crash(Exception):
    pass


def test_a_batch_commits_its_rows_links_and_cursor_together_or_not_at_all(engine):
    with pytest.raises(_Crash):
        with engine.batch() as tx:
            t = tx.create(TASKS, {"TITLE": "Refund fails", "SOURCE": JIRA, "EXTERNAL_KEY": "PAY-1210"})["task_id"]
            assert tx.find_by_external(TASKS, JIRA, ["PAY-1210"]) == {"PAY-1210": t}  # the page sees its own rows
            tx.replace_task_links(t, [TaskLink("BLOCKED_BY", "PAY-56")])
            tx.set_sync_cursor(JIRA, "page-2")
            raise _Crash
    assert engine.find_by_external(TASKS, JIRA, ["PAY-1210"]) == {}
    assert engine.sync_cursor(JIRA) is None
    assert queued(engine) == set()  # a rolled-back page queued nothing

    with engine.batch() as tx:
        t = tx.create(TASKS, {"TITLE": "Refund fails", "SOURCE": JIRA, "EXTERNAL_KEY": "PAY-1210"})["task_id"]
        tx.update(TASKS, t, {"STATUS_NAME": "Reopened"})
        tx.replace_task_links(t, [TaskLink("BLOCKED_BY", "PAY-56")])
        tx.set_sync_cursor(JIRA, "page-2")
    assert engine.get(TASKS, t)["status_name"] == "Reopened"
    assert engine.sync_cursor(JIRA) == "page-2"
    assert ("task", t, "UPSERT") in queued(engine)


def test_a_conflict_caught_inside_a_batch_keeps_the_rest_of_the_page(engine):
    with engine.batch() as tx:
        first = tx.create(TASKS, {"TITLE": "One", "SOURCE": JIRA, "EXTERNAL_KEY": "PAY-1"})["task_id"]
        with pytest.raises(ConflictError):
            tx.create(TASKS, {"TITLE": "One again", "SOURCE": JIRA, "EXTERNAL_KEY": "PAY-1"})
        second = tx.create(TASKS, {"TITLE": "Two", "SOURCE": JIRA, "EXTERNAL_KEY": "PAY-2"})["task_id"]
    assert engine.find_by_external(TASKS, JIRA, ["PAY-1", "PAY-2"]) == {"PAY-1": first, "PAY-2": second}


def test_comments_load_with_their_author_and_date_and_a_rename_queues_commented_tasks(engine):
    chen = employee(engine, "Chen", "Wei")
    assignee = employee(engine, "Ana", "Ruiz")
    t = task(engine, "Refund fails", assignee_id=assignee)
    other = task(engine, "Unrelated")
    c = engine.create(COMMENTS, {"TASK_ID": t, "AUTHOR_ID": chen, "BODY": "Blocked until the PSP answers",
                                 "CREATED_AT": "2026-11-20T09:15:00"})
    comment(engine, t, "No author here")
    (first, second) = engine.load_records("task", [t])[t].comments
    assert (first.body, first.author_id, first.author_name) == ("Blocked until the PSP answers", chen, "Chen Wei")
    assert first.created_at is not None and first.created_at.date().isoformat() == "2026-11-20"
    assert (second.author_id, second.author_name) == (None, None) and second.created_at is not None
    drain_all(engine)

    engine.update(EMPLOYEES, chen, {"LAST_NAME": "Wei-Lin"})  # not the assignee: the comment author
    assert queued(engine) == {("task", t, "UPSERT")}
    assert engine.load_records("task", [t])[t].comments[0].author_name == "Chen Wei-Lin"
    drain_all(engine)
    assert other not in {r.source_id for r in peek_queue(engine)}
    assert c["comment_id"] > 0


def test_a_key_resolves_only_to_tasks_the_asker_may_see(engine):
    from app.services import entities

    dev, other = employee(engine, "Ana", "Ruiz"), employee(engine, "Diego", "Paz")
    manager = engine.caller(employee(engine, "Mia", "Boss", role="MANAGER"))
    mine = imported_task(engine, "PAY-1", ASSIGNEE_ID=dev)
    theirs = imported_task(engine, "PAY-2", ASSIGNEE_ID=other)
    also_mine = imported_task(engine, "PAY-1", source=GITHUB, ASSIGNEE_ID=dev)
    asker = engine.caller(dev)
    assert entities.refs_by_key(engine, asker, ["PAY-2", "PAY-1", "NOPE-1", "bad\nkey", ""]) == [
        ("task", mine), ("task", also_mine)]
    assert entities.refs_by_key(engine, asker, ["PAY-2"]) == entities.refs_by_key(engine, asker, ["PAY-3"]) == []
    assert entities.refs_by_key(engine, manager, ["PAY-2"]) == [("task", theirs)]


def test_find_tasks_rows_carry_the_tracker_key(engine):
    from app.domain import TaskQuery

    manager = engine.caller(employee(engine, "Mia", "Boss", role="MANAGER"))
    imported = imported_task(engine, "PAY-1210")
    native = task(engine, "Native")
    rows = {r["task_id"]: r for r in engine.find_tasks(manager, TaskQuery())}
    assert rows[imported]["external_key"] == "PAY-1210" and rows[native]["external_key"] is None


def test_long_key_lists_are_read_in_batches_and_repeats_once(engine):
    wanted = [imported_task(engine, f"PAY-{n}") for n in (1, 700, 1201)]
    keys = [f"PAY-{n}" for n in range(1, 1202)] + ["PAY-1"]
    assert engine.find_by_external(TASKS, JIRA, keys) == {"PAY-1": wanted[0], "PAY-700": wanted[1],
                                                          "PAY-1201": wanted[2]}


def test_replace_task_links_keeps_the_first_of_a_repeated_link_and_a_cursor_may_be_cleared(engine):
    t = imported_task(engine, "PAY-77")
    other = imported_task(engine, "PAY-9")
    assert engine.replace_task_links(t, [TaskLink("RELATES", "PAY-9", other), TaskLink("RELATES", "PAY-9"),
                                         TaskLink("BLOCKS", "PAY-9")]) is True
    assert engine.load_records("task", [t])[t].links == (TaskLink("BLOCKS", "PAY-9", other),
                                                         TaskLink("RELATES", "PAY-9", other))
    with pytest.raises(ValueError):
        engine.replace_task_links(t, ["RELATES PAY-9"])  # not a TaskLink: nothing written
    assert len(engine.load_records("task", [t])[t].links) == 2
    engine.set_sync_cursor(JIRA, "page-2")
    engine.set_sync_cursor(JIRA, None)  # a full re-sync from the start
    assert engine.sync_cursor(JIRA) is None


def test_the_tracker_fields_round_trip_and_load_for_the_chunk(engine):
    """Issue 31 (SQLite V13 / Oracle V18): reporter, times, resolution, environment, versions, parent, resolved-by."""
    import datetime as dt

    chen = employee(engine, "Chen", "Wei")
    parent = imported_task(engine, "PAY-7")
    t = imported_task(engine, "PAY-12", REPORTER_ID=chen, RESOLVED_BY_ID=chen, CREATED_AT=dt.datetime(2026, 11, 2, 9, 30),
                      UPDATED_AT=dt.datetime(2026, 11, 20, 10, 0, 0, 123456), RESOLVED_AT=dt.datetime(2026, 11, 21),
                      RESOLUTION="Won't Fix", ENVIRONMENT="Android 14", AFFECTS_VERSIONS=["2.0.0", "1.9.4"],
                      PARENT_KEY="PAY-7", PARENT_ID=parent)
    row = engine.get(TASKS, t)
    assert (row["reporter_id"], row["resolved_by_id"], row["resolution"], row["environment"]) == (
        chen, chen, "Won't Fix", "Android 14")
    assert row["created_at"] == dt.datetime(2026, 11, 2, 9, 30)
    assert row["updated_at"] == dt.datetime(2026, 11, 20, 10, 0, 0, 123456)  # fractional seconds kept (TIMESTAMP)
    assert row["affects_versions"] == ["1.9.4", "2.0.0"] and (row["parent_key"], row["parent_id"]) == ("PAY-7", parent)
    record = engine.load_records("task", [t])[t]
    assert (record.reporter_id, record.reporter_first, record.reporter_last) == (chen, "Chen", "Wei")
    assert (record.created_at, record.resolved_at, record.resolution) == (
        dt.datetime(2026, 11, 2, 9, 30), dt.datetime(2026, 11, 21), "Won't Fix")
    assert (record.affects_versions, record.environment, record.parent_key, record.parent_id) == (
        "1.9.4, 2.0.0", "Android 14", "PAY-7", parent)
    native_child = task(engine, "Native child")
    engine.update(TASKS, native_child, {"PARENT_ID": t})
    assert engine.load_records("task", [native_child])[native_child].parent_key == "PAY-12"  # the parent's own key


def test_task_values_follow_the_list_and_their_changes_queue_the_task(engine):
    t = imported_task(engine, "PAY-20", LABELS=["b", "a"], COMPONENTS=["API"])
    drain_all(engine)
    engine.update(TASKS, t, {"TITLE": "Renamed"})  # values untouched when not given
    assert engine.get(TASKS, t)["labels"] == ["a", "b"]
    drain_all(engine)
    engine.update(TASKS, t, {"LABELS": ["b", "c"], "FIX_VERSIONS": []})
    row = engine.get(TASKS, t)
    assert (row["labels"], row["components"], row["fix_versions"]) == (["b", "c"], ["API"], [])
    assert engine.load_records("task", [t])[t].labels == "b, c"
    assert ("task", t, "UPSERT") in queued(engine)
    with pytest.raises(ValueError, match="list"):
        engine.update(TASKS, t, {"LABELS": "a, b"})
    page = engine.list_records(TASKS, [], None, 10).items
    assert [r["labels"] for r in page if r["task_id"] == t] == [["b", "c"]]


def test_a_reporter_rename_queues_their_tasks_and_deleting_people_or_parents_clears_the_references(engine):
    chen = employee(engine, "Chen", "Wei")
    parent = imported_task(engine, "PAY-30")
    t = imported_task(engine, "PAY-31", REPORTER_ID=chen, RESOLVED_BY_ID=chen, PARENT_ID=parent, LABELS=["x"])
    drain_all(engine)
    engine.update(EMPLOYEES, chen, {"LAST_NAME": "Wei-Lin"})
    assert queued(engine) == {("task", t, "UPSERT")}
    assert engine.load_records("task", [t])[t].reporter_last == "Wei-Lin"
    drain_all(engine)
    engine.delete(TASKS, parent)
    engine.delete(EMPLOYEES, chen)
    row = engine.get(TASKS, t)
    assert (row["parent_id"], row["reporter_id"], row["resolved_by_id"]) == (None, None, None)
    assert row["labels"] == ["x"]


@pytest.mark.parametrize("link_type", ["DEPENDS_ON", "DEPENDED_ON_BY", "DUPLICATES", "DUPLICATED_BY", "CLONES",
                                       "CLONED_BY"])
def test_every_link_kind_is_stored_with_its_direction(engine, link_type):
    t = imported_task(engine, "PAY-40")
    assert engine.replace_task_links(t, [TaskLink(link_type, "PAY-41")]) is True
    assert engine.load_records("task", [t])[t].links == (TaskLink(link_type, "PAY-41"),)


def test_an_import_pass_coalesces_its_queue_to_one_row_per_entity_keeping_the_newest_and_failed_rows(engine):
    """Issue 33: what a pass queued after its mark is one row per entity, the newest (its action wins, as the drain's
    coalescing would say); rows from before the mark and rows that failed are never touched."""
    before = imported_task(engine, "PAY-0")  # queued before the pass: not the pass's to touch
    with engine.batch() as tx:
        mark = tx.queue_mark()
        t = tx.create(TASKS, {"TITLE": "Issue PAY-1", "SOURCE": JIRA, "EXTERNAL_KEY": "PAY-1"})["task_id"]
        for n in range(3):
            tx.create(COMMENTS, {"TASK_ID": t, "BODY": f"note {n}", "SOURCE": JIRA, "EXTERNAL_KEY": str(n)})
        tx.update(TASKS, before, {"TITLE": "Issue PAY-0 again"})  # queued again, after the mark
        gone = tx.create(TASKS, {"TITLE": "Issue PAY-2", "SOURCE": JIRA, "EXTERNAL_KEY": "PAY-2"})["task_id"]
        tx.delete(TASKS, gone)
        assert tx.coalesce_queued(mark) >= 3
    rows = [(r.source_type, r.source_id, r.action) for r in peek_queue(engine)]
    assert rows.count(("task", t, "UPSERT")) == 1 and [r for r in rows if r[1] == gone] == [("task", gone, "DELETE")]
    assert rows.count(("task", before, "UPSERT")) == 2  # its row from before the pass, and the pass's one
    with engine.batch() as tx:
        assert tx.coalesce_queued(tx.queue_mark()) == 0  # nothing after a fresh mark
