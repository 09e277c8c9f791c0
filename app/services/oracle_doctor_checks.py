"""The doctor's checks of the read path, Oracle Text and the enqueue/access triggers.

Each takes the runner's Probe (app/services/oracle_doctor.py), which rolls back after it returns.
"""

from __future__ import annotations

import json
from typing import Any

from app.domain import Caller, Role, Scope, TurnFacts
from app.engines.oracle import conversations, records
from app.engines.oracle import statements as sql
from app.engines.oracle.records import returned_id
from app.engines.oracle.search import text_query
from app.engines.oracle.status import ACCURACY_TARGET, ACCURACY_TOP_K
from app.entities import DOCUMENTS, PROJECTS, SPRINTS, TASKS
from app.rag.doctor import CheckResult, failed, passed, plan_unreadable, warned
from app.rag.erasure import like_pattern

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
    return out + [_text_optimize(p), _text_tokens(p), _text_token_case(p)]


def _text_optimize(p: Any) -> CheckResult:
    """The erasure purge's FULL optimize on the automatically maintained SEARCH index (REVIEW-2 U4), with maxtime 0
    (minimal optimization). Like the sync, it commits implicitly: nothing is pending (rolled back above)."""
    name, proves = "text optimize", "FACTS.md §8B + REVIEW-2 U4 (CTX_DDL.OPTIMIZE_INDEX idx_name/optlevel FULL/maxtime)"
    p.conn.rollback()
    with p.conn.cursor() as cur:
        try:
            cur.execute(sql.DOCTOR_OPTIMIZE_TEXT_INDEX, idx_name=sql.TEXT_INDEX)
        except Exception as exc:
            return failed(name, proves, "the FULL optimize an erasure runs is refused: erasures cannot be proven", exc)
    return passed(name, proves, f"CTX_DDL.OPTIMIZE_INDEX({sql.TEXT_INDEX}, FULL, maxtime 0) accepted")


def _text_tokens(p: Any) -> CheckResult:
    """The token table the erasure proof reads exists under the name it uses, and answers (REVIEW-2 W9)."""
    name, proves = "text tokens", "FACTS.md §8B + REVIEW-2 W9 (the index's DR$...$I token table, read by the proof)"
    with p.conn.cursor() as cur:
        cur.execute(sql.TEXT_TOKEN_TABLES_PRESENT, g_table=sql.TEXT_TOKEN_TABLES[0], i_table=sql.TEXT_TOKEN_TABLES[1])
        tables = [str(t) for (t,) in cur.fetchall()]
        if sql.TEXT_TOKEN_TABLES[1] not in tables:
            return failed(name, proves, f"{sql.TEXT_TOKEN_TABLES[1]} is not in USER_TABLES: the erasure proof cannot "
                                        "read the index's tokens, so no erasure is proven")
        try:
            for table in tables:
                statement = sql.text_tokens(table, ["login"])
                cur.execute(statement.sql, statement.binds)
                cur.fetchall()
        except Exception as exc:
            return failed(name, proves, "the token table cannot be read", exc)
    return passed(name, proves, f"{', '.join(tables)} readable")


TOKEN_CASE_SAMPLE = 1000  # word tokens of $I the case check reads


def _text_token_case(p: Any) -> CheckResult:
    """The proof looks a word up as UPPER(:w) among the word tokens (TOKEN_TYPE 0): a lexer that kept case would let a
    deleted row's token pass unseen, a false "erased" (REVIEW-3 U3). With nothing indexed yet there is nothing to
    prove, and nothing an erasure could miss: a skip the service does not need, rerun once records are indexed."""
    name, proves = "text token case", "FACTS.md §8B + REVIEW-3 U3 ($I word tokens are upper-cased, as the proof reads)"
    with p.conn.cursor() as cur:
        try:
            cur.execute(sql.DOCTOR_TOKEN_CASE, max_rows=TOKEN_CASE_SAMPLE)
            sampled, not_upper = (int(n) for n in cur.fetchone())
        except Exception as exc:
            return failed(name, proves, "the word tokens cannot be read", exc)
    if not sampled:
        return _skipped(name, proves, f"{sql.TEXT_TOKEN_TABLES[1]} holds no word token yet: rerun once records are "
                                      "indexed (no erasure can miss a token the index does not hold)")
    if not_upper:
        return failed(name, proves, f"{not_upper} of {sampled} word tokens are not upper-cased: the erasure proof's "
                                    "UPPER lookup would miss them (a false 'erased'); the lexer keeps case")
    return passed(name, proves, f"{sampled} word tokens sampled, all upper-cased")


