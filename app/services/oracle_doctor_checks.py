"""The doctor's checks of the read path, Oracle Text and long text in CLOBs (the enqueue and access triggers' checks
are in oracle_doctor_triggers.py).

Each takes the runner's Probe (app/services/oracle_doctor.py), which rolls back after it returns.
"""

from __future__ import annotations

import json
from typing import Any

from app.domain import Caller, Role, Scope, TurnFacts
from app.engines.oracle import conversations, records
from app.engines.oracle import conversation_statements as conversation_sql
from app.engines.oracle import doctor_statements as doctor_sql
from app.engines.oracle import erasure_statements as erasure_sql
from app.engines.oracle import indexing_statements as indexing_sql
from app.engines.oracle import schema_statements as schema_sql
from app.engines.oracle import search_statements as search_sql
from app.engines.oracle import statements
from app.engines.oracle.members import with_memberships
from app.engines.oracle.records import returned_id
from app.engines.oracle.search import text_query
from app.engines.oracle.status import ACCURACY_TARGET, ACCURACY_TOP_K
from app.entities import DOCUMENTS
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
        cur.execute(doctor_sql.DOCTOR_DEVELOPER)
        row = cur.fetchone()
        developer = int(row[0]) if row and row[0] is not None else -1  # -1: nobody; the filter still applies
        # Under RAG_ACCESS_RULE=project the developer's predicate carries their member projects (docs/ORACLE.md,
        # "Project membership and FETCH APPROX"): the check runs the predicate the engine runs.
        caller = with_memberships(cur, Caller(developer, Role.DEVELOPER), p.settings.access_rule)
        text, binds = search_sql.vector_search(caller, Scope(), exact=False)
        try:
            cur.execute(text, {**binds, "qv": p.qv, "k": k})
            approx = len(cur.fetchall())
        except Exception as exc:
            return [_skipped(plan_name, plan_proves, "the query failed"),
                    failed(name, proves, f"FETCH APPROX as developer #{developer} fails", exc)]
        plan = _plan(cur, plan_name, plan_proves)  # right after the query: DISPLAY_CURSOR shows the last cursor
        if approx >= k:
            return [plan, passed(name, proves, f"developer #{developer}: FETCH APPROX returned {approx}/{k}")]
        text, binds = search_sql.vector_search(caller, Scope(), exact=True)
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
        cur.execute(doctor_sql.DOCTOR_PLAN)
        lines = [str(r[0]) for r in cur.fetchall()]
    except Exception as exc:
        return warned(name, proves, f"plan not readable ({PLAN_GRANTS})", exc)
    # Without the V$ grants DISPLAY_CURSOR answers with rows that say so, not with an error (REVIEW-2 W2).
    if (why := plan_unreadable(lines)) is not None:
        return warned(name, proves, f"plan not readable: {why!r} ({PLAN_GRANTS})")
    if any(IVF_PLAN_MARK in line or statements.VECTOR_INDEX in line for line in lines):
        return passed(name, proves, "the IVF index is in the plan of the filtered FETCH APPROX", needed=False)
    return warned(name, proves, "the plan does not use the IVF index: exact scans (rebuild-index? metric?)",
                  fallback="exact scan by the optimizer")


# --- index accuracy -------------------------------------------------------------------------------------

def check_index_accuracy(p: Any) -> list[CheckResult]:
    name, proves = "index accuracy", "FACTS.md §12.3 (named arguments) + §12.10 (array('f') into PL/SQL)"
    if p.qv is None:
        return [_skipped(name, proves, "no probe vector (see the model check)")]
    binds = {"index_name": statements.VECTOR_INDEX, "qv": p.qv, "top_k": ACCURACY_TOP_K,
             "target_accuracy": ACCURACY_TARGET}
    with p.conn.cursor() as cur:
        report = cur.var(str, 32767)
        try:  # the very call `ragctl status` sends: named arguments pick the overload
            cur.execute(schema_sql.INDEX_ACCURACY, {**binds, "report": report})
        except Exception as exc:
            return [failed(name, proves, "`ragctl status` cannot measure the index accuracy", exc, needed=False)]
    return [passed(name, proves, f"named call: {report.getvalue()}", needed=False)]


# --- Oracle Text ----------------------------------------------------------------------------------------

def check_text(p: Any) -> list[CheckResult]:
    out = []
    name, proves = "lexical reserved words", "FACTS.md §8B + §12.4 (Oracle Text operators as quoted terms)"
    tq = text_query(RESERVED_WORDS_QUERY)
    text, binds = search_sql.text_search(Caller(0, Role.MANAGER), Scope())
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
            cur.execute(indexing_sql.SYNC_TEXT_INDEX, idx_name=statements.TEXT_INDEX)
            out.append(passed(name, proves, f"CTX_DDL.SYNC_INDEX({statements.TEXT_INDEX}) accepted", needed=False))
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
            cur.execute(doctor_sql.DOCTOR_OPTIMIZE_TEXT_INDEX, idx_name=statements.TEXT_INDEX)
        except Exception as exc:
            return failed(name, proves, "the FULL optimize an erasure runs is refused: erasures cannot be proven", exc)
    return passed(name, proves, f"CTX_DDL.OPTIMIZE_INDEX({statements.TEXT_INDEX}, FULL, maxtime 0) accepted")


