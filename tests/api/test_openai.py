"""The OpenAI-compatible face through the official `openai` SDK against the real app under uvicorn on a free
loopback port, with the loopback LLM (tests/fake_llm.py) behind it where an LLM answers: models, a completion,
a stream, the conversation as the message list (stateless), who asks, and OpenAI's errors."""

from __future__ import annotations

import json
from contextlib import contextmanager

import httpx
import openai
import pytest
from pydantic import SecretStr

from app.api.main import create_app
from app.api.openai_schemas import MODELS
from app.rag import prompting
from tests.fake_llm import FakeLLM, Reply

from .chat_data import llm_settings, seed, tool_result
from .servers import hang_up_while_waiting, serve

ADMIN, BOT, ANA_TOKEN = "test-token", "bot-token", "ana-laptop"


@pytest.fixture
def ids(sqlite_engine, sqlite_settings):
    return seed(sqlite_engine, sqlite_settings)


@contextmanager
def server(api_settings, engine, ids, **update):
    scopes = [{"token": BOT, "scope": "bot", "employee_ids": [ids["ana"], ids["luis"]]},
              {"token": ANA_TOKEN, "scope": "user", "employee_id": ids["ana"]}]
    settings = api_settings.model_copy(update={"api_token_scopes": SecretStr(json.dumps(scopes)), **update})
    with serve(create_app(settings, engine=engine), timeout_graceful_shutdown=2) as url:
        yield f"{url}/v1"


@pytest.fixture
def base_url(api_settings, sqlite_engine, ids):
    with server(api_settings, sqlite_engine, ids) as url:
        yield url


def sdk(base_url: str, token: str = ANA_TOKEN) -> openai.OpenAI:
    return openai.OpenAI(base_url=base_url, api_key=token, max_retries=0, timeout=60)


def ask(client: openai.OpenAI, *messages: tuple[str, str], model: str = "rag-hybrid", **extra):
    return client.chat.completions.create(model=model, messages=[{"role": r, "content": c} for r, c in messages],
                                          **extra)


def test_the_models_are_the_answer_modes(base_url):
    listed = sdk(base_url).models.list()
    assert [m.id for m in listed.data] == list(MODELS) == ["rag-hybrid", "rag-vector", "rag-lexical", "rag-extractive"]
    assert all(m.object == "model" and m.owned_by == "oracle-rag" for m in listed.data)


def test_a_completion_answers_from_what_the_asker_may_see(base_url, ids, sqlite_engine):
    login = f"[TASK #{ids['login']}]"
    before = sqlite_engine.list_conversations(ids["ana"], None, 10).total
    done = ask(sdk(base_url), ("system", "You are a helpful assistant."), ("user", "what is wrong with the login bug?"))
    message = done.choices[0].message
    assert done.object == "chat.completion" and done.model == "rag-hybrid" and done.id.startswith("chatcmpl-")
    assert message.role == "assistant" and login in message.content and done.choices[0].finish_reason == "stop"
    assert done.citations == [login]  # the documented extra field; the anchor stays in the text too
    assert done.rag["asker"] == {"employee_id": ids["ana"], "role": "DEVELOPER"} and done.rag["llm_used"] is False
    assert done.usage.prompt_tokens > 5 and done.usage.completion_tokens > 5
    assert done.usage.total_tokens == done.usage.prompt_tokens + done.usage.completion_tokens
    assert sqlite_engine.list_conversations(ids["ana"], None, 10).total == before  # stateless: nothing stored


def test_the_message_list_is_the_conversation(base_url, ids):
    login = f"[TASK #{ids['login']}]"
    client = sdk(base_url)
    first = ask(client, ("user", "what is wrong with the login bug?"))
    follow = ask(client, ("user", "what is wrong with the login bug?"),
                 ("assistant", first.choices[0].message.content), ("user", "who is assigned to it?"))
    assert follow.rag["route"] == "follow_up" and follow.citations == [login]
    assert "Ana Garcia" in follow.choices[0].message.content


