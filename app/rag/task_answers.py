"""The answer to a tracker question (app/rag/task_questions.py) from the rows find_tasks returned: a
short list with anchors, a count with the tasks it counted, or a sum of story points with the tasks it
added up. English or Spanish, as the question. Pure: no I/O.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any

from app.domain import Person
from app.rag.computed import Computed
from app.rag.task_questions import TaskQuestion

MAX_LISTED = 15  # tasks written out in a list answer; the rest are counted
MAX_ANCHORS = 60  # tasks named in a count or a sum

_STATUS = {"en": {"IN_PROGRESS": "in progress", "IN_REVIEW": "in review", "TODO": "to do", "DONE": "done"},
           "es": {"IN_PROGRESS": "en progreso", "IN_REVIEW": "en revisión", "TODO": "por hacer", "DONE": "terminadas"}}
_PRIORITY = {"en": {"CRITICAL": "critical", "HIGH": "high priority", "MEDIUM": "medium priority",
                    "LOW": "low priority"},
             "es": {"CRITICAL": "críticas", "HIGH": "de prioridad alta", "MEDIUM": "de prioridad media",
                    "LOW": "de prioridad baja"}}
_TEXT = {
    "en": {"mine": "assigned to you", "person": "assigned to {name}", "open": "not done", "overdue": "overdue",
           "unassigned": "unassigned", "due": "due {label} ({first} to {last})",
           "due_by": "due {label} (by {last})", "in": "in {name}",
           "list": "Tasks ({what}) — {n}:", "all": "Tasks you can see — {n}:", "more": "…and {n} more.",
           "none": "No task you can see matches: {what}.", "none_all": "You can see no task.",
           "count": "Tasks ({what}): {n}", "count_all": "Tasks you can see: {n}",
           "points": "Story points{left}{what}: {total}, from {n} task(s)", "left": " left",
           "no_estimate": "{n} of them have no estimate", "due_on": "due {date}",
           "which": "Which one do you mean: {names}? Ask again with the full name."},
    "es": {"mine": "asignadas a ti", "person": "asignadas a {name}", "open": "sin terminar", "overdue": "vencidas",
           "unassigned": "sin asignar", "due": "que vencen {label} ({first} a {last})",
           "due_by": "que vencen {label} (hasta el {last})", "in": "en {name}",
           "list": "Tareas ({what}) — {n}:", "all": "Tareas que puedes ver — {n}:",
           "more": "…y {n} más.", "none": "Ninguna tarea que puedas ver coincide: {what}.",
           "none_all": "No puedes ver ninguna tarea.", "count": "Tareas ({what}): {n}",
           "count_all": "Tareas que puedes ver: {n}", "points": "Puntos de historia{left}{what}: {total}, de {n} tarea(s)",
           "left": " pendientes", "no_estimate": "{n} sin estimación", "due_on": "vence {date}",
           "which": "¿A quién te refieres: {names}? Pregunta de nuevo con el nombre completo."},
}


def ambiguous_person(question: TaskQuestion) -> str | None:
    """The question to ask back when a name matches several people (None when it does not)."""
    if len(question.people) < 2:
        return None
    names = " / ".join(f"{p.name} (#{p.employee_id})" for p in question.people)
    return _TEXT[question.lang]["which"].format(names=names)


def describe(question: TaskQuestion, person: Person | None = None) -> str:
    """The filters in words: "assigned to you, in progress, in Payments Sprint 2" (a sum of the points
    left says "left" itself)."""
    lang, say = question.lang, _TEXT[question.lang]
    parts = []
    if question.mine:
        parts.append(say["mine"])
    if person is not None:
        parts.append(say["person"].format(name=person.name))
    if question.status:
        parts.append(_STATUS[lang].get(question.status, question.status))
    if question.open_only and question.aggregate != "points":
        parts.append(say["open"])
    if question.priority:
        parts.append(_PRIORITY[lang].get(question.priority, question.priority))
    if question.overdue:
        parts.append(say["overdue"])
    if question.unassigned:
        parts.append(say["unassigned"])
    if question.due:
        first, end = question.due
        last = (end - dt.timedelta(days=1)).isoformat()
        parts.append(say["due_by"].format(label=question.due_label, last=last) if first is None else
                     say["due"].format(label=question.due_label, first=first.isoformat(), last=last))
    for named in (question.sprint, question.project):
        if named is not None:
            parts.append(say["in"].format(name=named.name))
    return ", ".join(parts)


def answer(question: TaskQuestion, rows: Sequence[Mapping[str, Any]], person: Person | None = None,
           truncated: bool = False) -> str:
    """The answer text; every task it names carries its anchor (its citations)."""
    say, what = _TEXT[question.lang], describe(question, person)
    if not rows:
        return say["none"].format(what=what) if what else say["none_all"]
    more = "+" if truncated else ""
    if question.aggregate == "count":
        anchors = ", ".join(_anchor(r) for r in rows[:MAX_ANCHORS]) + (", …" if len(rows) > MAX_ANCHORS else "")
        head = say["count"].format(n=f"{len(rows)}{more}", what=what) if what else \
            say["count_all"].format(n=f"{len(rows)}{more}")
        return f"{head} — {anchors}."
    if question.aggregate == "points":
        return _points(question, rows, what, more)
    head = say["list"].format(what=what, n=f"{len(rows)}{more}") if what else say["all"].format(n=len(rows))
    lines = [head, *(_line(question, r, person) for r in rows[:MAX_LISTED])]
    if len(rows) > MAX_LISTED:
        lines.append(say["more"].format(n=f"{len(rows) - MAX_LISTED}{more}"))
    return "\n".join(lines)


def computed(question: TaskQuestion, rows: Sequence[Mapping[str, Any]], person: Person | None = None,
             truncated: bool = False) -> Computed:
    """The answer as a Computed: its text, the tasks it names (the listed ones, or those counted or
    added up), and the figure it states (the count, or the sum of story points)."""
    text = answer(question, rows, person, truncated)
    named = rows[:MAX_LISTED] if question.aggregate == "list" else rows[:MAX_ANCHORS]
    anchors = tuple(_anchor(r) for r in named)
    figure = _number(sum(float(r["story_points"] or 0) for r in rows)) if question.aggregate == "points" \
        else str(len(rows))
    return Computed(text, anchors, (figure,) if rows else (), anchors[0] if len(rows) == 1 else None)


def _points(question: TaskQuestion, rows: Sequence[Mapping[str, Any]], what: str, more: str) -> str:
    say = _TEXT[question.lang]
    total = sum(float(r["story_points"] or 0) for r in rows)
    left = say["left"] if question.open_only else ""
    head = say["points"].format(left=left, what=f" ({what})" if what else "", total=_number(total),
                                n=f"{len(rows)}{more}")
    listed = ", ".join(f"{_anchor(r)} {_number(r['story_points']) if r['story_points'] is not None else '-'}"
                       for r in rows[:MAX_ANCHORS]) + (", …" if len(rows) > MAX_ANCHORS else "")
    missing = sum(r["story_points"] is None for r in rows)
    note = f" ({say['no_estimate'].format(n=missing)})" if missing else ""
    return f"{head}: {listed}.{note}"


def _line(question: TaskQuestion, row: Mapping[str, Any], person: Person | None) -> str:
    say = _TEXT[question.lang]
    facts = [row.get("status") or "-", row.get("priority") or "-"]
    if row.get("expected_end_date") is not None:
        facts.append(say["due_on"].format(date=_date(row["expected_end_date"])))
    if row.get("sprint_name") and question.sprint is None:
        facts.append(str(row["sprint_name"]))
    if not question.mine and person is None and not question.unassigned:
        facts.append(row.get("assignee_name") or say["unassigned"])
    return f"- {_anchor(row)} {row.get('title') or ''} — {', '.join(facts)}"


def _anchor(row: Mapping[str, Any]) -> str:
    return f"[TASK #{row['task_id']}]"


def _date(value: Any) -> str:
    return value.isoformat()[:10] if hasattr(value, "isoformat") else str(value)


def _number(value: Any) -> str:
    number = float(value)
    return str(int(number)) if number.is_integer() else f"{number:g}"
