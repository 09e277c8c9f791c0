"""HELD-OUT phrasings of the conversation benchmark: a third of each template's phrasings, per language.

Engineers improving the answers must not read this file (nor tune on it): the benchmark's held-out score
is only worth something if these phrasings were never seen; none repeats an example of issue 23 either, since
those are tuned on. Same shape as conversation_phrasings.py.
"""

from __future__ import annotations

PHRASINGS: dict[str, dict[str, tuple[str, ...]]] = {
    "my_status": {"en": ("anything of mine that is {status}?",), "es": ("¿qué tengo {status}?",)},
    "my_overdue": {"en": ("am I late on anything?",), "es": ("¿qué se me pasó de fecha?",)},
    "my_due": {"en": ("what deadlines of mine fall {window}?",), "es": ("¿qué me vence {window}?",)},
    "person_tasks": {"en": ("what has {person} got on the go?",), "es": ("¿qué le toca a {person}?",)},
    "person_status": {"en": ("show {person}'s work that is {status}",), "es": ("tareas {status} de {person}",)},
    "person_overdue": {"en": ("what has {person} let slip past its date?",), "es": ("¿qué se le pasó de fecha a {person}?",)},
    "topic_tasks": {"en": ("anything in the works on {area}?",), "es": ("¿hay trabajo sobre {area}?",)},
    "lookup_status": {"en": ("where are we with task {id}?",), "es": ("¿cómo va la tarea {id}?",)},
    "lookup_assignee": {"en": ("who is handling task {id}?",), "es": ("¿quién se encarga de la tarea {id}?",)},
    "lookup_due": {"en": ("what is the deadline for task {id}?",), "es": ("¿cuál es el plazo de la tarea {id}?",)},
    "lookup_priority": {"en": ("how important is task {id}?",), "es": ("¿qué tan importante es la tarea {id}?",)},
    "lookup_points": {"en": ("how big is task {id} in points?",), "es": ("¿de cuántos puntos es la tarea {id}?",)},
    "title_status": {"en": ("where does {title} stand?",), "es": ("¿qué pasa con {title}?",)},
    "title_assignee": {"en": ("who took {title}?",), "es": ("¿quién lleva {title}?",)},
    "card": {"en": ("what is task {id} about?",), "es": ("¿de qué trata la tarea {id}?",)},
    "count_status": {"en": ("number of {status} tasks in {project}?",), "es": ("cantidad de tareas {status} en {project}",)},
    "sum_points": {"en": ("how much work in points remains in {sprint}?",), "es": ("¿cuánto trabajo en puntos queda en {sprint}?",)},
    "compare_project_overdue": {"en": ("where is the most overdue work, by project?",),
                                "es": ("¿en qué proyecto hay más trabajo vencido?",)},
    "compare_person_open": {"en": ("who carries the most open work?",), "es": ("¿quién carga con más trabajo abierto?",)},
    "compare_sprint_points": {"en": ("which sprint still has the most points to do?",),
                              "es": ("¿qué sprint tiene más puntos sin hacer?",)},
    "comment_authors": {"en": ("who said something on task {id}?",), "es": ("¿quién opinó en la tarea {id}?",)},
    "latest_comment": {"en": ("newest comment on task {id}?",), "es": ("lo último que se comentó en la tarea {id}",)},
    "blocked_project": {"en": ("what is stuck in {project}?",), "es": ("¿qué está trabado en {project}?",)},
    "doc_summary": {"en": ("give me the gist of the {doc}",), "es": ("¿de qué va «{doc}»?",)},
    "scope_project": {"en": ("stick to {project} for now",), "es": ("solo el proyecto {project}, por favor",)},
    "scope_all": {"en": ("look at every project again",), "es": ("quita el filtro de proyecto",)},
    "fu_assignee": {"en": ("who is on it?",), "es": ("¿quién se encarga?",)},
    "fu_due": {"en": ("what's the deadline?",), "es": ("¿cuál es el plazo?",)},
    "fu_status": {"en": ("how is it going?",), "es": ("¿cómo va?",)},
    "fu_authors": {"en": ("who has weighed in on it?",), "es": ("¿quién opinó?",)},
    "fu_others": {"en": ("did anybody besides the assignee chime in?",),
                  "es": ("¿opinó alguien aparte del responsable?",)},
    "fu_blocked": {"en": ("anything stuck?",), "es": ("¿hay algo trabado?",)},
    "fu_count_status": {"en": ("number of {status} tasks?",), "es": ("¿cuántas hay {status}?",)},
}

DOC_FACTS: tuple[tuple[str, str, str, str], ...] = (
    ("en", "how many reviewers must approve a payments change?", "Engineering onboarding guide", "two approvals"),
    ("en", "who gets paged first?", "On-call runbook", "primary on call"),
    ("en", "what happens on the Tuesday before a release?", "Release process", "Freeze on Tuesday"),
    ("en", "when does reconciliation run?", "Payments architecture decision: PSP migration", "reconciliation runs nightly"),
    ("en", "did offline sync slip?", "Weekly sync notes - mobile", "Offline sync slips"),
    ("es", "¿hay que tratar de tú o de usted al usuario?", "Guía de estilo para textos en español", "tuteo"),
    ("es", "¿quiénes asistieron a la planificación del portal?", "Notas de la reunión de planificación - Portal LATAM", "Asistentes"),
)

NOWHERE: tuple[tuple[str, str], ...] = (
    ("en", "what is our policy for the Antarctica data centre?"),
    ("en", "when is the team offsite in Lisbon?"),
    ("es", "¿quién aprobó la fusión con la empresa de drones?"),
)
