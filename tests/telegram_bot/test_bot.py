"""The Telegram bot end to end: the real bot (python-telegram-bot) between a loopback fake of the Telegram
Bot API and a loopback fake of our API. Real sockets, nothing patched. Every test that takes the
``telegram`` fixture runs twice: long polling, and behind a webhook."""

from __future__ import annotations

import json

import pytest

from app.telegram.catalogue import EN, ES
from app.telegram.concurrency import CHAT_QUEUE
from app.telegram.state import ChatStore, state_key
from tests.telegram_bot.conftest import drive, settings_for
from tests.telegram_bot.fake_api import ChatReply, FakeAPI
from tests.telegram_bot.fake_telegram import TOKEN, FakeTelegram

ME = 7  # a Telegram user our fake API knows (employee 1, Ana, a developer)


def shows(tg: FakeTelegram, *texts: str, chat: int = ME):
    """A condition: the chat shows exactly these texts, in order."""
    return lambda: tg.sent_to(chat) == list(texts)


def test_unknown_user_is_refused_politely(telegram, tmp_path):
    with FakeAPI() as api:
        telegram.push(telegram.text_update(user_id=8, text="what is blocking the login work?"))
        refusal = EN.unknown_user.format(telegram_id="8")
        drive(settings_for(telegram, api, tmp_path / "state.json"), shows(telegram, refusal, chat=8))
        assert api.chats() == [{"telegram_id": "8", "message": "what is blocking the login work?"}]
        assert api.conversations == {}
        assert "Sorry" in refusal and "administrator" in refusal


def test_help_lists_the_commands_without_asking_our_api(telegram, tmp_path):
    with FakeAPI() as api:
        telegram.push(telegram.text_update(ME, "/help"))
        drive(settings_for(telegram, api, tmp_path / "state.json"), shows(telegram, EN.help))
        assert all(command in EN.help for command in ("/new", "/projects", "/scope all", "/scope none"))
        assert api.asked() == []


def test_start_greets_a_known_user_by_name_and_says_what_they_may_ask(telegram, tmp_path):
    with FakeAPI(employees={"7": 1, "9": 2}, people={1: ("Ana", "DEVELOPER"), 2: ("Maria", "MANAGER")}) as api:
        telegram.push(telegram.text_update(ME, "/start"), telegram.text_update(9, "/start"),
                      telegram.text_update(8, "/start"))
        ana = f"Hello, Ana! {EN.sees_own}\n\n{EN.examples}\n\n{EN.help}"
        maria = f"Hello, Maria! {EN.sees_everything}\n\n{EN.examples}\n\n{EN.help}"
        drive(settings_for(telegram, api, tmp_path / "state.json"),
              lambda: telegram.sent_to(ME) == [ana] and telegram.sent_to(9) == [maria]
              and telegram.sent_to(8) == [EN.unknown_user.format(telegram_id="8")])
        assert sorted(r["query"] for r in api.asked()) == [f"telegram_id={i}" for i in (7, 8, 9)]


def test_a_spanish_speaking_user_gets_spanish_texts(telegram, tmp_path):
    with FakeAPI(ChatReply(("La tarea ", "está bloqueada [TASK #12]."), citations=("[TASK #12]",))) as api:
        telegram.push(*(telegram.text_update(ME, text, language_code="es-419")
                        for text in ("/start", "/help", "/scope", "¿qué bloquea el login?", "/new")),
                      telegram.text_update(8, "hola", language_code="es"))
        expected = [f"¡Hola, Ana! {ES.sees_own}\n\n{ES.examples}\n\n{ES.help}", ES.help,
                    f"Ámbito: Todos los proyectos (por defecto).\n{ES.scope_usage}",
                    "La tarea está bloqueada [TASK #12].\n\nFuentes: [TASK #12]",
                    "Conversación nueva. Ámbito: Todos los proyectos (por defecto)."]
        drive(settings_for(telegram, api, tmp_path / "state.json"),
              lambda: telegram.sent_to(ME) == expected and telegram.sent_to(8) == [ES.unknown_user.format(
                  telegram_id="8")])
    thinking = [c.params["text"] for c in telegram.of("sendMessage") if c.params["chat_id"] in ("7", "8")]
    assert thinking.count(ES.thinking) == 2 and EN.thinking not in thinking


