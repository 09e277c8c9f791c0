"""Project auto-summaries on SQLite: the job's input (projects with their newest tasks) and the write."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict

import apsw

from app.domain import SummarySource
from app.engines.sqlite import statements as sql


def summary_sources(conn: apsw.Connection, max_tasks: int) -> list[SummarySource]:
    tasks: dict[int, list[tuple[str, str | None]]] = defaultdict(list)
    for project_id, title, status in conn.execute(sql.SUMMARY_TASKS, (int(max_tasks),)):
        tasks[project_id].append((title, status))
    return [
        SummarySource(pid, name, description, tuple(tasks.get(pid, ())), summary,
                      dt.datetime.fromisoformat(at) if at else None, inputs)
        for pid, name, description, summary, at, inputs in conn.execute(sql.SUMMARY_PROJECTS)
    ]


def set_project_summary(conn: apsw.Connection, project_id: int, summary: str | None, inputs: str | None) -> bool:
    conn.execute(sql.SET_PROJECT_SUMMARY, (summary, inputs, project_id))
    return conn.changes() > 0