# --- long text into a CLOB beside RETURNING INTO (REVIEW-2 U1) ------------------------------------------

CLOB_PROBE_TEXT = "doctor probe body: é " * 2000  # 44,000 UTF-8 bytes: past the 32 KB of an extended VARCHAR2


# The longest text a CLOB column takes as a plain str bind (records.LONG_BIND_BYTES, REVIEW-3 C1), in multi-byte
# text: thin declares it at 15,600 bytes, an "expanded non LONG" bind beside RETURNING INTO.
CLOB_EDGE_TEXT = "é" * 1300 + "€" * 433 + "a"


def check_clob_returning(p: Any) -> list[CheckResult]:
    """A 40 KB document body through the engine's own CRUD insert (INSERT ... RETURNING INTO, the long value bound
    as a temporary CLOB), and one of exactly 3,900 UTF-8 bytes, the longest bound as a plain str (REVIEW-3 C1), each
    read back whole, rolled back."""
    name = "clob returning"
    proves = ("FACTS.md §11.6/§12.1 + REVIEW-2 U1 (INSERT ... RETURNING with a 40 KB CLOB) + REVIEW-3 C1 (a 3,900-byte "
              "str bind)")
    for body in (CLOB_PROBE_TEXT, CLOB_EDGE_TEXT):
        size = len(body.encode())
        with p.conn.cursor() as cur:
            try:
                new_id = records.create(cur, DOCUMENTS, {"TITLE": "doctor probe document", "BODY": body})
                row = records.get(cur, DOCUMENTS, new_id)
            except Exception as exc:  # the Oracle error itself, not the 422 the CRUD path would make of ORA-01461
                return [failed(name, proves, f"a {size:,}-byte body cannot be written with RETURNING INTO",
                               exc.__cause__ or exc)]
            finally:
                p.conn.rollback()
        if row is None or row["body"] != body:
            got = None if row is None else len(row["body"] or "")
            return [failed(name, proves, f"the {size:,}-byte body came back "
                                         f"{'missing' if got is None else f'as {got} characters'}")]
    return [passed(name, proves, f"{len(CLOB_PROBE_TEXT.encode()):,}-byte body inserted as a CLOB and a "
                                 f"{len(CLOB_EDGE_TEXT.encode()):,}-byte one as a str, with RETURNING INTO, "
                                 "each read back whole")]


# --- LIKE on a CLOB, as the erasure's proof and redaction search (REVIEW-2 U8) ----------------------------

# Mixed case and an underscore: UPPER on both sides and the ESCAPE of "_" are what the statements rely on.
CLOB_LIKE_MARKER = "Doctor_Probe Marker Ångström"
# The longest text the proof binds whole (sql.PROOF_PATTERN_MAX_BYTES, REVIEW-3 C1): its LIKE pattern is exactly that
# many UTF-8 bytes of multi-byte text, a bind declared past 4,000 bytes inside UPPER() and LIKE.
CLOB_LIKE_LONG = ("Sonda Ångström " * 300)[:sql.PROOF_PATTERN_MAX_BYTES]
while len(like_pattern(CLOB_LIKE_LONG.lower()).encode()) > sql.PROOF_PATTERN_MAX_BYTES:
    CLOB_LIKE_LONG = CLOB_LIKE_LONG[:-1]


