"""The Telegram bot end to end: the real bot (python-telegram-bot, long polling) between a loopback fake
of the Telegram Bot API and a loopback fake of our API. Real sockets, nothing patched."""

from __future__ import annotations

import json

import pytest

from app.telegram import text as say
from tests.telegram_bot.conftest import drive, settings_for
from tests.telegram_bot.fake_api import ChatReply, FakeAPI
from tests.telegram_bot.fake_telegram import FakeTelegram

ME = 7  # a Telegram user our fake API knows (employee 1)


def shows(tg: FakeTelegram, *texts: str, chat: int = ME):
    """A condition: the chat shows exactly these texts, in order."""
    return lambda: tg.sent_to(chat) == list(texts)


def test_unknown_user_is_refused_politely(telegram, tmp_path):
    with FakeAPI() as api:
        telegram.push(telegram.text_update(user_id=8, text="what is blocking the login work?"))
        refusal = say.UNKNOWN_USER.format(telegram_id="8")
        drive(settings_for(telegram, api, tmp_path / "state.json"), shows(telegram, refusal, chat=8))
        assert api.chats() == [{"telegram_id": "8", "message": "what is blocking the login work?"}]
        assert api.conversations == {}
        assert "Sorry" in refusal and "administrator" in refusal


def test_help_lists_the_commands_without_asking_our_api(telegram, tmp_path):
    with FakeAPI() as api:
        telegram.push(telegram.text_update(ME, "/help"))
        drive(settings_for(telegram, api, tmp_path / "state.json"), shows(telegram, say.HELP))
        assert all(command in say.HELP for command in ("/new", "/scope all", "/scope none", "/scope <project id>"))
        assert api.requests == []


def test_group_chats_are_refused_so_nobody_reads_anothers_answer(telegram, tmp_path):
    with FakeAPI() as api:
        telegram.push(telegram.text_update(ME, "who is assigned to the login bug?", chat_type="group", chat_id=-5))
        drive(settings_for(telegram, api, tmp_path / "state.json"), shows(telegram, say.PRIVATE_ONLY, chat=-5))
        assert api.requests == []


def test_scope_is_remembered_then_patched_all_none_and_a_project(telegram, tmp_path):
    with FakeAPI(ChatReply(("Fine.",))) as api:
        telegram.push(telegram.text_update(ME, "/scope 3"), telegram.text_update(ME, "status?"),
                      telegram.text_update(ME, "/scope none"), telegram.text_update(ME, "/scope all"),
                      telegram.text_update(ME, "/scope 77"), telegram.text_update(ME, "/scope bogus"),
                      telegram.text_update(ME, "/scope"))
        bad = say.BAD_SCOPE.format(scope="77", detail="unknown project")
        expected = ["Scope set: project 3.", "Fine.", "Scope set: No project.", "Scope set: All projects.", bad,
                    say.SCOPE_USAGE, f"Scope: All projects.\n{say.SCOPE_USAGE}"]
        drive(settings_for(telegram, api, tmp_path / "state.json"), shows(telegram, *expected))

        # No conversation yet: the scope went with the first question, which created the conversation.
        assert api.chats() == [{"telegram_id": "7", "message": "status?", "rag_scope": "3"}]
        patches = [(r["path"], r["query"], r["body"]) for r in api.requests if r["method"] == "PATCH"]
        assert patches == [("/api/v1/conversations/41", "telegram_id=7", {"rag_scope": scope})
                           for scope in ("none", "all", "77")]
        assert api.conversations[41].rag_scope == "all"  # the refused 77 changed nothing
        assert all(r["authorization"] == "Bearer bot-token-for-tests" for r in api.requests)


def test_streamed_answer_is_edited_into_the_thinking_message_at_most_once_per_interval(telegram, tmp_path):
    tokens = ("The ", "login ", "bug ", "is ", "blocked ", "by ", "the ", "SSO work [TASK #12].")
    answer = "".join(tokens)
    final = f"{answer}\n\nSources: [TASK #12]"
    with FakeAPI(ChatReply(tokens, citations=("[TASK #12]",), delay_s=0.1)) as api:
        telegram.push(telegram.text_update(ME, "what is blocking the login work?"))
        settings = settings_for(telegram, api, tmp_path / "state.json", edit_interval_s=0.25)
        drive(settings, shows(telegram, final))

    [thinking] = telegram.of("sendMessage")
    assert thinking.params["text"] == say.THINKING
    edits = telegram.of("editMessageText")
    assert {e.params["message_id"] for e in edits} == {"101"}  # the thinking message, nothing else
    interim = [e.params["text"] for e in edits[:-1]]
    assert interim and all(answer.startswith(t) and t != answer for t in interim)  # partial text as it streamed
    assert edits[-1].params["text"] == final
    moments = [thinking.at] + [e.at for e in edits[:-1]]
    assert all(b - a >= 0.24 for a, b in zip(moments, moments[1:]))  # throttled


def test_a_6000_character_answer_is_split_in_two_messages(telegram, tmp_path):
    words = " ".join(f"word{i:04d}" for i in range(667))[:6000]
    assert len(words) == 6000
    with FakeAPI(ChatReply(tuple(words[i:i + 1000] for i in range(0, 6000, 1000)))) as api:
        telegram.push(telegram.text_update(ME, "tell me everything"))
        # The second part is sent only once the first has replaced the thinking message.
        drive(settings_for(telegram, api, tmp_path / "state.json"), lambda: len(telegram.sent_to(ME)) == 2)

    first, second = telegram.sent_to(ME)
    assert len(first) <= 4096 and len(second) <= 4096
    assert f"{first} {second}" == words  # cut at a space, nothing lost
    thinking, rest = telegram.of("sendMessage")
    assert thinking.params["text"] == say.THINKING and rest.params["text"] == second
    assert telegram.messages[ME][101] == first  # the first part replaced the thinking message


