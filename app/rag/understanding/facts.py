"""Questions about a sprint or the projects themselves, not their tasks (issue 31, point 3): "when does the current
mobile sprint finish?", "¿en qué sprint está ahora el equipo de datos?", "which projects are currently active?".
They are answered by the records' own cards, read from the data's sprints and projects. Pure."""

from __future__ import annotations

from app.rag import terms
from app.rag.refs import EntityRef
from app.rag.understanding import dates, edits, glossary as g
from app.rag.understanding.lexicon import Lexicon, project_mentions, sprint_mentions
from app.rag.understanding.spans import Spans

# What is asked of a sprint itself: its dates, its goal, which one it is.
SPRINT_FACTS = ("when", "finish", "finishes", "end", "ends", "ending", "over", "start", "starts", "begin", "begins",
                "goal", "goals", "dates", "how long", "deadline", "cuando", "termina", "terminan", "acaba", "acaban",
                "finaliza", "empieza", "empiezan", "comienza", "objetivo", "objetivos", "fechas", "fecha")
WHICH_SPRINT = ("which sprint", "what sprint", "en que sprint", "que sprint", "cual sprint", "which iteration",
                "en que iteracion", "que iteracion")
_PROJECT_NOUNS = ("projects", "proyectos")
# Project statuses said in words (the stored ones are matched as they are).
_PROJECT_STATUS = {"active": "ACTIVE", "currently active": "ACTIVE", "ongoing": "ACTIVE", "running": "ACTIVE",
                   "activos": "ACTIVE", "activo": "ACTIVE", "en curso": "ACTIVE", "planned": "PLANNING",
                   "planning": "PLANNING", "en planificacion": "PLANNING", "planificados": "PLANNING",
                   "closed": "CLOSED", "finished": "CLOSED", "done": "CLOSED", "cerrados": "CLOSED",
                   "terminados": "CLOSED", "completed": "CLOSED"}
_TASK_WORDS = ("task", "tasks", "issue", "issues", "ticket", "tickets", "tarea", "tareas", "bugs", "incidencias",
               "how many", "cuantas", "cuantos", "open", "abiertas", "overdue", "vencidas", "blocked", "working on",
               "trabajando", "points", "puntos", "left", "quedan", "assigned", "asignadas")


def sprint_asked(question: str, lexicon: Lexicon, scope_project: int | None) -> EntityRef | None:
    """The sprint a question asks about itself (its dates, goal, which one is current), or None."""
    spans = Spans(terms.fold(question))
    if spans.says(_TASK_WORDS):
        return None
    named = sprint_mentions(spans.text, lexicon)
    which = dates.relative_sprint_said(Spans(spans.text))
    asks_which = spans.says(WHICH_SPRINT)
    if not (spans.says(SPRINT_FACTS) and (named or which)) and not asks_which:
        return None
    if named:
        return ("sprint", int(named[0].value))  # type: ignore[call-overload]
    projects = project_mentions(spans.text, lexicon)
    project = int(projects[0].value) if len({m.value for m in projects}) == 1 else scope_project  # type: ignore
    sprint = edits.relative_sprint(lexicon, which or "current", project)
    return ("sprint", sprint.sprint_id) if sprint is not None else None


def projects_asked(question: str, lexicon: Lexicon) -> tuple[EntityRef, ...] | None:
    """The projects a question lists ("which projects are currently active?"): in a status it names, or all."""
    spans = Spans(terms.fold(question))
    if not spans.says(_PROJECT_NOUNS) or spans.says(_TASK_WORDS) or not spans.says(g.ASKING_WORDS):
        return None
    status = next((v for k, v in sorted(_PROJECT_STATUS.items(), key=lambda kv: -len(kv[0])) if spans.says((k,))),
                  None)
    rest = spans.unknown(frozenset({*_PROJECT_NOUNS, *(w for k in _PROJECT_STATUS for w in k.split()),
                                    *(w for a in g.ASKING_WORDS for w in a.split()), "currently", "now", "right",
                                    "ahora", "mismo", "actualmente", "there", "hay", "estan", "son", "all", "todos",
                                    "list", "show", "our", "nuestros", "we", "have", "tenemos", "team", "equipo"}))
    if rest:
        return None  # "which projects use Kafka?" asks what the records say
    chosen = [p for p in lexicon.projects if status is None or (p.status or "").upper() == status]
    return tuple(("project", p.project_id) for p in chosen)