def test_the_stream_is_openais_chunk_format_and_adds_up_to_the_answer(base_url, ids):
    client = sdk(base_url)
    plain = ask(client, ("user", "what is wrong with the login bug?"))
    chunks = list(ask(client, ("user", "what is wrong with the login bug?"), stream=True,
                      stream_options={"include_usage": True}))
    assert chunks[0].choices[0].delta.role == "assistant"
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == plain.choices[0].message.content and len([c for c in chunks if c.choices]) > 3
    last = [c for c in chunks if c.choices][-1]
    assert last.choices[0].finish_reason == "stop" and last.citations == plain.citations
    assert chunks[-1].choices == [] and chunks[-1].usage.completion_tokens == plain.usage.completion_tokens
    assert len({c.id for c in chunks}) == 1


def test_the_raw_stream_ends_with_done(base_url):
    with httpx.stream("POST", f"{base_url}/chat/completions", headers={"Authorization": f"Bearer {ANA_TOKEN}"},
                      json={"model": "rag-extractive", "stream": True,
                            "messages": [{"role": "user", "content": "login bug"}]}, timeout=60) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        data = [line[6:] for line in response.iter_lines() if line.startswith("data: ")]
    assert data[-1] == "[DONE]" and all(json.loads(d)["object"] == "chat.completion.chunk" for d in data[:-1])


def test_with_an_llm_the_answer_is_checked_like_the_chats(api_settings, sqlite_engine, ids):
    login = f"[TASK #{ids['login']}]"
    reply = f"The login bug is blocked until the auth deploy {login}. The refund flow is fine [TASK #99999]."
    with FakeLLM(Reply.plain(reply)) as llm, server(api_settings, sqlite_engine, ids,
                                                    **llm_settings(llm, chat_max_tool_rounds=0)) as url:
        done = ask(sdk(url), ("user", "what is wrong with the login bug?"))
        streamed = list(ask(sdk(url), ("user", "what is wrong with the login bug?"), stream=True))
        extractive = ask(sdk(url), ("user", "what is wrong with the login bug?"), model="rag-extractive")
    # A reply citing an anchor it was never given is ungrounded as a whole (issue 23; it used to be trimmed to
    # its first sentence and accepted): the extractive answer stands in, as on POST /chat.
    assert done.rag["llm_used"] is False and done.rag["llm_error"] == "ungrounded"
    assert done.choices[0].message.content == extractive.choices[0].message.content
    assert login in done.citations
    assert "".join(c.choices[0].delta.content or "" for c in streamed) == done.choices[0].message.content
    assert "[TASK #99999]" not in json.dumps([c.model_dump() for c in streamed])  # never shown, even streamed
    assert extractive.rag["llm_used"] is False and len(llm.requests) == 2  # rag-extractive calls no LLM
    assert llm.requests[0]["body"]["messages"][-1]["content"].endswith("what is wrong with the login bug?")


def test_a_models_tool_call_with_an_id_past_the_databases_range_is_refused_to_the_model(api_settings, sqlite_engine,
                                                                                        ids):
    """A prompt can make the model ask get_entity for any number: one the database cannot bind is the tool's
    refusal (the model reads it and answers on), not a 500 for the whole completion, plain or streamed."""
    login = f"[TASK #{ids['login']}]"
    huge = json.dumps({"type": "task", "id": 2**64})
    with FakeLLM(Reply.tools(("c1", "get_entity", huge)), Reply.plain(f"The login bug {login}."),
                 Reply.tools(("c2", "get_entity", huge)), Reply.plain(f"The login bug {login}.")) as llm, \
            server(api_settings, sqlite_engine, ids, **llm_settings(llm)) as url:
        done = ask(sdk(url), ("user", "what is wrong with the login bug?"))
        streamed = list(ask(sdk(url), ("user", "what is wrong with the login bug?"), stream=True))
        refusal = tool_result(llm.requests[1])
    assert done.rag["llm_used"] is True and done.citations == [login]
    assert refusal["success"] is False and "positive integer" in refusal["error"]
    assert "".join(c.choices[0].delta.content or "" for c in streamed) == done.choices[0].message.content


