"""What one chat turn carries from step to step: the input, the checked request, the evidence gathered, the
answer (app/services/chat.py runs the steps)."""



from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any, Protocol


from app.domain import Caller, Message, SearchHit
from app.records_model import SourceRecord
from app.rag.computed import Computed
from app.rag.refs import EntityRef
from app.rag.routing import Route
from app.rag.understanding.query import TrackerQuery
from app.services import answers, tools
from app.services.conversations import EffectiveScope
from app.services.search import TimedSearch

log = logging.getLogger(__name__)


class Stream(Protocol):
    """Where a streamed turn's text goes as it is produced."""

    async def token(self, text: str) -> None: ...

    async def reset(self, llm_error: str) -> None:
        """The text sent so far is void; what follows is the answer from its start."""
        ...


@dataclass(frozen=True)
class ChatInput:
    message: str
    conversation_id: int | None = None
    rag_scope: object = None  # only for a new conversation; default RAG_CHAT_DEFAULT_SCOPE
    pinned: bool = False
    top_k: int | None = None


@dataclass
class Prepared:
    """Everything checked before any slow work: the caller, the conversation (None = new), memory."""

    caller: Caller
    message: str
    state: tools.ToolState
    history: list[Message]
    title: str
    top_k: int
    persist: bool = True  # False: a conversation the client keeps (prepare_stateless); nothing is stored
    question_vector: Any = None  # the question's embedding, once routing made it (retrieval reuses it)


@dataclass
class Evidence:
    """What a turn was given: the routed entities and task rows, and the retrieved hits."""

    route: Route
    found: TimedSearch
    query: str
    scope: EffectiveScope  # what retrieval ran under: the prompt's label and the answer's scope
    entities: dict[EntityRef, SourceRecord] = field(default_factory=dict)  # looked up (asked, or the focus)
    missing: list[EntityRef] = field(default_factory=list)  # asked by id, not among what the asker may see
    task_rows: list[dict[str, Any]] = field(default_factory=list)
    tasks_text: str | None = None  # the tracker answer (extractive), also the LLM's first context block
    person: Any = None
    computed: Computed | None = None  # the answer computed from the records, when the route computes one
    uncovered: str | None = None  # retrieval: the topic no visible hit covers ("the weekly mobile sync")
    relevant: list[SearchHit] = field(default_factory=list)  # the hits the relevance gate passes: the LLM's context
    wider: list[SearchHit] | None = None  # retrieval's second look when a topic's list may be cut at top_k
    not_about: str | None = None  # retrieval: a title the question names that no visible record is about
    meaning: dict[str, float] = field(default_factory=dict)  # retrieval: each entity's closeness to the question
    vectors: answers.SentenceVectors | None = None  # retrieval: the sentences embedded so far this turn
    ran: TrackerQuery | None = None  # the typed query the answer ran: stored with the turn for a follow-up

    @property
    def backbone(self) -> Computed | None:
        """The computed answer the LLM must keep: none for a reading guessed from the question's kind by meaning —
        the model is given it as context, not as an authority, and may ask the query tool instead (offline, the
        guess answers)."""
        return None if self.route.guessed else self.computed

    @property
    def hits(self) -> list[SearchHit]:
        """What the answer is composed from: the second look's hits when there was one."""
        return self.wider if self.wider is not None else self.found.result.hits


@dataclass(frozen=True)
class ChatAnswer:
    answer: str
    citations: list[str]
    search: TimedSearch
    llm_used: bool
    llm_error: str | None
    conversation_id: int | None  # None: a stateless turn (prepare_stateless), not stored
    message_id: int | None
    scope: EffectiveScope
    new_scope: EffectiveScope | None
    timings_ms: dict[str, float] = field(default_factory=dict)
    entities: list[SearchHit] = field(default_factory=list)  # looked up or returned by a tool, not retrieved
    route: str = "retrieve"


