"""What people ask a tracker, parsed without an LLM (English and Spanish). Pure: no I/O.

"which of my tasks are still in progress?", "which tasks are overdue in sprint 3?", "which critical
tasks are unassigned?", "how many story points are left in Payments Sprint 2?", "what is Chen working
on?", "¿cuántas tareas críticas hay sin asignar?" become a ``TaskQuestion``: the filters of the
engines' ``find_tasks`` query (the same access rule as every search) plus what to do with the rows
(list them, count them, add up their story points).

The parser is deliberately strict: every word of the question must be understood (a filter, a name,
a phrase about tasks, or a stop word). A question with anything else in it ("which tasks are about
the refund flow?") is not a tracker question and goes to retrieval, which reads the text.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from typing import Literal

from app.domain import MAX_FIND_TASKS, Named, Person, TaskQuery, Vocabulary
from app.rag import refs, terms

Aggregate = Literal["list", "count", "points"]


@dataclass(frozen=True)
class TaskQuestion:
    lang: str  # "en" | "es": the language to answer in
    aggregate: Aggregate = "list"
    mine: bool = False
    people: tuple[Person, ...] = ()  # one: that person's tasks; several: the name is ambiguous
    status: str | None = None
    open_only: bool = False
    priority: str | None = None
    overdue: bool = False
    unassigned: bool = False
    due: tuple[dt.date, dt.date] | None = None  # due on or after [0] and before [1]
    due_label: str | None = None  # "this week", "esta semana", ...
    sprint: Named | None = None
    project: Named | None = None
    words: tuple[str, ...] = field(default=(), compare=False)  # what was recognised, for tests and logs


# Phrases, folded (lower case, no accents: terms.fold), longest first when they overlap.
STATUS_PHRASES = {
    "in progress": "IN_PROGRESS", "in-progress": "IN_PROGRESS", "ongoing": "IN_PROGRESS", "started": "IN_PROGRESS",
    "en progreso": "IN_PROGRESS", "en curso": "IN_PROGRESS",
    "in review": "IN_REVIEW", "under review": "IN_REVIEW", "being reviewed": "IN_REVIEW", "en revision": "IN_REVIEW",
    "to do": "TODO", "todo": "TODO", "not started": "TODO", "por hacer": "TODO", "sin empezar": "TODO",
    "pendientes de empezar": "TODO",
    "done": "DONE", "finished": "DONE", "completed": "DONE", "complete": "DONE", "terminadas": "DONE",
    "terminados": "DONE", "hechas": "DONE", "completadas": "DONE", "completados": "DONE", "finalizadas": "DONE",
}
OPEN_PHRASES = ("not done", "not finished", "unfinished", "open", "left", "remaining", "pending", "outstanding",
                "still open", "sin terminar", "abiertas", "abiertos", "pendientes", "pendiente", "restantes",
                "quedan", "faltan", "por terminar", "working on", "trabajando en", "esta trabajando", "trabajando",
                "esta haciendo")
PRIORITY_PHRASES = {
    "critical": "CRITICAL", "criticas": "CRITICAL", "critica": "CRITICAL", "criticos": "CRITICAL",
    "critico": "CRITICAL", "high priority": "HIGH", "high-priority": "HIGH", "high": "HIGH",
    "alta prioridad": "HIGH", "prioridad alta": "HIGH", "altas": "HIGH", "alta": "HIGH",
    "medium priority": "MEDIUM", "medium": "MEDIUM", "prioridad media": "MEDIUM", "media": "MEDIUM",
    "low priority": "LOW", "low-priority": "LOW", "low": "LOW", "prioridad baja": "LOW", "baja": "LOW", "bajas": "LOW",
}
OVERDUE_PHRASES = ("overdue", "past due", "past their due date", "late", "behind schedule", "vencidas", "vencidos",
                   "atrasadas", "atrasados", "retrasadas", "retrasados", "fuera de plazo")
UNASSIGNED_PHRASES = ("unassigned", "not assigned", "not assigned to anyone", "without an assignee",
                      "without assignee", "with no assignee", "no assignee", "nobody is assigned", "no one is assigned",
                      "no owner", "sin asignar", "sin responsable", "sin asignacion", "no asignadas", "no asignados",
                      "no tienen responsable", "nadie asignado")
MINE_PHRASES = ("assigned to me", "asignadas a mi", "asignados a mi", "my", "mine", "am i", "do i", "i have",
                "i am", "i'm", "mis", "mias", "mios", "tengo", "me toca", "me tocan", "a mi")
COUNT_PHRASES = ("how many", "number of", "count of", "count", "cuantas", "cuantos", "numero de", "cantidad de")
POINTS_PHRASES = ("story points", "story point", "points", "puntos de historia", "puntos")
TASK_NOUNS = ("tasks", "task", "tickets", "ticket", "issues", "issue", "items", "tareas", "tarea", "pendientes")
PERSON_MARKERS = ("assigned to", "asignadas a", "asignados a", "asignada a", "asignado a", "working on", "trabajando en",
                  "esta haciendo", "owned by", "de")
# Words that say nothing a filter does not already say ("which", "still", "show me", "quedan", ...).
FILLER = frozenset(terms.fold(w) for w in """
which what whats what's show list give tell me all any are is there still currently now right have has
got does do doing due assigned owned by with in on of for the a an total sum left remaining open over
under this that these those does did be being been whose who whom sprint project please
cuales cual que muestra muestrame lista dame dime todas todos hay estan esta siguen sigue aun todavia
tiene tienen vence vencen vencer asignadas asignados asignada asignado del de la las los en el por
proyecto iteracion suma total actualmente ahora
""".split())
_DUE_PHRASES = {
    "this week": ("week", 0), "esta semana": ("week", 0), "next week": ("week", 1), "la proxima semana": ("week", 1),
    "la semana que viene": ("week", 1), "proxima semana": ("week", 1), "today": ("day", 0), "hoy": ("day", 0),
    "tomorrow": ("day", 1), "manana": ("day", 1),
}
_SPANISH_LABELS = {"this week": "esta semana", "next week": "la próxima semana", "today": "hoy",
                   "tomorrow": "mañana"}


def parse(question: str, vocabulary: Vocabulary, today: dt.date) -> TaskQuestion | None:
    """The tracker question this is, or None (then it is a question for retrieval)."""
    text = terms.fold(question)
    lang = "es" if terms.is_spanish(question) else "en"
    taken: list[tuple[int, int]] = []  # spans of the folded text already understood
    found: dict[str, object] = {}

    def take(phrases, key: str, value=True) -> None:
        for phrase in sorted(phrases, key=len, reverse=True):
            for match in re.finditer(rf"(?<![\w-]){re.escape(phrase)}(?![\w-])", text):
                if _free(taken, match.span()):
                    taken.append(match.span())
                    if key:
                        found.setdefault(key, value if not isinstance(phrases, dict) else phrases[phrase])

    sprint, project = _named(text, vocabulary, taken)
    ids = refs.mentions(text, masked=taken)
    if any(source_type in ("task", "doc") for source_type, _ in ids):
        return None  # an entity asked by its id is a lookup, not a list
    taken.extend(refs.mention_spans(text, masked=taken))
    for source_type, source_id in ids:
        if source_type == "sprint":
            sprint = sprint or _by_id(vocabulary.sprints, source_id) or Named(source_id, f"sprint {source_id}")
        elif source_type == "project":
            project = project or _by_id(vocabulary.projects, source_id) or Named(source_id, f"project {source_id}")
    take(COUNT_PHRASES, "count")
    take(POINTS_PHRASES, "points")
    take(UNASSIGNED_PHRASES, "unassigned")
    take(STATUS_PHRASES, "status")
    take(OVERDUE_PHRASES, "overdue")
    take(PRIORITY_PHRASES, "priority")
    take(_DUE_PHRASES, "due")
    take(MINE_PHRASES, "mine")
    people = _people(text, vocabulary, taken)
    take(OPEN_PHRASES, "open")
    take(TASK_NOUNS, "noun")
    take(PERSON_MARKERS, "")
    if _leftover(text, taken):
        return None
    asks_about_tasks = any(k in found for k in ("noun", "points", "overdue", "unassigned")) or (
        people and "open" in found)
    filters = [sprint, project, *(found.get(k) for k in ("status", "priority", "overdue", "unassigned", "due",
                                                             "mine", "open", "count", "points")), people]
    if not asks_about_tasks or not any(filters):
        return None
    due, due_label = _due_range(found.get("due"), today, lang)
    aggregate: Aggregate = "points" if "points" in found else "count" if "count" in found else "list"
    return TaskQuestion(
        lang=lang, aggregate=aggregate, mine="mine" in found and not people, people=tuple(people),
        status=found.get("status"), open_only="open" in found and "status" not in found,  # type: ignore[arg-type]
        priority=found.get("priority"), overdue="overdue" in found,  # type: ignore[arg-type]
        unassigned="unassigned" in found, due=due, due_label=due_label, sprint=sprint, project=project,
        words=tuple(text[s:e] for s, e in sorted(taken)),
    )


def to_query(question: TaskQuestion, asker_id: int, person: Person | None, today: dt.date) -> TaskQuery:
    """The engines' find_tasks filters for a parsed question (counts and sums read up to the maximum)."""
    due_after, due_before = question.due if question.due else (None, None)
    return TaskQuery(
        status=question.status, priority=question.priority,
        sprint_id=question.sprint.id if question.sprint else None,
        project_id=question.project.id if question.project else None,
        assignee_id=asker_id if question.mine else person.employee_id if person else None,
        overdue_on=today if question.overdue else None, unassigned=question.unassigned,
        open_only=question.open_only, due_after=due_after, due_before=due_before, limit=MAX_FIND_TASKS)


