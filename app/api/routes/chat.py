"""Grounded chat for the bot: one answer (POST /chat) or the same answer streamed (POST /chat/stream)."""

from __future__ import annotations

import json
import math
from collections.abc import Awaitable
from typing import Any, TypeVar

import anyio
from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from sse_starlette import EventSourceResponse, ServerSentEvent

from app.api.chat_schemas import ChatRequest, ChatResponse
from app.api.deps import EngineDep, GrantDep, SettingsDep
from app.api.errors import ClientGone, http_answer
from app.api.schemas import ASKER_BY_TOKEN, PROJECT_EXISTS, beyond_schema, error_response
from app.services.askers import resolve_asker
from app.services.chat import ChatAnswer, ChatInput, Prepared, chat, prepare

router = APIRouter(tags=["chat"])
T = TypeVar("T")

CHAT_ERRORS = {
    404: error_response("unknown employee or Telegram id; unknown conversation, or one that belongs to "
                        "another employee (the same answer, whatever the token)"),
    409: error_response("the conversation was deleted, or pinned to a project the model's scope change would "
                        "leave, while the answer was being written (nothing stored)"),
    503: error_response("too many chats in progress (see Retry-After), or the database is unavailable"),
}
STREAM_DOC = (
    "Server-Sent Events: `event: token` with data {\"text\": \"...\"} (repeated), then exactly one "
    "`event: done` whose data has the same fields as the POST /chat response. Token text is provisional: only "
    "`done` (which carries the stored message_id) makes the answer final and kept. When the LLM fails after some "
    "tokens were sent, or its answer keeps no citable support, one `event: reset` with data "
    "{\"reason\": \"llm_error\", \"llm_error\": \"timeout|unreachable|bad_response|ungrounded|incomplete|contradicted\"} comes first: "
    "discard the text shown so far; the tokens that follow are the extractive answer from its start. A failure "
    "after the stream began is one `event: error`, then the stream ends: its data is {\"detail\", \"code\", "
    "\"retry_after_s\"}, the `detail`, status code and Retry-After (null when none) that POST /chat answers for the "
    "same failure (e.g. 503 with the seconds to wait when the database cannot store the turn). After an `error` "
    "the turn was not stored: discard the text shown so far, or mark it as not saved, and retry after "
    "retry_after_s.")

# One event of the stream (OpenAPI describes text/event-stream per event); `data` is JSON text.
SSE_EVENT = {"type": "object", "required": ["event", "data"], "properties": {
    "event": {"type": "string", "enum": ["token", "reset", "done", "error"]},
    "data": {"type": "string", "contentMediaType": "application/json",
             "description": 'token: {"text": "..."} (the next piece of the answer, provisional); reset: {"reason": '
                            '"llm_error", "llm_error": "..."} (discard the text so far); done: the POST /chat '
                            'response (ChatResponse; the turn is stored); error: {"detail": ..., "code": <HTTP '
                            'status>, "retry_after_s": <seconds or null>} (the turn is not stored)'}}}


def _inputs(body: ChatRequest) -> ChatInput:
    return ChatInput(body.message, body.conversation_id, body.rag_scope, body.pinned, body.top_k)


async def _prepare(request: Request, body: ChatRequest, engine, settings, grant) -> Prepared:
    caller = await run_in_threadpool(resolve_asker, engine, grant, body.employee_id, body.telegram_id)
    return await run_in_threadpool(prepare, engine, settings, caller, _inputs(body))


def results_of(answer: ChatAnswer) -> list[dict[str, Any]]:
    """What the answer was given: the entities it named or looked up, then the retrieved chunks."""
    return [{**vars(hit), "origin": "entity"} for hit in answer.entities] + \
        [{**vars(hit), "origin": "search"} for hit in answer.search.result.hits]


def response_of(answer: ChatAnswer, prep: Prepared) -> ChatResponse:
    changed = answer.new_scope
    results = results_of(answer)
    return ChatResponse(
        conversation_id=answer.conversation_id, message_id=answer.message_id, answer=answer.answer,
        citations=answer.citations, results=results, route=answer.route,
        llm_used=answer.llm_used, llm_error=answer.llm_error,
        rag_scope=answer.scope.stored, rag_scope_label=answer.scope.label,
        new_rag_scope=changed.stored if changed else None, new_rag_scope_label=changed.label if changed else None,
        caller={"employee_id": prep.caller.employee_id, "role": prep.caller.role},
        timings_ms=answer.timings_ms,
    )


@router.post("/chat", response_model=ChatResponse, response_model_exclude_none=False, responses=CHAT_ERRORS,
             openapi_extra=beyond_schema(ASKER_BY_TOKEN, PROJECT_EXISTS))