def test_the_command_menu_is_set_in_english_and_spanish_at_start(telegram, tmp_path):
    with FakeAPI() as api:
        drive(settings_for(telegram, api, tmp_path / "state.json"), lambda: len(telegram.of("setMyCommands")) == 2)
    menus = {c.params.get("language_code"): json.loads(c.params["commands"]) for c in telegram.of("setMyCommands")}
    assert set(menus) == {None, "es"}
    for language, texts in ((None, EN), ("es", ES)):
        assert [(c["command"], c["description"]) for c in menus[language]] == [
            ("start", texts.cmd_start), ("help", texts.cmd_help), ("new", texts.cmd_new),
            ("scope", texts.cmd_scope), ("projects", texts.cmd_projects)]


def test_group_chats_are_refused_so_nobody_reads_anothers_answer(telegram, tmp_path):
    with FakeAPI() as api:
        telegram.push(telegram.text_update(ME, "who is assigned to the login bug?", chat_type="group", chat_id=-5))
        drive(settings_for(telegram, api, tmp_path / "state.json"), shows(telegram, EN.private_only, chat=-5))
        assert api.asked() == []


def test_scope_is_remembered_then_patched_all_none_and_a_project(telegram, tmp_path):
    with FakeAPI(ChatReply(("Fine.",))) as api:
        telegram.push(telegram.text_update(ME, "/scope 3"), telegram.text_update(ME, "status?"),
                      telegram.text_update(ME, "/scope none"), telegram.text_update(ME, "/scope all"),
                      telegram.text_update(ME, "/scope 77"), telegram.text_update(ME, "/scope"))
        bad = EN.bad_scope.format(scope="77", detail="unknown project")
        expected = ["Scope set: project 3.", "Fine.", "Scope set: No project.", "Scope set: All projects.", bad,
                    f"Scope: All projects.\n{EN.scope_usage}"]
        drive(settings_for(telegram, api, tmp_path / "state.json"), shows(telegram, *expected))

        # No conversation yet: the scope went with the first question, which created the conversation.
        assert api.chats() == [{"telegram_id": "7", "message": "status?", "rag_scope": "3"}]
        patches = [(r["path"], r["query"], r["body"]) for r in api.requests if r["method"] == "PATCH"]
        assert patches == [("/api/v1/conversations/41", "telegram_id=7", {"rag_scope": scope})
                           for scope in ("none", "all", "77")]
        assert api.conversations[41].rag_scope == "all"  # the refused 77 changed nothing
        assert all(r["authorization"] == "Bearer bot-token-for-tests" for r in api.requests)


def test_projects_are_listed_and_chosen_by_name(telegram, tmp_path):
    projects = {3: "Login revamp", 5: "Payments Platform", 6: "Payments Reconciliation"}
    with FakeAPI(ChatReply(("Fine.",)), projects=projects) as api:
        telegram.push(*(telegram.text_update(ME, text) for text in (
            "/projects", "/scope payments", "/scope nothing like it", "/scope payments platform", "status?",
            "/scope LOGIN  revamp")))
        expected = [
            f"{EN.projects_header}\n• Login revamp: /scope 3\n• Payments Platform: /scope 5\n"
            "• Payments Reconciliation: /scope 6",
            f"{EN.choose_project.format(query='payments')}\n• Payments Platform: /scope 5\n"
            "• Payments Reconciliation: /scope 6",
            EN.no_project_match.format(query="nothing like it"),
            "Scope set: Payments Platform.", "Fine.", "Scope set: Login revamp."]
        drive(settings_for(telegram, api, tmp_path / "state.json"), shows(telegram, *expected))
        assert api.chats() == [{"telegram_id": "7", "message": "status?", "rag_scope": "5"}]
        assert api.conversations[41].rag_scope == "3"  # the last one was PATCHed into the conversation


