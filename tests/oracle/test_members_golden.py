"""Project membership on Oracle (issue 32): every statement of member_statements.py pinned by its golden file
(tests/oracle/golden/member_*.sql, each naming its FACTS.md section), and what members.py sends for a PUT, a
DELETE, a page, a sync's replace and a caller resolved under RAG_ACCESS_RULE=project — over the recording fake of
python-oracledb (tests/oracle/fakes.py), which checks every bind against the placeholders."""

from __future__ import annotations

import datetime as dt

import pytest

from app.domain import Caller, Role
from app.engines.oracle import member_statements as sql
from app.engines.oracle import members

from .fakes import FakeConnection, Reply, golden, ora_error

STATEMENTS = {
    "MEMBER_PROJECT_EXISTS": "member_project_exists", "MEMBER_EMPLOYEE_EXISTS": "member_employee_exists",
    "MEMBER_PUT": "member_put", "MEMBER_ADD_IF_ABSENT": "member_add_if_absent", "MEMBER_ROW": "member_row",
    "MEMBER_DELETE": "member_delete", "MEMBER_DELETE_OF_SOURCE": "member_delete_of_source",
    "MEMBER_PAGE": "member_page", "MEMBER_COUNT": "member_count", "MEMBER_IDS_OF_SOURCE": "member_ids_of_source",
    "MEMBER_PROJECTS_OF": "member_projects_of",
}
ADDED = dt.datetime(2026, 12, 1, 9, 30)


def test_every_member_statement_matches_its_golden_file():
    constants = {n for n, v in vars(sql).items() if n.isupper() and isinstance(v, str)}
    assert constants == set(STATEMENTS)
    for name, file in STATEMENTS.items():
        assert getattr(sql, name) == golden(file), name


def test_a_put_checks_both_rows_merges_and_reads_the_row_back():
    conn = FakeConnection([("FROM PROJECTS", Reply(rows=[(1,)])), ("FROM EMPLOYEES", Reply(rows=[(1,)])),
                           ("MERGE", Reply(rowcount=1)), ("SELECT PROJECT_ID", Reply(rows=[(3, 7, "manual", ADDED)]))])
    member = members.put(conn.cursor(), 3, 7, "manual")
    assert member.added_at == ADDED.replace(tzinfo=dt.timezone.utc) and member.source == "manual"
    assert conn.sqls == [golden("member_project_exists"), golden("member_employee_exists"), golden("member_put"),
                         golden("member_row")]
    assert conn.calls[2].binds == {"project_id": 3, "employee_id": 7, "member_source": "manual"}


def test_a_put_for_an_unknown_employee_writes_nothing_and_a_racing_insert_is_absorbed():
    conn = FakeConnection([("FROM PROJECTS", Reply(rows=[(1,)])), ("FROM EMPLOYEES", Reply(rows=[(0,)]))])
    assert members.put(conn.cursor(), 3, 99, "manual") is None
    assert not any("MERGE" in s for s in conn.sqls)
    raced = FakeConnection([("FROM PROJECTS", Reply(rows=[(1,)])), ("FROM EMPLOYEES", Reply(rows=[(1,)])),
                            ("MERGE", Reply(error=ora_error(1, "unique constraint violated"))),
                            ("MERGE", Reply(rowcount=1)), ("SELECT PROJECT_ID", Reply(rows=[(3, 7, "jira", ADDED)]))])
    assert members.put(raced.cursor(), 3, 7, "jira").source == "jira"
    assert [s for s in raced.sqls if "MERGE" in s] == [golden("member_put")] * 2
    with pytest.raises(ValueError):
        members.put(FakeConnection().cursor(), 3, 7, "ldap")


