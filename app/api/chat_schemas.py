"""Schemas of the bot's chat surface: chat (plain and streamed), conversations, and what a chat client
looks up around them (who it answers as, the projects to scope to, its own token)."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictBool, TypeAdapter, model_validator

from app.api.schemas import _AT_MOST_ONE, CallerPublic, Hit, WriteModel, _WhoAsks
from app.api.types import Id, Question, TopK
from app.domain import Role

# A project id as a number or as the text the responses carry it in (a client echoes what it got).
ProjectIdText = Annotated[str, Field(pattern=r"^[1-9][0-9]{0,14}$")]
ScopeValue = Annotated[Id | ProjectIdText | Literal["none", "all"], Field(
    description='a project id (that project\'s chunks only; a number, or its digits as text as responses carry '
                'it), "none" (chunks that belong to no project: organisation-wide documents and the like) or '
                '"all" (everything the caller may see); the access rule applies on top. A project id must name '
                "an existing project")]
SCOPE_TEXT = ('the conversation\'s retrieval scope as stored: a project id as text, "none" or "all"')
LABEL_TEXT = ('its human label: the project\'s name, "No project" or "All projects" (a scope whose project '
              'was deleted is read as "all" and labelled "All projects (project #N no longer exists)")')
# The engines keep naive UTC timestamps; RFC 3339 (OpenAPI's date-time) needs the offset.
Utc = Annotated[dt.datetime, AfterValidator(lambda v: v if v.tzinfo else v.replace(tzinfo=dt.timezone.utc))]
LLM_ERROR = Literal["timeout", "unreachable", "bad_response", "ungrounded", "incomplete", "contradicted"]


# The rules across ChatRequest's fields, in JSON-schema terms (null or absent counts as not given): a scope and
# a pin only start a conversation; a pin needs a project id as its scope.
_ONLY_WHEN_STARTING = {"anyOf": [
    {"properties": {"conversation_id": {"type": "null"}}},
    {"properties": {"rag_scope": {"type": "null"}, "pinned": {"const": False}}},
]}
_PIN_NEEDS_A_PROJECT = {"anyOf": [
    {"properties": {"pinned": {"const": False}}},
    {"required": ["rag_scope"], "properties": {"rag_scope": TypeAdapter(Id | ProjectIdText).json_schema()}},
]}


class ChatRequest(_WhoAsks):
    model_config = ConfigDict(json_schema_extra={**_AT_MOST_ONE, "allOf": [_ONLY_WHEN_STARTING, _PIN_NEEDS_A_PROJECT]})

    message: Question = Field(description="the question, in the caller's words (English or Spanish), "
                                          "1-2000 characters. `question` (the name /search uses) is accepted "
                                          "as an alias of this field; sending both is a 422")
    conversation_id: Id | None = Field(None, description="continue this conversation (it must belong to the "
                                                         "caller: anyone else's is a 404); omit to start one")
    rag_scope: ScopeValue | None = Field(None, description="only when starting a conversation: its retrieval "
                                                           "scope (default RAG_CHAT_DEFAULT_SCOPE, normally "
                                                           '"all"); change it later with PATCH')
    pinned: StrictBool = Field(False, description="only when starting a conversation with a project rag_scope: "
                                                  "pin it to that project (a workspace view), so the model's "
                                                  "set_rag_scope tool cannot change it (a client PATCH still can)")
    top_k: TopK | None = Field(None, description="chunks to retrieve; default: RAG_TOP_K")

    @model_validator(mode="before")
    @classmethod
    def _question_means_message(cls, data: Any) -> Any:
        """``question`` is the alias of ``message`` (one canonical name in the schema)."""
        if isinstance(data, dict) and "question" in data:
            if "message" in data:
                raise ValueError("give message or question (its alias), not both")
            data = {("message" if key == "question" else key): value for key, value in data.items()}
        return data


class ChatResult(Hit):
    origin: Literal["entity", "search"] = Field(description="entity: named by id, the conversation's focus or a "
                                                            "tool result (distance 0, score 1: not ranked by "
                                                            "similarity); search: a retrieved chunk")


class ChatTimings(BaseModel):
    embed: float = Field(description="milliseconds spent embedding the retrieval query")
    search: float = Field(description="milliseconds spent in the scoped query")
    llm: float = Field(description="milliseconds from retrieval to the answer (LLM calls and tools, or the "
                                   "extractive answer)")
    compose: float = Field(0.0, description="milliseconds of that spent composing the answer from the records "
                                            "without an LLM (embedding the candidate sentences and choosing them); "
                                            "0 when the LLM's answer stood")
    total: float = Field(description="milliseconds for the whole chat before storing the turns")


class ChatResponse(BaseModel):
    conversation_id: int = Field(description="the conversation the turns were stored in (new or continued)")
    message_id: int = Field(description="the stored assistant message")
    answer: str = Field(description="the answer; every [TASK #id]-style anchor in it names a chunk or tool result "
                                    "the model was given. Without an LLM (or after it failed) it quotes the "
                                    "matching lines of the relevant chunks, or says \"I don't know\"")
    citations: list[str] = Field(description="the anchors the answer cites, in order of first citation; invented "
                                             "ones are removed from the answer and never listed")
    results: list[ChatResult] = Field(description="what the answer was given: first the entities the question named "
                                                  "or a tool returned (origin \"entity\"), then the retrieved "
                                                  "chunks, best first (origin \"search\")")
    route: Literal["tasks", "lookup", "follow_up", "retrieve", "compare", "comments", "blockers", "scope",
                   "clarify"] = Field(
        description="how the question was answered: tasks (someone's work, a count or a sum: find_tasks), lookup "
                    "(an entity asked by id), follow_up (about the conversation's focus), retrieve (search), "
                    "compare (a winner and a ranking), comments / blockers (read from the tasks' comments and "
                    "descriptions), scope (the conversation's scope changed by the asker's words), clarify (a "
                    "question back: which task, project or grouping)")
    llm_used: bool = Field(description="true when the LLM wrote the answer; false for the extractive answer")
    llm_error: LLM_ERROR | None = Field(
        None, description="why the configured LLM's answer was not used (the extractive answer stands in): timeout "
                          "(the turn's RAG_LLM_TIMEOUT_S passed), unreachable (no connection), bad_response (an HTTP "
                          "error status, or a reply that is not a usable chat completion), ungrounded (it cited an "
                          "anchor it was not given, or every citation it made named something the asker may not "
                          "see), incomplete (it dropped an item of the answer computed from the records, which "
                          "stands in), contradicted (it stated a figure the computed answer does not); null when "
                          "the LLM answered or none is configured")
    rag_scope: str = Field(description=SCOPE_TEXT + " after this turn")
    rag_scope_label: str = Field(description=LABEL_TEXT)
    new_rag_scope: str | None = Field(None, description="present only when the model's set_rag_scope tool changed "
                                                        "the scope during this turn: the new scope")
    new_rag_scope_label: str | None = Field(None, description="the new scope's label (with new_rag_scope)")
    caller: CallerPublic
    timings_ms: ChatTimings


class StreamToken(BaseModel):
    """The data of one `token` event."""

    text: str = Field(description="the next piece of the answer as the LLM produced it; the `done` event's "
                                  "answer is the checked, final text (invented anchors removed)")


class ConversationPublic(BaseModel):
    conversation_id: int = Field(description="the conversation's id")
    title: str | None = Field(None, description="its first message, shortened")
    rag_scope: str = Field(description=SCOPE_TEXT)
    rag_scope_label: str = Field(description=LABEL_TEXT)
    pinned_project_id: int | None = Field(None, description="set when pinned to a project: the model may not "
                                                            "change the scope")
    created_at: Utc = Field(description="UTC")
    updated_at: Utc = Field(description="UTC; bumped by every stored turn and scope change")


WITHDRAWN_TEXT = "(withdrawn: this answer rested on something you can no longer see)"


class MessagePublic(BaseModel):
    message_id: int
    role: Literal["user", "assistant"] = Field(description="who wrote it")
    content: str = Field(description=f"the text; for a withdrawn answer only {WITHDRAWN_TEXT!r}")
    citations: list[str] = Field(description="anchors the assistant's answer cited (empty for user messages)")
    created_at: Utc = Field(description="UTC")
    withdrawn: bool = Field(False, description="an answer that rested on an entity the employee may no longer see "
                                               "(reassigned, deleted, a role change): its text is not shown, it no "
                                               "longer reaches the model, and it no longer sets the focus")
    focus: str | None = Field(None, description="assistant: the anchor the conversation was about after this turn")
    retrieved: list[tuple[str, int, int]] = Field(default_factory=list, description="assistant: what the turn was "
                                                  "given, best first, as [source_type, source_id, chunk_ix]")
    rag_scope: str | None = Field(None, description="assistant: the scope retrieval applied this turn")
    llm_error: LLM_ERROR | None = Field(None, description="assistant: why the LLM's answer was not used")


class ScopePatch(WriteModel):
    rag_scope: ScopeValue
    pinned: StrictBool | None = Field(None, description="omit to keep the pin (a pinned conversation then accepts "
                                                        "only its own project: any other scope is a 409); false "
                                                        "unpins it; true pins it to the project rag_scope names")


class ChatCallerPublic(CallerPublic):
    """Who a chat for this person answers as (a client's greeting)."""

    first_name: str = Field(description="their first name, from EMPLOYEES")


class ProjectChoicePublic(BaseModel):
    project_id: int = Field(description="the id a rag_scope takes")
    name: str
    score: float | None = Field(description="with a query: how well it matched, 0..1, higher is better (ranked as "
                                            "the model's search_projects tool ranks); null in the plain listing")


class TokenPublic(BaseModel):
    name: str = Field(description="the token's name in RAG_API_TOKEN_SCOPES (or RAG_API_TOKENS[i])")
    scope: Literal["admin", "bot", "user"]
    employee_ids: list[int] | None = Field(description="a bot token limited to these employees; null: any")
    roles: list[Role] | None = Field(description="a bot token limited to employees with these roles; null: any")
    employee_id: int | None = Field(description="a user token: the one employee it is bound to (and asks as)")
