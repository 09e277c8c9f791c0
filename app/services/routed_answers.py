"""The answers a route computes from the records (app/rag/routing.py), before any LLM speaks: a tracker
list, count or sum, a comparison, comments and blockers, a scope change, a question back. Each is a
``Computed`` (app/rag/computed.py) — the offline answer itself and what an LLM's reply must keep — read
under the access rule (find_tasks and app/services/entities.py apply it in the query). The chat turn
(app/services/chat.py) calls these from its evidence gathering."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from collections.abc import Sequence
from typing import Any

from app.domain import Named, Person
from app.records_model import SourceRecord, TaskSource
from app.rag import comment_answers, comparisons, refs, task_answers, task_questions
from app.rag.answers import tracker as tracker_answer
from app.rag.computed import Computed
from app.rag.refs import EntityRef
from app.rag.routing import Route
from app.services import entities, tools, tracker_answers
from app.services.conversations import EffectiveScope

MAX_PROJECTS_ASKED = 10  # projects named in "Which project?"


@dataclass
class Records:
    """A computed answer and the records it was read from (the turn's entities), or the ids not found."""

    computed: Computed
    entities: dict[EntityRef, SourceRecord] = field(default_factory=dict)
    missing: list[EntityRef] = field(default_factory=list)


def tracker(state: tools.ToolState, asked: task_questions.TaskQuestion, scope: EffectiveScope
            ) -> tuple[Computed, list[dict[str, Any]], Person | None]:
    """find_tasks for a tracker question, and its answer (with the rows, and the person asked about)."""
    ambiguous = task_answers.ambiguous_person(asked)
    if ambiguous is not None:
        return Computed(ambiguous), [], None
    asked = _scoped(asked, scope)
    person = asked.people[0] if asked.people else None
    query = task_questions.to_query(asked, state.caller.employee_id, person, state.today)
    rows = _in_scope(state.engine.find_tasks(state.caller, query), scope)
    return task_answers.computed(asked, rows, person, truncated=len(rows) == query.limit), rows, person


def comparison(state: tools.ToolState, route: Route, scope: EffectiveScope) -> Computed:
    """Every matching task the asker may see, grouped and ranked. A list cut at find_tasks' limit could
    crown the wrong winner: then the answer says it cannot rank rather than rank a part."""
    asked, group = route.tasks, route.group
    assert asked is not None and group is not None
    ambiguous = task_answers.ambiguous_person(asked)
    if ambiguous is not None:
        return Computed(ambiguous)
    asked = _scoped(asked, scope)
    person = asked.people[0] if asked.people else None
    query = task_questions.to_query(asked, state.caller.employee_id, person, state.today)
    rows = _in_scope(state.engine.find_tasks(state.caller, query), scope)
    vocabulary = state.vocabulary()
    known = {"project": vocabulary.projects if asked.project is None else (),
             "sprint": [s for s in vocabulary.sprints if asked.project is None or s.project_id == asked.project.id]
             if asked.sprint is None else (),
             "assignee": vocabulary.people if state.caller.sees_everything and person is None else ()}
    groups = comparisons.rank(rows, group, asked.aggregate == "points", known.get(group.dimension, ()))
    return comparisons.answer(groups, group, asked.lang, asked.aggregate == "points",
                              task_answers.describe(asked, person), truncated=len(rows) == query.limit)


def comments_or_blockers(state: tools.ToolState, route: Route, question: str, scope: EffectiveScope) -> Records:
    """Comments or blockers of the tasks asked about (the focus, or ids), or the blocked tasks in the
    conversation's scope; a hidden task and a missing one read the same."""
    if route.refs:
        found = entities.visible(state.engine, state.caller, route.refs)
        missing = [r for r in route.refs if r not in found]
        tasks = [r for r in found.values() if isinstance(r, TaskSource)]
        if route.kind == "comments":
            author = route.people[0] if len(route.people) == 1 else None
            computed = comment_answers.comments_answer(question, tasks, route.lang, author)
        else:
            computed = comment_answers.blockers_of(tasks, route.lang, _holders(state, tasks))
        gone = " ".join(_NOT_VISIBLE[route.lang].format(what=f"#{r[1]}") for r in missing)
        return Records(dataclasses.replace(computed, text="\n\n".join(p for p in (computed.text, gone) if p)),
                       found, missing)
    asked = _scoped(route.tasks or task_questions.TaskQuestion(lang=route.lang, open_only=True), scope)
    person = asked.people[0] if len(asked.people) == 1 else None
    query = task_questions.to_query(asked, state.caller.employee_id, person, state.today)
    rows = _in_scope(state.engine.find_tasks(state.caller, query), scope)
    records = entities.visible(state.engine, state.caller, [("task", int(r["task_id"])) for r in rows])
    tasks = [r for r in records.values() if isinstance(r, TaskSource)]
    computed = comment_answers.blocked_list(tasks, route.lang, task_answers.describe(asked, person))
    listed = {refs.ref_of(a) for a in computed.anchors}
    return Records(computed, {ref: record for ref, record in records.items() if ref in listed})


def _holders(state: tools.ToolState, tasks: Sequence[TaskSource]) -> dict[int, TaskSource]:
    """The tasks these depend on or are blocked by, among those the asker may see (a hidden one is not named)."""
    wanted = [("task", link.target_task_id) for task in tasks for link in task.links
              if link.link_type in comment_answers.WAITING_LINKS and link.target_task_id is not None]
    found = entities.visible(state.engine, state.caller, refs.unique(wanted)) if wanted else {}
    return {ref[1]: record for ref, record in found.items() if isinstance(record, TaskSource)}


def _scoped(asked: task_questions.TaskQuestion, scope: EffectiveScope) -> task_questions.TaskQuestion:
    """The question bounded by the conversation's project scope, as retrieval is ("only look at Payments from
    now on", then "how many tasks are in review?" counts Payments' tasks); a project the question names wins."""
    if asked.project is None and isinstance(scope.project, int):
        return dataclasses.replace(asked, project=Named(scope.project, scope.label))
    return asked


def _in_scope(rows: list[dict[str, Any]], scope: EffectiveScope) -> list[dict[str, Any]]:
    """Under the scope "none" (what belongs to no project) only the tasks of no project."""
    return [r for r in rows if scope.project != "none" or r.get("project_id") is None]


def scope_change(state: tools.ToolState, route: Route) -> Computed:
    """The scope the asker asked for, set through the set_rag_scope tool's own path (a pinned
    conversation refuses it there), or the question back when no project was named."""
    asked, say = route.scope, _SCOPE_TEXT[route.lang]
    assert asked is not None
    if asked.target is None:
        projects = state.vocabulary().projects
        names = ", ".join(f"{p.name} (#{p.id})" for p in projects[:MAX_PROJECTS_ASKED])
        return Computed(say["which"].format(names=names or "-"))
    result = tools.set_rag_scope(state, asked.target)
    if not result["success"]:
        return Computed(say["refused"].format(error=result["error"]))
    target = result["rag_scope"]
    if target in ("all", "none"):
        return Computed(say[target])
    anchor = f"[PROJECT #{target}]"
    state.anchors.add(anchor)  # citable, as a tool's result is
    # Nothing an LLM's reply must repeat: it may say the change in its own words around its answer.
    return Computed(say["project"].format(name=result["label"], anchor=anchor))


def clarify(state: tools.ToolState, route: Route, scope: EffectiveScope) -> Computed:
    """The question back when a clear kind lacks what it needs (a sprint or project: with the names to
    choose from). "The project" of a conversation scoped to one is that one: then the answer itself."""
    if route.missing == "project" and route.tasks is not None and isinstance(scope.project, int):
        return tracker(state, route.tasks, scope)[0]  # tracker bounds the question by the scope's project
    if route.missing == "person":
        return tracker_answer.ambiguous(route.ambiguous, route.lang)
    if route.missing == "project" and route.query is not None and isinstance(scope.project, int):
        return tracker_answers.answer(state, route.query, scope, route.lang)[0]  # the scope's project is "the project"
    text = _CLARIFY[route.lang][route.missing]  # type: ignore[index]
    if route.missing in ("sprint", "project"):
        vocabulary = state.vocabulary()
        named = vocabulary.sprints if route.missing == "sprint" else vocabulary.projects
        text = text.format(names=", ".join(f"{n.name} (#{n.id})" for n in named[:MAX_PROJECTS_ASKED]) or "-")
    return Computed(text)


_SCOPE_TEXT = {
    "en": {"all": "From now on I search everything you can see.",
           "none": "From now on I search only what belongs to no project.",
           "project": "From now on I search only the {name} project {anchor}.",
           "which": "Which project? {names}", "refused": "The scope stays as it is: {error}."},
    "es": {"all": "A partir de ahora busco en todo lo que puedes ver.",
           "none": "A partir de ahora busco solo en lo que no pertenece a ningún proyecto.",
           "project": "A partir de ahora busco solo en el proyecto {name} {anchor}.",
           "which": "¿Qué proyecto? {names}", "refused": "El ámbito no cambia: {error}."},
}
_CLARIFY = {
    "en": {"task": "Which task? Name it or give its id (for example \"task 107\").",
           "group": "Compare by what: project, sprint, person or status?",
           "sprint": "Which sprint? {names}", "project": "Which project? {names}"},
    "es": {"task": "¿Qué tarea? Nómbrala o da su número (por ejemplo \"tarea 107\").",
           "group": "¿Comparar por qué: proyecto, iteración, persona o estado?",
           "sprint": "¿Qué iteración? {names}", "project": "¿Qué proyecto? {names}"},
}
_NOT_VISIBLE = {"en": "There is no task {what} that you can see.", "es": "No hay ninguna tarea {what} que puedas ver."}
