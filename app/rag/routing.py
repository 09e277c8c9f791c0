"""Where a question goes before anything is retrieved. Pure: no I/O.

- a tracker question ("which of my tasks are in progress?") → ``tasks``: the find_tasks query;
- an explicit id ("task 107", "tarea 107", "#107", "doc 6"), or a tracker key ("PAY-1210") the caller resolved
  to tasks they may see (``keyed``: app/services/entities.py) → ``lookup`` under the access rule;
- a follow-up that names nothing of its own ("when is it due?") while the conversation has a focus →
  ``follow_up``: about the focus;
- everything else → ``retrieve``.

The same route serves the extractive answer and the LLM (which gets the routed evidence first, and the
same lookups as tools), so offline and online agree on what is true.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Literal

from app.domain import Vocabulary
from app.rag import followup, refs, task_questions, terms
from app.rag.refs import EntityRef
from app.rag.task_questions import TaskQuestion

RouteKind = Literal["tasks", "lookup", "follow_up", "retrieve"]


@dataclass(frozen=True)
class Route:
    kind: RouteKind
    refs: tuple[EntityRef, ...] = ()  # lookup: the ids asked for; follow_up: the focus
    tasks: TaskQuestion | None = None


def route(question: str, focus: EntityRef | None, vocabulary: Vocabulary, today: dt.date,
          keyed: tuple[EntityRef, ...] = ()) -> Route:
    # Folded text (as the name spans are), so a sprint named "... Sprint 2" is not read as SPRINT #2.
    masked = [*task_questions.name_spans(question, vocabulary), *refs.key_spans(question)]
    # A key is a lookup like an id; one that names no task the caller may see is not (it may be "COVID-19"),
    # and reads exactly as an unknown key.
    ids = refs.unique([*refs.mentions(terms.fold(question), masked=masked), *keyed])
    follow_up = focus is not None and not ids and followup.is_follow_up(question)
    if follow_up and followup.points_back(question):  # "is it overdue?" is about the focus, not a list
        return Route("follow_up", refs=(focus,))  # type: ignore[arg-type]
    asked = task_questions.parse(question, vocabulary, today)  # "overdue in sprint 3" before SPRINT #3
    if asked is not None:
        return Route("tasks", tasks=asked)
    if ids:
        return Route("lookup", refs=tuple(ids))
    if follow_up:
        return Route("follow_up", refs=(focus,))  # type: ignore[arg-type]
    return Route("retrieve")