async def chat_message(body: ChatRequest, request: Request, engine: EngineDep, settings: SettingsDep,
                       grant: GrantDep) -> ChatResponse:
    """Answer from what the caller may see, citing [TASK #id]-style anchors, and store both turns.

    422 (nothing stored): an empty or over-2000-character message, an invalid rag_scope (not a project id,
    'none' or 'all', or a project that does not exist), rag_scope or pinned with a conversation_id.

    Async on purpose: waiting for the LLM holds no worker thread, and at most
    RAG_CHAT_MAX_CONCURRENCY chats run at once (one more is answered 503 with Retry-After). A client that
    hangs up cancels the chat, as on the stream: the LLM call is closed, nothing is stored, the slot is free.
    """
    with request.app.state.chat_slots.take():
        prep = await _prepare(request, body, engine, settings, grant)
        answer = await until_disconnect(request, chat(engine, settings, prep, request.app.state.llm_client))
    return response_of(answer, prep)


async def until_disconnect(request: Request, work: Awaitable[T]) -> T:
    """Await ``work``, cancelling it as soon as the client disconnects (ClientGone then).

    A plain (non-streaming) route is not cancelled when its client goes away: it would run on, hold its
    chat slot until the LLM answers and store a turn nobody reads. The body is already read, so the next
    ASGI message is the disconnect; a cancelled ``work`` stores nothing (the store is its last await)."""
    outcome: list[T] = []
    failed: list[Exception] = []

    async def run(scope: anyio.CancelScope) -> None:
        try:
            outcome.append(await work)
        except Exception as exc:  # raised below, outside the task group (not as an ExceptionGroup)
            failed.append(exc)
        scope.cancel()

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(run, tasks.cancel_scope)
        while (await request.receive())["type"] != "http.disconnect":
            pass
        tasks.cancel_scope.cancel()
    if failed:
        raise failed[0]
    if not outcome:
        raise ClientGone
    return outcome[0]


@router.post("/chat/stream", response_class=EventSourceResponse, responses={
    200: {"description": STREAM_DOC, "content": {"text/event-stream": {"schema": SSE_EVENT}}},
    **CHAT_ERRORS}, openapi_extra=beyond_schema(ASKER_BY_TOKEN, PROJECT_EXISTS))
async def chat_stream(body: ChatRequest, request: Request, engine: EngineDep, settings: SettingsDep,
                      grant: GrantDep) -> EventSourceResponse:
    """The same chat, streamed. Input errors are answered as JSON before the stream starts; a client
    that disconnects cancels the chat, which closes the LLM call and stores nothing."""
    slot = request.app.state.chat_slots.take()
    slot.__enter__()
    try:
        prep = await _prepare(request, body, engine, settings, grant)
    except BaseException:
        slot.__exit__(None, None, None)
        raise
    send, receive = anyio.create_memory_object_stream[ServerSentEvent](math.inf)

    async def produce() -> None:
        """Runs in sse-starlette's task group: cancelled with it when the client goes away."""
        try:
            async with send:
                try:
                    answer = await chat(engine, settings, prep, request.app.state.llm_client, _Events(send))
                except Exception as exc:  # noqa: BLE001 (answered as POST /chat would; its handler logs it)
                    await send.send(ServerSentEvent(json.dumps(await error_event(request, exc)), event="error"))
                    return
                done = response_of(answer, prep).model_dump(mode="json")
                await send.send(ServerSentEvent(json.dumps(done), event="done"))
        finally:
            slot.__exit__(None, None, None)

    return EventSourceResponse(drain_events(receive), data_sender_callable=produce, ping=15)


class _Events:
    """The chat's stream, as Server-Sent Events."""

    def __init__(self, send: Any) -> None:
        self._send = send

    async def token(self, text: str) -> None:
        await self._send.send(ServerSentEvent(json.dumps({"text": text}), event="token"))

    async def reset(self, llm_error: str) -> None:
        await self._send.send(ServerSentEvent(json.dumps({"reason": "llm_error", "llm_error": llm_error}),
                                              event="reset"))


async def drain_events(receive: Any):
    """The events a producer sends, in order, until it closes its end."""
    async with receive:
        async for event in receive:
            yield event


async def error_event(request: Request, exc: Exception) -> dict[str, Any]:
    """The `error` event's data: what POST /chat answers for the same failure (status, detail, Retry-After)."""
    answer = await http_answer(request, exc)
    retry_after = answer.headers.get("retry-after")
    return {"detail": json.loads(bytes(answer.body))["detail"], "code": answer.status_code,
            "retry_after_s": int(retry_after) if retry_after and retry_after.isdigit() else None}