def test_who_asks_comes_from_the_token_or_the_user_field(base_url, ids):
    refund = f"[TASK #{ids['refund']}]"
    question = ("user", "why does the refund flow time out?")
    as_ana = ask(sdk(base_url), question)
    as_ana_by_bot = ask(sdk(base_url, BOT), question, user="tg:ana_tg")
    as_luis = ask(sdk(base_url, BOT), question, user=str(ids["luis"]))
    as_ana_with_a_clients_own_id = ask(sdk(base_url), question, user="64f0c2a9e1")  # e.g. LibreChat's user id
    assert refund not in json.dumps(as_ana.model_dump()) and as_ana.rag["asker"]["employee_id"] == ids["ana"]
    assert as_ana_by_bot.rag["asker"]["employee_id"] == ids["ana"]
    assert refund in as_luis.citations and refund in as_luis.choices[0].message.content
    assert as_ana_with_a_clients_own_id.rag["asker"]["employee_id"] == ids["ana"]


@pytest.mark.parametrize("token, user, error, code", [
    (BOT, None, openai.BadRequestError, "user_required"),
    (BOT, "Ana", openai.BadRequestError, "invalid_user"),
    (ADMIN, "1\n", openai.BadRequestError, "invalid_user"),  # only the whole value counts, never a prefix
    (ADMIN, "tg:nobody\n", openai.BadRequestError, "invalid_user"),
    (ADMIN, "424242", openai.BadRequestError, "unknown_user"),
    (ADMIN, "tg:nobody", openai.BadRequestError, "unknown_user"),
    (BOT, "1", openai.PermissionDeniedError, None),  # the manager: not among the bot's employees
    (BOT, "424242", openai.PermissionDeniedError, None),  # unknown, but the bot may not probe: the same 403
    (ANA_TOKEN, "1", openai.PermissionDeniedError, None),  # a personal token naming someone else
])
def test_a_refused_or_unknown_user_is_openais_error(base_url, token, user, error, code):
    with pytest.raises(error) as refused:
        ask(sdk(base_url, token), ("user", "login bug"), **({"user": user} if user is not None else {}))
    assert refused.value.body["type"] in ("invalid_request_error", "permission_error")
    assert refused.value.body["code"] == code and refused.value.body["message"]


@pytest.mark.parametrize("token", ["wrong-token", f"{ANA_TOKEN}-and-more"])
def test_a_refused_token_is_openais_authentication_error(base_url, token):
    with pytest.raises(openai.AuthenticationError) as refused:
        sdk(base_url, token).models.list()
    assert refused.value.status_code == 401
    assert refused.value.body == {"message": "missing or invalid bearer token", "type": "authentication_error",
                                  "param": None, "code": None}
    with pytest.raises(openai.AuthenticationError):
        ask(sdk(base_url, token), ("user", "login bug"))


@pytest.mark.parametrize("kwargs, messages, error, param", [
    ({"model": "gpt-4o"}, [("user", "hi")], openai.NotFoundError, "model"),
    ({}, [("assistant", "hello")], openai.BadRequestError, "messages"),
    ({}, [("user", "x" * 2001)], openai.BadRequestError, "messages"),
    ({}, [("user", "   ")], openai.BadRequestError, "messages"),
    ({"n": 2}, [("user", "hi")], openai.BadRequestError, "n"),
])
def test_bad_requests_are_openais_400_and_404(base_url, kwargs, messages, error, param):
    with pytest.raises(error) as refused:
        ask(sdk(base_url), *messages, **{"model": "rag-hybrid", **kwargs})
    assert refused.value.body["param"] == param, refused.value.body


def test_an_image_part_is_refused_and_text_parts_are_read(base_url, ids):
    client = sdk(base_url)
    parts = client.chat.completions.create(model="rag-hybrid", messages=[{"role": "user", "content": [
        {"type": "text", "text": "what is wrong with the login bug?"}]}])
    assert f"[TASK #{ids['login']}]" in parts.citations
    with pytest.raises(openai.BadRequestError) as refused:
        client.chat.completions.create(model="rag-hybrid", messages=[{"role": "user", "content": [
            {"type": "text", "text": "what is this?"}, {"type": "image_url", "image_url": {"url": "data:,"}}]}])
    assert refused.value.body["code"] == "unsupported_content"


