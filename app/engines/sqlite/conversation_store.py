"""The Engine protocol's conversation methods on SQLite (a base of SQLiteEngine, so the facade stays within its
size): each runs one function of app/engines/sqlite/conversations.py in the engine's transaction."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager

import apsw

from app.domain import Conversation, ConversationKey, Message, Page, TurnFacts
from app.engines.base import ConflictError
from app.engines.sqlite import conversations, errors
from app.entities import CONVERSATIONS, MESSAGES


class ConversationStore:
    conn: apsw.Connection
    _write: Callable[[], AbstractContextManager[apsw.Connection]]  # SQLiteEngine's transactions
    _read: Callable[[], AbstractContextManager[apsw.Connection]]

    def create_conversation(self, employee_id: int, rag_scope: str, pinned_project_id: int | None,
                            title: str | None) -> Conversation:
        with errors.conflicts(CONVERSATIONS), self._write() as conn:
            return conversations.create_conversation(conn, employee_id, rag_scope, pinned_project_id, title)

    def get_conversation(self, conversation_id: int) -> Conversation | None:
        return conversations.get_conversation(self.conn, conversation_id)

    def list_conversations(self, employee_id: int, after: ConversationKey | None,
                           limit: int) -> Page[Conversation]:
        with self._read() as conn:
            return conversations.list_conversations(conn, employee_id, after, limit)

    def set_conversation_scope(self, conversation_id: int, rag_scope: str) -> Conversation | None:
        with errors.conflicts(CONVERSATIONS), self._write() as conn:
            return conversations.set_conversation_scope(conn, conversation_id, rag_scope)

    def set_conversation_pin(self, conversation_id: int, rag_scope: str,
                             pinned_project_id: int | None) -> Conversation | None:
        with errors.conflicts(CONVERSATIONS), self._write() as conn:
            return conversations.set_conversation_pin(conn, conversation_id, rag_scope, pinned_project_id)

    def delete_conversation(self, conversation_id: int) -> bool:
        with self._write() as conn:
            return conversations.delete_conversation(conn, conversation_id)

    def append_turn(self, conversation_id: int, user_text: str, assistant_text: str,
                    citations: Sequence[str], rag_scope: str | None = None,
                    facts: TurnFacts = TurnFacts()) -> tuple[Message, Message]:
        with errors.conflicts(MESSAGES), self._write() as conn:
            turn = conversations.append_turn(conn, conversation_id, user_text, assistant_text, citations, facts)
            if rag_scope is not None and conversations.set_conversation_scope(conn, conversation_id, rag_scope) is None:
                raise ConflictError(f"conversation {conversation_id} was pinned to a project while the answer was "
                                    "being written: its scope was not changed and nothing was stored")
            return turn

    def list_messages(self, conversation_id: int, after: int | None, limit: int) -> Page[Message]:
        with self._read() as conn:
            return conversations.list_messages(conn, conversation_id, after, limit)

    def recent_messages(self, conversation_id: int, n: int) -> list[Message]:
        return conversations.recent_messages(self.conn, conversation_id, n)