def test_a_page_reads_one_row_past_it_and_skips_an_offset_in_python():
    rows = [(3, e, "manual", ADDED) for e in (4, 5, 6, 8)]
    conn = FakeConnection([("FROM PROJECTS", Reply(rows=[(1,)])), ("ORDER BY EMPLOYEE_ID", Reply(rows=rows)),
                           ("COUNT(*) FROM PROJECT_MEMBERS", Reply(rows=[(9,)]))])
    page = members.page(conn.cursor(), 3, limit=2, offset=1, after=2)
    assert [m.employee_id for m in page.items] == [5, 6] and page.total == 9 and page.more
    assert conn.sqls == [golden("member_project_exists"), golden("member_page"), golden("member_count")]
    assert conn.calls[1].binds == {"project_id": 3, "after_id": 2, "max_rows": 4}
    assert members.page(FakeConnection([("FROM PROJECTS", Reply(rows=[(0,)]))]).cursor(), 3, limit=2) is None


def test_replace_deletes_only_its_sources_rows_and_adds_those_absent():
    conn = FakeConnection([("FROM PROJECTS", Reply(rows=[(1,)])), ("SOURCE = :member_source", Reply(rows=[(4,), (5,)])),
                           ("DELETE", Reply(rowcount=1)), ("MERGE", Reply(rowcount=1)), ("MERGE", Reply(rowcount=0))])
    assert members.replace(conn.cursor(), 3, "jira", [5, 6, 99]) == (1, 1)
    assert conn.sqls == [golden("member_project_exists"), golden("member_ids_of_source"),
                         golden("member_delete_of_source"), golden("member_add_if_absent"),
                         golden("member_add_if_absent")]
    assert conn.calls[2].binds == {"project_id": 3, "employee_id": 4, "member_source": "jira"}
    assert [c.binds["employee_id"] for c in conn.calls[3:]] == [6, 99]  # 99 names nobody: the MERGE inserts nothing
    with pytest.raises(LookupError):
        members.replace(FakeConnection([("FROM PROJECTS", Reply(rows=[(0,)]))]).cursor(), 3, "jira", [5])


def test_a_developer_carries_their_projects_only_under_the_project_rule():
    conn = FakeConnection([("FROM PROJECT_MEMBERS", Reply(rows=[(3,), (8,)]))])
    dev, boss = Caller(7, Role.DEVELOPER), Caller(1, Role.MANAGER)
    assert members.with_memberships(conn.cursor(), dev, "assignee") is dev and conn.sqls == []
    assert members.with_memberships(conn.cursor(), boss, "project") is boss and conn.sqls == []
    assert members.with_memberships(conn.cursor(), dev, "project").member_projects == frozenset({3, 8})
    assert conn.sqls == [golden("member_projects_of")] and conn.calls[0].binds == {"employee_id": 7}


def test_the_membership_branch_binds_each_project_and_splits_past_1000():
    text, binds = sql.member_tasks([3, 8])
    assert text == "(SOURCE_TYPE = 'task' AND PROJECT_ID IN (:m0, :m1))" and binds == {"m0": 3, "m1": 8}
    text, binds = sql.member_tasks(list(range(1, 1502)), "t.PROJECT_ID", "caller_m", None)
    assert text.startswith("(t.PROJECT_ID IN (:caller_m0, ") and text.count(" IN (") == 2 and len(binds) == 1501
    assert ":caller_m999)" in text and " OR t.PROJECT_ID IN (:caller_m1000, " in text
    with pytest.raises(ValueError):
        sql.member_tasks([])


# --- the project rule in the engine's statements (RAG_ACCESS_RULE=project) ---------------------------------------

MEMBER = Caller(7, Role.DEVELOPER, frozenset({3, 8}))


def _vec():
    import numpy as np

    return np.random.default_rng(0).random(384, dtype=np.float32)


def _rows(n):
    return [("task", i, 0, f"chunk {i}", 0.1 * i) for i in range(1, n + 1)]


