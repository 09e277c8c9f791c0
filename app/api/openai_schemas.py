"""The OpenAI chat-completions protocol as this service speaks it: requests, responses, stream chunks,
models and errors (https://platform.openai.com/docs/api-reference/chat), apart from the chat core they
translate to (app/api/routes/openai.py).

Requests keep OpenAI's leniency: options a client sends that change nothing here (temperature, top_p,
max_tokens, tools, ...) are accepted and ignored, so stock clients work unchanged. Responses add two
documented fields: ``citations`` (the anchors the answer cites, also left in its text) and ``rag`` (who
was asked for, whether the LLM wrote the answer, and the records it rests on).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from app.api.chat_schemas import LLM_ERROR, ChatResult
from app.api.schemas import CallerPublic

# Answer modes, named as models: the retrieval mode, with the configured LLM writing the answer (or the
# extractive answer when none is configured or it fails); rag-extractive never calls an LLM.
MODELS: dict[str, str] = {
    "rag-hybrid": "hybrid retrieval (meaning and keywords); the configured LLM writes the answer",
    "rag-vector": "vector retrieval (meaning only); the configured LLM writes the answer",
    "rag-lexical": "lexical retrieval (keywords only); the configured LLM writes the answer",
    "rag-extractive": "hybrid retrieval; the answer quotes the matching records, no LLM is called",
}
OPENAI_PREFIX = "/v1/"
MAX_MESSAGES = 200
# All the messages' text together: the chat core reads only the newest turns that fit its history budget
# (12,000 characters), but every character is parsed and counted for usage; 19 × 100,000 characters cost
# 2.5-3.4 s per request before this bound.
MAX_CONVERSATION_CHARS = 200_000
USER_FIELD = ("who asks, with an admin or bot token: an employee id (\"42\") or \"tg:<telegram id>\"; the token "
              "must be allowed to act for them. With a token bound to one employee it may be left out (naming "
              "anyone else is a 403; a value that names no one, such as a client's own user id, is ignored)")


class TextPart(BaseModel):
    model_config = ConfigDict(extra="allow")
    type: str = Field(description='"text" parts are read; other parts (images, files) are refused')
    text: str | None = None


class ChatMessageIn(BaseModel):
    """One message of the conversation so far (the list is the whole conversation: nothing is stored)."""

    model_config = ConfigDict(extra="allow")  # name, tool_calls, ...: accepted, not used
    role: Literal["system", "developer", "user", "assistant", "tool", "function"]
    content: Annotated[str, Field(max_length=100_000)] | list[TextPart] | None = None


class StreamOptions(BaseModel):
    model_config = ConfigDict(extra="allow")
    include_usage: bool = False


class ChatCompletionRequest(BaseModel):
    model_config = ConfigDict(extra="allow")  # temperature, top_p, max_tokens, tools, ...: accepted, ignored
    model: str = Field(description="an answer mode: " + ", ".join(MODELS))
    messages: list[ChatMessageIn] = Field(min_length=1, max_length=MAX_MESSAGES, description=(
        "the conversation, oldest first; the last user message is the question. Earlier answers keep their "
        "anchors ([TASK #12]), which is how a follow-up finds what it is about"))
    stream: bool = False
    stream_options: StreamOptions | None = None
    user: Annotated[str, Field(max_length=128)] | None = Field(None, description=USER_FIELD)
    n: int | None = Field(None, ge=1, le=1, description="only 1")


class ChatMessageOut(BaseModel):
    role: Literal["assistant"] = "assistant"
    content: str


class Choice(BaseModel):
    index: int = 0
    message: ChatMessageOut
    finish_reason: Literal["stop"] = "stop"


class Usage(BaseModel):
    prompt_tokens: int = Field(description="word pieces of the messages (counted with the embedding model's "
                                           "tokenizer, not the LLM's)")
    completion_tokens: int = Field(description="word pieces of the answer, counted the same way")
    total_tokens: int


class RagDetails(BaseModel):
    """What only this service says about an answer (an OpenAI client ignores it)."""

    asker: CallerPublic
    llm_used: bool = Field(description="true when the LLM wrote the answer; false for the extractive answer")
    llm_error: LLM_ERROR | None = Field(None, description="why the LLM's answer was not used, as on POST /api/v1/chat")
    route: str = Field(description="how the question was answered, as on POST /api/v1/chat: lookup, tasks, "
                                   "follow_up, retrieve, compare, comments, blockers, scope or clarify")
    results: list[ChatResult] = Field(description="what the answer was given: the entities the question named, "
                                                  "then the retrieved chunks, best first")


class ChatCompletion(BaseModel):
    id: str
    object: Literal["chat.completion"] = "chat.completion"
    created: int
    model: str
    choices: list[Choice]
    usage: Usage
    citations: list[str] = Field(description="the anchors the answer cites, in order (they stay in its text too)")
    rag: RagDetails


class ModelCard(BaseModel):
    id: str
    object: Literal["model"] = "model"
    created: int
    owned_by: str = "oracle-rag"
    description: str


class ModelList(BaseModel):
    object: Literal["list"] = "list"
    data: list[ModelCard]


class ErrorBody(BaseModel):
    message: str
    type: str
    param: str | None = None
    code: str | None = None


class ErrorResponse(BaseModel):
    """OpenAI's error object."""

    error: ErrorBody


class OpenAIError(Exception):
    """A refusal in OpenAI's terms: the HTTP status, its ``code`` and the ``param`` at fault."""

    def __init__(self, status: int, message: str, code: str | None = None, param: str | None = None) -> None:
        super().__init__(message)
        self.status, self.code, self.param = status, code, param


def error_body(message: str, status: int, code: str | None = None, param: str | None = None) -> dict[str, Any]:
    kind = {401: "authentication_error", 403: "permission_error", 404: "not_found_error",
            429: "rate_limit_error"}.get(status, "server_error" if status >= 500 else "invalid_request_error")
    return {"error": {"message": message, "type": kind, "param": param, "code": code}}


def error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    what = {400: "invalid request (bad JSON, an unknown field value, a message that is not text, no user)",
            401: "missing or invalid bearer token", 403: "the token may not act for that person",
            404: "unknown model", 413: "request body over RAG_MAX_BODY_BYTES",
            503: "too many chats in progress (Retry-After), or the database cannot answer now"}
    return {s: {"model": ErrorResponse, "description": what[s]} for s in statuses}