def check_clob_like(p: Any) -> list[CheckResult]:
    """The erasure's three LIKE statements (proof_count, proof_values, redact_candidates) on a CLOB whose match
    lies past its first 40,000 bytes, a document inserted for the check and rolled back; the pattern is built
    by the engine's own like_pattern, lower-cased so only a case-insensitive match finds it."""
    name = "clob like"
    proves = ("FACTS.md §10 + REVIEW-2 U8 (UPPER(clob) LIKE UPPER(:pattern) ESCAPE '\\' past 40 KB) + REVIEW-3 C1 "
              "(a 3,900-byte pattern)")
    pattern = like_pattern(CLOB_LIKE_MARKER.lower())
    decoy = CLOB_LIKE_MARKER.replace("_", "-")  # matched only if "_" were a wildcard
    with p.conn.cursor() as cur:
        try:
            new_id = records.create(cur, DOCUMENTS, {"TITLE": "doctor probe document",
                                                     "BODY": f"{CLOB_PROBE_TEXT} {CLOB_LIKE_MARKER} {CLOB_LIKE_LONG}"})
            decoy_id = records.create(cur, DOCUMENTS, {"TITLE": "doctor probe decoy",
                                                       "BODY": f"{CLOB_PROBE_TEXT} {decoy}"})
            cur.execute(sql.proof_count(DOCUMENTS.table, ("BODY",)), pattern=pattern)
            (counted,) = cur.fetchone()
            cur.execute(sql.proof_values(DOCUMENTS.table, "BODY"), pattern=pattern)
            values = len(cur.fetchall())
            cur.execute(sql.redact_candidates(DOCUMENTS.table, DOCUMENTS.pk, "BODY"), pattern=pattern)
            candidates = {int(row_id) for row_id, _ in cur.fetchall()}
            cur.execute(sql.proof_count(DOCUMENTS.table, ("BODY",)), pattern=like_pattern(CLOB_LIKE_LONG.lower()))
            (counted_long,) = cur.fetchone()
        except Exception as exc:
            return [failed(name, proves, "a LIKE on a CLOB column failed", exc.__cause__ or exc)]
        finally:
            p.conn.rollback()
    if counted != 1 or values != 1 or candidates != {new_id} or counted_long != 1:
        return [failed(name, proves, f"expected the one probe document (#{new_id}, not the decoy #{decoy_id}): "
                                     f"proof_count {counted}, proof_values {values} row(s), "
                                     f"redact_candidates {sorted(candidates)}, "
                                     f"proof_count of the {sql.PROOF_PATTERN_MAX_BYTES:,}-byte pattern {counted_long}")]
    return [passed(name, proves, "a mixed-case marker past 40,000 bytes of a CLOB found case-insensitively by the "
                                 "proof and redaction statements; an underscore matched only itself; a "
                                 f"{sql.PROOF_PATTERN_MAX_BYTES:,}-byte multi-byte pattern found too")]


# --- a long answer with long VARCHAR2 binds beside its CLOB (REVIEW-3 U1) -------------------------------------

def _json_of_at_least(size: int, item: Any) -> str:
    """A JSON array of ``item(i)`` for i = 0, 1, ... until it is at least ``size`` UTF-8 bytes."""
    items: list[Any] = []
    while len(json.dumps(items).encode()) < size:
        items.append(item(len(items)))
    return json.dumps(items)


