"""A small generated tracker for the query_tasks tests: people sharing a first name, projects sharing a word,
sprints sharing a name, and tasks with every field query_tasks filters on, written through the engine. Each
test computes its truth in Python from what was written here (``TASKS``), never from the engine."""

from __future__ import annotations

import datetime as dt
import random
from typing import Any

from app.domain import DONE_STATUSES
from app.entities import EMPLOYEES, PROJECTS, SPRINTS, TASKS
from app.worker import Worker

TODAY = dt.date.today()
LABELS = ["backend", "ui", "needs-triage", "Señal débil"]
COMPONENTS = ["Web UI", "API"]
HIDDEN_LABEL = "zebra-incident"  # only on a task of Luis's: Ana may not learn it exists


def _person(engine, first, last, role="DEVELOPER", login=None, telegram_id=None) -> int:
    values = {"FIRST_NAME": first, "LAST_NAME": last, "EMAIL": f"{first}.{last}@example.com".lower(), "ROLE": role,
              "TELEGRAM_ID": telegram_id}
    if login:
        values.update(SOURCE="jira", EXTERNAL_ID=login)
    return engine.create(EMPLOYEES, values)["employee_id"]


def _project(engine, name, key=None) -> int:
    values = {"NAME": name, "STATUS": "ACTIVE", "DESCRIPTION": f"{name} work"}
    if key:
        values.update(SOURCE="jira", EXTERNAL_KEY=key)
    return engine.create(PROJECTS, values)["project_id"]


def _sprint(engine, project_id, name, status, start) -> int:
    return engine.create(SPRINTS, {"PROJECT_ID": project_id, "NAME": name, "STATUS": status, "START_DATE": start,
                                   "END_DATE": start + dt.timedelta(days=13)})["sprint_id"]


def seed(engine, settings) -> tuple[dict[str, int], dict[int, dict[str, Any]]]:
    """(ids by name, the written tasks by id)."""
    ids = {"boss": _person(engine, "Maria", "Lopez", role="MANAGER"),
           "ana": _person(engine, "Ana", "Garcia", telegram_id="ana_tg"),
           "ana_ruiz": _person(engine, "Ana", "Ruiz"),
           "luis": _person(engine, "Luis", "Perez", login="lperez"),
           "payments": _project(engine, "Payments Platform", key="PAY"),
           "mobile_app": _project(engine, "Mobile App"),
           "mobile_web": _project(engine, "Mobile Web")}
    start = TODAY - dt.timedelta(days=40)
    ids["app_s1"] = _sprint(engine, ids["mobile_app"], "Sprint 1", "CLOSED", start)
    ids["app_s2"] = _sprint(engine, ids["mobile_app"], "Sprint 2", "ACTIVE", start + dt.timedelta(days=14))
    ids["web_s1"] = _sprint(engine, ids["mobile_web"], "Sprint 1", "ACTIVE", start)
    sprints_of = {ids["payments"]: [None], ids["mobile_app"]: [ids["app_s1"], ids["app_s2"], None],
                  ids["mobile_web"]: [ids["web_s1"]]}
    rng = random.Random(31)
    tasks: dict[int, dict[str, Any]] = {}
    for i in range(48):
        project = rng.choice([ids["payments"], ids["mobile_app"], ids["mobile_web"]])
        t = {"TITLE": f"Task {i} {rng.choice(['export', 'crash', 'ledger'])}", "DESCRIPTION": "plain text",
             "STATUS": rng.choice(["TODO", "IN_PROGRESS", "IN_REVIEW", "DONE", "CLOSED"]),
             "PRIORITY": rng.choice(["CRITICAL", "HIGH", "MEDIUM", "LOW"]), "PROJECT_ID": project,
             "SPRINT_ID": rng.choice(sprints_of[project]),
             "ASSIGNEE_ID": rng.choice([ids["ana"], ids["ana_ruiz"], ids["luis"], None]),
             "REPORTER_ID": rng.choice([ids["boss"], ids["luis"], None]), "STORY_POINTS": rng.choice([1, 2, 3, 5]),
             "EXPECTED_END_DATE": TODAY + dt.timedelta(days=rng.randrange(-10, 20)),
             "ISSUE_TYPE": rng.choice(["Bug", "Story", "Task"]), "LABELS": rng.sample(LABELS, rng.choice([0, 1, 2])),
             "COMPONENTS": rng.sample(COMPONENTS, rng.choice([0, 1])),
             "FIX_VERSIONS": rng.sample(["2.0.0", "2.1"], rng.choice([0, 1])),
             "AFFECTS_VERSIONS": rng.sample(["1.9"], rng.choice([0, 1])),
             "CREATED_AT": dt.datetime.combine(TODAY - dt.timedelta(days=rng.randrange(60)), dt.time(9))}
        t["RESOLUTION"] = rng.choice(["Fixed", "Won't Fix"]) if t["STATUS"] in DONE_STATUSES else None
        # the tracker's own priority beside ours (V16): "minor" is not "trivial", though both are LOW
        t["PRIORITY_NAME"] = {"LOW": "Minor" if i % 2 else "Trivial", "HIGH": "Major"}.get(t["PRIORITY"])
        if i == 0:  # the hidden label
            t.update(ASSIGNEE_ID=ids["luis"], LABELS=[HIDDEN_LABEL])
        if i == 1:  # the manager's own
            t.update(ASSIGNEE_ID=ids["boss"])
        if i in (2, 3):  # blocked by its status
            t.update(STATUS="BLOCKED", RESOLUTION=None)
        t["TASK_ID"] = engine.create(TASKS, t)["task_id"]
        tasks[t["TASK_ID"]] = t
    Worker(engine, settings).run_once()
    return ids, tasks


def is_open(t: dict[str, Any]) -> bool:
    return t["STATUS"] not in DONE_STATUSES


def visible(tasks: dict[int, dict[str, Any]], employee_id: int | None) -> dict[int, dict[str, Any]]:
    """What an asker may see: a manager (None) everything, a developer the tasks assigned to them."""
    return {k: t for k, t in tasks.items() if employee_id is None or t["ASSIGNEE_ID"] == employee_id}
