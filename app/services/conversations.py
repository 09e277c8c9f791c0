"""Conversations as the API and the model's tools see them: ownership, scopes and their labels.

A conversation belongs to one employee. Anyone else asking for it (even through an admin token, which
may act as any employee) is told it does not exist, so ids cannot be probed for their owners.

Scope values are stored as text (app.domain.check_rag_scope): a project id, "none" or "all". A scope
naming a project that has since been deleted is *not* an error when read: retrieval falls back to
"all" (the access rule still applies) and the label says so ("All projects (project #7 no longer
exists)"); nothing is written on a read. Setting such a scope (PATCH, the model's tool, a new
conversation) is refused: a scope must name a project that exists now.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from app import paging
from app.domain import (MAX_CITATIONS, MAX_RETRIEVED, Caller, Conversation, Message, ProjectScope, check_rag_scope,
    is_id, scope_project)
from app.records_model import SourceRecord
from app.engines.base import ConflictError, Engine
from app.entities import PROJECTS
from app.paging import Listing
from app.rag import refs
from app.rag.refs import EntityRef
from app.services import entities

ALL_LABEL = "All projects"
NONE_LABEL = "No project"
TITLE_CHARS = 80


class ConversationNotFoundError(LookupError):
    """No such conversation for this employee (unknown, or someone else's: the same answer)."""


class InvalidScopeError(ValueError):
    """A scope that is not a project id, "none" or "all", or names no existing project."""


class PinnedScopeError(ConflictError):
    """A pinned conversation asked to leave its project without being unpinned (409)."""


@dataclass(frozen=True)
class EffectiveScope:
    """What retrieval uses: the stored value, the project filter, and the human label."""

    stored: str
    project: ProjectScope
    label: str

    @property
    def value(self) -> str:
        """The scope retrieval really applied ("all" when a stored project no longer exists)."""
        return str(self.project)


def owned(engine: Engine, caller: Caller, conversation_id: int) -> Conversation:
    conversation = engine.get_conversation(conversation_id)
    if conversation is None or conversation.employee_id != caller.employee_id:
        raise ConversationNotFoundError(f"conversation {conversation_id} does not exist for employee "
                                        f"{caller.employee_id}")
    return conversation


def valid_scope(engine: Engine, value: object) -> str:
    """The stored form of a scope a client or the model wants to set; InvalidScopeError otherwise."""
    try:
        stored = check_rag_scope(value)
    except ValueError as exc:
        raise InvalidScopeError(str(exc)) from None
    if stored not in ("none", "all") and engine.get(PROJECTS, int(stored)) is None:
        raise InvalidScopeError(f"project {stored} does not exist")
    return stored


def effective(engine: Engine, stored: str) -> EffectiveScope:
    if stored == "all":
        return EffectiveScope(stored, "all", ALL_LABEL)
    if stored == "none":
        return EffectiveScope(stored, "none", NONE_LABEL)
    project_id = scope_project(stored)
    row = engine.get(PROJECTS, project_id)  # type: ignore[arg-type]
    if row is None:
        return EffectiveScope(stored, "all", f"{ALL_LABEL} (project #{project_id} no longer exists)")
    return EffectiveScope(stored, project_id, str(row["name"]))


def grounds(message: Message) -> list[EntityRef]:
    """The entities an assistant turn rested on: every one stored with it (MESSAGE_ENTITIES), and what it
    cited, what it was given and its focus (all an answer stored before V12 has)."""
    anchors = [*message.citations, *([message.facts.focus] if message.facts.focus else [])]
    given = [(t, i) for t, i, _ in message.facts.retrieved]
    return refs.unique([*message.facts.entities, *(r for r in map(refs.ref_of, anchors) if r is not None),
                        *given])  # type: ignore[misc]


def past_its_caps(message: Message) -> bool:
    """An answer stored before V12 (no entity rows) whose citations or retrieved chunks filled their caps:
    it may rest on entities nobody recorded, so it is withdrawn rather than trusted."""
    return not message.facts.entities and (len(message.citations) >= MAX_CITATIONS
                                           or len(message.facts.retrieved) >= MAX_RETRIEVED)


def withdrawn(engine: Engine, caller: Caller, messages: list[Message]) -> set[int]:
    """The assistant turns that rest on an entity the caller may no longer see (reassigned, deleted,
    their role changed): such a turn never reaches a prompt again and reads as withdrawn. Every entity
    counts, however many the answer named (issue 26 point 7)."""
    answers = [m for m in messages if m.role == "assistant"]
    wanted = refs.unique(r for m in answers for r in grounds(m))
    still = entities.visible(engine, caller, wanted) if wanted else {}
    return {m.message_id for m in answers if past_its_caps(m) or any(r not in still for r in grounds(m))}


def memory(engine: Engine, caller: Caller, history: list[Message],
           scope: str = "all") -> tuple[list[Message], SourceRecord | None]:
    """The recent turns under the access rule *now*: a question and its answer are left out when the
    answer rested on anything the caller can no longer see. And the conversation's focus (the last
    answer's that was not left out), when the caller may still see it and it lies inside the
    conversation's ``scope`` now: after a scope change (by words, the tool, PATCH, the bot's /scope) the
    next "what is blocked?" is not about a focus in the old project."""
    gone = withdrawn(engine, caller, history)
    kept: list[Message] = []
    for ix, message in enumerate(history):
        answer = message if message.role == "assistant" else (history[ix + 1] if ix + 1 < len(history) else None)
        if answer is None or answer.role != "assistant" or answer.message_id not in gone:
            kept.append(message)
    last = next((m for m in reversed(kept) if m.role == "assistant"), None)
    focus_ref = refs.ref_of(last.facts.focus) if last is not None and last.facts.focus else None
    focus = entities.lookup(engine, caller, focus_ref) if focus_ref is not None else None
    if focus is not None and not in_scope(focus, effective(engine, scope).project):
        focus = None
    return kept, focus


def in_scope(record: SourceRecord, project: ProjectScope) -> bool:
    """Whether an entity lies inside a retrieval scope: "all" holds everything, "none" what has no project."""
    if project == "all":
        return True
    owner = getattr(record, "project_id", None)
    return owner is None if project == "none" else owner == project


def title_of(message: str) -> str:
    text = " ".join(message.split())
    return text if len(text) <= TITLE_CHARS else text[:TITLE_CHARS - 1] + "…"


def create(engine: Engine, caller: Caller, rag_scope: str, pinned: bool, title: str) -> Conversation:
    """A new conversation; pinned ones must be scoped to one project (a workspace view)."""
    pinned_project = int(rag_scope) if pinned and rag_scope not in ("none", "all") else None
    if pinned and pinned_project is None:
        raise InvalidScopeError("a pinned conversation needs rag_scope to be a project id")
    return engine.create_conversation(caller.employee_id, rag_scope, pinned_project, title)


def list_for(engine: Engine, caller: Caller, limit: int, cursor: str | None = None) -> Listing[Conversation]:
    """The caller's conversations, most recently updated first, one keyset page at a time."""
    kind, filters = "conversations", {"employee_id": caller.employee_id}  # a cursor never crosses people
    after = None if cursor is None else paging.decode(cursor, kind, filters, _conversation_key)
    page = engine.list_conversations(caller.employee_id, after, limit)
    return paging.listing(page, kind, filters,
                          lambda c: [c.updated_at.isoformat(timespec="microseconds"), c.conversation_id])


def messages(engine: Engine, caller: Caller, conversation_id: int, limit: int,
             cursor: str | None = None) -> Listing[Message]:
    """One page of a conversation's messages, oldest first (404 unless it is the caller's)."""
    owned(engine, caller, conversation_id)
    kind, filters = "messages", {"conversation_id": conversation_id}
    after = None if cursor is None else paging.decode(cursor, kind, filters, _positive)
    page = engine.list_messages(conversation_id, after, limit)
    return paging.listing(page, kind, filters, lambda m: m.message_id)


def _conversation_key(key: object) -> tuple[dt.datetime, int]:
    """A conversations cursor's key: the last one's update time and id."""
    stamp, conversation_id = key  # type: ignore[misc]
    return dt.datetime.fromisoformat(stamp), _positive(conversation_id)


def _positive(value: object) -> int:
    if not is_id(value):
        raise ValueError(f"not a positive id: {value!r}")
    return value


def set_scope(engine: Engine, caller: Caller, conversation_id: int, value: object,
              pinned: bool | None = None) -> Conversation:
    """The client's PATCH. ``pinned``: None keeps the pin (a pinned conversation may then only keep its
    project: anything else is a PinnedScopeError, so it never reports a pin its scope contradicts),
    False unpins, True pins to the project the scope names."""
    owned(engine, caller, conversation_id)
    stored = valid_scope(engine, value)
    if pinned is None:
        updated = engine.set_conversation_scope(conversation_id, stored)
    else:
        if pinned and stored in ("none", "all"):
            raise InvalidScopeError("a pinned conversation needs rag_scope to be a project id")
        updated = engine.set_conversation_pin(conversation_id, stored, int(stored) if pinned else None)
    if updated is None:  # deleted in between, or pinned in between (the write checks the pin itself)
        now = engine.get_conversation(conversation_id)
        if now is None:
            raise ConversationNotFoundError(f"conversation {conversation_id} does not exist")
        raise PinnedScopeError(f"conversation {conversation_id} is pinned to project {now.pinned_project_id}: "
                               "send \"pinned\": false with the new rag_scope to unpin it")
    return updated


def delete(engine: Engine, caller: Caller, conversation_id: int) -> None:
    owned(engine, caller, conversation_id)
    if not engine.delete_conversation(conversation_id):
        raise ConversationNotFoundError(f"conversation {conversation_id} does not exist")
