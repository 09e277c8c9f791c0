"""The Oracle statements of search: the question's vector, the access and scope predicates, the vector arm and the
Oracle Text arm with its BM25 statistics (app/engines/oracle/search.py). The rules of statements.py hold here.
"""

from __future__ import annotations

from app.domain import Caller, Scope
from app.engines.oracle.member_statements import member_tasks
from app.engines.oracle.statements import checked_model, in_list
from app.rag.access import member_projects


def embed_query(model_name: str) -> str:
    """The question's vector, from the model that embedded the chunks."""
    # source: FACTS.md §2 (SELECT VECTOR_EMBEDDING(<model> USING :text AS data) FROM dual, DOC)
    return f"SELECT VECTOR_EMBEDDING({checked_model(model_name)} USING :q AS data) FROM dual"


# --- search -----------------------------------------------------------------------------------


# The access rule of app/rag/access.py as one predicate: sprint/project chunks, organisation-wide
# documents, and what the caller owns (assigned tasks, own documents). Unassigned tasks: nobody.
ACCESS_PREDICATE = (
    "(SOURCE_TYPE IN ('sprint', 'project') OR (SOURCE_TYPE = 'doc' AND OWNER_EMPLOYEE_ID IS NULL)"
    " OR OWNER_EMPLOYEE_ID = :caller_id)"
)


# The membership branch's task test: a task chunk whose task the tracker does not restrict (TASKS.RESTRICTED, V23),
# read in the query itself, so a flag set or cleared counts on the writer's commit; TASK_ID is the key (never NULL),
# so NOT IN is two-valued. The restricted tasks are few (TASKS_RESTRICTED_IDX is SQLite's; here the subquery reads
# TASKS once per statement).
# source: FACTS.md §10 (plain predicate; an uncorrelated IN subquery [DOC sqlrf "IN Condition"]) + §3 (one more
#         attribute filter: a short FETCH APPROX falls back to FETCH EXACT)
MEMBER_TASK_TEST = "SOURCE_TYPE = 'task' AND SOURCE_ID NOT IN (SELECT TASK_ID FROM TASKS WHERE RESTRICTED = 1)"


def access_predicate(caller: Caller) -> tuple[str, dict[str, object]]:
    """A developer's access predicate and its binds: ACCESS_PREDICATE, and under RAG_ACCESS_RULE=project, for a
    member of some projects, also every task of those projects the tracker does not restrict (their ids bound:
    member_statements.member_tasks).
    A caller without memberships gets ACCESS_PREDICATE itself, byte for byte."""
    projects = member_projects(caller)
    if not projects:
        return ACCESS_PREDICATE, {"caller_id": caller.employee_id}
    members, binds = member_tasks(projects, task_test=MEMBER_TASK_TEST)
    # source: FACTS.md §10 (plain predicate, named binds) + §3 (a filtered FETCH APPROX that comes back short is
    #         rerun FETCH EXACT) — ACCESS_PREDICATE with one more OR branch
    return f"{ACCESS_PREDICATE[:-1]} OR {members})", {"caller_id": caller.employee_id, **binds}


def search_filter(caller: Caller, scope: Scope) -> tuple[list[str], dict[str, object]]:
    """Access and scope predicates with their named binds; both empty for an unscoped manager."""
    predicates: list[str] = []
    binds: dict[str, object] = {}
    if not caller.sees_everything:
        access, binds = access_predicate(caller)
        predicates.append(access)
    if scope.project == "none":
        predicates.append("PROJECT_ID IS NULL")
    elif scope.project != "all":
        predicates.append("PROJECT_ID = :project_id")
        binds["project_id"] = scope.project
    if scope.sprint_id is not None:
        predicates.append("SPRINT_ID = :sprint_id")
        binds["sprint_id"] = scope.sprint_id
    if scope.source_types is not None:
        in_sql, st_binds = in_list("st", scope.source_types)
        predicates.append(f"SOURCE_TYPE IN {in_sql}")
        binds.update(st_binds)
    if scope.doc_types is not None:
        in_sql, dt_binds = in_list("dt", scope.doc_types)  # at most MAX_DOC_TYPES (app.rag.scope) binds
        # source: FACTS.md §10 (plain predicate, values as named binds) + §3 (one more attribute filter:
        #         a short FETCH APPROX falls back to FETCH EXACT) — narrows document chunks only
        predicates.append(f"(SOURCE_TYPE <> 'doc' OR DOC_TYPE IN {in_sql})")
        binds.update(dt_binds)
    return predicates, binds


