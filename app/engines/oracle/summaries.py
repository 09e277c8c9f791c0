"""Project auto-summaries on Oracle: the job's input (projects with their newest tasks) and the write."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from app.domain import SummarySource
from app.engines.oracle import settings_statements as sql
from app.engines.oracle.records import clob_input_sizes


def summary_sources(cur: Any, max_tasks: int) -> list[SummarySource]:
    cur.execute(sql.SUMMARY_TASKS, max_tasks=int(max_tasks))
    tasks: dict[int, list[tuple[str, str | None]]] = defaultdict(list)
    for project_id, title, status in cur.fetchall():
        tasks[int(project_id)].append((title, status))
    cur.execute(sql.SUMMARY_PROJECTS)
    return [SummarySource(int(pid), name, description, tuple(tasks.get(int(pid), ())), summary, at, inputs)
            for pid, name, description, summary, at, inputs in cur.fetchall()]


def set_project_summary(cur: Any, project_id: int, summary: str | None, inputs: str | None) -> bool:
    binds = {"summary": summary, "summary_inputs": inputs, "project_id": int(project_id)}
    if sizes := clob_input_sizes(binds, ("summary",)):  # PROJECTS.AUTO_SUMMARY is a CLOB
        cur.setinputsizes(**sizes)
    cur.execute(sql.SET_PROJECT_SUMMARY, binds)
    return cur.rowcount > 0
