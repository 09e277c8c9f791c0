"""What a migration's DDL statement creates, and whether the catalogue already holds exactly that (REVIEW-3 U5).

Oracle DDL commits implicitly and the runner records a version only after its last statement, so a process that
dies in between leaves the version unrecorded, and the rerun meets its own objects: ORA-00955 (name already used)
for a CREATE TABLE or CREATE [VECTOR|SEARCH|UNIQUE] INDEX (or ORA-01408, such column list already indexed: which of
the two Oracle reports for a same-name, same-columns index is not documented, REVIEW-4 U2), ORA-01430 (column
already exists) for an ALTER TABLE ... ADD (...), ORA-02264 (name already used by an existing constraint;
ORA-02261/ORA-02275 for a duplicate key) for an ALTER TABLE ... ADD CONSTRAINT, and ORA-02443 (no such constraint)
for an ALTER TABLE ... DROP CONSTRAINT whose run already dropped it. The rerun keeps such an object only when the
catalogue shows it is the statement's own: a table with every column the statement defines, an index of that name
on the statement's table, every column the ALTER adds, a constraint of that name on the statement's table; a
dropped constraint only when no constraint of that name exists at all.
Anything else (another object under the name, a table missing a column) stays the failure it is.

Only unquoted identifiers are read (migrations/oracle uses no other); a statement this cannot read is never kept.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from app.engines.oracle import schema_statements as sql

NAME_TAKEN = 955  # ORA-00955: name is already used by an existing object
COLUMN_EXISTS = 1430  # ORA-01430: column being added already exists in table
# ORA-00955, or ORA-01408 "such column list already indexed" (REVIEW-4 U2; FACTS.md §11.8): public idempotent scripts
# accept both for this rerun [CODE oracle/langchain-oracle langgraph_oracledb checkpoint/oracle/sync.py: (955, 1408)]
INDEX_EXISTS = frozenset({NAME_TAKEN, 1408})
CONSTRAINT_EXISTS = frozenset({2264, 2261, 2275})  # name used by a constraint; such a unique/referential key exists
NO_SUCH_CONSTRAINT = 2443  # ORA-02443: Cannot drop constraint - nonexistent constraint

_NAME = r"([A-Za-z][A-Za-z0-9_$#]*)"
_CREATE_TABLE = re.compile(rf"CREATE\s+TABLE\s+{_NAME}\s*\(", re.IGNORECASE)
_CREATE_INDEX = re.compile(
    rf"CREATE\s+(?:(?:UNIQUE|BITMAP|VECTOR|SEARCH|MULTIVALUE)\s+)?INDEX\s+{_NAME}\s+ON\s+{_NAME}\b", re.IGNORECASE)
_ALTER_ADD = re.compile(rf"ALTER\s+TABLE\s+{_NAME}\s+ADD\s*\(", re.IGNORECASE)
_ADD_CONSTRAINT = re.compile(rf"ALTER\s+TABLE\s+{_NAME}\s+ADD\s+CONSTRAINT\s+{_NAME}\s", re.IGNORECASE)
_DROP_CONSTRAINT = re.compile(rf"ALTER\s+TABLE\s+{_NAME}\s+DROP\s+CONSTRAINT\s+{_NAME}\s*$", re.IGNORECASE)
_NOT_COLUMNS = {"CONSTRAINT", "PRIMARY", "UNIQUE", "FOREIGN", "CHECK", "SUPPLEMENTAL", "PERIOD"}


@dataclass(frozen=True)
class Created:
    """What one statement creates: a table (with columns), an index on a table, or columns added to a table."""

    kind: str  # "table" | "index" | "columns" | "constraint" | "dropped" (a constraint a DROP removes)
    name: str  # the table, the index or the constraint
    table: str
    columns: tuple[str, ...] = ()

    def describe(self) -> str:
        if self.kind in ("index", "constraint", "dropped"):
            return f"{'constraint' if self.kind == 'dropped' else self.kind} {self.name} on {self.table}"
        what = "table" if self.kind == "table" else "the columns of table"
        return f"{what} {self.table} ({', '.join(self.columns)})"


def created_by(statement: str) -> Created | None:
    """The object ``statement`` creates, or None when it is no CREATE TABLE/INDEX or ALTER TABLE ADD this reads."""
    text = _code_only(statement).strip()
    if found := _CREATE_TABLE.match(text):
        columns = _column_names(_parenthesized(text, found.end() - 1))
        table = found[1].upper()
        return Created("table", table, table, columns) if columns else None
    if found := _CREATE_INDEX.match(text):
        return Created("index", found[1].upper(), found[2].upper())
    if found := _ALTER_ADD.match(text):
        columns = _column_names(_parenthesized(text, found.end() - 1))
        table = found[1].upper()
        return Created("columns", table, table, columns) if columns else None
    if found := _ADD_CONSTRAINT.match(text):
        return Created("constraint", found[2].upper(), found[1].upper())
    if found := _DROP_CONSTRAINT.match(text):
        return Created("dropped", found[2].upper(), found[1].upper())
    return None


def already_ours(cur: Any, code: int | None, statement: str) -> Created | None:
    """What the failed ``statement`` would have created, when its error says it exists and the catalogue shows that
    it is this statement's own (see the module docstring); None when the failure stands."""
    created = created_by(statement)
    if created is None:
        return None
    if created.kind == "dropped":
        if code != NO_SUCH_CONSTRAINT:
            return None
        cur.execute(sql.MIGRATION_CONSTRAINT_TABLE, constraint_name=created.name)
        return created if cur.fetchone() is None else None
    if created.kind == "constraint":
        if code not in CONSTRAINT_EXISTS:
            return None
        cur.execute(sql.MIGRATION_CONSTRAINT_TABLE, constraint_name=created.name)
        row = cur.fetchone()
        return created if row is not None and row[0] == created.table else None
    if created.kind == "index":
        if code not in INDEX_EXISTS:
            return None
        cur.execute(sql.MIGRATION_INDEX_TABLE, index_name=created.name)
        row = cur.fetchone()
        return created if row is not None and row[0] == created.table else None
    if code != (COLUMN_EXISTS if created.kind == "columns" else NAME_TAKEN):
        return None
    cur.execute(sql.MIGRATION_TABLE_COLUMNS, table_name=created.table)
    present = {str(name) for (name,) in cur.fetchall()}
    return created if present and set(created.columns) <= present else None


