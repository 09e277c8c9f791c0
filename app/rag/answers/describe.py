"""A TrackerQuery said in words, in the asker's language: "open, fix version 2.0.0, in Payments Platform" /
"abiertas, versión 2.0.0, en Payments Platform". Every computed answer leads with it, so a misreading is visible
(issue 31). Values are the records' own (names read from the lexicon). Pure."""

from __future__ import annotations

import datetime as dt

from app.rag.understanding.lexicon import Lexicon
from app.rag.understanding.query import Predicate, TrackerQuery

_STATUS = {"en": {"IN_PROGRESS": "in progress", "IN_REVIEW": "in review", "TODO": "to do", "DONE": "done",
                  "BLOCKED": "blocked"},
           "es": {"IN_PROGRESS": "en progreso", "IN_REVIEW": "en revisión", "TODO": "por hacer", "DONE": "terminadas",
                  "BLOCKED": "bloqueadas"}}
_PRIORITY = {"en": {"CRITICAL": "critical", "HIGH": "high priority", "MEDIUM": "medium priority", "LOW": "low priority"},
             "es": {"CRITICAL": "críticas", "HIGH": "de prioridad alta", "MEDIUM": "de prioridad media",
                    "LOW": "de prioridad baja"}}
SAY = {
    "en": {"mine": "assigned to you", "assignee": "assigned to {v}", "unassigned": "unassigned",
           "reporter": "reported by {v}", "no_reporter": "with no reporter",
           "open": "not done", "closed": "finished", "overdue": "overdue",
           "blocked": "blocked", "project": "in {v}", "no_project": "in no project", "sprint": "in {v}",
           "no_sprint": "in no sprint", "status_name": "status {v}", "priority_name": "priority {v}",
           "issue_type": "type {v}", "label": "labelled {v}",
           "component": "component {v}", "fix_version": "fix version {v}", "affects_version": "affecting version {v}",
           "resolution": "resolved as {v}", "unresolved": "unresolved", "text": "mentioning “{v}”",
           "parent": "sub-tasks of {v}", "or": " or ", "not": "not {v}",
           "created": "created", "updated": "updated", "resolved": "resolved", "due": "due",
           "from_to": "{what} {start} to {last}", "from": "{what} on or after {start}", "to": "{what} before {end}"},
    "es": {"mine": "asignadas a ti", "assignee": "asignadas a {v}", "unassigned": "sin asignar",
           "reporter": "reportadas por {v}", "no_reporter": "sin persona que reporta",
           "open": "sin terminar", "closed": "terminadas", "overdue": "vencidas",
           "blocked": "bloqueadas", "project": "en {v}", "no_project": "sin proyecto", "sprint": "en {v}",
           "no_sprint": "sin iteración", "status_name": "estado {v}", "priority_name": "prioridad {v}",
           "issue_type": "de tipo {v}",
           "label": "con la etiqueta {v}", "component": "del componente {v}", "fix_version": "versión {v}",
           "affects_version": "que afectan a la versión {v}", "resolution": "resueltas como {v}",
           "unresolved": "sin resolver", "text": "que mencionan «{v}»", "parent": "subtareas de {v}", "or": " o ",
           "not": "no {v}", "created": "creadas", "updated": "actualizadas", "resolved": "resueltas",
           "due": "que vencen", "from_to": "{what} del {start} al {last}", "from": "{what} desde el {start}",
           "to": "{what} antes del {end}"},
}


# The order predicates are said in, whatever order the question named them: who, what state, what kind, when,
# where ("assigned to you, in review, critical, due this week, in Payments Platform").
_SAID_ORDER = ("assignee", "reporter", "status", "status_name", "open", "priority", "priority_name", "issue_type",
               "label", "component", "fix_version", "affects_version", "resolution", "overdue", "blocked", "unassigned",
               "due", "created", "updated", "resolved", "parent", "sprint", "project", "text")


