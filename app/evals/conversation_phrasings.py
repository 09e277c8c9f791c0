"""The phrasings the answers may be tuned on: two thirds of each template's phrasings, per language.

The other third is in conversation_phrasings_heldout.py, which the engineers improving the answers never
read; the benchmark reports the two parts separately. A phrasing is a format string over the template's
slots ({status}, {window}, {person}, {id}, {title}, {area}, {project}, {sprint}, {doc}); what each template asks
(and so how its truth is computed) is in app/evals/conversation_cases.py. ``DOC_FACTS``: questions about
one document's content, each with the document's title and a key phrase of the paragraph that answers it
(the truth is that paragraph, read from the database). ``NOWHERE``: questions nothing in the data answers.
"""

from __future__ import annotations

PHRASINGS: dict[str, dict[str, tuple[str, ...]]] = {
    "my_status": {"en": ("which of my tasks are {status}?", "show me my tasks that are {status}"),
                  "es": ("¿cuáles de mis tareas están {status}?", "muéstrame mis tareas {status}")},
    "my_overdue": {"en": ("which of my tasks are overdue?", "what work of mine is past its due date?"),
                   "es": ("¿qué tareas mías están vencidas?", "¿tengo tareas atrasadas?")},
    "my_due": {"en": ("which of my tasks are due {window}?", "what do I have due {window}?"),
               "es": ("¿qué tareas mías vencen {window}?", "¿qué tengo que entregar {window}?")},
    "person_tasks": {"en": ("which tasks are assigned to {person}?", "list {person}'s tasks"),
                     "es": ("¿qué tareas tiene asignadas {person}?", "lista las tareas de {person}")},
    "person_status": {"en": ("which of {person}'s tasks are {status}?", "what does {person} have {status}?"),
                      "es": ("¿qué tareas de {person} están {status}?", "¿qué tiene {person} {status}?")},
    "person_overdue": {"en": ("which of {person}'s tasks are overdue?", "is {person} late on anything?"),
                       "es": ("¿qué tareas de {person} están vencidas?", "¿tiene {person} tareas atrasadas?")},
    "topic_tasks": {"en": ("which tasks are about {area}?", "what is going on with {area}?"),
                    "es": ("¿qué tareas hay sobre {area}?", "¿qué pasa con {area}?")},
    "lookup_status": {"en": ("what is the status of task {id}?", "is task {id} done yet?"),
                      "es": ("¿en qué estado está la tarea {id}?", "¿cuál es el estado de la tarea {id}?")},
    "lookup_assignee": {"en": ("who is assigned to task {id}?", "who owns task {id}?"),
                        "es": ("¿quién tiene asignada la tarea {id}?", "¿a quién le toca la tarea {id}?")},
    "lookup_due": {"en": ("when is task {id} due?", "what is the due date of task {id}?"),
                   "es": ("¿cuándo vence la tarea {id}?", "¿qué fecha de entrega tiene la tarea {id}?")},
    "lookup_priority": {"en": ("what priority does task {id} have?", "how urgent is task {id}?"),
                        "es": ("¿qué prioridad tiene la tarea {id}?", "¿es urgente la tarea {id}?")},
    "lookup_points": {"en": ("how many story points is task {id}?", "what is the estimate in points of task {id}?"),
                      "es": ("¿cuántos puntos de historia tiene la tarea {id}?", "¿cuántos puntos vale la tarea {id}?")},
    "title_status": {"en": ('what is the status of "{title}"?', "how is the task {title} going?"),
                     "es": ("¿en qué estado está «{title}»?", "¿cómo va la tarea {title}?")},
    "title_assignee": {"en": ('who is working on "{title}"?', "who is assigned to {title}?"),
                       "es": ("¿quién trabaja en «{title}»?", "¿quién tiene la tarea {title}?")},
    "card": {"en": ("tell me about task {id}", "give me the details of task {id}"),
             "es": ("háblame de la tarea {id}", "dame los detalles de la tarea {id}")},
    "count_status": {"en": ("how many tasks are {status} in {project}?", "count the {status} tasks of {project}"),
                     "es": ("¿cuántas tareas están {status} en {project}?", "¿cuántas tareas {status} hay en {project}?")},
    "sum_points": {"en": ("how many story points are left in {sprint}?", "what is the remaining story point total of {sprint}?"),
                   "es": ("¿cuántos puntos de historia quedan en {sprint}?", "¿cuántos puntos faltan en {sprint}?")},
    "compare_project_overdue": {"en": ("which project has the most overdue work?", "which project has the most overdue tasks?"),
                                "es": ("¿qué proyecto tiene más tareas vencidas?", "¿qué proyecto va más atrasado en tareas?")},
    "compare_person_open": {"en": ("who has the most open tasks?", "which person has the most unfinished tasks?"),
                            "es": ("¿quién tiene más tareas abiertas?", "¿qué persona tiene más tareas sin terminar?")},
    "compare_sprint_points": {"en": ("which sprint has the most story points left?", "which sprint has the most remaining points?"),
                              "es": ("¿qué sprint tiene más puntos de historia pendientes?", "¿qué iteración tiene más puntos por hacer?")},
    "comment_authors": {"en": ("who commented on task {id}?", "who has left comments on task {id}?"),
                        "es": ("¿quién comentó en la tarea {id}?", "¿quiénes han comentado la tarea {id}?")},
    "latest_comment": {"en": ("what is the latest comment on task {id}?", "what did the last comment on task {id} say?"),
                       "es": ("¿cuál es el último comentario de la tarea {id}?", "¿qué dice el comentario más reciente de la tarea {id}?")},
    "blocked_project": {"en": ("what is blocked in {project}?", "which tasks of {project} are blocked?"),
                        "es": ("¿qué está bloqueado en {project}?", "¿qué tareas de {project} están bloqueadas?")},
    "doc_summary": {"en": ("summarise the {doc}", "what does the {doc} say?"),
                    "es": ("resume el documento «{doc}»", "¿qué dice el documento «{doc}»?")},
    "scope_project": {"en": ("only look at the {project} project from now on", "from now on, search only {project}"),
                      "es": ("desde ahora mira solo el proyecto {project}", "a partir de ahora busca solo en {project}")},
    "scope_all": {"en": ("search everything again", "go back to all projects"),
                  "es": ("vuelve a buscar en todo", "busca otra vez en todos los proyectos")},
    # Follow-ups: about the conversation's focus (the entity of the last answer), or under its scope.
    "fu_assignee": {"en": ("who is assigned to it?", "who has it?"),
                    "es": ("¿quién lo tiene asignado?", "¿y quién la tiene?")},
    "fu_due": {"en": ("when is it due?", "and its due date?"),
               "es": ("¿y cuándo vence?", "¿para cuándo es?")},
    "fu_status": {"en": ("what is its status?", "is it done?"),
                  "es": ("¿en qué estado está?", "¿ya está terminada?")},
    "fu_authors": {"en": ("who commented on it?", "who left comments on it?"),
                   "es": ("¿quién la comentó?", "¿quién dejó comentarios en ella?")},
    "fu_others": {"en": ("who else commented on it?", "did anyone else comment on it?"),
                  "es": ("¿quién más comentó en ella?", "¿alguien más la comentó?")},
    "fu_blocked": {"en": ("what is blocked?", "which tasks are blocked?"),
                   "es": ("¿qué está bloqueado?", "¿qué tareas están bloqueadas?")},
    "fu_count_status": {"en": ("how many tasks are {status}?", "how many {status} tasks are there?"),
                        "es": ("¿cuántas tareas están {status}?", "¿cuántas tareas {status} hay?")},
}

