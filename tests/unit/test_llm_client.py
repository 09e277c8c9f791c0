"""The chat-completions client against a real loopback server (tests/fake_llm.py): every reply shape
and every failure, each classified as timeout / unreachable / bad_response."""

from __future__ import annotations

import asyncio
import socket
import time

import httpx
import pytest
from pydantic import SecretStr

from app.config import Settings
from app.services import llm
from tests.fake_llm import FakeLLM, Reply

MESSAGES = [{"role": "user", "content": "who fixes the login bug?"}]
TOOLS = [{"type": "function", "function": {"name": "find_tasks", "parameters": {"type": "object"}}}]


def settings_for(server: FakeLLM, **update) -> Settings:
    return Settings(_env_file=None, llm_url=server.url, llm_model="tiny", **update)


def run(coro_factory):
    async def go():
        async with httpx.AsyncClient() as client:
            return await coro_factory(client)
    return asyncio.run(go())


def collect(settings: Settings):
    async def go(client):
        return [delta async for delta in llm.stream(settings, MESSAGES, client)]
    return run(go)


def reason_of(call) -> str:
    with pytest.raises(llm.LLMError) as caught:
        call()
    return caught.value.reason


def test_plain_completion_sends_model_key_and_messages():
    with FakeLLM(Reply.plain("  Ana fixes it [TASK #1]  ")) as server:
        settings = settings_for(server, llm_api_key=SecretStr("sk-x"))
        assert run(lambda c: llm.complete(settings, MESSAGES, c)) == "Ana fixes it [TASK #1]"
    (request,) = server.requests
    assert request["path"] == "/v1/chat/completions" and request["auth"] == "Bearer sk-x"
    assert request["body"]["model"] == "tiny" and request["body"]["messages"] == MESSAGES
    assert "stream" not in request["body"] and "tools" not in request["body"]


def test_tool_calls_come_back_with_decoded_arguments():
    call = ("call_1", "find_tasks", '{"status": "BLOCKED", "limit": 5}')
    with FakeLLM(Reply.tools(call), Reply.plain("Two tasks are blocked [TASK #3].")) as server:
        settings = settings_for(server)
        asked = run(lambda c: llm.complete_with_tools(settings, MESSAGES, TOOLS, c))
        answered = run(lambda c: llm.complete_with_tools(settings, MESSAGES, TOOLS, c))
    assert asked == llm.Completion(None, [llm.ToolCall("call_1", "find_tasks", {"status": "BLOCKED", "limit": 5})])
    assert answered == llm.Completion("Two tasks are blocked [TASK #3].", [])
    assert server.requests[0]["body"]["tools"] == TOOLS


@pytest.mark.parametrize("arguments", ['{"status": ', '["not", "an", "object"]', "null-ish"])
def test_malformed_tool_call_arguments_are_a_bad_response(arguments):
    with FakeLLM(Reply.tools(("call_1", "find_tasks", arguments))) as server:
        settings = settings_for(server)
        assert reason_of(lambda: run(lambda c: llm.complete_with_tools(settings, MESSAGES, TOOLS, c))) == "bad_response"


def test_streaming_yields_deltas_until_done():
    with FakeLLM(Reply.stream("Ana ", "fixes ", "it [TASK #1]")) as server:
        assert collect(settings_for(server)) == ["Ana ", "fixes ", "it [TASK #1]"]
    assert server.requests[0]["body"]["stream"] is True


@pytest.mark.parametrize("reply", [
    Reply.stream("cut ", "off", done=False),  # the connection closed before [DONE]
    Reply.stream(done=True),  # no text at all
    Reply.raw_body(b'data: {"choices": [{"delta": {"content": "a"}}]}\n\ndata: {not json\n\n',
                   content_type="text/event-stream"),
    Reply.raw_body(b'data: {"error": {"message": "overloaded"}}\n\n', content_type="text/event-stream"),
    Reply.status(500),
], ids=["no-done", "empty", "malformed-chunk", "error-event", "http-500"])
def test_broken_streams_are_a_bad_response(reply):
    with FakeLLM(reply) as server:
        assert reason_of(lambda: collect(settings_for(server))) == "bad_response"