def check_message_clob(p: Any) -> list[CheckResult]:
    """The engine's own INSERT_MESSAGE with a 44,000-byte CONTENT (a temporary CLOB) and CITATIONS and RETRIEVED of
    3,000 bytes each (thin declares them at 12,000): the order ORA-24816 refuses unless the LOB bind comes last. A
    scratch employee and conversation, the message read back whole, everything rolled back."""
    name = "message clob"
    proves = "FACTS.md §11.6/§12.1 + REVIEW-3 U1 (INSERT_MESSAGE: 40 KB CLOB CONTENT beside 3 KB VARCHAR2 binds)"
    citations = _json_of_at_least(3000, lambda i: f"[TASK #{10**12 + i}]")
    retrieved = _json_of_at_least(3000, lambda i: ["task", 10**12 + i, 0])
    with p.conn.cursor() as cur:
        try:
            employee_id = cur.var(int)
            cur.execute(sql.DOCTOR_INSERT_EMPLOYEE, first_name="doctor probe asker", new_id=employee_id)
            conversation_id = conversations.create_conversation(cur, returned_id(employee_id), "all", None,
                                                                "doctor probe conversation")
            binds = conversations.message_binds(conversation_id, "assistant", CLOB_PROBE_TEXT, citations, TurnFacts())
            message_id = conversations.insert_message(cur, {**binds, "retrieved": retrieved})
            cur.execute(sql.GET_TURN, user_id=message_id, answer_id=message_id)
            row = cur.fetchone()
        except Exception as exc:
            return [failed(name, proves, "a long answer with long citations cannot be stored", exc)]
        finally:
            p.conn.rollback()
    stored = None if row is None else (row[3], row[4], row[7])
    if stored != (CLOB_PROBE_TEXT, citations, retrieved):
        got = "missing" if row is None else "changed: " + ", ".join(
            what for what, value, sent in zip(("content", "citations", "retrieved"), stored, (
                CLOB_PROBE_TEXT, citations, retrieved)) if value != sent)
        return [failed(name, proves, f"the message came back {got}")]
    return [passed(name, proves, f"{len(CLOB_PROBE_TEXT.encode()):,}-byte content (a CLOB, bound last) with "
                                 f"{len(citations):,}-byte citations and {len(retrieved):,}-byte retrieved, read back")]


# --- enqueue and access triggers (one transaction, rolled back) ----------------------------------------

TRIGGER_CHECKS = (
    ("trigger task update", "FACTS.md §10 (row trigger into RAG_DIRTY, V6)"),
    ("trigger comment insert", "FACTS.md §10 (row trigger into RAG_DIRTY, V6)"),
    ("trigger project rename", "FACTS.md §10 (V6: a rename queues the project and its tasks)"),
    ("access reassignment", "FACTS.md §10 (V9 access trigger: the chunk's owner at once)"),
    ("access cascade delete", "FACTS.md §12.9 (ON DELETE SET NULL fires child triggers; no ORA-04091)"),
    ("access sprint delete", "FACTS.md §12.9 + REVIEW-2 U3 (SPRINTS delete: SET NULL into TASKS, V9 triggers)"),
    ("access project delete", "FACTS.md §12.9 + REVIEW-2 U3 (PROJECTS delete: SET NULL into SPRINTS, TASKS, DOCUMENTS)"),
    ("access task delete", "FACTS.md §12.9 + REVIEW-2 U3 (TASKS delete: its chunks go, COMMENTS cascade)"),
)


def check_triggers(p: Any) -> list[CheckResult]:
    with p.conn.cursor() as cur:
        try:
            ids = _scratch_sources(cur)
        except Exception as exc:
            return [failed(n, pr, "could not create the scratch rows (rolled back)", exc) for n, pr in TRIGGER_CHECKS]
        steps = (_task_update, _comment_insert, _project_rename, _reassignment, _cascade_delete, _sprint_delete,
                 _project_delete, _task_delete)
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
    """A project with a sprint, two employees, a task assigned to one of them, a second task in the sprint, and a
    chunk for each source the access triggers touch (uncommitted, like everything this check writes)."""
    def insert(statement: str, **binds: Any) -> int:
        new_id = cur.var(int)
        cur.execute(statement, {**binds, "new_id": new_id})
        return returned_id(new_id)

    ids = {"project": insert(sql.DOCTOR_INSERT_PROJECT, project_name="doctor probe project"),
           "owner": insert(sql.DOCTOR_INSERT_EMPLOYEE, first_name="doctor probe owner"),
           "other": insert(sql.DOCTOR_INSERT_EMPLOYEE, first_name="doctor probe other")}
    ids["sprint"] = insert(sql.DOCTOR_INSERT_SPRINT, sprint_name="doctor probe sprint", project_id=ids["project"])
    ids["task"] = insert(sql.DOCTOR_INSERT_TASK, title="doctor probe task", project_id=ids["project"], sprint_id=None,
                         assignee_id=ids["owner"])
    ids["sprint_task"] = insert(sql.DOCTOR_INSERT_TASK, title="doctor probe sprint task", project_id=ids["project"],
                                sprint_id=ids["sprint"], assignee_id=None)
    for source_type, key, owner, sprint in (("task", "task", ids["owner"], None),
                                            ("task", "sprint_task", None, ids["sprint"]),
                                            ("sprint", "sprint", None, None), ("project", "project", None, None)):
        cur.execute(sql.DOCTOR_INSERT_CHUNK, source_type=source_type, source_id=ids[key], owner_employee_id=owner,
                    project_id=ids["project"], sprint_id=sprint, content=f"[{source_type.upper()} #0] doctor probe",
                    content_hash="doctor")
    return ids


