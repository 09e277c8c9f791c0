"""The Oracle engine's conversation methods (app/engines/oracle/conversations.py holds the work). ``OracleEngine``
(engine.py) inherits ``ConversationMethods``; each call takes its own pooled connection and commits its writes.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.domain import Conversation, ConversationKey, Message, Page, TurnFacts
from app.engines.base import ConflictError, EngineError
from app.engines.oracle import conversations
from app.engines.oracle.errors import conflicts
from app.engines.oracle.pooling import PooledConnections
from app.entities import CONVERSATIONS, MESSAGES


class ConversationMethods(PooledConnections):
    """Conversations and their messages: create, read, page, re-scope, pin, delete, and a turn written whole."""

    def create_conversation(self, employee_id: int, rag_scope: str, pinned_project_id: int | None,
                            title: str | None) -> Conversation:
        with self._connection() as conn, conn.cursor() as cur:
            with conflicts(CONVERSATIONS):
                new_id = conversations.create_conversation(cur, employee_id, rag_scope, pinned_project_id, title)
            conn.commit()
            created = conversations.get_conversation(cur, new_id)
            if created is None:
                raise EngineError(f"conversation {new_id} vanished right after it was created")
            return created

    def get_conversation(self, conversation_id: int) -> Conversation | None:
        with self._connection() as conn, conn.cursor() as cur:
            return conversations.get_conversation(cur, conversation_id)

    def list_conversations(self, employee_id: int, after: ConversationKey | None,
                           limit: int) -> Page[Conversation]:
        with self._connection() as conn, conn.cursor() as cur:
            return conversations.list_conversations(cur, employee_id, after, limit)

    def set_conversation_scope(self, conversation_id: int, rag_scope: str) -> Conversation | None:
        with self._connection() as conn, conn.cursor() as cur:
            changed = conversations.set_conversation_scope(cur, conversation_id, rag_scope)
            conn.commit()
            return conversations.get_conversation(cur, conversation_id) if changed else None

    def set_conversation_pin(self, conversation_id: int, rag_scope: str,
                             pinned_project_id: int | None) -> Conversation | None:
        with self._connection() as conn, conn.cursor() as cur:
            with conflicts(CONVERSATIONS):
                changed = conversations.set_conversation_pin(cur, conversation_id, rag_scope, pinned_project_id)
            conn.commit()
            return conversations.get_conversation(cur, conversation_id) if changed else None

    def delete_conversation(self, conversation_id: int) -> bool:
        with self._connection() as conn, conn.cursor() as cur:
            deleted = conversations.delete_conversation(cur, conversation_id)
            conn.commit()
            return deleted

    def append_turn(self, conversation_id: int, user_text: str, assistant_text: str,
                    citations: Sequence[str], rag_scope: str | None = None,
                    facts: TurnFacts = TurnFacts()) -> tuple[Message, Message]:
        with self._connection() as conn, conn.cursor() as cur:
            with conflicts(MESSAGES):
                user_id, answer_id = conversations.append_turn(cur, conversation_id, user_text, assistant_text,
                                                               citations, facts)
                if rag_scope is not None and not conversations.set_conversation_scope(cur, conversation_id, rag_scope):
                    raise ConflictError(f"conversation {conversation_id} was pinned to a project while the answer "
                                        "was being written: its scope was not changed and nothing was stored")
            conn.commit()  # both rows, the bump and the scope, or (any exception above: rollback) none
            return conversations.turn(cur, user_id, answer_id, facts.entities)

    def list_messages(self, conversation_id: int, after: int | None, limit: int) -> Page[Message]:
        with self._connection() as conn, conn.cursor() as cur:
            return conversations.list_messages(cur, conversation_id, after, limit)

    def recent_messages(self, conversation_id: int, n: int) -> list[Message]:
        with self._connection() as conn, conn.cursor() as cur:
            return conversations.recent_messages(cur, conversation_id, n)
