"""The doctor's steps from REVIEW-4 §4: the V16 triggers at run time (links, a task delete's cascades, an employee
rename: U1, U4), the V16 constraints and the sync cursor, the text arm's plan and time (W1), the driver version (W2)
and a call-timeout probe on the real server and network path (C7). The migration rerun (U2) is
``ragctl oracle migration-rerun`` (app/services/oracle_admin.py), which `make test-oracle` runs.

Each takes the runner's Probe (app/services/oracle_doctor.py), which rolls back after it returns; the trigger and
sync-cursor steps write scratch rows only and roll back themselves too.
"""

from __future__ import annotations

import time
from typing import Any

from app.domain import Caller, Role
from app.engines.oracle import errors, records
from app.engines.oracle import doctor_statements as doctor_sql
from app.engines.oracle import record_statements as record_sql
from app.engines.oracle import search_statements as search_sql
from app.engines.oracle.search import braced
from app.entities import TASKS
from app.rag.doctor import CheckResult, failed, first_line, passed, plan_unreadable, warned
from app.services.oracle_doctor_triggers import _queued, _scratch_sources

TEXT_COST_WARN_S = 1.0  # a statistics query slower than this on every uncached search is worth a look
TEXT_COST_WARN_ROWS = 100_000  # a full table scan of RAG_CHUNK past this many chunks is W1 back
CALL_TIMEOUT_PROBE_MS = 500
SLEEP_S = 2
SCRATCH_SOURCE = "doctor-probe"  # a sync cursor no tracker source is named (rolled back)


# --- the driver (W2) -------------------------------------------------------------------------------

def check_driver(p: Any) -> list[CheckResult]:
    name, proves = "driver version", "FACTS.md §11 (reported pitfalls) + REVIEW-4 W2 (python-oracledb issue 581, fixed in 4.0.1)"
    import oracledb

    version = str(oracledb.__version__)
    floor = ".".join(map(str, errors.DRIVER_FLOOR))
    if errors.driver_below_floor(version):
        return [warned(name, proves, f"python-oracledb {version} is below {floor}: a TIMEDWAIT pool can grow past "
                                     f"RAG_ORACLE_POOL_MAX after DPY-4005 timeouts; upgrade it (pyproject.toml)")]
    return [passed(name, proves, f"python-oracledb {version} (floor {floor})", needed=False)]


# --- a call cut by its timeout (C7) --------------------------------------------------------------------

def check_call_timeout(p: Any) -> list[CheckResult]:
    """On a scratch connection: call_timeout 500 ms, a 2 s sleep: DPY-4024 (or DPY-4011 when the break failed), the
    engine maps it to a 503, and after DPY-4024 the same connection still answers. Not needed by the service (C7 is
    confirmed by the driver's code); a failure says a stuck call would hold its pooled connection on this path."""
    from app.services.oracle_doctor import opened

    name, proves = "call timeout", ("FACTS.md §12.3 (an anonymous block) + REVIEW-3 C7 / REVIEW-4 §4.5 (thin call_timeout: "
                                     "DPY-4024, or DPY-4011)")

    def verdict(ok: bool, detail: str, error: BaseException | None = None) -> list[CheckResult]:
        return [passed(name, proves, detail, needed=False) if ok
                else failed(name, proves, detail, error, needed=False)]

    with opened(p.connect, 1) as (conn,):
        conn.call_timeout = CALL_TIMEOUT_PROBE_MS
        started = time.monotonic()
        try:
            with conn.cursor() as cur:
                cur.execute(doctor_sql.DOCTOR_SLEEP, seconds=SLEEP_S)
        except Exception as exc:
            cut = exc
        else:
            return verdict(False, f"a {SLEEP_S} s call ran to its end under a {CALL_TIMEOUT_PROBE_MS} ms call timeout: "
                                  "nothing bounds a stuck call")
        elapsed_ms = (time.monotonic() - started) * 1000
        code = errors.driver_code(cut)
        if code not in ("DPY-4024", "DPY-4011") or errors.unavailable(cut) is None:
            return verdict(False, f"the cut call raised {code or 'another error'}, not answered 503 by the engine", cut)
        if code == "DPY-4011":
            return verdict(True, f"cut after {elapsed_ms:.0f} ms with DPY-4011 (the break failed: the connection is "
                                 "dropped and the pool replaces it); the engine answers 503")
        conn.call_timeout = 0
        try:
            with conn.cursor() as cur:
                cur.execute(doctor_sql.DOCTOR_DUAL)
                answer = cur.fetchone()
        except Exception as exc:
            return verdict(False, "DPY-4024, but the connection did not answer afterwards", exc)
    if answer is None or int(answer[0]) != 1:
        return verdict(False, f"DPY-4024, then SELECT 1 FROM dual answered {answer!r}")
    return verdict(True, f"cut after {elapsed_ms:.0f} ms with DPY-4024 (503); the same connection answers")


