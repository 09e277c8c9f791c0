"""The OpenAI-compatible face: ``GET /v1/models`` and ``POST /v1/chat/completions``, so Open WebUI,
LibreChat, the OpenAI SDKs and LangChain's ``ChatOpenAI`` can use this backend as a model.

A face only translates its protocol. Who asks comes from the token (a token bound to one employee) or from
OpenAI's ``user`` field that an admin or bot token may set, never from the prompt. The message list is the
conversation (stateless: nothing is stored) and goes through the same chat core as /api/v1/chat
(``chat.prepare_stateless``): focus, routing, retrieval, tools, the honest-answer checks and citations.
Citations stay in the text as anchors and are also returned in ``citations``. Errors are OpenAI's error
object (app/api/errors.py).

Streaming sends the *checked* answer: the chat core removes invented anchors (and the claims they carried)
only once the answer is complete, and an OpenAI client cannot take back text it has shown, so the model's
raw tokens are never forwarded. The answer is sent in pieces once checked, with SSE comments keeping the
connection alive meanwhile.
"""

from __future__ import annotations

import json
import math
import re
import time
import uuid
from contextlib import ExitStack
from typing import Any

import anyio
from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from sse_starlette import EventSourceResponse, ServerSentEvent

from app.api.deps import EngineDep, GrantDep, SettingsDep
from app.api.errors import http_answer
from app.api.openai_schemas import (MAX_CONVERSATION_CHARS, MODELS, ChatCompletion, ChatCompletionRequest,
                                    ChatMessageIn, ModelCard, ModelList, OpenAIError, error_responses)
from app.api.routes.chat import drain_events, results_of, until_disconnect
from app.auth import TokenGrant
from app.config import Settings
from app.domain import MAX_QUESTION_CHARS, Caller
from app.embedding.tokens import count_tokens_many
from app.engines.base import Engine
from app.rag import titles
from app.services import chat
from app.services.askers import resolve_asker
from app.services.search import UnknownCallerError

router = APIRouter(prefix="/v1", tags=["openai"])
STARTED = int(time.time())
PIECE_WORDS = 8  # words per streamed chunk of the checked answer
# fullmatch: "$" would let a trailing newline through
_EMPLOYEE = re.compile(r"[1-9][0-9]{0,15}")
_TELEGRAM = re.compile(r"tg:([0-9A-Za-z_@]{1,64})")
STREAM_DOC = (
    "With \"stream\": true, OpenAI's chunk format: `data: {chat.completion.chunk}` events (the first carries the "
    "role, the next ones the checked answer in pieces, the last `finish_reason: \"stop\"` with `citations` and "
    "`rag`), a usage chunk when `stream_options.include_usage`, then `data: [DONE]`. A failure after the stream "
    "began is one `data: {\"error\": {...}}` event (the error object the same request without stream answers), "
    "then `data: [DONE]`.")


@router.get("/models", response_model=ModelList, responses=error_responses(401))
def list_models() -> ModelList:
    """The answer modes, as OpenAI models."""
    return ModelList(data=[ModelCard(id=name, created=STARTED, description=what) for name, what in MODELS.items()])


@router.post("/chat/completions", response_model=ChatCompletion, responses={
    200: {"description": "the answer (or, streamed, " + STREAM_DOC + ")",
          "content": {"text/event-stream": {"schema": {"type": "string"}}}},
    **error_responses(400, 404)})
async def create_chat_completion(body: ChatCompletionRequest, request: Request, engine: EngineDep,
                                 settings: SettingsDep, grant: GrantDep):
    """Answer the last user message from what the asker may see, the earlier messages being the conversation."""
    check_conversation_size(body.messages)
    if body.stream:
        request.app.state.streams.check(grant)  # a refusal before any work; open_stream claims below
    mode_settings = settings_for(settings, body.model)
    # Before the question's length bound: a title request quotes the chat, and is no question about the records.
    title_request = title_asked(body.messages)
    question, turns = conversation_of(body.messages) if title_request is None else ("", [])
    caller = await run_in_threadpool(asker_of, engine, grant, body.user)
    if title_request is not None:
        earlier = [_text(m, ix) for ix, m in enumerate(body.messages[:-1]) if m.role == "user"]
        return title_response(body, caller, title_request, titles.title_answer(title_request, earlier))
    prep = await run_in_threadpool(chat.prepare_stateless, engine, mode_settings, caller, turns, question)
    slots, client = request.app.state.chat_slots, request.app.state.llm_client
    if not body.stream:
        with slots.take():  # a client that hangs up cancels the turn and frees the slot, as on /api/v1/chat
            answer = await until_disconnect(request, chat.chat(engine, mode_settings, prep, client))
            return await run_in_threadpool(completion_of, body, caller, answer)  # counting is the turn's work too
    stream_and_slot = open_stream(request, grant)
    send, receive = anyio.create_memory_object_stream[ServerSentEvent](math.inf)

    async def produce() -> None:
        """Runs in sse-starlette's task group: cancelled with it when the client goes away."""
        completion_id, created = _completion_id(), int(time.time())
        with stream_and_slot:
            async with send:
                await send.send(_chunk(body, completion_id, created, {"role": "assistant", "content": ""}))
                for event in await _streamed(request, body, engine, mode_settings, prep, client, caller, completion_id,
                                             created):
                    await send.send(event)

    return EventSourceResponse(drain_events(receive), data_sender_callable=produce, ping=10, sep="\n")


