"""A recording stand-in for python-oracledb's pool/connection/cursor.

It is not a database: it records what the engine sends (SQL text, binds, cursor settings at execute
time, commits) and answers with scripted rows, so golden tests can pin every statement.
"""

from __future__ import annotations

import ast
import importlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import oracledb

GOLDEN = Path(__file__).parent / "golden"

# Oracle SQL reserved words (sqlrf, "Oracle SQL Reserved Words"): a bind named after one is ORA-01745.
RESERVED = frozenset("""
ACCESS ADD ALL ALTER AND ANY AS ASC AUDIT BETWEEN BY CHAR CHECK CLUSTER COLUMN COLUMN_VALUE COMMENT
COMPRESS CONNECT CREATE CURRENT DATE DECIMAL DEFAULT DELETE DESC DISTINCT DROP ELSE EXCLUSIVE EXISTS
FILE FLOAT FOR FROM GRANT GROUP HAVING IDENTIFIED IMMEDIATE IN INCREMENT INDEX INITIAL INSERT INTEGER
INTERSECT INTO IS LEVEL LIKE LOCK LONG MAXEXTENTS MINUS MLSLABEL MODE MODIFY NESTED_TABLE_ID NOAUDIT
NOCOMPRESS NOT NOWAIT NULL NUMBER OF OFFLINE ON ONLINE OPTION OR ORDER PCTFREE PRIOR PUBLIC RAW RENAME
RESOURCE REVOKE ROW ROWID ROWNUM ROWS SELECT SESSION SET SHARE SIZE SMALLINT START SUCCESSFUL SYNONYM
SYSDATE TABLE THEN TO TRIGGER UID UNION UNIQUE UPDATE USER VALIDATE VALUES VARCHAR VARCHAR2 VIEW
WHENEVER WHERE WITH
""".split())

_LITERALS_AND_COMMENTS = re.compile(r"'(?:[^']|'')*'|--[^\n]*|/\*.*?\*/", re.DOTALL)
_PLACEHOLDER = re.compile(r"(?<![\w:]):([A-Za-z][\w$#]*)")
_DDL = re.compile(r"^\s*(CREATE|ALTER|DROP|GRANT|REVOKE|TRUNCATE|COMMENT)\b", re.IGNORECASE)


def placeholders(sql: str) -> set[str]:
    """Named bind placeholders python-oracledb would find (none in DDL: it does not bind there)."""
    if _DDL.match(sql):
        return set()
    return {name.upper() for name in _PLACEHOLDER.findall(_LITERALS_AND_COMMENTS.sub(" ", sql))}


def check_binds(sql: str, binds: dict[str, Any]) -> None:
    """Exactly the placeholders, no reserved names: else DPY-4008 (extra) / ORA-01008 (missing) / ORA-01745."""
    wanted = placeholders(sql)
    given = {name.upper() for name in binds}
    assert given == wanted, (
        f"binds do not match placeholders: extra {sorted(given - wanted)}, missing {sorted(wanted - given)}"
        f"\n{sql}"
    )
    reserved = sorted(wanted & RESERVED)
    assert not reserved, f"reserved word(s) used as bind names (ORA-01745): {reserved}\n{sql}"


def placeholder_order(sql: str) -> list[str]:
    """Named binds in the order of their first appearance: the bind positions python-oracledb sends them in."""
    if _DDL.match(sql):
        return []
    return list(dict.fromkeys(n.upper() for n in _PLACEHOLDER.findall(_LITERALS_AND_COMMENTS.sub(" ", sql))))


EXPANDED_STR_BYTES = 1000  # thin declares a str at 4 bytes per UTF-8 byte: past this it is declared past 4,000


