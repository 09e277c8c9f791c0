"""The doctor's checks of the read path, Oracle Text and the enqueue/access triggers.

Each takes the runner's Probe (app/services/oracle_doctor.py), which rolls back after it returns.
"""

from __future__ import annotations

from typing import Any

from app.domain import Caller, Role, Scope
from app.engines.oracle import statements as sql
from app.engines.oracle.records import returned_id
from app.engines.oracle.search import text_query
from app.engines.oracle.status import ACCURACY_TARGET, ACCURACY_TOP_K
from app.rag.doctor import CheckResult, failed, passed, plan_unreadable, warned

# Oracle Text operators and reserved words (FACTS.md §12.4): the engine's query builder must make them terms.
# Reserved words, operators, and letters or digits Python keeps but BASIC_LEXER may not (superscripts,
# fractions, Roman numerals, half-width kana): each must be a plain braced term, never a DRG error.
RESERVED_WORDS_QUERY = "NEAR about AND OR NOT ACCUM WITHIN fuzzy MINUS {braces} 50% login_bug ² ½ Ⅻ ｶﾀｶﾅ"
IVF_PLAN_MARK = "IVF_FLAT_CENTROID"  # the IVF index's internal tables in a plan (FACTS.md §3, DOC)
# DISPLAY_CURSOR runs with the caller's rights (DOC arpls DBMS_XPLAN "Security Model"); docker/oracle-init grants these.
PLAN_GRANTS = "DISPLAY_CURSOR needs SELECT on V_$SQL, V_$SQL_PLAN, V_$SESSION, V_$SQL_PLAN_STATISTICS_ALL"


def _skipped(name: str, proves: str, why: str, needed: bool = False) -> CheckResult:
    return CheckResult(name, proves, "SKIP", why, needed=needed)


# --- filtered FETCH APPROX for a developer ------------------------------------------------------------

def check_filtered_search(p: Any) -> list[CheckResult]:
    plan_name, plan_proves = "ivf plan", "FACTS.md §3 (IVF plans), §11.2; DOC arpls DBMS_XPLAN.DISPLAY_CURSOR"
    name, proves = "filtered approx", "FACTS.md §3 + §11.1 (filtered FETCH APPROX may return < k; exact fallback)"
    if p.qv is None:
        why = "no probe vector (see the model check)"
        return [_skipped(plan_name, plan_proves, why), failed(name, proves, why)]
    k = p.settings.top_k
    with p.conn.cursor() as cur:
        cur.execute(sql.DOCTOR_DEVELOPER)
        row = cur.fetchone()
        developer = int(row[0]) if row and row[0] is not None else -1  # -1: nobody; the filter still applies
        caller = Caller(developer, Role.DEVELOPER)
        text, binds = sql.vector_search(caller, Scope(), exact=False)
        try:
            cur.execute(text, {**binds, "qv": p.qv, "k": k})
            approx = len(cur.fetchall())
        except Exception as exc:
            return [_skipped(plan_name, plan_proves, "the query failed"),
                    failed(name, proves, f"FETCH APPROX as developer #{developer} fails", exc)]
        plan = _plan(cur, plan_name, plan_proves)  # right after the query: DISPLAY_CURSOR shows the last cursor
        if approx >= k:
            return [plan, passed(name, proves, f"developer #{developer}: FETCH APPROX returned {approx}/{k}")]
        text, binds = sql.vector_search(caller, Scope(), exact=True)
        try:
            cur.execute(text, {**binds, "qv": p.qv, "k": k})
            exact = len(cur.fetchall())
        except Exception as exc:
            return [plan, failed(name, proves, f"FETCH APPROX returned {approx}/{k} and FETCH EXACT fails", exc,
                                 "FETCH EXACT")]
    detail = f"developer #{developer}: FETCH APPROX returned {approx}/{k}, FETCH EXACT {exact}"
    if exact < approx:
        return [plan, failed(name, proves, detail + " (exact found fewer than approx)", fallback="FETCH EXACT")]
    return [plan, warned(name, proves, detail, fallback="FETCH EXACT (the engine's exact-fallback)")]