def title_asked(messages: list[ChatMessageIn]) -> str | None:
    """The last message's text when it is a chat client's title request (Open WebUI, LibreChat)."""
    if not messages or messages[-1].role != "user":
        return None
    text = _text(messages[-1], len(messages) - 1)
    return text if titles.is_title_request(text[:titles.INSTRUCTION_CHARS]) else None


def title_response(body: ChatCompletionRequest, caller: Caller, request: str, title: str):
    """A title request's answer (app/rag/titles.py), plain or streamed as OpenAI's chunks; nothing was
    searched, so no results and no citations (``usage`` counts the request and the title)."""
    completion_id, created = _completion_id(), int(time.time())
    asked, used = count_tokens_many([request, title])  # one batch that lets go of the GIL, as usage below
    rag = {"asker": {"employee_id": caller.employee_id, "role": caller.role}, "llm_used": False, "llm_error": None,
           "route": "title", "results": []}
    if not body.stream:
        return ChatCompletion(id=completion_id, created=created, model=body.model,
                              choices=[{"message": {"content": title}}], citations=[], rag=rag,
                              usage={"prompt_tokens": asked, "completion_tokens": used,
                                     "total_tokens": asked + used},
                              ).model_dump(mode="json")
    events = [_chunk(body, completion_id, created, {"role": "assistant", "content": ""}),
              _chunk(body, completion_id, created, {"content": title}),
              _chunk(body, completion_id, created, {}, "stop", citations=[], rag=rag), ServerSentEvent("[DONE]")]

    async def replay():
        for event in events:
            yield event

    return EventSourceResponse(replay(), sep="\n")


def _chunk(body: ChatCompletionRequest, completion_id: str, created: int, delta: dict[str, Any],
           finish: str | None = None, **extra: Any) -> ServerSentEvent:
    return ServerSentEvent(json.dumps({
        "id": completion_id, "object": "chat.completion.chunk", "created": created, "model": body.model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra}))


async def _streamed(request: Request, body: ChatCompletionRequest, engine: Engine, settings: Settings,
                    prep: chat.Prepared, client: Any, caller: Caller, completion_id: str,
                    created: int) -> list[ServerSentEvent]:
    """The rest of the stream once the turn is done: the checked answer in pieces, the last chunk (with
    ``citations`` and ``rag``), the usage chunk if asked for, [DONE]; or the error object the plain request
    answers for the same failure, then [DONE]."""
    try:
        answer = await chat.chat(engine, settings, prep, client)
        done = await run_in_threadpool(completion_of, body, caller, answer, completion_id, created)
    except Exception as exc:  # noqa: BLE001 (answered as the plain request would; its handler logs it)
        failed = await http_answer(request, exc)  # under /v1/: already OpenAI's error object
        return [ServerSentEvent(bytes(failed.body).decode()), ServerSentEvent("[DONE]")]
    events = [*(_chunk(body, completion_id, created, {"content": piece})
                for piece in pieces(done["choices"][0]["message"]["content"])),
              _chunk(body, completion_id, created, {}, "stop", citations=done["citations"], rag=done["rag"])]
    if body.stream_options is not None and body.stream_options.include_usage:
        events.append(ServerSentEvent(json.dumps({"id": completion_id, "object": "chat.completion.chunk",
                                                  "created": created, "model": body.model, "choices": [],
                                                  "usage": done["usage"]})))
    return [*events, ServerSentEvent("[DONE]")]


def pieces(text: str) -> list[str]:
    """The answer in chunks of a few words, whitespace kept, so the pieces join to exactly the text."""
    words = re.findall(r"\S+\s*|\s+", text)
    return ["".join(words[i:i + PIECE_WORDS]) for i in range(0, len(words), PIECE_WORDS)]


# --- translation: request -> chat core -> response -------------------------------------------------------

def settings_for(settings: Settings, model: str) -> Settings:
    """The answer mode a model id names: its retrieval mode; rag-extractive calls no LLM."""
    if model not in MODELS:
        raise OpenAIError(404, f"the model {model!r} does not exist: the models are {', '.join(MODELS)}",
                          "model_not_found", "model")
    if model == "rag-extractive":
        return settings.model_copy(update={"search_mode": "hybrid", "llm_url": None, "llm_model": None})
    return settings.model_copy(update={"search_mode": model.removeprefix("rag-")})


