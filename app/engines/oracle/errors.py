"""python-oracledb errors mapped onto the contract's errors (app.engines.base), in one place."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit

from app.engines.base import ConflictError, ModelMissingError, UnavailableError, ValueTooLongError
# any str fits LOB_COLUMNS: ORA-01461 is blamed on a VARCHAR2 value
from app.engines.oracle.record_statements import LOB_COLUMNS
from app.entities import EntitySpec

# ORA codes that mean "this write broke a constraint".
CONFLICT_CODES = {
    1: "a unique value is already taken",  # ORA-00001
    1400: "a required value is missing",  # ORA-01400
    1407: "a required value is missing",  # ORA-01407
    2290: "a value is not allowed",  # ORA-02290 check constraint
    2291: "a referenced row does not exist",  # ORA-02291
    2292: "other rows still reference this row",  # ORA-02292
}
# ORA codes that mean "the database cannot take this now; retry once the DBA acts": HTTP 503 with
# Retry-After (app/api/errors.py), one line from the CLI. (seconds to suggest, what to say)
_UNAVAILABLE_CODES = {
    **dict.fromkeys((1653, 1654, 1688, 1691, 1536),  # unable to extend table/index/partition/LOB; quota
                    (60, "the tablespace (or the schema's quota) is full: the DBA must add space")),
    # ORA-01652 unable to extend temp segment: temporary LOBs and sorts; "retry the operation in case any concurrent
    # operations have released space" [DOC error-help ora-01652] (REVIEW-3 W2)
    1652: (30, "the temporary tablespace (TEMP) is full: retry later, or the DBA adds TEMP space"),
    16000: (30, "the database is open read-only"),  # ORA-16000
    372: (30, "a data file cannot be written now (read-only or offline tablespace)"),  # ORA-00372
    60: (1, "a deadlock was broken by rolling this statement back"),  # ORA-00060: retry at once
    **dict.fromkeys((1034, 1089, 1090, 3113, 3114, 3135),  # not available, shutting down, connection lost
                    (10, "Oracle is not available")),
}
# A str binds as a VARCHAR2 of its byte length (FACTS.md §12.1): past the column it is ORA-12899
# ('value too large for column "APP"."SPRINTS"."GOAL" (actual: 4500, maximum: 4000)'); a bind value longer than
# the maximum VARCHAR2 is ORA-01461 [DOC error-help ora-01461, REVIEW-3 C1], and the 26ai catalogue also has
# ORA-14699 "long bind value is too large for column" (more than 4000 bytes for a VARCHAR2 or RAW column) [DOC
# error-help oci-14699, REVIEW-3 U4]; neither names a column.
VALUE_TOO_LARGE, LONG_BIND, LONG_BIND_TOO_LARGE = 12899, 1461, 14699
_TOO_LARGE = re.compile(r'column (?:"[^"]*"\.)*"(?P<column>[^"]+)"'
                        r'(?: \(actual: (?P<actual>\d+), maximum: (?P<maximum>\d+)\))?')
VARCHAR2_MAX_BYTES = 4000
MODEL_MISSING = 40284  # ORA-40284: model does not exist (FACTS.md §2)
MODEL_EXISTS = 40204  # ORA-40204: model already exists (FACTS.md §2)


def ora_code(exc: BaseException) -> int | None:
    """The ORA-nnnnn number of a python-oracledb error, if it carries one."""
    err = exc.args[0] if getattr(exc, "args", None) else None
    code = getattr(err, "code", None)
    return code if isinstance(code, int) else None


def ora_error_number(exc: BaseException) -> int | None:
    """The number of an ORA-nnnnn error only (a python-oracledb DPY-nnnn driver error has a number too)."""
    err = exc.args[0] if getattr(exc, "args", None) else None
    full_code = getattr(err, "full_code", None)
    if isinstance(full_code, str) and not full_code.startswith("ORA-"):
        return None
    return ora_code(exc)


# ORA codes a chunk upsert raises about its rows or the model, whatever the MERGE's form: a failure with one of
# these never makes the worker switch forms (upsert.form_refused; REVIEW-2 W4). The "not now" codes above are
# excluded as well.
UPSERT_DATA_ERRORS = frozenset({
    1, 1400, 1407, 2290, 2291,  # a constraint: unique key, NOT NULL, CHECK, a missing parent
    1461, 12899, 14699,  # a value too long for its column or its bind (FACTS.md §12.1, REVIEW-3 U4)
    22835,  # buffer too small for CLOB to CHAR conversion: a text too long for VECTOR_EMBEDDING (FACTS.md §2)
    40284,  # the model does not exist (FACTS.md §2): ModelMissingError, not a form
    51803, 51805, 51812,  # a vector of the wrong dimensions, malformed, or of another format (FACTS.md §1, §11)
})


# python-oracledb's own "not now" errors (DPY-nnnn), which carry code 0 (REVIEW-3 W2): thin raises DPY-4011 itself
# when the socket reads EOF or a reset, and renames a server-sent ORA-03113 & co. to it (src/oracledb/errors.py
# ERR_CONNECTION_CLOSED, ERR_ORACLE_ERROR_XREF; impl/thin/transport.pyx read_packet); DPY-1001 is a call on a
# connection already closed; DPY-4024 is the call timeout every pooled connection carries (REVIEW-3 W3).
_UNAVAILABLE_DRIVER_CODES = {
    "DPY-4011": (10, "the database or the network closed the Oracle connection"),
    "DPY-1001": (10, "the Oracle connection was already closed"),
    "DPY-4024": (5, "an Oracle call ran past RAG_ORACLE_CALL_TIMEOUT_MS (a lock wait or a stuck call)"),
}


def driver_code(exc: BaseException) -> str | None:
    """python-oracledb's full code of a driver error ("DPY-4011"), or None for an ORA error or anything else."""
    err = exc.args[0] if getattr(exc, "args", None) else None
    full_code = getattr(err, "full_code", None)
    return full_code if isinstance(full_code, str) and full_code.startswith("DPY-") else None