def test_streamed_answer_is_edited_into_the_thinking_message_at_most_once_per_interval(telegram, tmp_path):
    """Order and throttling, whatever the machine's speed: the stream starts only after "thinking…" was
    sent, and the second token comes one interval after the first, so the bot's clock has passed the
    interval when it arrives (an interim edit is due); the rest waits until that edit is seen, so it
    shows a part of the answer. Every edit's spacing is measured on Telegram's side."""
    interval = 0.2
    tokens = ("The ", "login ", "bug ", "is ", "blocked ", "by ", "the ", "SSO work [TASK #12].")
    answer = "".join(tokens)
    final = f"{answer}\n\nSources: [TASK #12]"
    edited = lambda: bool(telegram.of("editMessageText"))  # noqa: E731
    with FakeAPI(ChatReply(tokens, citations=("[TASK #12]",), delay_s=interval, hold_after=2,
                           hold_until=edited)) as api:
        telegram.push(telegram.text_update(ME, "what is blocking the login work?"))
        settings = settings_for(telegram, api, tmp_path / "state.json", edit_interval_s=interval)
        drive(settings, shows(telegram, final))

    [thinking] = telegram.of("sendMessage")
    assert thinking.params["text"] == EN.thinking
    edits = telegram.of("editMessageText")
    assert {e.params["message_id"] for e in edits} == {"101"}  # the thinking message, nothing else
    interim = [e.params["text"] for e in edits[:-1]]
    assert interim and interim[0] in ("The ", "The login ")  # a part of the answer, shown as it streamed
    assert all(later.startswith(earlier) and answer.startswith(later) for earlier, later in zip(interim, interim[1:]))
    assert edits[-1].params["text"] == final
    moments = [thinking.at] + [e.at for e in edits[:-1]]
    assert all(b - a >= interval for a, b in zip(moments, moments[1:]))  # throttled


def test_a_reset_drops_the_text_shown_so_far_and_the_answer_continues_from_its_start(telegram, tmp_path):
    """Our API's `event: reset` (the LLM failed mid-answer; the extractive answer follows): the text shown
    so far is dropped, never glued to what follows. With no edit interval every change is shown, so the
    whole sequence the user sees is known."""
    reply = ChatReply(("Wrong ", "start "), reset_after=2, after_reset=("Quoted ", "answer [TASK #3]."),
                      citations=("[TASK #3]",), llm_error="timeout")
    final = f"Quoted answer [TASK #3].\n\nSources: [TASK #3]\n\n{EN.llm_fallback}"
    with FakeAPI(reply, ChatReply(("Next.",))) as api:
        telegram.push(telegram.text_update(ME, "what is blocking the login work?"), telegram.text_update(ME, "and?"))
        drive(settings_for(telegram, api, tmp_path / "state.json"), shows(telegram, final, "Next."))
        assert api.chats()[1]["conversation_id"] == 41  # the answer after the reset was stored, and continued
    shown = [e.params["text"] for e in telegram.of("editMessageText") if e.params["message_id"] == "101"]
    assert shown == ["Wrong ", "Wrong start ", EN.thinking, "Quoted ", "Quoted answer [TASK #3].", final]