def open_stream(request: Request, grant: TokenGrant) -> ExitStack:
    """The token's place among its open streams (app/api/streams.py: a 429 past RAG_STREAMS_PER_TOKEN), then
    a chat slot; both released when the returned stack is closed (by the stream's producer)."""
    with ExitStack() as held:
        held.enter_context(request.app.state.streams.claim(grant))
        held.enter_context(request.app.state.chat_slots.take())
        return held.pop_all()


def check_conversation_size(messages: list[ChatMessageIn]) -> None:
    """Refuse a message list whose text is past MAX_CONVERSATION_CHARS, before anything is done with it (the
    count is ``MAX_MESSAGES``, checked as the body is parsed)."""
    size = sum(len(_plain(m)) for m in messages)
    if size > MAX_CONVERSATION_CHARS:
        raise OpenAIError(400, f"the messages hold {size} characters; at most {MAX_CONVERSATION_CHARS} are taken "
                               "(the newest turns are what the answer reads: drop or shorten older ones)",
                          "messages_too_long", "messages")


def conversation_of(messages: list[ChatMessageIn]) -> tuple[str, list[tuple[str, str]]]:
    """(the question, the earlier (role, text) turns). System and tool messages are not read: the service
    answers only from the records, with its own instructions."""
    said = [(m.role, _text(m, ix)) for ix, m in enumerate(messages) if m.role in ("user", "assistant")]
    if not said or said[-1][0] != "user":
        raise OpenAIError(400, "the last user or assistant message must be the user's question", "invalid_messages",
                          "messages")
    question = said[-1][1].strip()
    if not question or len(question) > MAX_QUESTION_CHARS:
        raise OpenAIError(400, f"the question must be 1-{MAX_QUESTION_CHARS} characters, got {len(question)}",
                          "invalid_question", "messages")
    return question, said[:-1]


def _text(message: ChatMessageIn, ix: int) -> str:
    if message.content is None or isinstance(message.content, str):
        return message.content or ""
    if any(part.type != "text" for part in message.content):
        raise OpenAIError(400, "only text content is read (no images or files)", "unsupported_content",
                          f"messages[{ix}].content")
    return "".join(part.text or "" for part in message.content)


def _plain(message: ChatMessageIn) -> str:
    """A message's text for counting (non-text parts of messages the service does not read count nothing)."""
    if message.content is None or isinstance(message.content, str):
        return message.content or ""
    return "".join(part.text or "" for part in message.content if part.type == "text")


def asker_of(engine: Engine, grant: TokenGrant, user: str | None) -> Caller:
    """Who asks: a bound token's employee, or the employee OpenAI's ``user`` field names (``42``, ``tg:123``)."""
    named = _named(user)
    if grant.employee_id is not None:  # a personal token: user may repeat who they are, or be a client's own id
        return resolve_asker(engine, grant, *(named or (None, None)))
    if user is None:
        raise OpenAIError(400, "say who asks: set user to the employee's id (\"42\") or \"tg:<telegram id>\" (or use "
                               "a token bound to one employee)", "user_required", "user")
    if named is None:
        raise OpenAIError(400, f"user must be an employee id (\"42\") or \"tg:<telegram id>\", got {user!r}",
                          "invalid_user", "user")
    try:
        return resolve_asker(engine, grant, *named)
    except UnknownCallerError as exc:
        raise OpenAIError(400, str(exc), "unknown_user", "user") from None


def _named(user: str | None) -> tuple[int | None, str | None] | None:
    """(employee_id, telegram_id) of a ``user`` value in this service's form, else None."""
    if user is None:
        return None
    if _EMPLOYEE.fullmatch(user):
        return int(user), None
    telegram = _TELEGRAM.fullmatch(user)
    return (None, telegram.group(1)) if telegram else None


def completion_of(body: ChatCompletionRequest, caller: Caller, answer: chat.ChatAnswer,
                  completion_id: str | None = None, created: int | None = None) -> dict[str, Any]:
    """The chat core's answer as a chat.completion (blocking: counts word pieces, in one batch that lets go
    of the GIL, over at most MAX_CONVERSATION_CHARS)."""
    *prompts, completion = count_tokens_many([*(_plain(m) for m in body.messages), answer.answer])
    prompt = sum(prompts)
    return ChatCompletion(
        id=completion_id or _completion_id(), created=created or int(time.time()), model=body.model,
        choices=[{"message": {"content": answer.answer}}],
        usage={"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
        citations=answer.citations,
        rag={"asker": {"employee_id": caller.employee_id, "role": caller.role}, "llm_used": answer.llm_used,
             "llm_error": answer.llm_error, "route": answer.route, "results": results_of(answer)},
    ).model_dump(mode="json")


def _completion_id() -> str:
    return f"chatcmpl-{uuid.uuid4().hex}"


