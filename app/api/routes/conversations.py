"""A client's view of its users' conversations: list, read one, its messages, change the scope, delete.

Every call says who asks (employee_id or telegram_id, with an admin or bot token allowed to act for
them; nothing with a token bound to one employee); a conversation of anyone else is a 404, whatever
the token. Lists answer the one envelope of app/api/listing.py.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Response, status
from fastapi.concurrency import run_in_threadpool
from pydantic import Field

from app.api.chat_schemas import WITHDRAWN_TEXT, ConversationPublic, MessagePublic, ScopePatch
from app.api.deps import EngineDep, GrantDep
from app.api.listing import ListQuery, QueryId, envelope, page_model, query_model
from app.api.schemas import ASKER_BY_TOKEN, CURSOR_ISSUED, PROJECT_EXISTS, WHO_ASKS, beyond_schema, error_response
from app.api.types import JSON_MAX_ID, TELEGRAM_PATTERN
from app.domain import Caller, Conversation, Message
from app.engines.base import Engine
from app.services import conversations
from app.services.askers import resolve_asker

router = APIRouter(prefix="/conversations", tags=["conversations"])
MAX_PAGE = 200
DEFAULT_PAGE = 50
NOT_FOUND = {404: error_response("unknown employee or Telegram id, or no such conversation for this employee")}
ConversationId = Annotated[int, Path(gt=0, le=JSON_MAX_ID, description="the conversation's id")]
_WHO = {
    "employee_id": (QueryId | None, Field(None, description="the conversation owner's EMPLOYEES.EMPLOYEE_ID ("
                                                            + WHO_ASKS + ")")),
    "telegram_id": (Annotated[str, Field(max_length=64, pattern=TELEGRAM_PATTERN)] | None,
                    Field(None, description="or their EMPLOYEES.TELEGRAM_ID")),
}


class WhoQuery(ListQuery):
    """Who asks, and nothing else (an unknown parameter is a 422)."""

    employee_id: QueryId | None = _WHO["employee_id"][1]
    telegram_id: _WHO["telegram_id"][0] = _WHO["telegram_id"][1]  # type: ignore[valid-type]


ConversationListQuery = query_model("ConversationListQuery", MAX_PAGE, DEFAULT_PAGE, dict(_WHO))
MessageListQuery = query_model("MessageListQuery", MAX_PAGE, DEFAULT_PAGE, dict(_WHO))
ConversationPage = page_model(ConversationPublic, "ConversationPage")
MessagePage = page_model(MessagePublic, "MessagePage")


def _asker(engine: Engine, grant: Any, params: Any) -> Caller:
    return resolve_asker(engine, grant, params.employee_id, params.telegram_id)


def who(engine: EngineDep, grant: GrantDep, params: Annotated[WhoQuery, Query()]) -> Caller:
    return _asker(engine, grant, params)


WhoDep = Annotated[Caller, Depends(who)]


def public(engine: Engine, conv: Conversation) -> dict:
    scope = conversations.effective(engine, conv.rag_scope)
    return {"conversation_id": conv.conversation_id, "title": conv.title, "rag_scope": conv.rag_scope,
            "rag_scope_label": scope.label, "pinned_project_id": conv.pinned_project_id,
            "created_at": conv.created_at, "updated_at": conv.updated_at}


def message_public(m: Message, withdrawn: bool) -> MessagePublic:
    """A stored message; an answer that rested on something the employee may no longer see is marked
    withdrawn and its text is not shown (the access rule holds for the history as for search; the
    employee's own questions are shown as they wrote them)."""
    return MessagePublic(message_id=m.message_id, role=m.role, created_at=m.created_at,
                         content=WITHDRAWN_TEXT if withdrawn else m.content,
                         citations=[] if withdrawn else list(m.citations), withdrawn=withdrawn,
                         focus=None if withdrawn else m.facts.focus,
                         retrieved=[] if withdrawn else [list(r) for r in m.facts.retrieved],
                         rag_scope=m.facts.rag_scope, llm_error=m.facts.llm_error)


@router.get("", response_model=ConversationPage, responses=NOT_FOUND,
            openapi_extra=beyond_schema(ASKER_BY_TOKEN, CURSOR_ISSUED))
def list_conversations(engine: EngineDep, grant: GrantDep,
                       params: Annotated[ConversationListQuery, Query()]):  # type: ignore[valid-type]
    """The asker's conversations, most recently updated first."""
    caller = _asker(engine, grant, params)
    listing = conversations.list_for(engine, caller, params.limit, params.cursor)  # type: ignore[attr-defined]
    return envelope(listing, lambda c: public(engine, c))


@router.get("/{conversation_id}", response_model=ConversationPublic, responses=NOT_FOUND,
            openapi_extra=beyond_schema(ASKER_BY_TOKEN))
def read_conversation(conversation_id: ConversationId, caller: WhoDep, engine: EngineDep):
    """One conversation (its messages: GET /conversations/{id}/messages)."""
    return public(engine, conversations.owned(engine, caller, conversation_id))


@router.get("/{conversation_id}/messages", response_model=MessagePage, responses=NOT_FOUND,
            openapi_extra=beyond_schema(ASKER_BY_TOKEN, CURSOR_ISSUED))
def list_messages(conversation_id: ConversationId, engine: EngineDep, grant: GrantDep,
                  params: Annotated[MessageListQuery, Query()]):  # type: ignore[valid-type]
    """A conversation's messages, oldest first. An answer that rested on something the employee may no
    longer see is marked withdrawn, and its text is not shown."""
    caller = _asker(engine, grant, params)
    listing = conversations.messages(engine, caller, conversation_id, params.limit,  # type: ignore[attr-defined]
                                     params.cursor)  # type: ignore[attr-defined]
    gone = conversations.withdrawn(engine, caller, listing.items)
    return envelope(listing, lambda m: message_public(m, m.message_id in gone))


@router.patch("/{conversation_id}", response_model=ConversationPublic, responses={
    **NOT_FOUND, 409: error_response("the conversation is pinned to another project: send \"pinned\": false to "
                                     "unpin it with the new scope")},
              openapi_extra=beyond_schema(ASKER_BY_TOKEN, PROJECT_EXISTS))
def patch_conversation(conversation_id: ConversationId, body: ScopePatch, caller: WhoDep, engine: EngineDep):
    """Change the retrieval scope, and pin or unpin (the model's set_rag_scope never changes a pinned one)."""
    return public(engine, conversations.set_scope(engine, caller, conversation_id, body.rag_scope, body.pinned))


@router.delete("/{conversation_id}", status_code=status.HTTP_204_NO_CONTENT, responses=NOT_FOUND,
               openapi_extra=beyond_schema(ASKER_BY_TOKEN))
async def delete_conversation(conversation_id: ConversationId, caller: WhoDep, engine: EngineDep) -> Response:
    """Delete it with its messages."""
    await run_in_threadpool(conversations.delete, engine, caller, conversation_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)