def _plan(cur: Any, name: str, proves: str) -> CheckResult:
    try:
        cur.execute(sql.DOCTOR_PLAN)
        lines = [str(r[0]) for r in cur.fetchall()]
    except Exception as exc:
        return warned(name, proves, f"plan not readable ({PLAN_GRANTS})", exc)
    # Without the V$ grants DISPLAY_CURSOR answers with rows that say so, not with an error (REVIEW-2 W2).
    if (why := plan_unreadable(lines)) is not None:
        return warned(name, proves, f"plan not readable: {why!r} ({PLAN_GRANTS})")
    if any(IVF_PLAN_MARK in line or sql.VECTOR_INDEX in line for line in lines):
        return passed(name, proves, "the IVF index is in the plan of the filtered FETCH APPROX", needed=False)
    return warned(name, proves, "the plan does not use the IVF index: exact scans (rebuild-index? metric?)",
                  fallback="exact scan by the optimizer")


# --- index accuracy -------------------------------------------------------------------------------------

def check_index_accuracy(p: Any) -> list[CheckResult]:
    name, proves = "index accuracy", "FACTS.md §12.3 (named arguments) + §12.10 (array('f') into PL/SQL)"
    if p.qv is None:
        return [_skipped(name, proves, "no probe vector (see the model check)")]
    binds = {"index_name": sql.VECTOR_INDEX, "qv": p.qv, "top_k": ACCURACY_TOP_K, "target_accuracy": ACCURACY_TARGET}
    with p.conn.cursor() as cur:
        report = cur.var(str, 32767)
        try:  # the very call `ragctl status` sends: named arguments pick the overload
            cur.execute(sql.INDEX_ACCURACY, {**binds, "report": report})
        except Exception as exc:
            return [failed(name, proves, "`ragctl status` cannot measure the index accuracy", exc, needed=False)]
    return [passed(name, proves, f"named call: {report.getvalue()}", needed=False)]


# --- Oracle Text ----------------------------------------------------------------------------------------

def check_text(p: Any) -> list[CheckResult]:
    out = []
    name, proves = "lexical reserved words", "FACTS.md §8B + §12.4 (Oracle Text operators as quoted terms)"
    tq = text_query(RESERVED_WORDS_QUERY)
    text, binds = sql.text_search(Caller(0, Role.MANAGER), Scope())
    with p.conn.cursor() as cur:
        if p.qv is None:
            out.append(_skipped(name, proves, "no probe vector (see the model check)", needed=True))
        else:
            try:
                cur.execute(text, {**binds, "tq": tq, "qv": p.qv, "n": p.settings.top_k})
                out.append(passed(name, proves, f"CONTAINS answered {len(cur.fetchall())} rows for {tq[:60]}…"))
            except Exception as exc:
                out.append(failed(name, proves, f"CONTAINS fails for {tq[:60]}…", exc))
    # SYNC_INDEX commits implicitly (FACTS.md §8B): the runner rolled back after the last check and this
    # one has written nothing, so there is nothing pending it could commit.
    p.conn.rollback()
    name, proves = "text sync", "FACTS.md §8B (CTX_DDL.SYNC_INDEX) + §12.5 (on an automatically maintained index)"
    with p.conn.cursor() as cur:
        try:
            cur.execute(sql.SYNC_TEXT_INDEX, idx_name=sql.TEXT_INDEX)
            out.append(passed(name, proves, f"CTX_DDL.SYNC_INDEX({sql.TEXT_INDEX}) accepted", needed=False))
        except Exception as exc:
            out.append(warned(name, proves, "manual sync refused", exc,
                              "automatic maintenance only (fresh chunks reach CONTAINS later)"))
    return out


# --- enqueue and access triggers (one transaction, rolled back) ----------------------------------------

TRIGGER_CHECKS = (
    ("trigger task update", "FACTS.md §10 (row trigger into RAG_DIRTY, V6)"),
    ("trigger comment insert", "FACTS.md §10 (row trigger into RAG_DIRTY, V6)"),
    ("trigger project rename", "FACTS.md §10 (V6: a rename queues the project and its tasks)"),
    ("access reassignment", "FACTS.md §10 (V9 access trigger: the chunk's owner at once)"),
    ("access cascade delete", "FACTS.md §12.9 (ON DELETE SET NULL fires child triggers; no ORA-04091)"),
)