# --- V16: constraints and the sync cursor ----------------------------------------------------------------

def check_v16_constraints(p: Any) -> list[CheckResult]:
    name, proves = "v16 constraints", "FACTS.md §4 (USER_* views) + REVIEW-4 C1 / §4.6 (ENABLED, VALIDATED)"
    with p.conn.cursor() as cur:
        cur.execute(doctor_sql.DOCTOR_V16_CONSTRAINTS)
        found = {str(n): (str(status), str(validated)) for n, status, validated in cur.fetchall()}
    missing = [n for n in doctor_sql.V16_CONSTRAINTS if n not in found]
    off = [f"{n} {s}/{v}" for n, (s, v) in sorted(found.items()) if (s, v) != ("ENABLED", "VALIDATED")]
    if missing or off:
        out = [failed(name, proves, "; ".join(filter(None, [missing and f"missing: {', '.join(missing)}",
                                                             off and f"not enforced: {', '.join(off)}"])))]
    else:
        out = [passed(name, proves, f"{len(found)} constraints enabled and validated")]
    return out + [_sync_cursor(p)]


def _sync_cursor(p: Any) -> CheckResult:
    name, proves = "sync cursor", "FACTS.md §7 (MERGE from dual) + REVIEW-4 C5 (WRITE_SYNC_CURSOR)"
    value = "doctor probe cursor"
    try:
        with p.conn.cursor() as cur:
            records.set_sync_cursor(cur, SCRATCH_SOURCE, value)
            records.set_sync_cursor(cur, SCRATCH_SOURCE, value + " (again)")  # the MATCHED branch
            read = records.sync_cursor(cur, SCRATCH_SOURCE)
    except Exception as exc:
        return failed(name, proves, "the scratch source's cursor could not be written or read", exc)
    finally:
        p.conn.rollback()
    if read != value + " (again)":
        return failed(name, proves, f"wrote a cursor twice, read back {read!r}")
    return passed(name, proves, "a scratch source's cursor written (insert, then update) and read back; rolled back")


# --- V16 triggers at run time (U1, U4) ------------------------------------------------------------------

V16_TRIGGER_CHECKS = (
    ("trigger links insert", "FACTS.md §10 (row trigger into RAG_DIRTY) + REVIEW-4 U4 (TASK_LINKS, V16)"),
    ("trigger links retarget", "FACTS.md §10 + REVIEW-4 U4 (TASK_LINKS_RAG_DIRTY_TRG on UPDATE and DELETE)"),
    ("trigger employee rename", "FACTS.md §10 + REVIEW-4 U1 (EMPLOYEES_RAG_DIRTY_TRG, V20: no DISTINCT)"),
    ("trigger links task delete", "FACTS.md §12.9 + REVIEW-4 U4 (CASCADE and SET NULL into TASK_LINKS; no ORA-04091)"),
)


