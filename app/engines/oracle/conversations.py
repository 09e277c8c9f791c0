"""Conversations and messages, and what the model's tools read (find_tasks, project matching,
employees by Telegram id), on the Oracle engine. Functions take an open cursor; the engine owns
connections and commits (append_turn's two inserts and the UPDATED_AT bump commit together).
All SQL text is in conversation_statements.py; every value is a named bind."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

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
from app.engines.oracle import conversation_statements as sql
from app.engines.oracle import tracker
from app.engines.oracle.records import clob_input_sizes, returned_id


def create_conversation(cur: Any, employee_id: int, rag_scope: str, pinned_project_id: int | None,
                        title: str | None) -> int:
    """INSERT … RETURNING the new id (the caller commits, then reads it back)."""
    new_id = cur.var(int)
    cur.execute(sql.INSERT_CONVERSATION, {
        "employee_id": int(employee_id), "title": title, "rag_scope": check_rag_scope(rag_scope),
        "pinned_project_id": None if pinned_project_id is None else int(pinned_project_id), "new_id": new_id})
    return returned_id(new_id)


def get_conversation(cur: Any, conversation_id: int) -> Conversation | None:
    cur.execute(sql.GET_CONVERSATION, conversation_id=int(conversation_id))
    row = cur.fetchone()
    return _conversation(row) if row else None


def list_conversations(cur: Any, employee_id: int, after: ConversationKey | None,
                       limit: int) -> Page[Conversation]:
    """The page (one row more than ``limit`` is read, to know whether another page follows), then the total."""
    if after is None:
        cur.execute(sql.LIST_CONVERSATIONS, employee_id=int(employee_id), max_rows=limit + 1)
    else:
        import oracledb  # deferred, as in engine.py: importing this package must not need the driver

        # A datetime binds as DATE and would lose its fractional seconds (FACTS.md §12.2): say TIMESTAMP.
        cur.setinputsizes(after_updated=oracledb.DB_TYPE_TIMESTAMP)
        cur.execute(sql.LIST_CONVERSATIONS_AFTER, employee_id=int(employee_id),
                    after_updated=after[0].replace(tzinfo=None), after_id=int(after[1]), max_rows=limit + 1)
    rows = cur.fetchall()
    cur.execute(sql.COUNT_CONVERSATIONS, employee_id=int(employee_id))
    total = int(cur.fetchone()[0])
    return Page([_conversation(r) for r in rows[:limit]], total, len(rows) > limit)


def set_conversation_scope(cur: Any, conversation_id: int, rag_scope: str) -> int:
    """UPDATE; the number of rows changed (the caller commits, then reads it back): 0 for no such
    conversation, or one pinned to another project than the scope names."""
    stored = check_rag_scope(rag_scope)
    cur.execute(sql.SET_CONVERSATION_SCOPE, rag_scope=stored, conversation_id=int(conversation_id),
                scope_project_id=scope_project_id(stored))
    return cur.rowcount


def set_conversation_pin(cur: Any, conversation_id: int, rag_scope: str, pinned_project_id: int | None) -> int:
    """UPDATE of the scope and the pin; the number of rows changed (the caller commits, then reads it back)."""
    cur.execute(sql.SET_CONVERSATION_PIN, rag_scope=check_rag_scope(rag_scope), pinned_project_id=pinned_project_id,
                conversation_id=int(conversation_id))
    return cur.rowcount


def delete_conversation(cur: Any, conversation_id: int) -> bool:
    cur.execute(sql.DELETE_CONVERSATION, conversation_id=int(conversation_id))
    return cur.rowcount > 0


def append_turn(cur: Any, conversation_id: int, user_text: str, assistant_text: str,
                citations: Sequence[str], facts: TurnFacts) -> tuple[int, int]:
    """Both inserts and the bump, uncommitted: the engine commits them together or rolls back."""
    cited = citations_json(citations)
    cur.execute(sql.TOUCH_CONVERSATION, conversation_id=int(conversation_id))
    if cur.rowcount == 0:  # also locks the conversation row until the commit
        raise ConflictError(f"conversation {conversation_id} does not exist")
    user_id = insert_message(cur, message_binds(conversation_id, "user", user_text, "[]", TurnFacts()))
    answer_id = insert_message(cur, message_binds(conversation_id, "assistant", assistant_text, cited, facts))
    if facts.entities:  # executemany([]) fails on some driver versions (FACTS.md §11.7)
        cur.executemany(sql.INSERT_MESSAGE_ENTITY, [{"message_id": answer_id, "source_type": t, "source_id": i}
                                                    for t, i in facts.entities])
    return user_id, answer_id


def message_binds(conversation_id: int, role: str, content: str | None, citations: str,
                  facts: TurnFacts) -> dict[str, Any]:
    """INSERT_MESSAGE's values (``citations``: the stored JSON array)."""
    return {"conversation_id": int(conversation_id), "message_role": role, "citations": citations,
            "focus": facts.focus, "retrieved": facts.retrieved_json(), "used_scope": facts.rag_scope,
            "llm_error": facts.llm_error, "tracker_query": facts.query, "content": content}


