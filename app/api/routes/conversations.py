"""A bot's view of its users' conversations: list, read (with messages), change the scope, delete.

Every call names the employee (employee_id or telegram_id, exactly one) and the token must be allowed
to act for them; a conversation of anyone else is a 404, whatever the token.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path, Query, Response, status
from fastapi.concurrency import run_in_threadpool

from app.api.chat_schemas import WITHDRAWN_TEXT, ConversationDetail, ConversationPublic, MessagePublic, ScopePatch
from app.api.deps import EngineDep, WhoDep, only_query
from app.api.schemas import EXACTLY_ONE_ASKER, PROJECT_EXISTS, beyond_schema, error_response
from app.api.types import JSON_MAX_ID
from app.domain import Conversation
from app.engines.base import Engine
from app.services import conversations

router = APIRouter(prefix="/conversations", tags=["conversations"])
MAX_PAGE = 200
NOT_FOUND = {404: error_response("unknown employee or Telegram id, or no such conversation for this employee")}
BAD_INPUT: dict = {}  # 422 (FastAPI's validation-error shape): not exactly one of employee_id / telegram_id,
# an unknown query parameter, or an invalid rag_scope
ConversationId = Annotated[int, Path(gt=0, le=JSON_MAX_ID, description="the conversation's id")]
Limit = Annotated[int, Query(ge=1, le=MAX_PAGE, description="page size")]
Offset = Annotated[int, Query(ge=0, le=JSON_MAX_ID, description="rows to skip")]


def public(engine: Engine, conv: Conversation) -> dict:
    scope = conversations.effective(engine, conv.rag_scope)
    return {"conversation_id": conv.conversation_id, "title": conv.title, "rag_scope": conv.rag_scope,
            "rag_scope_label": scope.label, "pinned_project_id": conv.pinned_project_id,
            "created_at": conv.created_at, "updated_at": conv.updated_at}


@router.get("", response_model=list[ConversationPublic], responses={**NOT_FOUND, **BAD_INPUT},
            dependencies=[Depends(only_query("employee_id", "telegram_id", "limit", "offset"))],
            openapi_extra=beyond_schema(EXACTLY_ONE_ASKER))
def list_conversations(caller: WhoDep, engine: EngineDep, limit: Limit = 50, offset: Offset = 0):
    """The employee's conversations, most recently updated first."""
    return [public(engine, c) for c in conversations.list_for(engine, caller, limit, offset)]


@router.get("/{conversation_id}", response_model=ConversationDetail, responses={**NOT_FOUND, **BAD_INPUT},
            dependencies=[Depends(only_query("employee_id", "telegram_id", "limit", "offset"))],
            openapi_extra=beyond_schema(EXACTLY_ONE_ASKER))
def read_conversation(conversation_id: ConversationId, caller: WhoDep, engine: EngineDep,
                      limit: Limit = 50, offset: Offset = 0):
    """One conversation with a page of its messages, oldest first. An answer that rested on something the
    employee may no longer see is marked withdrawn and its text is not shown (the access rule holds for
    the history as for search; the employee's own questions are shown as they wrote them)."""
    conv, messages = conversations.messages(engine, caller, conversation_id, limit, offset)
    gone = conversations.withdrawn(engine, caller, messages)
    rows = [MessagePublic(message_id=m.message_id, role=m.role, created_at=m.created_at,
                          content=WITHDRAWN_TEXT if m.message_id in gone else m.content,
                          citations=[] if m.message_id in gone else list(m.citations),
                          withdrawn=m.message_id in gone, focus=None if m.message_id in gone else m.facts.focus,
                          retrieved=[] if m.message_id in gone else [list(r) for r in m.facts.retrieved],
                          rag_scope=m.facts.rag_scope, llm_error=m.facts.llm_error) for m in messages]
    return {**public(engine, conv), "messages": rows}


@router.patch("/{conversation_id}", response_model=ConversationPublic, responses={
    **NOT_FOUND, **BAD_INPUT, 409: error_response("the conversation is pinned to another project: send "
                                                  "\"pinned\": false to unpin it with the new scope")},
              openapi_extra=beyond_schema(EXACTLY_ONE_ASKER, PROJECT_EXISTS))
def patch_conversation(conversation_id: ConversationId, body: ScopePatch, caller: WhoDep, engine: EngineDep):
    """Change the retrieval scope, and pin or unpin (the model's set_rag_scope never changes a pinned one)."""
    return public(engine, conversations.set_scope(engine, caller, conversation_id, body.rag_scope, body.pinned))


@router.delete("/{conversation_id}", status_code=status.HTTP_204_NO_CONTENT, responses={**NOT_FOUND, **BAD_INPUT},
               openapi_extra=beyond_schema(EXACTLY_ONE_ASKER))
async def delete_conversation(conversation_id: ConversationId, caller: WhoDep, engine: EngineDep) -> Response:
    """Delete it with its messages."""
    await run_in_threadpool(conversations.delete, engine, caller, conversation_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)
