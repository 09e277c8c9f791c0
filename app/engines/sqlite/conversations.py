"""Conversations and messages, and what the model's tools read (find_tasks, project matching,
employees by Telegram id), on the SQLite engine. Functions take an open connection; the engine owns
transactions (append_turn's two inserts and the UPDATED_AT bump run in one BEGIN IMMEDIATE).
All SQL text is in statements.py; every value is bound."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import apsw

from app.domain import (
    Caller,
    Conversation,
    ConversationKey,
    Message,
    Page,
    Named,
    Person,
    ProjectCard,
    TaskQuery,
    TurnFacts,
    Vocabulary,
    answer_range,
    check_rag_scope,
    citations_json,
    retrieved_of,
    scope_project_id,
    with_entities,
)
from app.engines.base import ConflictError
from app.engines.sqlite import statements as sql
from app.engines.sqlite import tracker


def create_conversation(conn: apsw.Connection, employee_id: int, rag_scope: str, pinned_project_id: int | None,
                        title: str | None) -> Conversation:
    row = conn.execute(sql.INSERT_CONVERSATION,
                       (employee_id, title, check_rag_scope(rag_scope), pinned_project_id)).fetchone()
    return _conversation(row)


def get_conversation(conn: apsw.Connection, conversation_id: int) -> Conversation | None:
    row = conn.execute(sql.GET_CONVERSATION, (conversation_id,)).fetchone()
    return _conversation(row) if row else None


def list_conversations(conn: apsw.Connection, employee_id: int, after: ConversationKey | None,
                       limit: int) -> Page[Conversation]:
    """Run inside one read transaction (the engine's), so the total and the page agree."""
    if after is None:
        rows = conn.execute(sql.LIST_CONVERSATIONS, (employee_id, limit + 1)).fetchall()
    else:
        stamp = _stamp(after[0])  # stored as text: compare in the stored format
        rows = conn.execute(sql.LIST_CONVERSATIONS_AFTER, (employee_id, stamp, stamp, after[1], limit + 1)).fetchall()
    total = conn.execute(sql.COUNT_CONVERSATIONS, (employee_id,)).fetchone()[0]
    return Page([_conversation(r) for r in rows[:limit]], total, len(rows) > limit)


def set_conversation_scope(conn: apsw.Connection, conversation_id: int, rag_scope: str) -> Conversation | None:
    """None: no such conversation, or one pinned to another project than the scope names."""
    stored = check_rag_scope(rag_scope)
    row = conn.execute(sql.SET_CONVERSATION_SCOPE, (stored, conversation_id, scope_project_id(stored))).fetchone()
    return _conversation(row) if row else None


def set_conversation_pin(conn: apsw.Connection, conversation_id: int, rag_scope: str,
                         pinned_project_id: int | None) -> Conversation | None:
    row = conn.execute(sql.SET_CONVERSATION_PIN, (check_rag_scope(rag_scope), pinned_project_id,
                                                  conversation_id)).fetchone()
    return _conversation(row) if row else None


def delete_conversation(conn: apsw.Connection, conversation_id: int) -> bool:
    conn.execute(sql.DELETE_CONVERSATION, (conversation_id,))
    return conn.changes() > 0


def append_turn(conn: apsw.Connection, conversation_id: int, user_text: str, assistant_text: str,
                citations: Sequence[str], facts: TurnFacts) -> tuple[Message, Message]:
    """Both inserts and the bump, inside the engine's write transaction: an error rolls back all three."""
    if conn.execute(sql.GET_CONVERSATION, (conversation_id,)).fetchone() is None:
        raise ConflictError(f"conversation {conversation_id} does not exist")
    user = conn.execute(sql.INSERT_MESSAGE, (conversation_id, "user", user_text, "[]", None, None, None, None,
                                             None)).fetchone()
    answer = conn.execute(sql.INSERT_MESSAGE, (conversation_id, "assistant", assistant_text, citations_json(citations),
                                               facts.focus, facts.retrieved_json(), facts.rag_scope,
                                               facts.llm_error, facts.query)).fetchone()
    conn.executemany(sql.INSERT_MESSAGE_ENTITY, [(answer[0], t, i) for t, i in facts.entities])
    conn.execute(sql.TOUCH_CONVERSATION, (conversation_id,))
    answer_message = _message(answer)
    return _message(user), replace(answer_message, facts=replace(answer_message.facts, entities=facts.entities))


def list_messages(conn: apsw.Connection, conversation_id: int, after: int | None, limit: int) -> Page[Message]:
    """Run inside one read transaction (the engine's), so the total and the page agree."""
    rows = conn.execute(sql.LIST_MESSAGES, (conversation_id, after or 0, limit + 1)).fetchall()
    total = conn.execute(sql.COUNT_MESSAGES, (conversation_id,)).fetchone()[0]
    return Page(_with_entities(conn, conversation_id, [_message(r) for r in rows[:limit]]), total, len(rows) > limit)


def recent_messages(conn: apsw.Connection, conversation_id: int, n: int) -> list[Message]:
    rows = conn.execute(sql.RECENT_MESSAGES, (conversation_id, max(0, int(n)))).fetchall()
    return _with_entities(conn, conversation_id, [_message(r) for r in reversed(rows)])


def _with_entities(conn: apsw.Connection, conversation_id: int, messages: list[Message]) -> list[Message]:
    """The messages with every entity their answers rest on (V12), in one range read."""
    span = answer_range(messages)
    if span is None:
        return messages
    return with_entities(messages, conn.execute(sql.MESSAGE_ENTITIES_BETWEEN, (conversation_id, *span)))


# --- what the model's tools read ----------------------------------------------------------------

def find_tasks(conn: apsw.Connection, caller: Caller, query: TaskQuery) -> list[dict[str, Any]]:
    """The typed query's list by TASK_ID (app/engines/sqlite/tracker.py): one builder for both tools."""
    return tracker.find_tasks(conn, caller, query)


def projects_for_matching(conn: apsw.Connection) -> list[ProjectCard]:
    return [ProjectCard(*row) for row in conn.execute(sql.PROJECTS_FOR_MATCHING)]




def project_summary(conn: apsw.Connection, project_id: int) -> tuple[str | None, dt.datetime | None] | None:
    row = conn.execute(sql.PROJECT_SUMMARY, (project_id,)).fetchone()
    return None if row is None else (row[0], _timestamp(row[1]) if row[1] else None)


def vocabulary(conn: apsw.Connection) -> Vocabulary:
    return Vocabulary(
        tuple(Person(*row) for row in conn.execute(sql.VOCABULARY_PEOPLE)),
        tuple(Named(pid, name or "") for pid, name in conn.execute(sql.VOCABULARY_PROJECTS)),
        tuple(Named(sid, name or "", pid) for sid, name, pid in conn.execute(sql.VOCABULARY_SPRINTS)))


# --- rows -------------------------------------------------------------------------------------

def _timestamp(value: str) -> dt.datetime:
    return dt.datetime.fromisoformat(value)


def _stamp(value: dt.datetime) -> str:
    """A timestamp as the schema stores it (strftime('%Y-%m-%dT%H:%M:%f'): milliseconds, no zone)."""
    return value.replace(tzinfo=None).isoformat(timespec="milliseconds")



def _conversation(row: Sequence[Any]) -> Conversation:
    cid, employee_id, title, rag_scope, pinned, created, updated = row
    return Conversation(cid, employee_id, title, rag_scope, pinned, _timestamp(created), _timestamp(updated))


def _message(row: Sequence[Any]) -> Message:
    mid, cid, role, content, citations, created, focus, retrieved, rag_scope, llm_error, query = row
    return Message(mid, cid, role, content, tuple(json.loads(citations or "[]")), _timestamp(created),
                   TurnFacts(focus, retrieved_of(retrieved), rag_scope, llm_error, query=query))