def test_new_forgets_the_conversation_and_keeps_the_scope(telegram, tmp_path):
    with FakeAPI(ChatReply(("One.",)), ChatReply(("Two.",)), ChatReply(("Three.",))) as api:
        telegram.push(telegram.text_update(ME, "/scope none"), telegram.text_update(ME, "first"),
                      telegram.text_update(ME, "second"), telegram.text_update(ME, "/new"),
                      telegram.text_update(ME, "third"))
        drive(settings_for(telegram, api, tmp_path / "state.json"),
              shows(telegram, "Scope set: No project.", "One.", "Two.",
                    "Started a new conversation. Scope: No project.", "Three."))
        assert api.chats() == [
            {"telegram_id": "7", "message": "first", "rag_scope": "none"},
            {"telegram_id": "7", "message": "second", "conversation_id": 41},
            {"telegram_id": "7", "message": "third", "rag_scope": "none"},
        ]
        assert sorted(api.conversations) == [41, 42]


def test_the_conversation_survives_a_restart(telegram, tmp_path):
    state = tmp_path / "state.json"
    with FakeAPI(ChatReply(("One.",)), ChatReply(("Two.",))) as api:
        telegram.push(telegram.text_update(ME, "first"))
        drive(settings_for(telegram, api, state), shows(telegram, "One."))
        assert json.loads(state.read_text())[str(ME)]["conversation_id"] == 41

        telegram.push(telegram.text_update(ME, "second"))
        drive(settings_for(telegram, api, state), shows(telegram, "One.", "Two."))  # a new bot process
        assert api.chats()[1] == {"telegram_id": "7", "message": "second", "conversation_id": 41}


def test_a_conversation_our_api_no_longer_knows_starts_afresh(telegram, tmp_path):
    with FakeAPI(ChatReply(("One.",)), ChatReply(("Two.",))) as api:
        telegram.push(telegram.text_update(ME, "first"))
        drive(settings_for(telegram, api, tmp_path / "state.json"), shows(telegram, "One."))
        api.conversations.clear()  # deleted through the API, or the employee was erased and re-added
        telegram.push(telegram.text_update(ME, "second"))
        drive(settings_for(telegram, api, tmp_path / "state.json"), shows(telegram, "One.", "Two."))
        assert [c.get("conversation_id") for c in api.chats()] == [None, 41, None]


@pytest.mark.parametrize(("code", "apology"), [(500, say.FAILED), (503, say.BUSY)])
def test_a_failure_mid_stream_becomes_an_apology_and_the_bot_keeps_answering(telegram, tmp_path, code, apology):
    """The partial answer shown is replaced: an `error` event means the turn was not kept; its code says why."""
    state = tmp_path / "state.json"
    with FakeAPI(ChatReply(("Partial ", "answer ", "never ", "finished"), fail_after=2, delay_s=0.05,
                           fail_code=code), ChatReply(("Recovered.",))) as api:
        telegram.push(telegram.text_update(ME, "first"), telegram.text_update(ME, "again"))
        drive(settings_for(telegram, api, state), shows(telegram, apology, "Recovered."))
        assert [c.get("conversation_id") for c in api.chats()] == [None, None]  # the failed turn stored nothing
        assert sorted(api.conversations) == [41]


@pytest.mark.parametrize(("status", "apology"), [(503, say.BUSY), (502, say.FAILED), (401, say.MISCONFIGURED)])
def test_an_error_status_from_our_api_becomes_a_short_apology(telegram, tmp_path, status, apology):
    with FakeAPI(ChatReply(status=status), ChatReply(("Fine.",))) as api:
        telegram.push(telegram.text_update(ME, "first"), telegram.text_update(ME, "second"))
        drive(settings_for(telegram, api, tmp_path / "state.json"), shows(telegram, apology, "Fine."))


def test_our_api_unreachable_becomes_an_apology(telegram, tmp_path):
    with FakeAPI() as api:
        closed = api.url  # nothing listens there once the fake stops
    telegram.push(telegram.text_update(ME, "first"))
    settings = settings_for(telegram, api, tmp_path / "state.json").model_copy(update={"backend_url": closed})
    drive(settings, shows(telegram, say.UNAVAILABLE))


def test_a_scope_switched_by_the_model_is_announced_and_kept(telegram, tmp_path):
    with FakeAPI(ChatReply(("Switched.",), new_rag_scope="3"), ChatReply(("Next.",))) as api:
        telegram.push(telegram.text_update(ME, "only the login project please"), telegram.text_update(ME, "/new"),
                      telegram.text_update(ME, "and now?"))
        drive(settings_for(telegram, api, tmp_path / "state.json"),
              shows(telegram, "Switched.\n\nScope is now: Login revamp.",
                    "Started a new conversation. Scope: Login revamp.", "Next."))
        assert api.chats()[1] == {"telegram_id": "7", "message": "and now?", "rag_scope": "3"}


def test_an_extractive_fallback_says_so_and_a_long_question_is_refused(telegram, tmp_path):
    with FakeAPI(ChatReply(("Quoted.",), llm_error="timeout")) as api:
        telegram.push(telegram.text_update(ME, "x" * 2001), telegram.text_update(ME, "status?"))
        drive(settings_for(telegram, api, tmp_path / "state.json"),
              shows(telegram, say.TOO_LONG.format(limit=2000), f"Quoted.\n\n{say.LLM_FALLBACK}"))
        assert [c["message"] for c in api.chats()] == ["status?"]