def test_chats_are_answered_at_once_and_one_chats_messages_in_order(telegram, tmp_path):
    """Chat 7's first answer is slow and holds its stream until chat 8 has its whole answer: only a bot
    that answers chats at once can get there. Chat 7's second message waits for its first (it carries
    the conversation the first created) and is answered after it."""
    first = ChatReply(("Slow ", "first."), delay_s=0.05, hold_after=1,
                      hold_until=lambda: telegram.sent_to(8) == ["Quick."])
    with FakeAPI(employees={"7": 1, "8": 2},
                 per_user={"7": [first, ChatReply(("Second.",))], "8": [ChatReply(("Quick.",))]}) as api:
        telegram.push(telegram.text_update(ME, "first"), telegram.text_update(ME, "second"),
                      telegram.text_update(8, "other"))
        drive(settings_for(telegram, api, tmp_path / "state.json"),
              lambda: telegram.sent_to(ME) == ["Slow first.", "Second."] and telegram.sent_to(8) == ["Quick."])
        [mine] = [c.id for c in api.conversations.values() if c.employee_id == 1]
        [theirs] = [c.id for c in api.conversations.values() if c.employee_id == 2]
        asked = [(c["message"], c.get("conversation_id")) for c in api.chats()]
        assert asked[-1] == ("second", mine) and sorted(asked[:2]) == [("first", None), ("other", None)]
        assert theirs < mine  # chat 8's conversation was stored first, while chat 7's answer waited
    finished = {e.params["chat_id"]: e.at for e in telegram.of("editMessageText")}
    assert finished["8"] < finished["7"]


def test_past_the_bound_on_answers_in_hand_a_user_is_told_to_try_again_in_their_language(telegram, tmp_path):
    held = ChatReply(("Done.",), hold_after=0, hold_until=lambda: telegram.sent_to(8) == [ES.busy])
    with FakeAPI(held, ChatReply(("Later.",)), employees={"7": 1, "8": 2}) as api:
        telegram.push(telegram.text_update(ME, "first"), telegram.text_update(8, "hola", language_code="es"))
        settings = settings_for(telegram, api, tmp_path / "state.json", max_concurrent_answers=1)
        drive(settings, lambda: telegram.sent_to(ME) == ["Done."] and telegram.sent_to(8) == [ES.busy])
        telegram.push(telegram.text_update(8, "hola otra vez", language_code="es"))
        drive(settings_for(telegram, api, tmp_path / "state.json", max_concurrent_answers=1),
              shows(telegram, ES.busy, "Later.", chat=8))
        assert [c["message"] for c in api.chats()] == ["first", "hola otra vez"]  # the refused one never asked


def test_one_chat_may_queue_only_so_many_messages_behind_its_answer(telegram, tmp_path):
    """A burst of messages: the first is answered while CHAT_QUEUE wait; the two past the queue are told
    "busy" at once (not after the first answer); the waiting ones then follow in order."""
    waiting = [f"A{i}" for i in range(2, CHAT_QUEUE + 2)]
    held = ChatReply(("A1",), hold_after=0, hold_until=lambda: telegram.sent_to(ME).count(EN.busy) == 2)
    answers = lambda: [t for t in telegram.sent_to(ME) if t != EN.busy]  # noqa: E731
    with FakeAPI(held, *(ChatReply((a,)) for a in waiting)) as api:
        telegram.push(*(telegram.text_update(ME, f"q{i}") for i in range(1, CHAT_QUEUE + 4)))
        # (The two refusals and q1's "thinking…" race to Telegram: their order among them is not fixed.)
        drive(settings_for(telegram, api, tmp_path / "state.json"),
              lambda: answers() == ["A1", *waiting] and telegram.sent_to(ME).count(EN.busy) == 2)
        assert [c["message"] for c in api.chats()] == [f"q{i}" for i in range(1, CHAT_QUEUE + 2)]


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
    assert thinking.params["text"] == EN.thinking and rest.params["text"] == second
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
        assert ChatStore(state, state_key(TOKEN)).get(ME).conversation_id == 41

        telegram.push(telegram.text_update(ME, "second"))
        drive(settings_for(telegram, api, state), shows(telegram, "One.", "Two."))  # a new bot process
        assert api.chats()[1] == {"telegram_id": "7", "message": "second", "conversation_id": 41}


