"""Grounded chat for the bot: retrieve, then answer with citations."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool

from app.api.deps import EngineDep, GrantDep, SettingsDep, caller_for
from app.api.schemas import ChatRequest, ChatResponse, error_response
from app.services.chat import chat

router = APIRouter(tags=["chat"])


@router.post(
    "/chat",
    response_model=ChatResponse,
    responses={404: error_response("unknown employee"),
               503: error_response("too many chats in progress (see Retry-After), or the database is unavailable")},
)
async def chat_message(body: ChatRequest, request: Request, engine: EngineDep, settings: SettingsDep,
                       grant: GrantDep) -> ChatResponse:
    """Answer from what the caller may see, citing [TASK #id]-style anchors.

    Async on purpose: waiting for the LLM holds no worker thread, and at most
    RAG_CHAT_MAX_CONCURRENCY chats run at once (one more is answered 503 with Retry-After).
    """
    with request.app.state.chat_slots.take():
        caller = await run_in_threadpool(caller_for, engine, grant, body.employee_id, body.telegram_id)
        answer = await chat(engine, settings, body.message, caller, request.app.state.llm_client,
                            body.top_k, body.conversation_id)
    return ChatResponse(
        answer=answer.answer,
        citations=answer.citations,
        results=[vars(hit) for hit in answer.search.result.hits],
        llm_used=answer.llm_used,
        llm_error=answer.llm_error,
        conversation_id=answer.conversation_id,
        caller={"employee_id": caller.employee_id, "role": caller.role},
    )
