"""Project membership on Oracle (PROJECT_MEMBERS, migrations/oracle/V21): the named statements of
app/engines/oracle/members.py and the membership branch of the access rule every search and tracker statement adds
under RAG_ACCESS_RULE=project. Each statement carries its source note; every value is a named bind. Golden files:
tests/oracle/golden/member_*.sql (tests/oracle/test_members_golden.py).
"""

from __future__ import annotations

from collections.abc import Sequence

# IN lists at or under 1000 expressions (ORA-01795), as statements._in_list's callers keep them.
IN_LIST_MAX = 1000

# source: FACTS.md §10 (plain SELECT by key)
MEMBER_PROJECT_EXISTS = "SELECT COUNT(*) FROM PROJECTS WHERE PROJECT_ID = :project_id"
# source: FACTS.md §10 (plain SELECT by key)
MEMBER_EMPLOYEE_EXISTS = "SELECT COUNT(*) FROM EMPLOYEES WHERE EMPLOYEE_ID = :employee_id"
# A repeated PUT keeps ADDED_AT (the explainer's "since") and takes the writer's source.
# source: FACTS.md §7 (MERGE with a single-row dual source; no ON column in SET, ORA-38104) — as WRITE_SYNC_CURSOR;
#         ORA-00001 when two sessions insert the same new row is absorbed by rerunning it (as WRITE_SETTING)
MEMBER_PUT = (
    "MERGE INTO PROJECT_MEMBERS t\n"
    "USING (SELECT :project_id AS PROJECT_ID, :employee_id AS EMPLOYEE_ID, :member_source AS SOURCE FROM dual) s\n"
    "ON (t.PROJECT_ID = s.PROJECT_ID AND t.EMPLOYEE_ID = s.EMPLOYEE_ID)\n"
    "WHEN MATCHED THEN UPDATE SET t.SOURCE = s.SOURCE\n"
    "WHEN NOT MATCHED THEN INSERT (PROJECT_ID, EMPLOYEE_ID, SOURCE) VALUES (s.PROJECT_ID, s.EMPLOYEE_ID, s.SOURCE)"
)
# A sync adds a person only if no row exists (another source's or a manual row stays as it is) and only if the
# employee exists: the USING source is that employee's row, so an id naming nobody inserts nothing.
# source: FACTS.md §7 (MERGE; both WHEN clauses optional; a single-row source) + §10 (plain SELECT by key);
#         ORA-00001 when two sessions insert the same new row is absorbed by rerunning it (as WRITE_SETTING)
MEMBER_ADD_IF_ABSENT = (
    "MERGE INTO PROJECT_MEMBERS t\n"
    "USING (SELECT :project_id AS PROJECT_ID, e.EMPLOYEE_ID, :member_source AS SOURCE FROM EMPLOYEES e\n"
    "       WHERE e.EMPLOYEE_ID = :employee_id) s\n"
    "ON (t.PROJECT_ID = s.PROJECT_ID AND t.EMPLOYEE_ID = s.EMPLOYEE_ID)\n"
    "WHEN NOT MATCHED THEN INSERT (PROJECT_ID, EMPLOYEE_ID, SOURCE) VALUES (s.PROJECT_ID, s.EMPLOYEE_ID, s.SOURCE)"
)
# source: FACTS.md §10 (plain SELECT by the primary key; TIMESTAMP fetched as naive datetime, UTC by V21's default)
MEMBER_ROW = ("SELECT PROJECT_ID, EMPLOYEE_ID, SOURCE, ADDED_AT FROM PROJECT_MEMBERS\n"
              "WHERE PROJECT_ID = :project_id AND EMPLOYEE_ID = :employee_id")
# source: FACTS.md §10 (plain DELETE by the primary key)
MEMBER_DELETE = "DELETE FROM PROJECT_MEMBERS WHERE PROJECT_ID = :project_id AND EMPLOYEE_ID = :employee_id"
# source: FACTS.md §10 (plain DELETE by key, values as named binds)
MEMBER_DELETE_OF_SOURCE = ("DELETE FROM PROJECT_MEMBERS\n"
                           "WHERE PROJECT_ID = :project_id AND EMPLOYEE_ID = :employee_id AND SOURCE = :member_source")
# A keyset page by employee id (PROJECT_MEMBERS_PK leads with PROJECT_ID); an offset is skipped by the caller.
# source: FACTS.md §10 (plain SELECT, named binds) + §3 (FETCH FIRST :n ROWS ONLY, as crud_page)
MEMBER_PAGE = ("SELECT PROJECT_ID, EMPLOYEE_ID, SOURCE, ADDED_AT FROM PROJECT_MEMBERS\n"
               "WHERE PROJECT_ID = :project_id AND EMPLOYEE_ID > :after_id\n"
               "ORDER BY EMPLOYEE_ID\n"
               "FETCH FIRST :max_rows ROWS ONLY")
# source: FACTS.md §10 (plain SELECT COUNT(*), values as named binds)
MEMBER_COUNT = "SELECT COUNT(*) FROM PROJECT_MEMBERS WHERE PROJECT_ID = :project_id"
# source: FACTS.md §10 (plain SELECT by key, values as named binds)
MEMBER_IDS_OF_SOURCE = "SELECT EMPLOYEE_ID FROM PROJECT_MEMBERS WHERE PROJECT_ID = :project_id AND SOURCE = :member_source"
# The caller's projects, read when the caller is resolved (PROJECT_MEMBERS_EMPLOYEE_IDX leads with EMPLOYEE_ID).
# source: FACTS.md §10 (plain SELECT by key)
MEMBER_PROJECTS_OF = "SELECT PROJECT_ID FROM PROJECT_MEMBERS WHERE EMPLOYEE_ID = :employee_id ORDER BY PROJECT_ID"


def member_tasks(projects: Sequence[int], column: str = "PROJECT_ID", prefix: str = "m",
                 task_test: str | None = "SOURCE_TYPE = 'task'") -> tuple[str, dict[str, object]]:
    """The membership branch of the access rule: a task of one of ``projects`` (the caller's member projects,
    bound), ``(SOURCE_TYPE = 'task' AND PROJECT_ID IN (:m0, :m1, ...))``; lists past IN_LIST_MAX are OR-ed IN lists.
    ``column`` and ``task_test`` are fixed fragments of the statement modules (a tracker statement reads TASKS, whose
    rows are all tasks: no test). Identifiers never come from the caller."""
    if not projects:
        raise ValueError("a membership branch needs at least one project")
    binds = {f"{prefix}{i}": int(project) for i, project in enumerate(projects)}
    names = list(binds)
    lists = [f"{column} IN (" + ", ".join(f":{n}" for n in names[start:start + IN_LIST_MAX]) + ")"
             for start in range(0, len(names), IN_LIST_MAX)]
    inside = lists[0] if len(lists) == 1 else "(" + " OR ".join(lists) + ")"
    # source: FACTS.md §10 (plain predicate, values as named binds, ≤ 1000 per IN list: ORA-01795) + §3 (one more
    #         attribute filter of a vector search: a short FETCH APPROX falls back to FETCH EXACT)
    return (f"({task_test} AND {inside})" if task_test else inside), binds