def test_a_person_our_api_no_longer_knows_is_forgotten_by_the_bots_state_file(telegram, tmp_path):
    """Issue 26, point 9: an erased person's chat leaves nothing in RAG_TELEGRAM_STATE_PATH once the API
    says it no longer knows them (and the file never held their Telegram id to begin with)."""
    state = tmp_path / "state.json"
    with FakeAPI(ChatReply(("One.",))) as api:
        telegram.push(telegram.text_update(ME, "first"))
        drive(settings_for(telegram, api, state), shows(telegram, "One."))
        assert ChatStore(state, state_key(TOKEN)).get(ME).conversation_id == 41
        assert list(json.loads(state.read_text())["chats"]) != [str(ME)]  # keyed by a hash, not the id
        api.employees.clear()  # erased: our API answers 404 for their Telegram id
        api.conversations.clear()
        telegram.push(telegram.text_update(ME, "second"))
        drive(settings_for(telegram, api, state), shows(telegram, "One.", EN.unknown_user.format(telegram_id=ME)))
        assert json.loads(state.read_text()) == {"format": 2, "chats": {}}


def test_a_conversation_our_api_no_longer_knows_starts_afresh(telegram, tmp_path):
    with FakeAPI(ChatReply(("One.",)), ChatReply(("Two.",))) as api:
        telegram.push(telegram.text_update(ME, "first"))
        drive(settings_for(telegram, api, tmp_path / "state.json"), shows(telegram, "One."))
        api.conversations.clear()  # deleted through the API, or the employee was erased and re-added
        telegram.push(telegram.text_update(ME, "second"))
        drive(settings_for(telegram, api, tmp_path / "state.json"), shows(telegram, "One.", "Two."))
        assert [c.get("conversation_id") for c in api.chats()] == [None, 41, None]


@pytest.mark.parametrize(("code", "apology"), [(500, EN.failed), (503, EN.busy)])
def test_a_failure_mid_stream_becomes_an_apology_and_the_bot_keeps_answering(telegram, tmp_path, code, apology):
    """The partial answer shown is replaced: an `error` event means the turn was not kept; its code says why."""
    state = tmp_path / "state.json"
    with FakeAPI(ChatReply(("Partial ", "answer ", "never ", "finished"), fail_after=2, delay_s=0.05,
                           fail_code=code), ChatReply(("Recovered.",))) as api:
        telegram.push(telegram.text_update(ME, "first"), telegram.text_update(ME, "again"))
        drive(settings_for(telegram, api, state), shows(telegram, apology, "Recovered."))
        assert [c.get("conversation_id") for c in api.chats()] == [None, None]  # the failed turn stored nothing
        assert sorted(api.conversations) == [41]


@pytest.mark.parametrize(("status", "apology"), [(503, EN.busy), (502, EN.failed), (401, EN.misconfigured),
                                               (403, EN.not_allowed)])
def test_an_error_status_from_our_api_becomes_a_short_apology(telegram, tmp_path, status, apology):
    with FakeAPI(ChatReply(status=status), ChatReply(("Fine.",))) as api:
        telegram.push(telegram.text_update(ME, "first"), telegram.text_update(ME, "second"))
        drive(settings_for(telegram, api, tmp_path / "state.json"), shows(telegram, apology, "Fine."))


def test_our_api_going_away_becomes_an_apology(telegram, tmp_path):
    gone: list[bool] = []
    with FakeAPI(ChatReply(("One.",))) as api:

        def first_answered_then_api_gone() -> bool:
            if telegram.sent_to(ME) == ["One."] and not gone:
                api.server.shutdown()  # nothing answers there any more
                api.server.server_close()
                gone.append(True)
                telegram.push(telegram.text_update(ME, "second"))
            return telegram.sent_to(ME) == ["One.", EN.unavailable]

        telegram.push(telegram.text_update(ME, "first"))
        drive(settings_for(telegram, api, tmp_path / "state.json"), first_answered_then_api_gone)


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
              shows(telegram, EN.too_long.format(limit=2000), f"Quoted.\n\n{EN.llm_fallback}"))
        assert [c["message"] for c in api.chats()] == ["status?"]