def check_triggers(p: Any) -> list[CheckResult]:
    with p.conn.cursor() as cur:
        try:
            ids = _scratch_sources(cur)
        except Exception as exc:
            return [failed(n, pr, "could not create the scratch rows (rolled back)", exc) for n, pr in TRIGGER_CHECKS]
        steps = (_task_update, _comment_insert, _project_rename, _reassignment, _cascade_delete)
        out = []
        for (name, proves), step in zip(TRIGGER_CHECKS, steps):
            try:
                ok, detail = step(cur, ids)
                out.append(passed(name, proves, detail) if ok else failed(name, proves, detail))
            except Exception as exc:
                out.append(failed(name, proves, "the statement failed", exc))
    p.conn.rollback()  # the runner rolls back too; said here because everything above must go
    return out


def _scratch_sources(cur: Any) -> dict[str, int]:
    def insert(statement: str, **binds: Any) -> int:
        new_id = cur.var(int)
        cur.execute(statement, {**binds, "new_id": new_id})
        return returned_id(new_id)

    ids = {"project": insert(sql.DOCTOR_INSERT_PROJECT, project_name="doctor probe project"),
           "owner": insert(sql.DOCTOR_INSERT_EMPLOYEE, first_name="doctor probe owner"),
           "other": insert(sql.DOCTOR_INSERT_EMPLOYEE, first_name="doctor probe other")}
    ids["task"] = insert(sql.DOCTOR_INSERT_TASK, title="doctor probe task", project_id=ids["project"],
                         assignee_id=ids["owner"])
    cur.execute(sql.DOCTOR_INSERT_CHUNK, source_id=ids["task"], owner_employee_id=ids["owner"],
                project_id=ids["project"], content="[TASK #0] doctor probe", content_hash="doctor")
    return ids


def _queued(cur: Any, source_type: str, source_id: int) -> int:
    cur.execute(sql.DOCTOR_DIRTY_COUNT, source_type=source_type, source_id=source_id)
    return int(cur.fetchone()[0])


def _chunk_owner(cur: Any, task_id: int) -> int | None:
    cur.execute(sql.DOCTOR_CHUNK_OWNER, source_id=task_id)
    row = cur.fetchone()
    return None if row is None or row[0] is None else int(row[0])


def _task_update(cur: Any, ids: dict[str, int]) -> tuple[bool, str]:
    before = _queued(cur, "task", ids["task"])
    cur.execute(sql.DOCTOR_UPDATE_TASK, title="doctor probe task (renamed)", task_id=ids["task"])
    added = _queued(cur, "task", ids["task"]) - before
    return added >= 1, f"+{added} task UPSERT row(s)"


def _comment_insert(cur: Any, ids: dict[str, int]) -> tuple[bool, str]:
    before = _queued(cur, "task", ids["task"])
    cur.execute(sql.DOCTOR_INSERT_COMMENT, task_id=ids["task"], author_id=ids["other"], body="doctor probe comment")
    added = _queued(cur, "task", ids["task"]) - before
    return added >= 1, f"+{added} task UPSERT row(s) for the comment's task"


def _project_rename(cur: Any, ids: dict[str, int]) -> tuple[bool, str]:
    before = _queued(cur, "project", ids["project"]), _queued(cur, "task", ids["task"])
    cur.execute(sql.DOCTOR_RENAME_PROJECT, project_name="doctor probe project (renamed)", project_id=ids["project"])
    project = _queued(cur, "project", ids["project"]) - before[0]
    task = _queued(cur, "task", ids["task"]) - before[1]
    return project >= 1 and task >= 1, f"+{project} project and +{task} task UPSERT row(s)"


def _reassignment(cur: Any, ids: dict[str, int]) -> tuple[bool, str]:
    cur.execute(sql.DOCTOR_REASSIGN_TASK, assignee_id=ids["other"], task_id=ids["task"])
    owner = _chunk_owner(cur, ids["task"])
    return owner == ids["other"], f"chunk owner #{owner} right after the UPDATE (expected #{ids['other']})"


def _cascade_delete(cur: Any, ids: dict[str, int]) -> tuple[bool, str]:
    before = _queued(cur, "task", ids["task"])
    cur.execute(sql.ERASE_DELETE_EMPLOYEE, employee_id=ids["other"])  # SET NULL on TASKS and COMMENTS
    owner = _chunk_owner(cur, ids["task"])
    added = _queued(cur, "task", ids["task"]) - before
    return owner is None and added >= 1, f"chunk owner {owner} after the delete, +{added} task UPSERT row(s)"