def name_spans(question: str, vocabulary: Vocabulary) -> list[tuple[int, int]]:
    """Where the folded question (terms.fold) names a sprint or project, so "Payments Sprint 2" is not
    read as SPRINT #2."""
    taken: list[tuple[int, int]] = []
    _named(terms.fold(question), vocabulary, taken)
    return taken


def might_be(question: str) -> bool:
    """Cheap first look (no vocabulary): does the question use any word a tracker question needs?"""
    text = terms.fold(question)
    return any(re.search(rf"(?<![\w-]){re.escape(p)}(?![\w-])", text)
               for p in (*TASK_NOUNS, *POINTS_PHRASES, *OVERDUE_PHRASES, *UNASSIGNED_PHRASES, "working on",
                         "trabajando", "esta haciendo"))


def _free(taken: list[tuple[int, int]], span: tuple[int, int]) -> bool:
    return all(span[1] <= s or span[0] >= e for s, e in taken)


def _named(text: str, vocabulary: Vocabulary, taken: list[tuple[int, int]]) -> tuple[Named | None, Named | None]:
    """A sprint or project named in full ("Payments Sprint 2"), or a project by a word of its name that
    no other project shares ("payments", "LATAM"); longest names first so a sprint wins over its project."""
    candidates = [("sprint", s, terms.fold(s.name)) for s in vocabulary.sprints] + \
                 [("project", p, terms.fold(p.name)) for p in vocabulary.projects]
    sprint = project = None
    for kind, named, name in sorted(candidates, key=lambda c: -len(c[2])):
        match = re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text) if name.strip() else None
        if match and _free(taken, match.span()):
            taken.append(match.span())
            if kind == "sprint" and sprint is None:
                sprint = named
            elif kind == "project" and project is None:
                project = named
    if project is None:
        project = _project_by_word(text, vocabulary, taken)
    return sprint, project