def test_a_members_short_approx_search_falls_back_to_exact_under_the_same_predicate(fake_engine, conn):
    """FETCH APPROX under the membership predicate may come back short (IVF probes, FACTS.md §3): the same query
    with FETCH EXACT answers with every visible row, so the member still gets k rows."""
    from app.domain import Scope

    scope = Scope(project=3, source_types=("task", "doc"))
    conn.replies += [("FETCH APPROX", Reply(rows=_rows(1))), ("FETCH EXACT", Reply(rows=_rows(4)))]
    result = fake_engine.search(_vec(), "q", MEMBER, 4, scope, "vector")
    approx, exact = conn.calls
    assert approx.sql == golden("vector_search_member") and exact.sql == golden("vector_search_member_exact")
    expected = {"caller_id": 7, "m0": 3, "m1": 8, "project_id": 3, "st0": "task", "st1": "doc", "k": 4}
    assert {k: v for k, v in approx.binds.items() if k != "qv"} == expected
    assert {k: v for k, v in exact.binds.items() if k != "qv"} == expected
    assert result.answered_by == "exact-fallback" and len(result.hits) == 4


def test_a_members_text_statistics_count_their_visible_set_and_are_their_own_cache_class(fake_engine, conn):
    from app.domain import Scope

    conn.replies += [("AVG(CONTENT_CHARS)", Reply(rows=[(40, 12.0)])),
                     ("COUNT(*) FROM RAG_CHUNK WHERE CONTAINS", Reply(rows=[(2,)])),
                     ("ORDER BY SCORE(1)", Reply(rows=[]))]
    fake_engine.search(_vec(), "login", MEMBER, 3, Scope(), "lexical")
    stats, term, text = conn.calls
    assert stats.sql == golden("text_statistics_member") and stats.binds == {"caller_id": 7, "m0": 3, "m1": 8}
    assert text.sql == golden("text_search_member")  # the text arm: a task the tracker restricts is no member's
    assert term.sql == golden("text_term_rows_member") and term.binds == {"caller_id": 7, "m0": 3, "m1": 8,
                                                                           "tq": "{login}"}
    conn.calls.clear()
    conn.replies += [("AVG(CONTENT_CHARS)", Reply(rows=[(10, 12.0)])),
                     ("COUNT(*) FROM RAG_CHUNK WHERE CONTAINS", Reply(rows=[(1,)])),
                     ("ORDER BY SCORE(1)", Reply(rows=[]))]
    fewer = Caller(7, Role.DEVELOPER, frozenset({3}))  # a membership ended: another visibility class, read again
    fake_engine.search(_vec(), "login", fewer, 3, Scope(), "lexical")
    assert [c.binds.get("m0") for c in conn.calls[:2]] == [3, 3] and "m1" not in conn.calls[0].binds


def test_the_typed_query_binds_the_members_projects_beside_the_assignee(fake_engine, conn):
    from app.engines.oracle import tracker_statements
    from app.rag.understanding.query import TrackerQuery

    statement = tracker_statements.tracker_aggregate(MEMBER, TrackerQuery(returns="count"))
    assert statement.sql == golden("tracker_aggregate_member")
    assert statement.binds == {"caller_id": 7, "caller_id_m0": 3, "caller_id_m1": 8}
    plain = tracker_statements.tracker_aggregate(Caller(7, Role.DEVELOPER, frozenset()), TrackerQuery(returns="count"))
    assert "PROJECT_ID IN" not in plain.sql and plain.binds == {"caller_id": 7}  # a member of nothing: the seed's


def test_the_engine_resolves_a_developers_projects_under_the_project_rule(conn, settings):
    from app.engines.oracle.engine import OracleEngine
    from app.engines.oracle import record_statements

    from .fakes import FakePool

    engine = OracleEngine(FakePool(conn), settings.model_copy(update={"access_rule": "project"}))
    conn.replies += [("FROM EMPLOYEES", Reply(rows=[(7, "DEVELOPER")])),
                     ("FROM PROJECT_MEMBERS", Reply(rows=[(3,), (8,)]))]
    assert engine.caller(7) == MEMBER
    assert conn.sqls == [record_statements.CALLER_BY_ID, golden("member_projects_of")]
    conn.calls.clear()
    conn.replies += [("FROM PROJECTS", Reply(rows=[(1,)])), ("FROM EMPLOYEES", Reply(rows=[(1,)])),
                     ("MERGE", Reply(rowcount=1)), ("SELECT PROJECT_ID", Reply(rows=[(3, 7, "manual", ADDED)]))]
    assert engine.put_project_member(3, 7).employee_id == 7 and conn.events[-1] == "commit"
