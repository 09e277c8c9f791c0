"""Grounded chat for the bot: retrieve, then answer with citations."""

from __future__ import annotations

from fastapi import APIRouter

from app.api.deps import EngineDep, SettingsDep
from app.api.schemas import ChatRequest, ChatResponse
from app.services.chat import chat
from app.services.search import resolve_caller

router = APIRouter(tags=["chat"])


@router.post("/chat", response_model=ChatResponse, responses={404: {"description": "unknown employee"}})
def chat_message(body: ChatRequest, engine: EngineDep, settings: SettingsDep) -> ChatResponse:
    """Answer from what the caller may see, citing [TASK #id]-style anchors."""
    caller = resolve_caller(engine, body.employee_id, body.telegram_id)
    answer = chat(engine, settings, body.message, caller, body.top_k, body.conversation_id)
    return ChatResponse(
        answer=answer.answer,
        citations=answer.citations,
        results=[vars(hit) for hit in answer.search.result.hits],
        llm_used=answer.llm_used,
        conversation_id=answer.conversation_id,
        caller={"employee_id": caller.employee_id, "role": caller.role},
    )