def test_a_client_that_hangs_up_mid_stream_frees_its_chat_slot(api_settings, sqlite_engine, ids):
    import time

    with FakeLLM(Reply.plain("slow [TASK #1].", delay_s=30)) as llm:
        settings = api_settings.model_copy(update=llm_settings(llm, chat_max_tool_rounds=0, llm_timeout_s=60))
        app = create_app(settings.model_copy(update={"api_tokens": SecretStr(ADMIN)}), engine=sqlite_engine)
        with serve(app, timeout_graceful_shutdown=2) as url:
            with httpx.stream("POST", f"{url}/v1/chat/completions", headers={"Authorization": f"Bearer {ADMIN}"},
                              json={"model": "rag-hybrid", "stream": True, "user": str(ids["ana"]),
                                    "messages": [{"role": "user", "content": "login bug"}]}, timeout=60) as response:
                # One iterator kept open: a dropped one closes the stream, which is the hang-up tested below.
                lines = response.iter_lines()
                first = next(line for line in lines if line.startswith("data: "))
                assert json.loads(first[6:])["choices"][0]["delta"]["role"] == "assistant"
                deadline = time.monotonic() + 10
                while not llm.requests:  # the role chunk goes out before the turn reaches the LLM
                    assert time.monotonic() < deadline, "the turn never reached the LLM"
                    time.sleep(0.05)
                assert app.state.chat_slots.in_use == 1  # the turn is waiting for the (slow) LLM
            deadline = time.monotonic() + 10
            while app.state.chat_slots.in_use and time.monotonic() < deadline:
                time.sleep(0.05)
            assert app.state.chat_slots.in_use == 0  # hanging up cancelled the turn, long before the LLM answered


def test_a_plain_completion_whose_client_hangs_up_frees_its_chat_slot(api_settings, sqlite_engine, ids):
    """Without streaming too: a real client closes its socket while the loopback LLM is still thinking, and the
    turn is cancelled at once, not when the LLM answers 30 s later."""
    with FakeLLM(Reply.plain("slow [TASK #1].", delay_s=30)) as llm:
        settings = api_settings.model_copy(update=llm_settings(llm, chat_max_tool_rounds=0, llm_timeout_s=60))
        app = create_app(settings.model_copy(update={"api_tokens": SecretStr(ADMIN)}), engine=sqlite_engine)
        with serve(app, timeout_graceful_shutdown=2) as url:
            body = json.dumps({"model": "rag-hybrid", "user": str(ids["ana"]),
                               "messages": [{"role": "user", "content": "login bug"}]}).encode()
            hang_up_while_waiting(app, url, "/v1/chat/completions", body, f"Bearer {ADMIN}", llm)
            assert app.state.chat_slots.in_use == 0  # long before the LLM's 30 s


def test_a_huge_message_list_reaches_the_llm_as_a_bounded_prompt(api_settings, sqlite_engine, ids):
    """A client keeps the conversation, so it can send 100,000-character turns: the prompt the operator pays for
    holds only the newest turns that fit the history budget, each cut to a turn's bound."""
    login = f"[TASK #{ids['login']}]"
    earlier = [("user" if i % 2 == 0 else "assistant", f"turn {i} " + "blah " * 3_900) for i in range(10)]
    with FakeLLM(Reply.plain(f"The login bug {login}.")) as llm, \
            server(api_settings, sqlite_engine, ids, **llm_settings(llm, chat_max_tool_rounds=0)) as url:
        done = ask(sdk(url), *earlier, ("user", "what is wrong with the login bug?"))
    sent = llm.requests[-1]["body"]["messages"]
    history = sent[1:-1]  # between the system prompt and the question with its context
    assert done.rag["llm_used"] is True and sum(len(json.dumps(r["body"])) for r in llm.requests) < 60_000
    assert history and all(len(m["content"]) <= prompting.MAX_TURN_CHARS for m in history)
    assert sum(len(m["content"]) for m in history) <= prompting.MAX_HISTORY_CHARS
    assert history[0]["role"] == "user" and history[-1]["content"].startswith("turn 9 ")  # the newest kept