def check_lob_binds_last(sql: str, binds: dict[str, Any], inputsizes: dict[str, Any]) -> None:
    """ORA-24816 "Expanded non LONG bind data supplied after actual LONG or LOB column" (Cause: a bind value of length
    potentially > 4000 bytes follows binding for LOB or LONG; Action: re-order the binds so that the LOB binds are all
    at the end) [DOC error-help dia-24816; the 10.2 message text quoted at dbafan.com/blog/?p=269] (REVIEW-3 U1)."""
    lobs = {n.upper() for n, t in inputsizes.items() if t in (oracledb.DB_TYPE_CLOB, oracledb.DB_TYPE_BLOB)}
    values = {n.upper(): v for n, v in binds.items()}
    after_lob = None
    for name in placeholder_order(sql):
        if name in lobs:
            after_lob = after_lob or name
        elif after_lob and isinstance(values.get(name), str) and len(
                values[name].encode("utf-8", "surrogatepass")) > EXPANDED_STR_BYTES:
            raise AssertionError(f"ORA-24816: :{name.lower()} ({len(values[name].encode())} bytes, declared past 4,000) "
                                 f"is bound after the LOB bind :{after_lob.lower()}\n{sql}")


def golden(name: str) -> str:
    """The statement text of tests/oracle/golden/<name>.sql, without its header comment."""
    lines = (GOLDEN / f"{name}.sql").read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("-- source: FACTS.md §"), f"{name}.sql must name its FACTS.md section"
    body = lines[1:]
    while body and not body[0].strip():
        body.pop(0)
    return "\n".join(body).rstrip("\n")


def statement_modules() -> list[ModuleType]:
    """Every module of the Oracle statements: statements.py (the shared part) and each room's *_statements.py,
    found on disk, so a new room is covered by the golden and docs tests without being named here."""
    package = Path(__file__).resolve().parents[2] / "app" / "engines" / "oracle"
    return [importlib.import_module(f"app.engines.oracle.{path.stem}")
            for path in sorted(package.glob("*statements.py"))]