def vector_search(caller: Caller, scope: Scope, exact: bool) -> tuple[str, dict[str, object]]:
    """Top :k chunks by cosine distance. Binds other than :qv and :k come back with the text."""
    predicates, binds = search_filter(caller, scope)
    where = ("WHERE " + "\n  AND ".join(predicates) + "\n") if predicates else ""
    fetch = "FETCH EXACT FIRST :k ROWS ONLY" if exact else "FETCH APPROX FIRST :k ROWS ONLY"
    # source: FACTS.md §3 (ORDER BY VECTOR_DISTANCE(col, :qv, COSINE) FETCH APPROX|EXACT FIRST :k ROWS ONLY, DOC;
    #         same metric as the index, not wrapped in another function)
    sql = (
        "SELECT SOURCE_TYPE, SOURCE_ID, CHUNK_IX, CONTENT, VECTOR_DISTANCE(EMBEDDING, :qv, COSINE) AS DISTANCE\n"
        "FROM RAG_CHUNK\n"
        f"{where}"
        "ORDER BY VECTOR_DISTANCE(EMBEDDING, :qv, COSINE)\n"
        f"{fetch}"
    )
    return sql, binds


def text_search(caller: Caller, scope: Scope) -> tuple[str, dict[str, object]]:
    """Top :n chunks by Oracle Text score, with their cosine distance to the question: the text arm's candidates,
    which search.py re-ranks by BM25 over the caller's own statistics (SCORE counts chunks they cannot see)."""
    predicates, binds = search_filter(caller, scope)
    where = "WHERE " + "\n  AND ".join(["CONTAINS(CONTENT, :tq, 1) > 0", *predicates]) + "\n"
    # source: FACTS.md §8B (CONTAINS(col, :q, 1) > 0 ORDER BY SCORE(1) DESC FETCH FIRST n ROWS ONLY, CODE text_search.py)
    sql = (
        "SELECT SOURCE_TYPE, SOURCE_ID, CHUNK_IX, CONTENT, VECTOR_DISTANCE(EMBEDDING, :qv, COSINE) AS DISTANCE\n"
        "FROM RAG_CHUNK\n"
        f"{where}"
        "ORDER BY SCORE(1) DESC\n"
        "FETCH FIRST :n ROWS ONLY"
    )
    return sql, binds


def text_statistics(caller: Caller) -> tuple[str, dict[str, object]]:
    """How many chunks the caller may see and their mean length in characters: the N and avgdl of the text arm's
    BM25, over the caller's visible set only (no scope: what is out of scope is still theirs to see). The length is
    the stored CONTENT_CHARS (V20, = LENGTH(CONTENT), written by both upsert forms): with RAG_CHUNK_STATS_IDX
    (SOURCE_TYPE, OWNER_EMPLOYEE_ID, CONTENT_CHARS) every column read is in one index (REVIEW-4 W1)."""
    access, binds = ("", {}) if caller.sees_everything else access_predicate(caller)
    where = f"\nWHERE {access}" if access else ""
    # source: FACTS.md §10 (plain aggregate, as ERASE_COUNT_MESSAGES; AVG of a NUMBER column [DOC sqlrf AVG]) over
    #         the searches' access predicate; index fast full scan [DOC TGSQL "Optimizer Access Paths"]
    return f"SELECT COUNT(*), AVG(CONTENT_CHARS) FROM RAG_CHUNK{where}", binds


def text_term_rows(caller: Caller) -> tuple[str, dict[str, object]]:
    """How many chunks the caller may see hold one term (:tq, the term in braces): the text arm's n(t)."""
    access, binds = ("", {}) if caller.sees_everything else access_predicate(caller)
    access = f"\n  AND {access}" if access else ""
    # source: FACTS.md §8B (SELECT COUNT(*) ... WHERE CONTAINS(col, :q) > 0, as PROOF_CONTAINS) + §12.4 (the term
    #         in braces) + the searches' access predicate
    return f"SELECT COUNT(*) FROM RAG_CHUNK WHERE CONTAINS(CONTENT, :tq) > 0{access}", binds