def _text_tokens(p: Any) -> CheckResult:
    """The token table the erasure proof reads exists under the name it uses, and answers (REVIEW-2 W9)."""
    name, proves = "text tokens", "FACTS.md §8B + REVIEW-2 W9 (the index's DR$...$I token table, read by the proof)"
    with p.conn.cursor() as cur:
        g_table, i_table = statements.TEXT_TOKEN_TABLES
        cur.execute(erasure_sql.TEXT_TOKEN_TABLES_PRESENT, g_table=g_table, i_table=i_table)
        tables = [str(t) for (t,) in cur.fetchall()]
        if i_table not in tables:
            return failed(name, proves, f"{i_table} is not in USER_TABLES: the erasure proof cannot "
                                        "read the index's tokens, so no erasure is proven")
        try:
            for table in tables:
                statement = erasure_sql.text_tokens(table, ["login"])
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
            cur.execute(doctor_sql.DOCTOR_TOKEN_CASE, max_rows=TOKEN_CASE_SAMPLE)
            sampled, not_upper = (int(n) for n in cur.fetchone())
        except Exception as exc:
            return failed(name, proves, "the word tokens cannot be read", exc)
    if not sampled:
        return _skipped(name, proves, f"{statements.TEXT_TOKEN_TABLES[1]} holds no word token yet: rerun once records "
                                      "are indexed (no erasure can miss a token the index does not hold)")
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
# The longest text the proof binds whole (erasure_sql.PROOF_PATTERN_MAX_BYTES, REVIEW-3 C1): its LIKE pattern is exactly
# that many UTF-8 bytes of multi-byte text, a bind declared past 4,000 bytes inside UPPER() and LIKE.
CLOB_LIKE_LONG = ("Sonda Ångström " * 300)[:erasure_sql.PROOF_PATTERN_MAX_BYTES]
while len(like_pattern(CLOB_LIKE_LONG.lower()).encode()) > erasure_sql.PROOF_PATTERN_MAX_BYTES:
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
            cur.execute(erasure_sql.proof_count(DOCUMENTS.table, ("BODY",)), pattern=pattern)
            (counted,) = cur.fetchone()
            cur.execute(erasure_sql.proof_values(DOCUMENTS.table, "BODY"), pattern=pattern)
            values = len(cur.fetchall())
            cur.execute(erasure_sql.redact_candidates(DOCUMENTS.table, DOCUMENTS.pk, "BODY"), pattern=pattern)
            candidates = {int(row_id) for row_id, _ in cur.fetchall()}
            cur.execute(erasure_sql.proof_count(DOCUMENTS.table, ("BODY",)),
                        pattern=like_pattern(CLOB_LIKE_LONG.lower()))
            (counted_long,) = cur.fetchone()
        except Exception as exc:
            return [failed(name, proves, "a LIKE on a CLOB column failed", exc.__cause__ or exc)]
        finally:
            p.conn.rollback()
    if counted != 1 or values != 1 or candidates != {new_id} or counted_long != 1:
        return [failed(name, proves, f"expected the one probe document (#{new_id}, not the decoy #{decoy_id}): "
                                     f"proof_count {counted}, proof_values {values} row(s), "
                                     f"redact_candidates {sorted(candidates)}, "
                                     f"proof_count of the {erasure_sql.PROOF_PATTERN_MAX_BYTES:,}-byte pattern "
                                     f"{counted_long}")]
    return [passed(name, proves, "a mixed-case marker past 40,000 bytes of a CLOB found case-insensitively by the "
                                 "proof and redaction statements; an underscore matched only itself; a "
                                 f"{erasure_sql.PROOF_PATTERN_MAX_BYTES:,}-byte multi-byte pattern found too")]


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
            cur.execute(doctor_sql.DOCTOR_INSERT_EMPLOYEE, first_name="doctor probe asker", new_id=employee_id)
            conversation_id = conversations.create_conversation(cur, returned_id(employee_id), "all", None,
                                                                "doctor probe conversation")
            binds = conversations.message_binds(conversation_id, "assistant", CLOB_PROBE_TEXT, citations, TurnFacts())
            message_id = conversations.insert_message(cur, {**binds, "retrieved": retrieved})
            cur.execute(conversation_sql.GET_TURN, user_id=message_id, answer_id=message_id)
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