def own_names(module: ModuleType) -> set[str]:
    """The top-level names a module defines itself (what it imports from another module is not its own)."""
    names: set[str] = set()
    for node in ast.parse(Path(module.__file__).read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def ora_error(code: int, message: str) -> oracledb.DatabaseError:
    """A DatabaseError shaped like python-oracledb's: args[0] carries .code / .full_code / .message."""
    full = f"ORA-{code:05d}"
    return oracledb.DatabaseError(SimpleNamespace(code=code, full_code=full, message=f"{full}: {message}"))


def dpy_error(number: int, message: str) -> oracledb.DatabaseError:
    """A python-oracledb driver error (DPY-nnnn), shaped like ``ora_error``."""
    full = f"DPY-{number:04d}"
    return oracledb.DatabaseError(SimpleNamespace(code=number, full_code=full, message=f"{full}: {message}"))


@dataclass
class Reply:
    rows: list[tuple] = field(default_factory=list)
    rowcount: int = 0
    warning: Any = None
    error: BaseException | None = None
    out: dict[str, Any] = field(default_factory=dict)  # values to put into bound FakeVars
    description: list[Any] | None = None  # cursor.description after execute (e.g. vector_dimensions)


@dataclass
class Call:
    kind: str  # "execute" | "executemany"
    sql: str
    binds: Any
    prefetchrows: int
    arraysize: int
    inputsizes: dict[str, Any]
    call_timeout: int = 0  # the connection's call_timeout (ms) at execute time


class FakeVar:
    def __init__(self, typ: Any, size: int | None = None) -> None:
        self.typ, self.size, self.value = typ, size, None

    def getvalue(self) -> Any:
        return self.value


class FakeCursor:
    def __init__(self, conn: FakeConnection) -> None:
        self.conn = conn
        self.prefetchrows = 2  # python-oracledb defaults (FACTS.md §6)
        self.arraysize = 100
        self.warning = None
        self.rowcount = 0
        self.description: list[Any] | None = None
        self.inputsizes: dict[str, Any] = {}
        self._rows: list[tuple] = []
        self.closed = False

    def __enter__(self) -> FakeCursor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.closed = True

    def var(self, typ: Any, size: int | None = None) -> FakeVar:
        return FakeVar(typ, size)

    def setinputsizes(self, **sizes: Any) -> None:
        # As python-oracledb: each call replaces the previous sizes (BaseCursorImpl.setinputsizes).
        self.inputsizes = dict(sizes)

    def _run(self, kind: str, sql: str, binds: Any) -> None:
        assert not sql.rstrip().endswith(";") or re.search(r"\bEND\s*;\s*$", sql, re.IGNORECASE), (
            f"plain SQL must not end with ';' (ORA-00933/ORA-00911):\n{sql}")
        assert not sql.rstrip().endswith("/"), f"a '/' terminator is SQL*Plus syntax, not SQL:\n{sql}"
        for row in (binds if kind == "executemany" else [binds]):
            check_binds(sql, row)
            check_lob_binds_last(sql, row, self.inputsizes)
        call = Call(kind, sql, binds, self.prefetchrows, self.arraysize, self.inputsizes, self.conn.call_timeout)
        if sql not in self.conn.hidden:
            self.conn.calls.append(call)
        # python-oracledb applies input sizes to the next execute only (_prepare_for_execute resets them).
        self.inputsizes = {}
        unknown = {n.lower() for n in call.inputsizes} - {n.lower() for n in placeholders(sql)}
        assert not unknown, f"input sizes for binds the statement does not have: {sorted(unknown)}\n{sql}"
        reply = self.conn.reply_for(sql)
        if reply.error is not None:
            raise reply.error
        for name, value in reply.out.items():
            binds[name].value = value
        self._rows = list(reply.rows)
        self.description = reply.description
        self.rowcount = reply.rowcount
        self.warning = reply.warning

    def execute(self, sql: str, parameters: Any = None, **kwargs: Any) -> None:
        binds = dict(parameters or {})
        binds.update(kwargs)
        self._run("execute", sql, binds)

    def executemany(self, sql: str, rows: list[dict[str, Any]]) -> None:
        if not rows:
            raise AssertionError("executemany with no rows (FACTS.md §11.7: DPY-4010 on some versions)")
        self._run("executemany", sql, list(rows))

    def fetchone(self) -> tuple | None:
        return self._rows.pop(0) if self._rows else None

    def fetchall(self) -> list[tuple]:
        rows, self._rows = self._rows, []
        return rows

    def fetchmany(self, size: int) -> list[tuple]:
        rows, self._rows = self._rows[:size], self._rows[size:]
        return rows


Match = str | Callable[[str], bool]


class FakeConnection:
    def __init__(self, replies: list[tuple[Match, Reply]] | None = None,
                 defaults: dict[str, Reply] | None = None, hidden: frozenset[str] = frozenset()) -> None:
        self.replies = list(replies or [])  # (substring or predicate, reply); first match is used once
        self.defaults = dict(defaults or {})  # exact statement text -> the reply it gets every time no one-shot matches
        self.hidden = hidden  # statements answered but not recorded in ``calls`` (what a test is not about)
        self.calls: list[Call] = []
        self.events: list[str] = []
        self.version = "23.26.0.0.0"  # python-oracledb's Connection.version
        self.call_timeout = 0  # python-oracledb's Connection.call_timeout: ms, 0 is none

    def reply_for(self, sql: str) -> Reply:
        for index, (match, reply) in enumerate(self.replies):
            if (match(sql) if callable(match) else match in sql):
                del self.replies[index]
                return reply
        return self.defaults.get(sql, Reply())

    def cursor(self) -> FakeCursor:
        return FakeCursor(self)

    def commit(self) -> None:
        self.events.append("commit")

    def rollback(self) -> None:
        self.events.append("rollback")

    def close(self) -> None:
        self.events.append("close")

    @property
    def sqls(self) -> list[str]:
        return [c.sql for c in self.calls]


class FakePool:
    def __init__(self, conn: FakeConnection, acquire_error: BaseException | None = None) -> None:
        self.conn = conn
        self.acquired = 0
        self.released = 0
        self.acquire_error = acquire_error  # what acquire() raises (e.g. DPY-4005: the pool stayed saturated)

    def acquire(self) -> FakeConnection:
        if self.acquire_error is not None:
            raise self.acquire_error
        self.acquired += 1
        return self.conn

    def release(self, conn: FakeConnection) -> None:
        self.released += 1

    def close(self, force: bool = False) -> None:
        pass