def _queued(cur: Any, source_type: str, source_id: int, action: str = "UPSERT") -> int:
    cur.execute(sql.DOCTOR_DIRTY_COUNT, source_type=source_type, source_id=source_id, dirty_action=action)
    return int(cur.fetchone()[0])


def _chunk(cur: Any, source_type: str, source_id: int) -> tuple[int | None, int | None, int | None] | None:
    """(owner, project, sprint) of the scratch source's chunk, or None when it is gone."""
    cur.execute(sql.DOCTOR_CHUNK_STATE, source_type=source_type, source_id=source_id)
    row = cur.fetchone()
    return None if row is None else tuple(None if v is None else int(v) for v in row)


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
    owner = (_chunk(cur, "task", ids["task"]) or (None,))[0]
    return owner == ids["other"], f"chunk owner #{owner} right after the UPDATE (expected #{ids['other']})"


def _cascade_delete(cur: Any, ids: dict[str, int]) -> tuple[bool, str]:
    before = _queued(cur, "task", ids["task"])
    cur.execute(sql.ERASE_DELETE_EMPLOYEE, employee_id=ids["other"])  # SET NULL on TASKS and COMMENTS
    chunk = _chunk(cur, "task", ids["task"])
    added = _queued(cur, "task", ids["task"]) - before
    owner = None if chunk is None else chunk[0]
    return chunk is not None and owner is None and added >= 1, (
        f"chunk owner {owner} after the delete, +{added} task UPSERT row(s)")


def _sprint_delete(cur: Any, ids: dict[str, int]) -> tuple[bool, str]:
    before = _queued(cur, "task", ids["sprint_task"])
    cur.execute(sql.crud_delete(SPRINTS), row_id=ids["sprint"])  # SET NULL on TASKS.SPRINT_ID
    sprint_chunk, task_chunk = _chunk(cur, "sprint", ids["sprint"]), _chunk(cur, "task", ids["sprint_task"])
    added = _queued(cur, "task", ids["sprint_task"]) - before
    ok = sprint_chunk is None and task_chunk is not None and task_chunk[2] is None and added >= 1
    return ok, (f"sprint chunk {'gone' if sprint_chunk is None else 'still there'}, task chunk sprint "
                f"{None if task_chunk is None else task_chunk[2]}, +{added} task UPSERT row(s)")


def _project_delete(cur: Any, ids: dict[str, int]) -> tuple[bool, str]:
    before = _queued(cur, "task", ids["task"])
    cur.execute(sql.crud_delete(PROJECTS), row_id=ids["project"])  # SET NULL on SPRINTS, TASKS, DOCUMENTS
    project_chunk = _chunk(cur, "project", ids["project"])
    task_projects = [(_chunk(cur, "task", ids[key]) or (None, "gone"))[1] for key in ("task", "sprint_task")]
    added = _queued(cur, "task", ids["task"]) - before
    ok = project_chunk is None and task_projects == [None, None] and added >= 1
    return ok, (f"project chunk {'gone' if project_chunk is None else 'still there'}, task chunks' project "
                f"{task_projects}, +{added} task UPSERT row(s)")


def _task_delete(cur: Any, ids: dict[str, int]) -> tuple[bool, str]:
    cur.execute(sql.crud_delete(TASKS), row_id=ids["task"])  # its comment goes by ON DELETE CASCADE
    chunk = _chunk(cur, "task", ids["task"])
    deletes = _queued(cur, "task", ids["task"], "DELETE")
    return chunk is None and deletes >= 1, (
        f"task chunk {'gone' if chunk is None else 'still there'}, {deletes} task DELETE row(s)")