def test_a_failure_after_the_stream_began_is_the_error_the_plain_request_answers(api_settings, sqlite_engine, ids,
                                                                                  embedder):
    """The stream's error event is OpenAI's error object that the same request without "stream" gets: here the
    process's embedding model differs from the stored vectors (503, naming the fix), found only once the stream
    began, when the turn searches."""
    from app.engines.sqlite.engine import SQLiteEngine
    from tests.sqlite.test_model_swap import ModelB

    other = SQLiteEngine(sqlite_engine.path, ModelB(embedder))
    question = {"model": "rag-hybrid", "messages": [{"role": "user", "content": "what is wrong with the login bug?"}]}
    try:
        with server(api_settings, other, ids) as url, \
                httpx.Client(base_url=url, headers={"Authorization": f"Bearer {ANA_TOKEN}"}, timeout=60) as client:
            plain = client.post("/chat/completions", json=question)
            with client.stream("POST", "/chat/completions", json={**question, "stream": True}) as response:
                data = [line[6:] for line in response.iter_lines() if line.startswith("data: ")]
    finally:
        other.close()
    assert plain.status_code == 503 and "ragctl backfill --force" in plain.json()["error"]["message"]
    assert plain.json()["error"]["type"] == "server_error"
    assert json.loads(data[0])["choices"][0]["delta"]["role"] == "assistant"
    assert json.loads(data[-2]) == plain.json() and data[-1] == "[DONE]" and len(data) == 3


def test_issue_26_point_4_a_message_list_past_its_size_is_refused_before_any_work(base_url, ids):
    """19 messages of 100,000 characters cost 2.5-3.4 s each (usage counted every one): now the list's text is
    bounded and checked first, so the refusal comes before who asks is even looked at (a bot token naming
    no one would otherwise be told `user_required`)."""
    from app.api.openai_schemas import MAX_CONVERSATION_CHARS, MAX_MESSAGES

    huge = [("user" if i % 2 == 0 else "assistant", "x" * 100_000) for i in range(18)] + [("user", "login bug")]
    for token in (ANA_TOKEN, BOT):
        with pytest.raises(openai.BadRequestError) as refused:
            ask(sdk(base_url, token), *huge)
        assert refused.value.body == {
            "message": f"the messages hold {18 * 100_000 + 9} characters; at most {MAX_CONVERSATION_CHARS} are "
                       "taken (the newest turns are what the answer reads: drop or shorten older ones)",
            "type": "invalid_request_error", "param": "messages", "code": "messages_too_long"}
    parts = [{"role": "user", "content": [{"type": "text", "text": "y" * 100_000}] * 3}]  # parts count too
    with pytest.raises(openai.BadRequestError) as refused:
        sdk(base_url).chat.completions.create(model="rag-extractive", messages=parts)
    assert refused.value.body["code"] == "messages_too_long"
    with pytest.raises(openai.BadRequestError) as refused:
        ask(sdk(base_url), *[("user", "hi")] * (MAX_MESSAGES + 1))
    assert refused.value.body["param"] == "messages"


def test_usage_counts_every_message_and_the_answer_at_the_bound(base_url, ids):
    from app.api.openai_schemas import MAX_CONVERSATION_CHARS
    from app.embedding.tokens import count_tokens

    earlier = [("user", "word " * 19_000), ("assistant", "reply " * 10_000)]
    question = ("user", "what is wrong with the login bug?")
    assert sum(len(text) for _, text in (*earlier, question)) <= MAX_CONVERSATION_CHARS
    done = ask(sdk(base_url), *earlier, question, model="rag-extractive")
    expected = sum(count_tokens(text) for _, text in (*earlier, question))
    assert done.usage.prompt_tokens == expected
    assert done.usage.completion_tokens == count_tokens(done.choices[0].message.content)
    assert done.usage.total_tokens == done.usage.prompt_tokens + done.usage.completion_tokens
