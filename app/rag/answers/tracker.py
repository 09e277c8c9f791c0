"""The answer to a TrackerQuery from what the engine returned (TrackerResult): a list with anchors, a count with the
tasks it counted, a sum of story points, a ranking with its winner, or a question back. Each starts with the query
it ran said in the asker's language (describe.py). Pure: no I/O."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any

from app.rag.answers.describe import describe
from app.rag.computed import Computed
from app.rag.understanding.lexicon import Lexicon
from app.rag.understanding.query import Group, TrackerQuery, TrackerResult

MAX_LISTED = 15  # tasks written out in a list answer; the rest are counted
MAX_ANCHORS = 60  # tasks named in a count or a sum
MAX_RANKED = 10  # groups written out after the winner

_ORDER = {"en": {("priority", True): "most important first", ("due", False): "due first",
                 ("created", True): "newest first", ("created", False): "oldest first",
                 ("updated", True): "last updated first", ("resolved", True): "last resolved first"},
          "es": {("priority", True): "la más importante primero", ("due", False): "la que vence antes primero",
                 ("created", True): "la más reciente primero", ("created", False): "la más antigua primero",
                 ("updated", True): "la última actualizada primero",
                 ("resolved", True): "la última resuelta primero"}}
_FIELD = {"en": {"project": "project", "sprint": "sprint", "assignee": "person", "reporter": "reporter",
                 "status": "status", "status_name": "status", "priority": "priority", "priority_name": "priority",
                 "issue_type": "type",
                 "resolution": "resolution", "label": "label", "component": "component", "fix_version": "fix version",
                 "affects_version": "affected version"},
          "es": {"project": "proyecto", "sprint": "iteración", "assignee": "persona", "reporter": "persona que reporta",
                 "status": "estado", "status_name": "estado", "priority": "prioridad", "priority_name": "prioridad",
                 "issue_type": "tipo",
                 "resolution": "resolución", "label": "etiqueta", "component": "componente",
                 "fix_version": "versión", "affects_version": "versión afectada"}}
SAY = {
    "en": {"list": "Tasks ({what}) — {n}:", "all": "Tasks you can see — {n}:", "top": "Tasks ({what}; {order}) — "
           "{shown} of {n}:", "more": "…and {n} more.", "none": "No task you can see matches: {what}.",
           "none_all": "You can see no task.", "count": "Tasks ({what}): {n}", "count_all": "Tasks you can see: {n}",
           "points": "Story points ({what}): {total}, from {n} task(s)", "points_all": "Story points: {total}, from "
           "{n} task(s)", "points_left": "Story points left ({what}): {total}, from {n} task(s)",
           "points_left_all": "Story points left: {total}, from {n} task(s)", "due_on": "due {date}", "unassigned": "unassigned",
           "winner": "The {field} with the {end} {what}{among}: {name} — {figure}.", "most": "most", "fewest": "fewest",
           "tasks": "tasks", "story_points": "story points", "tie": "Tied for the {end} {what}{among} ({figure}): "
           "{names}.", "ranking": "Ranking:", "among": " ({filters})", "none_group": "none",
           "empty": "No task you can see matches{among}, so there is nothing to compare.",
           "seen": "Counted over the tasks you can see.", "which": "Which one do you mean: {names}? Ask again with the "
           "full name.", "which_project": "Which project? Name it, e.g. {names}.",
           "undated": "No task you can see matches ({what}) with a due date: none of those {n} has one."},
    "es": {"list": "Tareas ({what}) — {n}:", "all": "Tareas que puedes ver — {n}:", "top": "Tareas ({what}; {order}) "
           "— {shown} de {n}:", "more": "…y {n} más.", "none": "Ninguna tarea que puedas ver coincide: {what}.",
           "none_all": "No puedes ver ninguna tarea.", "count": "Tareas ({what}): {n}",
           "count_all": "Tareas que puedes ver: {n}", "points": "Puntos de historia ({what}): {total}, de {n} "
           "tarea(s)", "points_all": "Puntos de historia: {total}, de {n} tarea(s)",
           "points_left": "Puntos de historia pendientes ({what}): {total}, de {n} tarea(s)",
           "points_left_all": "Puntos de historia pendientes: {total}, de {n} tarea(s)", "due_on": "vence {date}",
           "unassigned": "sin asignar", "winner": "{Field} con {end} {what}{among}: {name} — {figure}.",
           "most": "más", "fewest": "menos", "tasks": "tareas", "story_points": "puntos de historia",
           "tie": "Empatan con {end} {what}{among} ({figure}): {names}.", "ranking": "Clasificación:",
           "among": " ({filters})", "none_group": "ninguno",
           "empty": "Ninguna tarea que puedas ver coincide{among}: no hay nada que comparar.",
           "seen": "Contadas entre las tareas que puedes ver.", "which": "¿A quién te refieres: {names}? Pregunta de "
           "nuevo con el nombre completo.", "which_project": "¿Qué proyecto? Nómbralo, por ejemplo {names}.",
           "undated": "Ninguna tarea que puedas ver ({what}) tiene fecha de vencimiento: ninguna de esas {n}."},
}


def answer(query: TrackerQuery, result: TrackerResult, lexicon: Lexicon, lang: str,
           asker_id: int | None = None, today: dt.date | None = None) -> Computed:
    what = describe(query, lexicon, lang, asker_id, today)
    if query.returns == "group":
        return _ranking(query, result, lang, what)
    if result.total == 0:
        say = SAY[lang]
        return Computed(say["none"].format(what=what) if what else say["none_all"])
    if query.returns == "count":
        return _count(result, lang, what)
    if query.returns == "points":
        return _points(query, result, lexicon, lang, asker_id, today)
    return _list(query, result, lang, what)


def ambiguous(people: Sequence[tuple[int, str]], lang: str) -> Computed:
    names = " / ".join(f"{name} (#{employee_id})" for employee_id, name in people)
    return Computed(SAY[lang]["which"].format(names=names))


def which_project(lexicon: Lexicon, lang: str) -> Computed:
    names = ", ".join(p.name for p in lexicon.projects[:10])
    return Computed(SAY[lang]["which_project"].format(names=names))


def _list(query: TrackerQuery, result: TrackerResult, lang: str, what: str) -> Computed:
    say = SAY[lang]
    rows = result.rows
    if query.order == "due" and rows and rows[0].get("expected_end_date") is None:  # "due first": none has a date
        return Computed(say["undated"].format(what=what or say["tasks"], n=result.total))
    order = _ORDER[lang].get((query.order, query.descending))
    if order is not None and query.limit < result.total:
        head = say["top"].format(what=what or say["tasks"], order=order, shown=len(rows), n=result.total)
    else:
        head = say["list"].format(what=what, n=result.total) if what else say["all"].format(n=result.total)
    lines = [head, *(_line(r, lang) for r in rows[:MAX_LISTED])]
    if result.total > min(len(rows), MAX_LISTED):
        lines.append(say["more"].format(n=result.total - min(len(rows), MAX_LISTED)))
    anchors = tuple(_anchor(r) for r in rows[:MAX_LISTED])
    focus = anchors[0] if len(anchors) == 1 else None
    return Computed("\n".join(lines), anchors, (str(result.total),), focus)


def _count(result: TrackerResult, lang: str, what: str) -> Computed:
    say = SAY[lang]
    anchors = tuple(_anchor(r) for r in result.rows[:MAX_ANCHORS])
    head = say["count"].format(what=what, n=result.total) if what else say["count_all"].format(n=result.total)
    listed = ", ".join(anchors) + (", …" if result.total > len(anchors) else "")
    return Computed(f"{head} — {listed}." if listed else f"{head}.", anchors, (str(result.total),),
                    anchors[0] if result.total == 1 and anchors else None)


def _points(query: TrackerQuery, result: TrackerResult, lexicon: Lexicon, lang: str, asker_id: int | None,
            today: dt.date | None = None) -> Computed:
    """"Story points left (in Payments Sprint 2): 10, from 4 task(s): …" — left: of the work not finished."""
    say = SAY[lang]
    left = any(p.field == "open" and p.values == (True,) and not p.negate for p in query.where)
    what = describe(query.without("open") if left else query, lexicon, lang, asker_id, today)
    if left:
        say = {**say, "points": say["points_left"], "points_all": say["points_left_all"]}
    total = _number(result.points)
    head = say["points"].format(what=what, total=total, n=result.total) if what else \
        say["points_all"].format(total=total, n=result.total)
    listed = ", ".join(f"{_anchor(r)} {_number(r['story_points']) if r.get('story_points') is not None else '-'}"
                       for r in result.rows[:MAX_ANCHORS]) + (", …" if result.total > MAX_ANCHORS else "")
    anchors = tuple(_anchor(r) for r in result.rows[:MAX_ANCHORS])
    return Computed(f"{head}: {listed}.", anchors, (total,))


def _ranking(query: TrackerQuery, result: TrackerResult, lang: str, what: str) -> Computed:
    say = SAY[lang]
    among = say["among"].format(filters=what) if what else ""
    points = query.measure == "points"
    figure = (lambda g: g.points) if points else (lambda g: float(g.count))
    groups = [g for g in result.groups if g.key is not None and (figure(g) or query.ascending)]
    if not groups:
        return Computed(say["empty"].format(among=among))
    end = say["fewest" if query.ascending else "most"]
    measure = say["story_points" if points else "tasks"]
    field = _FIELD[lang][query.group_by or "project"]
    best = [g for g in groups if figure(g) == figure(groups[0])]
    if len(best) == 1:
        first = say["winner"].format(field=field, Field=field.capitalize(), end=end, what=measure, among=among,
                                     name=_group_label(best[0], query), figure=_number(figure(best[0])))
    else:
        first = say["tie"].format(end=end, what=measure, among=among, figure=_number(figure(best[0])),
                                  names=", ".join(_group_label(g, query) for g in best))
    shown = groups[:MAX_RANKED]
    lines = [first, say["ranking"], *(f"{ix}. {_group_label(g, query)} — {_number(figure(g))}"
                                      for ix, g in enumerate(shown, 1))]
    if len(groups) > len(shown):
        lines.append(SAY[lang]["more"].format(n=len(groups) - len(shown)))
    lines.append(say["seen"])
    anchors = tuple(a for g in shown if (a := _group_anchor(g, query)))
    figures = tuple(dict.fromkeys(_number(figure(g)) for g in shown))
    return Computed("\n".join(lines), anchors, figures, anchors[0] if anchors else None)


def _group_label(group: Group, query: TrackerQuery) -> str:
    anchor = _group_anchor(group, query)
    return f"{group.label} {anchor}" if anchor else group.label


def _group_anchor(group: Group, query: TrackerQuery) -> str | None:
    prefix = {"project": "PROJECT", "sprint": "SPRINT"}.get(query.group_by or "")
    return f"[{prefix} #{group.key}]" if prefix and group.key is not None else None


def _line(row: Mapping[str, Any], lang: str) -> str:
    say = SAY[lang]
    # ours, and the tracker's own name where it differs ("IN_REVIEW (In QE Test)", "HIGH (Major)")
    facts = [_with_name(row.get("status"), row.get("status_name")),
             _with_name(row.get("priority"), row.get("priority_name"))]
    if row.get("expected_end_date") is not None:
        facts.append(say["due_on"].format(date=_date(row["expected_end_date"])))
    if row.get("sprint_name"):
        facts.append(str(row["sprint_name"]))
    facts.append(row.get("assignee_name") or say["unassigned"])
    key = f"{row['external_key']} " if row.get("external_key") else ""
    return f"- {_anchor(row)} {key}{row.get('title') or ''} — {', '.join(facts)}"


def _with_name(ours: Any, tracker_name: Any) -> str:
    shown, name = ours or "-", (tracker_name or "").strip()
    return f"{shown} ({name})" if name and name.upper().replace(" ", "_") != shown.upper() else shown


def _anchor(row: Mapping[str, Any]) -> str:
    return f"[TASK #{row['task_id']}]"


def _date(value: Any) -> str:
    return value.isoformat()[:10] if hasattr(value, "isoformat") else str(value)[:10]


def _number(value: Any) -> str:
    number = float(value or 0)
    return str(int(number)) if number.is_integer() else f"{number:g}"
