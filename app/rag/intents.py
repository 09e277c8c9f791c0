"""What kind of question this is, by meaning: the question's embedding against labelled example
phrasings of each kind (English and Spanish). Pure: no I/O — the services layer embeds the examples
once per engine and model (app/services/understanding.py) and hands the matrix in.

The examples are data, not rules: a question is of a kind when its best similarity to that kind's
examples is at least MIN_SIMILARITY and beats every other kind's best by MARGIN. Anything less clear
is None, and the turn goes to retrieval as before. The parser's rules (app/rag/task_questions.py,
app/rag/routing.py) stay the precise path: a rule match wins over a kind found here.

Keep the questions the tests hold out (tests/unit/test_intents.py) out of these lists: the test
measures how well the kinds generalise, not whether a list contains its own lines.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np

Intent = Literal["work", "entity", "count", "compare", "comments", "blockers", "scope", "free"]

MIN_SIMILARITY = 0.2  # centred cosine (see ``scores``): below it the nearest examples are only neighbours
MARGIN = 0.05  # over the runner-up kind: two kinds this close are a guess
NEAREST = 2  # a kind's score is the mean of its two nearest examples: one odd example decides nothing

EXAMPLES: dict[Intent, tuple[str, ...]] = {
    # Someone's work: mine by default, a person when one is named; by status, due window, overdue.
    "work": (
        "what am I working on?", "what do I have to do this week?", "what should I work on next?",
        "show me my open tasks", "what is assigned to me?", "what's left on my list?",
        "anything I need to get done soon?", "what is Chen busy with?", "what does Ana have going on?",
        "which tasks does Ben still have open?", "what do I need to deliver by Monday?",
        "what have I got due this week?", "my to-do list", "what am I supposed to be doing today?",
        "what's on Diego's list?", "what are my tasks?",
        "¿en qué estoy trabajando?", "¿qué tengo pendiente?", "¿qué me toca hacer esta semana?",
        "¿qué tareas tengo asignadas?", "¿qué tiene Chen entre manos?", "¿en qué está metido Diego?",
        "mis tareas abiertas", "¿qué debo entregar el lunes?", "¿qué me queda por hacer?",
        "¿qué tengo que hacer hoy?", "mi lista de pendientes",
    ),
    # One entity asked by its name or topic (by id is the parser's lookup).
    "entity": (
        "tell me about the login bug", "what is the story about the refund flow?",
        "show me the ticket about push notifications", "what's going on with the PSP webhook issue?",
        "details of the task about offline sync", "what is wrong with the crash in the iOS build?",
        "what's the status of the checkout page task?", "who owns the task about deep links?",
        "cuéntame sobre el error de inicio de sesión", "¿cómo va la tarea de la página de facturas?",
        "¿qué pasa con la tarea del chat de soporte?", "detalles de la tarea del registro de clientes",
        "what's this task about?", "what is that ticket?",
        "¿qué es esta tarea?", "¿de qué va el ticket?",
    ),
    # A count or a sum, stated as a figure.
    "count": (
        "how many tasks are open?", "how many tickets do we have in the payments project?",
        "what's the total of story points in sprint 2?", "count the tasks that are overdue",
        "how many story points are left for me?", "number of critical tickets",
        "how many tasks does Ana have?", "how many things are still to do?", "how many are open?",
        "how many are left in this project?",
        "¿cuántas tareas hay abiertas?", "¿cuántos puntos quedan en la iteración 2?",
        "número de tareas críticas", "¿cuántas tareas tiene Ana?", "total de puntos de historia del proyecto",
        "¿cuántas quedan abiertas?", "¿cuántas hay sin asignar?",
    ),
    # A comparison or a group-by: a winner with its figure, then the ranking.
    "compare": (
        "which sprint has the most open tasks?", "who has the most tasks assigned?",
        "which person has the fewest open tickets?", "how many tasks per status?",
        "break down the tasks by project", "who has the most story points left?",
        "which project has the most critical bugs?", "rank the team by open work",
        "tasks grouped by assignee", "which sprint is the most behind?", "who is the most overloaded?",
        "¿quién tiene más tareas abiertas?", "¿cuántas tareas hay por estado?",
        "¿qué iteración tiene menos puntos pendientes?", "tareas agrupadas por persona",
        "reparto de tareas por proyecto", "¿qué proyecto tiene más tareas críticas?",
    ),
    # The comments of a task: who commented, what someone said, the latest one.
    "comments": (
        "who commented on this task?", "what did Chen say about it?", "what's the latest comment?",
        "show me the comments", "has anyone commented?", "what was the last thing someone wrote on it?",
        "who left a comment on the refund task?", "read me the comments", "what do people say in the thread?",
        "¿quién comentó en esta tarea?", "¿qué dijo Ana sobre eso?", "¿cuál es el último comentario?",
        "muéstrame los comentarios", "¿alguien ha comentado algo?", "¿qué escribieron en los comentarios?",
    ),
    # What is blocked, and what blocks it (comments and descriptions; links once they are stored).
    "blockers": (
        "what's blocking this task?", "which tasks are stuck?", "is anything blocked in the payments project?",
        "what is holding up the release?", "why is it stuck?", "what are we waiting on?",
        "which tickets can't move forward?", "are there blockers?",
        "¿qué bloquea esta tarea?", "¿hay tareas trabadas?", "¿qué nos está frenando?",
        "¿por qué está detenida?", "¿qué tareas están atascadas?", "¿hay bloqueos?",
    ),
    # Where this conversation searches: one project, documents of no project, everything.
    "scope": (
        "only search the mobile project from now on", "limit the answers to the data warehouse project",
        "focus on the payments project only", "stick to the mobile app project", "go back to searching all projects",
        "stop filtering by project", "look everywhere again", "search across all projects",
        "only documents that belong to no project", "restrict this conversation to payments",
        "a partir de ahora busca solo en el proyecto móvil", "limita la búsqueda al proyecto de datos",
        "céntrate en el proyecto de pagos", "vuelve a buscar en todos los proyectos",
        "quita el filtro de proyecto", "busca en todas partes", "de ahora en adelante solo el proyecto móvil",
    ),
    # Everything a document or a chunk's text answers: retrieval.
    "free": (
        "what is the vacation policy?", "how do we do code review?", "what was decided in the planning meeting?",
        "summarise the release plan", "how do I set up the dev environment?",
        "what does the on-call runbook say about outages?", "why did we choose the new PSP?",
        "what is the architecture of the payments platform?", "how many vacation days do I get?",
        "who do I ask for help with the build?", "what are the coding guidelines?", "explain the data model",
        "what is the goal of the current sprint?", "what did we agree on in the retro?",
        "¿cuál es la política de vacaciones?", "¿cómo se hace la revisión de código?",
        "¿qué se decidió en la reunión?", "resume el plan de lanzamiento", "¿cómo configuro el entorno?",
        "¿cuántos días de vacaciones tengo?", "¿cuáles son las reglas de estilo?",
        "¿qué dice el manual de incorporación?", "¿cómo tenemos que nombrar las ramas?",
        "¿qué explica el documento de arquitectura?", "¿dónde está la guía de despliegue?",
    ),
}


def example_texts() -> tuple[list[str], list[Intent]]:
    """Every example in one list, with its kind beside it (the rows of the matrix ``classify`` takes)."""
    texts: list[str] = []
    labels: list[Intent] = []
    for intent, examples in EXAMPLES.items():
        texts.extend(examples)
        labels.extend([intent] * len(examples))
    return texts, labels


def centred(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The examples' mean and the examples less it, re-normalised. MiniLM puts every short question (and
    every Spanish one, a language it barely learned) in one narrow cone where all similarities are high;
    taken from the examples' mean they spread out and the kinds come apart."""
    mean = matrix.mean(axis=0)
    shifted = matrix - mean
    return mean, shifted / np.linalg.norm(shifted, axis=1, keepdims=True)


def scores(vector: np.ndarray, matrix: np.ndarray, labels: Sequence[Intent]) -> dict[Intent, float]:
    """Each kind's score: the mean centred cosine similarity of its NEAREST examples."""
    mean, examples = centred(matrix)
    query = np.asarray(vector, dtype=np.float32) - mean
    similarities = examples @ (query / (np.linalg.norm(query) or 1.0))
    by_kind: dict[Intent, list[float]] = {}
    for label, similarity in zip(labels, similarities.tolist()):
        by_kind.setdefault(label, []).append(similarity)
    return {label: float(np.mean(sorted(values, reverse=True)[:NEAREST])) for label, values in by_kind.items()}


def classify(vector: np.ndarray, matrix: np.ndarray, labels: Sequence[Intent],
             min_similarity: float = MIN_SIMILARITY, margin: float = MARGIN) -> Intent | None:
    """The question's kind, or None when no kind is clearly nearest."""
    ranked = sorted(scores(vector, matrix, labels).items(), key=lambda kv: -kv[1])
    if not ranked or ranked[0][1] < min_similarity:
        return None
    if len(ranked) > 1 and ranked[0][1] - ranked[1][1] < margin:
        return None
    return ranked[0][0]
