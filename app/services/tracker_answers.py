"""A typed tracker query run under the access rule and answered (issue 31): the query bounded by the conversation's
scope, run by the engine in SQL (counts, sums and groups over every matching row), and composed into an answer
that first says what it ran (app/rag/answers/tracker.py). Also the first reader's questions (task_questions) said
as typed queries, so every tracker answer stores the query a follow-up can edit."""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import TYPE_CHECKING

from app.domain import Caller
from app.rag import task_questions
from app.rag.answers import tracker as tracker_answer
from app.rag.comparisons import GroupBy
from app.rag.computed import Computed
from app.rag.understanding.lexicon import Lexicon
from app.rag.understanding.query import Group, Predicate, TrackerQuery, TrackerResult
from app.services.conversations import EffectiveScope

if TYPE_CHECKING:  # tools registers query_tasks (app/services/query_tool.py), which runs this module
    from app.services import tools


def answer(state: tools.ToolState, query: TrackerQuery, scope: EffectiveScope, lang: str) -> tuple[Computed,
                                                                                                   TrackerQuery]:
    """The answer to ``query`` and the query as it ran (bounded by the scope)."""
    computed, ran, _ = run(state, query, scope, lang)
    return computed, ran


def run(state: tools.ToolState, query: TrackerQuery, scope: EffectiveScope, lang: str
        ) -> tuple[Computed, TrackerQuery, TrackerResult]:
    """``answer``, with what the engine returned (the model's query_tasks shows the rows and groups too)."""
    ran = scoped(query, scope)
    fetch = ran
    if ran.returns in ("count", "points"):  # the tasks counted are named too, up to the answer's limit
        fetch = dataclasses.replace(ran, returns="list", order="id", descending=False,
                                    limit=tracker_answer.MAX_ANCHORS)
    result = state.engine.run_tracker_query(state.caller, fetch)
    lexicon = state.lexicon()
    if ran.returns == "group" and ran.ascending:
        result = _with_empty_groups(ran, result, lexicon, state.caller)
    return tracker_answer.answer(ran, result, lexicon, lang, state.caller.employee_id, state.today), ran, result


def scoped(query: TrackerQuery, scope: EffectiveScope) -> TrackerQuery:
    """A conversation scoped to a project bounds a query that names no project or sprint, as it bounds retrieval;
    the scope "none" keeps the tasks of no project."""
    if query.first("project") is not None or query.first("sprint") is not None:
        return query
    if isinstance(scope.project, int):
        return query.with_predicate(Predicate("project", (scope.project,)))
    if scope.project == "none":
        return query.with_predicate(Predicate("project", (None,)))
    return query


def _with_empty_groups(query: TrackerQuery, result: TrackerResult, lexicon: Lexicon, caller: Caller
                       ) -> TrackerResult:
    """"Which project has the fewest …?" may name one with none: every project (or sprint of the projects asked
    about; every person, for a manager) joins the ranking with 0."""
    known: list[tuple[object, str]] = []
    if query.group_by == "project" and query.first("project") is None:
        known = [(p.project_id, p.name) for p in lexicon.projects]
    elif query.group_by == "sprint" and query.first("sprint") is None:
        project = query.first("project")
        known = [(s.sprint_id, s.name) for s in lexicon.sprints
                 if project is None or s.project_id in project.values]
    elif query.group_by == "assignee" and caller.sees_everything and query.first("assignee") is None:
        known = [(p.employee_id, p.name) for p in lexicon.people]
    have = {g.key for g in result.groups}
    extra = [Group(key, label, 0) for key, label in known if key not in have]
    groups = sorted([*result.groups, *extra], key=lambda g: (g.points if query.measure == "points" else g.count,
                                                            g.key is None, g.label))
    return dataclasses.replace(result, groups=groups)


def from_question(asked: task_questions.TaskQuestion, asker_id: int, today: dt.date,
                  group: GroupBy | None = None) -> TrackerQuery:
    """The typed query a question of the first reader stands for (what a follow-up then edits)."""
    where: list[Predicate] = []
    person = asked.people[0] if len(asked.people) == 1 else None
    if asked.unassigned:
        where.append(Predicate("assignee", (None,)))
    elif person is not None:
        where.append(Predicate("assignee", (person.employee_id,)))
    elif asked.mine:
        where.append(Predicate("assignee", (asker_id,)))
    if asked.status:
        where.append(Predicate("status", (asked.status,)))
    if asked.open_only:
        where.append(Predicate("open", (True,)))
    if asked.priority:
        where.append(Predicate("priority", (asked.priority,)))
    if asked.overdue:
        where.append(Predicate("overdue", (today,)))
    if asked.due is not None:
        where.append(Predicate("due", window=asked.due))
    if asked.sprint is not None:
        where.append(Predicate("sprint", (asked.sprint.id,)))
    if asked.project is not None:
        where.append(Predicate("project", (asked.project.id,)))
    query = TrackerQuery(where=tuple(where))
    if group is not None:
        return dataclasses.replace(query, returns="group", group_by=group.dimension, ascending=group.fewest,
                                   measure="points" if asked.aggregate == "points" else "count")
    return dataclasses.replace(query, returns=asked.aggregate if asked.aggregate != "list" else "list",
                               limit=500 if asked.aggregate == "list" else 20)
