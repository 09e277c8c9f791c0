"""A task's values on Oracle (TASK_VALUES, V18): written with the task in its transaction, read back as lists, and
the one-time backfill of the display text V16 stored before the table existed (app/engines/task_values.py holds
the rules both engines share). Functions take an open cursor; the caller commits."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from app.engines import task_values
from app.engines.base import batched
from app.engines.oracle import record_statements as sql
from app.engines.oracle.errors import conflicts
from app.entities import MULTI_VALUED, TASK_VALUES

IN_LIST_MAX = 500  # ids per IN list (ORA-01795 allows 1000)
BACKFILL_PAGE = 500


def write(cur: Any, task_id: int, wanted: Mapping[str, Sequence[str]]) -> bool:
    """Make the task's values of the fields in ``wanted`` exactly those; True if anything was written."""
    if not wanted:
        return False
    cur.execute(sql.VALUES_OF_TASK, task_id=int(task_id))
    changes = task_values.changes(cur.fetchall(), wanted)
    with conflicts(TASK_VALUES):
        if changes.deletes:  # executemany([]) fails on some driver versions (FACTS.md §11.7)
            cur.executemany(sql.DELETE_TASK_VALUE, [{"task_id": int(task_id), "field_name": f, "field_value": v}
                                                    for f, v in changes.deletes])
        if changes.inserts:
            cur.executemany(sql.INSERT_TASK_VALUE, [{"task_id": int(task_id), "field_name": f, "field_value": v}
                                                    for f, v in changes.inserts])
    return bool(changes)


def attach(cur: Any, rows: Sequence[dict[str, Any]]) -> None:
    """Each task row's lists in place of its display text (one IN-list read per 500 rows)."""
    stored: list[tuple[int, str, str]] = []
    for chunk in batched([int(row["task_id"]) for row in rows], IN_LIST_MAX):
        statement = sql.task_values(chunk)
        cur.execute(statement.sql, statement.binds)
        stored.extend(cur.fetchall())
    task_values.attach(rows, stored)


def backfill(connection: Any) -> int:
    """The values of every task that has display text and no values (written before V18), split as SQLite's V13
    splits them; the number of tasks given values. Idempotent: a task with values is never read again."""
    done, after = 0, 0
    with connection.cursor() as cur:
        while True:
            cur.execute(sql.TASK_VALUES_BACKFILL, after_id=after, max_rows=BACKFILL_PAGE)
            rows = cur.fetchall()
            for task_id, *texts in rows:
                wanted = {field: task_values.split_display(text)
                          for field, text in zip(_BACKFILL_FIELDS, texts) if text is not None}
                done += write(cur, int(task_id), wanted)
            if len(rows) < BACKFILL_PAGE:
                return done
            after = int(rows[-1][0])


# The columns TASK_VALUES_BACKFILL reads after TASK_ID, in order.
_BACKFILL_FIELDS = tuple(MULTI_VALUED[c] for c in ("LABELS", "COMPONENTS", "FIX_VERSIONS", "AFFECTS_VERSIONS"))