def unavailable(exc: BaseException) -> UnavailableError | None:
    """The contract error for an ORA code or a driver error that means "not now", or None for anything else."""
    if (driver := driver_code(exc)) in _UNAVAILABLE_DRIVER_CODES:
        retry_after_s, what = _UNAVAILABLE_DRIVER_CODES[driver]
        return UnavailableError(f"{what} ({driver}): {exc}", retry_after_s)
    code = ora_code(exc) if driver is None else None
    if code not in _UNAVAILABLE_CODES:
        return None
    retry_after_s, what = _UNAVAILABLE_CODES[code]
    return UnavailableError(f"{what} (ORA-{code:05d}): {exc}", retry_after_s)


def call_timed_out(exc: BaseException) -> bool:
    """python-oracledb's DPY-4024: a round trip ran past the connection's call_timeout (REVIEW-3 C7)."""
    return driver_code(exc) == "DPY-4024"


POOL_SATURATED = "DPY-4005"  # timed out waiting for the connection pool to return a connection (TIMEDWAIT)
POOL_SATURATED_RETRY_S = 2  # connections come back as requests finish: a client may retry soon


# python-oracledb before 4.0.1 lets a thin TIMEDWAIT pool grow past ``max`` after DPY-4005 timeouts: the background task
# opens connections for timed-out requests still queued [ISSUE python-oracledb #581; CODE doc/src/release_notes.rst
# 4.0.1] (REVIEW-4 W2). pyproject.toml requires it; the doctor and the DPY-4005 message say so if an older one runs.
DRIVER_FLOOR = (4, 0, 1)


def driver_below_floor(version: str) -> bool:
    """Whether an ``oracledb.__version__`` is older than DRIVER_FLOOR (unreadable parts count as 0)."""
    parts = []
    for piece in version.split(".")[:3]:
        digits = "".join(ch for ch in piece if ch.isdigit()) if piece[:1].isdigit() else ""
        parts.append(int(digits[:6]) if digits else 0)
    return tuple(parts + [0] * (3 - len(parts))) < DRIVER_FLOOR


def pool_state(pool: Any, maximum: int) -> str:
    """The pool's own counts (python-oracledb ConnectionPool.busy / .opened) against its maximum. With the driver
    floor a saturated pool shows busy == opened == max and fewer opened means new connections could not be opened in
    time (REVIEW-3 W4); more opened than max is the pre-4.0.1 defect, named as such (REVIEW-4 W2)."""
    busy, opened = getattr(pool, "busy", None), getattr(pool, "opened", None)
    if busy is None or opened is None:
        return "pool counts unknown"
    state = f"{busy} busy of {opened} opened, max {maximum}"
    if opened > maximum:
        state += (f"; more opened than max: python-oracledb {_driver_version()} has the pool defect fixed in "
                  f"{'.'.join(map(str, DRIVER_FLOOR))} (issue 581), upgrade it")
    return state


def _driver_version() -> str:
    try:
        import oracledb
    except ImportError:  # pragma: no cover - the Oracle engine runs only with the driver
        return "(not installed)"
    return str(oracledb.__version__)