def check_v16_triggers(p: Any) -> list[CheckResult]:
    with p.conn.cursor() as cur:
        try:
            ids = _scratch_sources(cur)
        except Exception as exc:
            return [failed(n, pr, "could not create the scratch rows (rolled back)", exc) for n, pr in V16_TRIGGER_CHECKS]
        out = []
        for (name, proves), step in zip(V16_TRIGGER_CHECKS, (_links_insert, _links_retarget, _employee_rename,
                                                             _links_task_delete)):
            try:
                ok, detail = step(cur, ids)
                out.append(passed(name, proves, detail) if ok else failed(name, proves, detail))
            except Exception as exc:
                out.append(failed(name, proves, "the statement failed", exc))
    p.conn.rollback()
    return out


def _links(cur: Any, ids: dict[str, int]) -> list[tuple[int, int, int | None]]:
    cur.execute(doctor_sql.DOCTOR_LINKS, task_a=ids["task"], task_b=ids["sprint_task"])
    return [(int(a), int(b), None if c is None else int(c)) for a, b, c in cur.fetchall()]


def _link(cur: Any, task: int, link_type: str, key: str, target: int | None) -> None:
    cur.execute(record_sql.INSERT_LINK, task_id=task, link_type=link_type, target_key=key, target_task_id=target)


def _links_insert(cur: Any, ids: dict[str, int]) -> tuple[bool, str]:
    before = _queued(cur, "task", ids["task"]), _queued(cur, "task", ids["sprint_task"])
    _link(cur, ids["task"], "BLOCKS", "DOCTOR-2", ids["sprint_task"])
    _link(cur, ids["sprint_task"], "BLOCKED_BY", "DOCTOR-1", ids["task"])
    added = _queued(cur, "task", ids["task"]) - before[0], _queued(cur, "task", ids["sprint_task"]) - before[1]
    links = _links(cur, ids)
    ids["link_a"], ids["link_b"] = (links[0][0], links[1][0]) if len(links) == 2 else (-1, -1)
    return min(added) >= 1 and len(links) == 2, f"+{added[0]} and +{added[1]} task UPSERT row(s), {len(links)} links"


def _links_retarget(cur: Any, ids: dict[str, int]) -> tuple[bool, str]:
    before = _queued(cur, "task", ids["task"])
    cur.execute(record_sql.RETARGET_LINK, target_task_id=None, link_id=ids["link_a"])
    retargeted = _queued(cur, "task", ids["task"]) - before
    cur.execute(record_sql.RETARGET_LINK, target_task_id=ids["sprint_task"], link_id=ids["link_a"])
    _link(cur, ids["task"], "RELATES", "DOCTOR-3", None)
    extra = max(link_id for link_id, *_ in _links(cur, ids))
    before = _queued(cur, "task", ids["task"])
    cur.execute(record_sql.DELETE_LINK, link_id=extra)
    deleted = _queued(cur, "task", ids["task"]) - before
    return retargeted >= 1 and deleted >= 1, f"+{retargeted} on RETARGET_LINK, +{deleted} on DELETE_LINK"


def _employee_rename(cur: Any, ids: dict[str, int]) -> tuple[bool, str]:
    cur.execute(doctor_sql.DOCTOR_INSERT_COMMENT, task_id=ids["task"], author_id=ids["other"],
                body="doctor probe comment")
    before = _queued(cur, "task", ids["task"])
    cur.execute(doctor_sql.DOCTOR_RENAME_EMPLOYEE, first_name="doctor probe other (renamed)", employee_id=ids["other"])
    added = _queued(cur, "task", ids["task"]) - before
    return added >= 1, f"+{added} task UPSERT row(s) for the task the renamed employee commented on"


def _links_task_delete(cur: Any, ids: dict[str, int]) -> tuple[bool, str]:
    before = _queued(cur, "task", ids["sprint_task"])
    cur.execute(record_sql.crud_delete(TASKS), row_id=ids["task"])  # its links CASCADE, links to it SET NULL
    links = _links(cur, ids)
    added = _queued(cur, "task", ids["sprint_task"]) - before
    own = [link for link in links if link[1] == ids["task"]]
    pointing = [link for link in links if link[0] == ids["link_b"]]
    ok = not own and len(pointing) == 1 and pointing[0][2] is None and added >= 1
    return ok, (f"its own links {'gone' if not own else 'still there'}, the link to it "
                f"{'targets NULL' if pointing and pointing[0][2] is None else 'not set to NULL'}, "
                f"+{added} UPSERT row(s) for the linking task")