def _project_by_word(text: str, vocabulary: Vocabulary, taken: list[tuple[int, int]]) -> Named | None:
    owners: dict[str, list[Named]] = {}
    for p in vocabulary.projects:
        for word in set(terms.words(terms.fold(p.name))):
            if len(word) >= 4 and word not in terms.STOP and word not in FILLER:
                owners.setdefault(word, []).append(p)
    for word, projects in owners.items():
        if len(projects) != 1:
            continue
        for match in re.finditer(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text):
            if _free(taken, match.span()):
                taken.append(match.span())
                return projects[0]
    return None


def _by_id(items: tuple[Named, ...], item_id: int) -> Named | None:
    return next((n for n in items if n.id == item_id), None)


def _people(text: str, vocabulary: Vocabulary, taken: list[tuple[int, int]]) -> list[Person]:
    """People named by full name, or by a first or last name ("Chen's tasks"): all who share it."""
    for full in (True, False):
        matches: dict[int, Person] = {}
        spans = []
        for person in vocabulary.people:
            names = [" ".join(terms.fold(p) for p in (person.first_name, person.last_name) if p)] if full else \
                [terms.fold(p) for p in (person.first_name, person.last_name) if p]
            for name in names:
                if len(name) < 2:
                    continue
                for match in re.finditer(rf"(?<![\w-]){re.escape(name)}(?:'s)?(?![\w-])", text):
                    if _free(taken, match.span()):
                        matches[person.employee_id] = person
                        spans.append(match.span())
        if matches:
            taken.extend(spans)
            return list(matches.values())
    return []


def _leftover(text: str, taken: list[tuple[int, int]]) -> bool:
    """Whether a word outside the understood spans carries meaning (then the question is not ours)."""
    rest = list(text)
    for start, end in taken:
        rest[start:end] = " " * (end - start)
    for word in terms.words("".join(rest)):
        if word in terms.STOP or word in FILLER or len(word) < 2 and not word.isdigit():
            continue
        return True
    return False


def _due_range(kind: object, today: dt.date, lang: str) -> tuple[tuple[dt.date, dt.date] | None, str | None]:
    if kind is None:
        return None, None
    unit, offset = kind  # type: ignore[misc]
    if unit == "day":
        start = today + dt.timedelta(days=offset)
        label = "today" if offset == 0 else "tomorrow"
        return (start, start + dt.timedelta(days=1)), _SPANISH_LABELS[label] if lang == "es" else label
    monday = today - dt.timedelta(days=today.weekday()) + dt.timedelta(weeks=offset)
    label = "this week" if offset == 0 else "next week"
    return (monday, monday + dt.timedelta(days=7)), _SPANISH_LABELS[label] if lang == "es" else label
