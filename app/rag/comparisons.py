"""Comparisons and group-bys over tasks: "which project has the most overdue work?", "who has the fewest
open tasks?", "how many tasks per status?", "¿qué iteración tiene más puntos pendientes?". Pure: no I/O.

``group_of`` reads what the tasks are grouped by and which end of the ranking is asked for; ``rank``
counts (or adds up the story points of) the rows find_tasks returned under the access rule, and
``answer`` names the winner with its figure, then the ranking. The rows must be every matching task:
a list cut at its limit could crown the wrong winner, so ``answer`` refuses to rank a truncated one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from app.domain import MAX_FIND_TASKS, Named, Person
from app.rag import terms
from app.rag.computed import Computed

Dimension = Literal["project", "sprint", "assignee", "status", "priority"]
MAX_RANKED = 10  # groups written out after the winner

_DIMENSION_WORDS: dict[Dimension, tuple[str, ...]] = {
    "project": ("project", "projects", "proyecto", "proyectos", "where", "donde"),  # a tracker's "where" is a project
    "sprint": ("sprint", "sprints", "iteration", "iterations", "iteracion", "iteraciones"),
    "assignee": ("who", "whom", "person", "people", "assignee", "assignees", "developer", "developers", "member",
                 "team member", "quien", "quienes", "persona", "personas", "responsable", "desarrollador",
                 "cada persona", "everyone", "each person"),
    "status": ("status", "statuses", "state", "estado", "estados"),
    "priority": ("priority", "priorities", "prioridad", "prioridades"),
}
_MOST = ("most", "more", "biggest", "largest", "highest", "max", "busiest", "mas", "mayor", "worst", "peor")
_FEWEST = ("fewest", "least", "less", "smallest", "lowest", "min", "menos", "menor")
# Something countable must be asked about: "who can tell me more about the project?" compares nothing.
_MEASURES = frozenset(terms.fold(w) for w in """
task tasks ticket tickets issue issues bug bugs work workload backlog points overdue late open left remaining
pending story many much count number tarea tareas trabajo carga puntos vencidas vencidos atrasadas atrasados
atrasado atrasada pendientes abiertas abiertos errores cuantas cuantos numero behind late retrasado retrasada
retrasados retrasadas vencido vencida retraso retrasos busy overloaded cargado cargada ocupado ocupada carga
plazos deadlines plate
""".split())
_PER = re.compile(r"(?<![\w-])(?:per|by|each|por|cada|grouped by|agrupad[oa]s por|broken down by|break down by)"
                  r"\s+(?:the\s+|el\s+|la\s+)?(?P<word>\w+)")


@dataclass(frozen=True)
class GroupBy:
    dimension: Dimension
    fewest: bool = False  # the bottom of the ranking is asked for
    ranked: bool = True  # "which … has the most" (a winner); False: "how many per status" (the spread)


def group_of(question: str) -> GroupBy | None:
    """What a comparison groups by, read by rule: a "most"/"fewest" word beside a dimension ("which
    project has the most …", "¿quién tiene menos …?"), or "per"/"by"/"por" before one ("tasks per
    status"). None when the question compares nothing."""
    text = terms.fold(question)
    words = set(terms.words(text))
    if not words & _MEASURES:
        return None
    per = next((m for m in _PER.finditer(text) if _dimension({m.group("word")}) is not None), None)
    if per is not None:
        dimension = _dimension({per.group("word")})
        most, fewest = bool(words & set(_MOST)), bool(words & set(_FEWEST))
        return GroupBy(dimension, fewest=fewest and not most, ranked=most or fewest)  # type: ignore[arg-type]
    most, fewest = words & set(_MOST), words & set(_FEWEST)
    if not (most or fewest):
        return None
    dimension = _dimension(words) or ("assignee" if re.search(r"(?<![\w-])(?:who|quien)", text) else None)
    if dimension in (None, "priority", "status"):  # "the highest priority task" is a task, not a ranking
        return None
    return GroupBy(dimension, fewest=bool(fewest) and not most)


def dimension_named(question: str) -> Dimension | None:
    """The dimension a comparison whose kind was found by meaning names, if any ("which sprint …")."""
    words = set(terms.words(terms.fold(question)))
    return _dimension(words) or ("assignee" if words & {"who", "quien", "quienes"} else None)


def _dimension(words: set[str]) -> Dimension | None:
    for dimension, names in _DIMENSION_WORDS.items():
        if any(name in words for name in names if " " not in name):
            return dimension
    return None


@dataclass(frozen=True)
class Group:
    key: Any  # the id (project, sprint, assignee), the status or priority text, or None (no project, …)
    name: str
    anchor: str | None  # [PROJECT #2] / [SPRINT #3]; people and statuses have none
    figure: float
    tasks: tuple[int, ...]


def rank(rows: Sequence[Mapping[str, Any]], group: GroupBy, points: bool, known: Iterable[Named | Person] = ()
         ) -> list[Group]:
    """Every group's figure (tasks counted, or story points added up), largest first (``fewest``:
    smallest first), ties by name. ``known``: groups that exist though no row falls in them (every
    project or sprint), so a "fewest" question can name one with none."""
    groups: dict[Any, dict[str, Any]] = {}
    for item in known:
        key = item.employee_id if isinstance(item, Person) else item.id
        groups[key] = {"name": item.name, "figure": 0.0, "tasks": []}
    for row in rows:
        key, name = _key(row, group.dimension)
        entry = groups.setdefault(key, {"name": name, "figure": 0.0, "tasks": []})
        entry["figure"] += float(row.get("story_points") or 0) if points else 1.0
        entry["tasks"].append(int(row["task_id"]))
    prefix = {"project": "PROJECT", "sprint": "SPRINT"}.get(group.dimension)
    ranked = [Group(key, entry["name"], f"[{prefix} #{key}]" if prefix and key is not None else None,
                    entry["figure"], tuple(entry["tasks"])) for key, entry in groups.items()]
    sign = 1 if group.fewest else -1
    return sorted(ranked, key=lambda g: (sign * g.figure, g.name))


def _key(row: Mapping[str, Any], dimension: Dimension) -> tuple[Any, str]:
    if dimension == "project":
        return row.get("project_id"), row.get("project_name") or "—"
    if dimension == "sprint":
        return row.get("sprint_id"), row.get("sprint_name") or "—"
    if dimension == "assignee":
        return row.get("assignee_id"), row.get("assignee_name") or "—"
    value = row.get(dimension) or "—"
    return value, str(value)


_TEXT = {
    "en": {"most": "most", "fewest": "fewest", "tasks": "tasks", "points": "story points",
           "dimension": {"project": "project", "sprint": "sprint", "assignee": "person", "status": "status",
                         "priority": "priority"},
           "none": {"project": "no project", "sprint": "no sprint", "assignee": "unassigned", "status": "no status",
                    "priority": "no priority"},
           "winner": "The {dimension} with the {end} {what}{among}: {name} — {figure}.",
           "tie": "Tied for the {end} {what}{among} ({figure}): {names}.",
           "spread": "{What}{among} by {dimension}:", "ranking": "Ranking:", "among": " ({filters})",
           "empty": "No task you can see matches{among}, so there is nothing to compare.",
           "truncated": "More than {limit} tasks match{among}: I cannot rank them exactly. Ask about one "
                        "project or sprint, or narrow the question.",
           "more": "…and {n} more.", "seen": "Counted over the tasks you can see.",
           "outside": "Not ranked: {name} — {figure}."},
    "es": {"most": "más", "fewest": "menos", "tasks": "tareas", "points": "puntos de historia",
           "dimension": {"project": "proyecto", "sprint": "iteración", "assignee": "persona", "status": "estado",
                         "priority": "prioridad"},
           "none": {"project": "sin proyecto", "sprint": "sin iteración", "assignee": "sin asignar",
                    "status": "sin estado", "priority": "sin prioridad"},
           "winner": "{Dimension} con {end} {what}{among}: {name} — {figure}.",
           "tie": "Empatan con {end} {what}{among} ({figure}): {names}.",
           "spread": "{What}{among} por {dimension}:", "ranking": "Clasificación:", "among": " ({filters})",
           "empty": "Ninguna tarea que puedas ver coincide{among}: no hay nada que comparar.",
           "truncated": "Coinciden más de {limit} tareas{among}: no puedo ordenarlas con exactitud. Pregunta por "
                        "un proyecto o una iteración, o acota la pregunta.",
           "more": "…y {n} más.", "seen": "Contadas entre las tareas que puedes ver.",
           "outside": "Fuera de la clasificación: {name} — {figure}."},
}


def answer(groups: Sequence[Group], group: GroupBy, lang: str, points: bool, filters: str,
           truncated: bool) -> Computed:
    """The winner with its figure, then the ranking (or, for "per status", the spread), as a Computed
    whose anchors are the groups that have one and whose figures are every figure stated."""
    say = _TEXT[lang]
    among = say["among"].format(filters=filters) if filters else ""
    # "Which sprint has the most points left?" ranks sprints: the tasks of no sprint are not one, and are
    # only mentioned after the ranking (the spread, "tasks per assignee", keeps them as a line).
    outside = [g for g in groups if g.key is None and g.figure] if group.ranked else []
    groups = [g for g in groups if g.key is not None] if group.ranked else groups
    if truncated:
        return Computed(say["truncated"].format(limit=MAX_FIND_TASKS, among=among))
    if not any(g.figure for g in groups):
        return Computed(say["empty"].format(among=among))
    what = say["points"] if points else say["tasks"]
    dimension = say["dimension"][group.dimension]
    shown = [g for g in groups if g.figure or group.ranked][:MAX_RANKED]
    lines = []
    if group.ranked:
        end = say["fewest" if group.fewest else "most"]
        best = [g for g in groups if g.figure == groups[0].figure]
        if len(best) == 1:
            lines.append(say["winner"].format(dimension=dimension, Dimension=dimension.capitalize(), end=end,
                                              what=what, among=among, name=_label(best[0], group, lang),
                                              figure=_number(best[0].figure)))
        else:
            lines.append(say["tie"].format(end=end, what=what, among=among, figure=_number(best[0].figure),
                                           names=", ".join(_label(g, group, lang) for g in best)))
        lines.append(say["ranking"])
    else:
        lines.append(say["spread"].format(What=what.capitalize(), among=among, dimension=dimension))
    lines += [f"{ix}. {_label(g, group, lang)} — {_number(g.figure)}" for ix, g in enumerate(shown, 1)]
    rest = len([g for g in groups if g.figure or group.ranked]) - len(shown)
    if rest > 0:
        lines.append(say["more"].format(n=rest))
    for g in outside:
        lines.append(say["outside"].format(name=_label(g, group, lang), figure=_number(g.figure)))
    lines.append(say["seen"])
    anchors = tuple(g.anchor for g in shown if g.anchor)
    figures = tuple(dict.fromkeys(_number(g.figure) for g in shown))
    return Computed("\n".join(lines), anchors, figures, anchors[0] if group.ranked and anchors else None)


def _label(group_: Group, group: GroupBy, lang: str) -> str:
    name = group_.name if group_.key is not None else _TEXT[lang]["none"][group.dimension]
    return f"{name} {group_.anchor}" if group_.anchor else name


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"