# --- the text arm's cost (W1) -------------------------------------------------------------------------

def check_text_cost(p: Any) -> list[CheckResult]:
    """Elapsed time and plan of text_statistics for a manager and a developer, and one text_term_rows on the index's
    most frequent word: a warning above TEXT_COST_WARN_S, or when the plan reads RAG_CHUNK in full past
    TEXT_COST_WARN_ROWS chunks (RAG_CHUNK_STATS_IDX not used)."""
    name, proves = "text arm cost", "FACTS.md §10 (plain aggregate) + REVIEW-4 W1 (RAG_CHUNK_STATS_IDX, no table access)"
    notes, slow = [], []
    with p.conn.cursor() as cur:
        cur.execute(doctor_sql.DOCTOR_DEVELOPER)
        row = cur.fetchone()
        developer = Caller(int(row[0]) if row and row[0] is not None else -1, Role.DEVELOPER)
        for who, caller in (("manager", Caller(0, Role.MANAGER)), ("developer", developer)):
            text, binds = search_sql.text_statistics(caller)
            elapsed, result = _timed(cur, text, binds)
            rows = int((result or (0,))[0] or 0)
            plan = _plan_reads(cur)
            notes.append(f"{who}: {elapsed:.3f} s over {rows} chunks, {plan}")
            if elapsed > TEXT_COST_WARN_S or (plan == "TABLE ACCESS FULL RAG_CHUNK" and rows > TEXT_COST_WARN_ROWS):
                slow.append(who)
        try:
            cur.execute(doctor_sql.DOCTOR_TOP_TOKEN)
            token = (cur.fetchone() or (None,))[0]
        except Exception as exc:  # no token table: `text tokens` fails on it already
            token = None
            notes.append(f"the word counts not timed ({first_line(exc)})")
        if token and str(token).isalnum():
            text, binds = search_sql.text_term_rows(developer)
            elapsed, result = _timed(cur, text, {**binds, "tq": braced(str(token))})
            notes.append(f"the most frequent word: {elapsed:.3f} s, {int((result or (0,))[0])} visible chunks")
            if elapsed > TEXT_COST_WARN_S:
                slow.append("term count")
        elif not notes[-1].startswith("the word counts"):
            notes.append("no word token to time (nothing indexed yet)")
    detail = "; ".join(notes)
    if slow:
        return [warned(name, proves, f"slow ({', '.join(slow)}): {detail}; the engine caches these per visibility "
                                     "class, but each write clears them")]
    return [passed(name, proves, detail, needed=False)]


def _timed(cur: Any, text: str, binds: dict) -> tuple[float, Any]:
    started = time.monotonic()
    cur.execute(text, binds)
    row = cur.fetchone()
    return time.monotonic() - started, row


def _plan_reads(cur: Any) -> str:
    """What the last statement's plan reads of RAG_CHUNK (DBMS_XPLAN.DISPLAY_CURSOR, as the `ivf plan` check)."""
    try:
        cur.execute(doctor_sql.DOCTOR_PLAN)
        lines = [str(r[0]) for r in cur.fetchall()]
    except Exception as exc:
        return f"plan not readable ({first_line(exc)})"
    if (why := plan_unreadable(lines)) is not None:
        return f"plan not readable ({why})"
    if any("TABLE ACCESS FULL" in line and "RAG_CHUNK" in line for line in lines):
        return "TABLE ACCESS FULL RAG_CHUNK"
    if any("RAG_CHUNK_STATS_IDX" in line for line in lines):
        return "RAG_CHUNK_STATS_IDX only" if not any("TABLE ACCESS" in line for line in lines) else (
            "RAG_CHUNK_STATS_IDX and table access")
    return "another plan"