def pool_saturated(exc: BaseException) -> bool:
    """python-oracledb's DPY-4005: no connection within the pool's wait_timeout. Every pooled one stayed busy, or a
    new one could not be opened in time: the wait also covers a connection still being created (REVIEW-3 W4)."""
    return driver_code(exc) == POOL_SATURATED


NETWORK_ACL_DENIED = 24247  # ORA-24247: network access denied by access control list (ACL)


def network_acl_denied(exc: BaseException) -> bool:
    # UTL_HTTP-style failures usually arrive as ORA-29273 (HTTP request failed) with ORA-24247 below it.
    return ora_code(exc) == NETWORK_ACL_DENIED or f"ORA-{NETWORK_ACL_DENIED}" in str(exc)


def network_acl_hint(model_uri: str, schema_user: str) -> str:
    """What a DBA runs so LOAD_ONNX_MODEL_CLOUD may reach the bucket (outside Autonomous Database).

    FACTS.md §12.7 infers this grant (APPEND_HOST_ACE, DOC 19/dbseg "Configuring Access Control for
    External Network Services"): to verify on a first database. Only the host is shown: the rest of a
    pre-authenticated URL is a secret.
    """
    host = urlsplit(model_uri).hostname or "<object storage host>"
    return (
        f"Oracle may not connect to {host} (ORA-24247: no network ACL). Outside Autonomous Database a DBA "
        f"grants it once, as SYS in the PDB (an inferred grant: verify on your first database; see docs/ORACLE.md, "
        f"Loading the model from a URL outside Autonomous Database): BEGIN DBMS_NETWORK_ACL_ADMIN.APPEND_HOST_ACE(host => '{host}', "
        f"ace => xs$ace_type(privilege_list => xs$name_list('connect', 'resolve'), "
        f"principal_name => '{schema_user.upper()}', principal_type => xs_acl.ptype_db)); END; "
        "Then rerun `ragctl oracle bootstrap`."
    )


def model_missing(model_name: str, exc: BaseException | None = None) -> ModelMissingError:
    return ModelMissingError(
        f"The embedding model {model_name} is not loaded in this Oracle schema (ORA-40284). "
        "Run `ragctl oracle bootstrap` (or scripts/bootstrap) to apply migrations and load it; "
        "see docs/ORACLE.md." + (f" [{exc}]" if exc else "")
    )


@contextmanager
def model_required(model_name: str) -> Iterator[None]:
    """ORA-40284 from a statement that embeds becomes the actionable ModelMissingError."""
    try:
        yield
    except Exception as exc:
        if ora_code(exc) == MODEL_MISSING:
            raise model_missing(model_name, exc) from exc
        raise


@contextmanager
def conflicts(entity: EntitySpec, values: Mapping[str, Any] | None = None) -> Iterator[None]:
    """A broken constraint becomes a ConflictError; a value too long for its column a ValueTooLongError."""
    try:
        yield
    except Exception as exc:
        code = ora_code(exc) or 0
        if code in (VALUE_TOO_LARGE, LONG_BIND, LONG_BIND_TOO_LARGE):
            raise too_long(entity, values or {}, exc) from exc
        reason = CONFLICT_CODES.get(code)
        if reason is None:
            raise
        raise ConflictError(f"{entity.name}: {reason} ({exc})") from exc


def too_long(entity: EntitySpec, values: Mapping[str, Any], exc: BaseException) -> ValueTooLongError:
    """Name the field: from ORA-12899's column, or (ORA-01461/ORA-14699) the bound text too long for a VARCHAR2."""
    code = ora_code(exc)
    found = _TOO_LARGE.search(str(exc)) if code == VALUE_TOO_LARGE else None
    if found and found["column"] in entity.columns:
        column = found["column"]
        # Bytes, or characters for a VARCHAR2(n CHAR) column: Oracle counts in the column's own unit.
        size = f": actual length {found['actual']}, maximum {found['maximum']}" if found["maximum"] else ""
    else:
        suspects = [c for c, v in values.items() if isinstance(v, str) and (entity.table, c) not in LOB_COLUMNS
                    and len(v.encode("utf-8", "surrogatepass")) > VARCHAR2_MAX_BYTES]
        column = suspects[0] if len(suspects) == 1 else None
        size = f": at most {VARCHAR2_MAX_BYTES} bytes in UTF-8" if column else ""
    field = column.lower() if column else None
    what = f"{entity.name} {field}" if field else f"a text value of {entity.name}"
    return ValueTooLongError(f"{what} is too long for its database column{size} (ORA-{code:05d})", field)