def _code_only(statement: str) -> str:
    """The statement without ``--`` comments (outside '...' literals), as the runner's splitter reads lines."""
    from app.engines.oracle.migrate import without_line_comment  # deferred: migrate imports this module

    return "\n".join(without_line_comment(line) for line in statement.splitlines())


def _parenthesized(text: str, start: int) -> str | None:
    """The text inside the parenthesis that opens at ``start`` (literals skipped), or None when it never closes."""
    depth, quoted = 0, False
    for index in range(start, len(text)):
        char = text[index]
        if char == "'":
            quoted = not quoted
        elif not quoted and char == "(":
            depth += 1
        elif not quoted and char == ")":
            depth -= 1
            if depth == 0:
                return text[start + 1:index]
    return None


def _top_level_items(text: str) -> list[str]:
    items, depth, quoted, current = [], 0, False, []
    for char in text:
        if char == "'":
            quoted = not quoted
        elif not quoted and char in "()":
            depth += 1 if char == "(" else -1
        elif not quoted and depth == 0 and char == ",":
            items.append("".join(current))
            current = []
            continue
        current.append(char)
    items.append("".join(current))
    return [item.strip() for item in items if item.strip()]


def _column_names(inside: str | None) -> tuple[str, ...]:
    """The column names a table's parenthesized list defines (constraints skipped); () when it cannot be read."""
    if inside is None:
        return ()
    names = []
    for item in _top_level_items(inside):
        first = re.match(_NAME, item)
        if first is None:
            return ()  # a quoted or unexpected name: not read, never kept
        if first[1].upper() not in _NOT_COLUMNS:
            names.append(first[1].upper())
    return tuple(names)