def describe(query: TrackerQuery, lexicon: Lexicon, lang: str, asker_id: int | None = None,
             today: dt.date | None = None) -> str:
    """The query's predicates in words, joined by commas ("" when it has none: every task the asker may see)."""
    def place(p: Predicate) -> int:
        name = "unassigned" if p.field == "assignee" and p.values == (None,) else p.field
        return _SAID_ORDER.index(name)
    return ", ".join(part for p in sorted(query.where, key=place)
                     if (part := _predicate(p, lexicon, lang, asker_id, today)))


def _predicate(p: Predicate, lexicon: Lexicon, lang: str, asker_id: int | None, today: dt.date | None) -> str:
    say = SAY[lang]
    text = _positive(p, lexicon, lang, asker_id, today)
    return say["not"].format(v=text) if p.negate and text else text


def _positive(p: Predicate, lexicon: Lexicon, lang: str, asker_id: int | None, today: dt.date | None) -> str:
    say = SAY[lang]
    if p.window is not None:
        return _window(p.field, p.window, lang, today)
    if p.field == "open":
        return say["open"] if p.values[0] else say["closed"]
    if p.field in ("overdue", "blocked"):
        return say[p.field]
    if p.field == "assignee":
        if p.values == (None,):
            return say["unassigned"]
        if p.values == (asker_id,):
            return say["mine"]
    if p.values == (None,):
        return {"project": say["no_project"], "sprint": say["no_sprint"], "resolution": say["unresolved"],
                "reporter": say["no_reporter"]}.get(
            p.field, "")
    names = say["or"].join(_value(p.field, v, lexicon, lang) for v in p.values)
    if p.field == "status":
        return names
    if p.field == "priority":
        return names
    return say.get(p.field, "{v}").format(v=names)


def _value(name: str, value: object, lexicon: Lexicon, lang: str) -> str:
    if name in ("assignee", "reporter"):
        person = lexicon.person(value)
        return person.name if person else f"#{value}"
    if name == "project":
        project = lexicon.project(value)
        return project.name if project else f"project {value}"
    if name == "sprint":
        sprint = lexicon.sprint(value)
        return sprint.name if sprint else f"sprint {value}"
    if name == "status":
        return _STATUS[lang].get(str(value), str(value))
    if name == "priority":
        return _PRIORITY[lang].get(str(value), str(value))
    return str(value)


# Windows said by their name when the day is known ("due this week (2026-11-30 to 2026-12-06)").
_NAMED = {"en": {("week", 0): "this week", ("week", 1): "next week", ("week", -1): "last week", ("day", 0): "today",
                 ("day", 1): "tomorrow", ("month", 0): "this month", ("month", -1): "last month"},
          "es": {("week", 0): "esta semana", ("week", 1): "la próxima semana", ("week", -1): "la semana pasada",
                 ("day", 0): "hoy", ("day", 1): "mañana", ("month", 0): "este mes", ("month", -1): "el mes pasado"}}


def _window(name: str, window: tuple[dt.date | None, dt.date | None], lang: str, today: dt.date | None) -> str:
    say = SAY[lang]
    start, end = window
    if start is not None and end is not None:
        last = (end - dt.timedelta(days=1)).isoformat()
        label = _name_of(window, lang, today)
        if label is not None:
            return f"{say[name]} {label} ({start.isoformat()} {'to' if lang == 'en' else 'al'} {last})"
        return say["from_to"].format(what=say[name], start=start.isoformat(), last=last)
    if start is not None:
        return say["from"].format(what=say[name], start=start.isoformat())
    return say["to"].format(what=say[name], end=end.isoformat() if end else "")


def _name_of(window: tuple[dt.date | None, dt.date | None], lang: str, today: dt.date | None) -> str | None:
    if today is None:
        return None
    from app.rag.understanding.windows import window as resolve  # pure; here to keep the describe imports flat
    return next((label for kind, label in _NAMED[lang].items() if resolve(kind, today) == window), None)