def insert_message(cur: Any, binds: dict[str, Any]) -> int:
    """One MESSAGES row, uncommitted; its new id. CONTENT, a CLOB, is bound as a temporary CLOB when long, and it is
    the last bind of the statement: CITATIONS and RETRIEVED can be declared past 4,000 bytes (thin: 4 bytes per
    byte), and such a bind after a LOB is ORA-24816 (REVIEW-3 U1)."""
    new_id = cur.var(int)
    binds = {**binds, "new_id": new_id}
    if sizes := clob_input_sizes(binds, ("content",)):
        cur.setinputsizes(**sizes)
    cur.execute(sql.INSERT_MESSAGE, binds)
    return returned_id(new_id)


def turn(cur: Any, user_id: int, answer_id: int, entities: tuple = ()) -> tuple[Message, Message]:
    """The turn just committed; ``entities`` are the answer's, as append_turn wrote them."""
    cur.execute(sql.GET_TURN, user_id=user_id, answer_id=answer_id)
    user, answer = (_message(r) for r in cur.fetchall())
    return user, replace(answer, facts=replace(answer.facts, entities=entities))


def list_messages(cur: Any, conversation_id: int, after: int | None, limit: int) -> Page[Message]:
    cur.execute(sql.LIST_MESSAGES, conversation_id=int(conversation_id), after_id=int(after or 0),
                max_rows=limit + 1)
    rows = cur.fetchall()
    cur.execute(sql.COUNT_MESSAGES, conversation_id=int(conversation_id))
    total = int(cur.fetchone()[0])
    return Page(_with_entities(cur, conversation_id, [_message(r) for r in rows[:limit]]), total, len(rows) > limit)


def recent_messages(cur: Any, conversation_id: int, n: int) -> list[Message]:
    cur.execute(sql.RECENT_MESSAGES, conversation_id=int(conversation_id), max_rows=max(0, int(n)))
    return _with_entities(cur, conversation_id, [_message(r) for r in reversed(cur.fetchall())])


def _with_entities(cur: Any, conversation_id: int, messages: list[Message]) -> list[Message]:
    """The messages with every entity their answers rest on (V17), in one range read."""
    span = answer_range(messages)
    if span is None:
        return messages
    cur.execute(sql.MESSAGE_ENTITIES_BETWEEN, conversation_id=int(conversation_id), first_id=span[0],
                last_id=span[1])
    return with_entities(messages, cur.fetchall())


# --- what the model's tools read ----------------------------------------------------------------

def find_tasks(cur: Any, caller: Caller, query: TaskQuery) -> list[dict[str, Any]]:
    """The typed query's list by TASK_ID (app/engines/oracle/tracker.py): one builder for both tools."""
    return tracker.find_tasks(cur, caller, query)


def projects_for_matching(cur: Any) -> list[ProjectCard]:
    cur.execute(sql.PROJECTS_FOR_MATCHING)
    return [ProjectCard(int(pid), name, description, summary) for pid, name, description, summary in cur.fetchall()]




def project_summary(cur: Any, project_id: int) -> tuple[str | None, dt.datetime | None] | None:
    cur.execute(sql.PROJECT_SUMMARY, project_id=int(project_id))
    row = cur.fetchone()
    return None if row is None else (row[0], row[1])


def vocabulary(cur: Any) -> Vocabulary:
    cur.execute(sql.VOCABULARY_PEOPLE)
    people = tuple(Person(int(eid), first, last) for eid, first, last in cur.fetchall())
    cur.execute(sql.VOCABULARY_PROJECTS)
    projects = tuple(Named(int(pid), name or "") for pid, name in cur.fetchall())
    cur.execute(sql.VOCABULARY_SPRINTS)
    sprints = tuple(Named(int(sid), name or "", None if pid is None else int(pid)) for sid, name, pid in cur.fetchall())
    return Vocabulary(people, projects, sprints)


# --- rows -------------------------------------------------------------------------------------

def _conversation(row: Sequence[Any]) -> Conversation:
    cid, employee_id, title, rag_scope, pinned, created, updated = row
    return Conversation(int(cid), int(employee_id), title, rag_scope, None if pinned is None else int(pinned),
                        created, updated)


def _message(row: Sequence[Any]) -> Message:
    mid, cid, role, content, citations, created, focus, retrieved, rag_scope, llm_error, query = row
    return Message(int(mid), int(cid), role, content, tuple(json.loads(citations or "[]")), created,
                   TurnFacts(focus, retrieved_of(retrieved), rag_scope, llm_error, query=query))