@pytest.mark.parametrize("reply", [Reply.status(500), Reply.status(404), Reply.raw_body(b"{not json"),
                                   Reply.raw_body(b'{"choices": []}'), Reply.plain("   ")],
                         ids=["500", "404", "malformed-json", "no-choice", "empty"])
def test_unusable_replies_are_a_bad_response(reply):
    with FakeLLM(reply) as server:
        settings = settings_for(server)
        assert reason_of(lambda: run(lambda c: llm.complete(settings, MESSAGES, c))) == "bad_response"


@pytest.mark.parametrize("reply", [Reply.silent(), Reply.plain("late", delay_s=5),
                                   Reply.stream("a", "b", "c", "d", delay_s=0.4)],
                         ids=["silent", "slow", "trickling-stream"])
def test_one_deadline_covers_the_whole_call(reply):
    with FakeLLM(reply) as server:
        settings = settings_for(server, llm_timeout_s=0.5)
        started = time.perf_counter()
        if reply.kind == "stream":
            reason = reason_of(lambda: collect(settings))
        else:
            reason = reason_of(lambda: run(lambda c: llm.complete(settings, MESSAGES, c)))
        took = time.perf_counter() - started
    # bounded liveness, not a benchmark: cut at the 0.5 s deadline, long before the slow reply's 5 s
    assert reason == "timeout" and took < 4.5, took


def test_nobody_listening_is_unreachable():
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    settings = Settings(_env_file=None, llm_url=f"http://127.0.0.1:{port}/v1", llm_model="m", llm_timeout_s=5)
    assert reason_of(lambda: run(lambda c: llm.complete(settings, MESSAGES, c))) == "unreachable"
    assert reason_of(lambda: collect(settings)) == "unreachable"


def test_closing_the_stream_early_closes_the_connection():
    with FakeLLM(Reply.stream(*[f"t{i} " for i in range(50)], delay_s=0.05)) as server:
        settings = settings_for(server)

        async def first_token(client):
            tokens = llm.stream(settings, MESSAGES, client)
            token = await tokens.__anext__()
            await tokens.aclose()  # a client that went away
            return token, len(client._transport._pool.connections)

        token, open_connections = run(first_token)
    assert token == "t0 " and open_connections == 0


def collect_with_tools(settings: Settings):
    async def go(client):
        return [event async for event in llm.stream_with_tools(settings, MESSAGES, TOOLS, client)]
    return run(go)


def test_streamed_tool_calls_are_assembled_from_their_fragments():
    calls = [("call_1", "find_tasks", '{"status": "BLOCKED", "project_id": 12}'),
             ("call_2", "set_rag_scope", '{"scope": "none"}')]
    with FakeLLM(Reply.stream_tools(*calls, pieces=4, text=("Let me ", "look.")),
                 Reply.stream("Two ", "are ", "blocked.")) as server:
        settings = settings_for(server)
        asked = collect_with_tools(settings)
        answered = collect_with_tools(settings)
    assert asked[:2] == ["Let me ", "look."] and len(asked) == 3  # text as it came, the calls last
    assert asked[2] == llm.ToolCalls([llm.ToolCall("call_1", "find_tasks", {"status": "BLOCKED", "project_id": 12}),
                                      llm.ToolCall("call_2", "set_rag_scope", {"scope": "none"})])
    assert answered == ["Two ", "are ", "blocked."]
    body = server.requests[0]["body"]
    assert body["stream"] is True and body["tools"] == TOOLS


@pytest.mark.parametrize("reply", [
    Reply.stream_tools(("call_1", "find_tasks", '{"status": "BLOCK'), pieces=3),  # arguments cut short
    Reply.stream_tools(("call_1", "find_tasks", '["BLOCKED"]')),  # not an object
    Reply.stream_tools(("", "find_tasks", "{}")),  # no id
    Reply.stream_tools(("call_1", "find_tasks", "{}"), done=False),  # no [DONE]
    Reply.stream(done=True),  # neither text nor tool calls
], ids=["cut-arguments", "not-an-object", "no-id", "no-done", "empty"])
def test_malformed_streamed_tool_calls_are_a_bad_response(reply):
    with FakeLLM(reply) as server:
        assert reason_of(lambda: collect_with_tools(settings_for(server))) == "bad_response"
