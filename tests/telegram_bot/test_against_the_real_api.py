"""The bot against the REAL API (uvicorn on 127.0.0.1, SQLite, a bot-scoped token) and a loopback fake of
Telegram: the contract the bot relies on (chat/stream events, 404 for an unknown person, PATCH of a
conversation's scope by telegram_id under the bot scope) is the one the routes serve."""

from __future__ import annotations

import json

from pydantic import SecretStr

from app.api.main import create_app
from app.telegram import text as say
from app.telegram.config import TelegramSettings
from tests.api.servers import serve
from tests.support import drain_all, employee, project, task
from tests.telegram_bot.conftest import drive
from tests.telegram_bot.fake_telegram import TOKEN

BOT_TOKEN = "bot-scoped-token"


def test_a_known_user_gets_a_streamed_answer_and_can_scope_the_conversation(telegram, tmp_path, sqlite_settings,
                                                                           sqlite_engine):
    ana = employee(sqlite_engine, "Ana", "Garcia", telegram_id="7")
    apollo = project(sqlite_engine, "Apollo", "Customer portal")
    task(sqlite_engine, "Fix the login redirect bug", "Users land on the wrong page after login",
         assignee_id=ana, project_id=apollo)
    drain_all(sqlite_engine)
    settings = sqlite_settings.model_copy(update={
        "run_worker": False, "backfill_on_startup": False,
        "api_token_scopes": SecretStr(json.dumps([{"token": BOT_TOKEN, "scope": "bot", "name": "telegram"}]))})
    with serve(create_app(settings, engine=sqlite_engine)) as url:
        telegram.push(telegram.text_update(7, "what is wrong with the login?"),
                      telegram.text_update(7, f"/scope {apollo}"),
                      telegram.text_update(8, "hello?"))
        bot = TelegramSettings(bot_token=TOKEN, api_url=telegram.url, backend_url=url, backend_token=BOT_TOKEN,
                               state_path=str(tmp_path / "state.json"), poll_timeout_s=1, edit_interval_s=0.0)
        refusal = say.UNKNOWN_USER.format(telegram_id="8")
        drive(bot, lambda: len(telegram.sent_to(7)) >= 2 and telegram.sent_to(8) == [refusal], timeout_s=20)
    answer, scoped = telegram.sent_to(7)[:2]
    assert "[TASK #" in answer and "login" in answer.lower()  # the extractive answer, with its anchor
    assert scoped == "Scope set: Apollo."
    conversation = sqlite_engine.list_conversations(ana, None, 10).items[0]
    assert conversation.rag_scope == str(apollo)
    assert [m.role for m in sqlite_engine.list_messages(conversation.conversation_id, None, 10).items] == ["user", "assistant"]