DOC_FACTS: tuple[tuple[str, str, str, str], ...] = (
    # (language, question, document title, a phrase of the paragraph that answers it)
    ("en", "how many approvals does payments code need?", "Engineering onboarding guide", "two approvals"),
    ("en", "what should a new developer run after cloning the monorepo?", "Engineering onboarding guide", "make run"),
    ("en", "what do we do in a payments outage?", "On-call runbook", "payments outage"),
    ("en", "when do we escalate an incident to the manager?", "On-call runbook", "Escalate"),
    ("en", "how often do releases happen?", "Release process", "every second Thursday"),
    ("en", "are refunds synchronous with the new PSP?", "Payments architecture decision: PSP migration", "Refunds"),
    ("en", "what was decided in the weekly mobile sync?", "Weekly sync notes - mobile", "top priority"),
    ("en", "what does Ana want to lead?", "1:1 notes Ana / Maria", "lead the offline sync"),
    ("en", "how could we cut the warehouse bill?", "Personal notes: warehouse cost ideas", "cut the bill"),
    ("es", "¿cómo debemos escribir los textos en español?", "Guía de estilo para textos en español", "tuteo"),
    ("es", "¿se pueden usar anglicismos en la interfaz?", "Guía de estilo para textos en español", "anglicismos"),
    ("es", "¿cuál es el riesgo del portal LATAM según la planificación?", "Notas de la reunión de planificación - Portal LATAM", "Riesgo"),
    ("es", "¿qué se priorizó en la planificación del portal?", "Notas de la reunión de planificación - Portal LATAM", "Prioridad"),
    ("es", "¿cada cuánto hay un lanzamiento?", "Release process", "every second Thursday"),
    ("es", "¿qué hago si se cae el sistema de pagos?", "On-call runbook", "payments outage"),
    ("es", "¿cuántas aprobaciones necesita el código de pagos?", "Engineering onboarding guide", "two approvals"),
)

NOWHERE: tuple[tuple[str, str], ...] = (
    ("en", "what did we decide about the blockchain integration?"),
    ("en", "who is running the quantum computing pilot?"),
    ("en", "what is the budget of the Mars office?"),
    ("es", "¿qué se decidió sobre la integración con blockchain?"),
    ("es", "¿quién lleva el piloto de computación cuántica?"),
    ("es", "¿cuál es el presupuesto de la oficina en Marte?"),
    ("es", "¿qué dijo el cliente de Noruega sobre el contrato?"),
)
