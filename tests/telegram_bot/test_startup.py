"""The bot at start and in its logs: it checks our API and both tokens before answering anyone, its webhook
refuses updates without Telegram's secret, and it logs JSON lines with the API's fields, never a token."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import socket
import threading

import pytest

from app import logs
from app.telegram.catalogue import EN
from app.telegram.runner import StartupError, run
from tests.telegram_bot.conftest import WEBHOOK_SECRET, drive, settings_for
from tests.telegram_bot.fake_api import BACKEND_TOKEN, ChatReply, FakeAPI
from tests.telegram_bot.fake_telegram import TOKEN, FakeTelegram, post_update

ME = 7


def start(settings) -> None:
    """Run the bot as ``ragctl telegram`` would, stopping at once if it ever gets going."""
    async def main() -> None:
        stop = asyncio.Event()
        stop.set()
        await run(settings, stop)

    asyncio.run(main())


def test_a_backend_token_our_api_refuses_stops_the_bot_before_telegram_is_asked(polling_telegram, tmp_path):
    with FakeAPI(token="another-token") as api:
        with pytest.raises(StartupError, match=r"^the API at http://127\.0\.0\.1:\d+/api/v1 refused "
                                               r"RAG_TELEGRAM_BACKEND_TOKEN \(401: missing or invalid bearer token\)$"):
            start(settings_for(polling_telegram, api, tmp_path / "state.json"))
        assert [r["path"] for r in api.requests] == ["/api/v1/token"]
    assert polling_telegram.calls == []  # nobody was told anything


def test_an_api_that_does_not_answer_stops_the_bot(polling_telegram, tmp_path):
    with FakeAPI() as api:
        closed = api.url
    settings = settings_for(polling_telegram, api, tmp_path / "state.json").model_copy(update={"backend_url": closed})
    with pytest.raises(StartupError, match=rf"^cannot reach this service's API at {closed}/api/v1 \(ConnectError\)$"):
        start(settings)
    assert polling_telegram.calls == []


def test_a_bot_token_telegram_refuses_stops_the_bot_without_repeating_it(tmp_path):
    with FakeTelegram(token="999:another-bot") as tg, FakeAPI() as api:
        with pytest.raises(StartupError) as refused:
            start(settings_for(tg, api, tmp_path / "state.json"))
    assert str(refused.value) == "Telegram refused RAG_TELEGRAM_BOT_TOKEN (getMe: unauthorized)"


def test_a_webhook_port_in_use_stops_the_bot(webhook_telegram, tmp_path):
    telegram = webhook_telegram
    with FakeAPI() as api, socket.socket() as taken:
        settings = settings_for(telegram, api, tmp_path / "state.json")
        taken.bind(("127.0.0.1", settings.webhook_port))
        taken.listen()
        with pytest.raises(StartupError, match=rf"^cannot listen for the webhook on 127\.0\.0\.1:"
                                               rf"{settings.webhook_port} \(Address already in use\)$"):
            start(settings)


def test_the_webhook_answers_only_updates_carrying_telegrams_secret(webhook_telegram, tmp_path):
    """Posted straight to the bot's webhook: without the secret header, or with a wrong one, an update is
    refused (403) and nothing is asked or answered; with it, it is answered like any other."""
    telegram = webhook_telegram
    statuses: dict[str, int | None] = {}
    with FakeAPI(ChatReply(("Fine.",))) as api:
        settings = settings_for(telegram, api, tmp_path / "state.json")

        def post_all() -> None:
            while telegram.webhook is None:
                threading.Event().wait(0.02)
            url, secret = telegram.webhook
            assert (url, secret) == (settings.webhook_url, WEBHOOK_SECRET)
            for name, header in (("none", None), ("wrong", "not-the-secret"), ("right", secret)):
                update = {"update_id": 100 + len(statuses), **telegram.text_update(ME, f"with {name} secret")}
                status = post_update(url, update, header)
                while status is None:  # the server is a moment behind setWebhook
                    threading.Event().wait(0.02)
                    status = post_update(url, update, header)
                statuses[name] = status

        poster = threading.Thread(target=post_all)
        poster.start()
        drive(settings, lambda: telegram.sent_to(ME) == ["Fine."] and len(statuses) == 3)
        poster.join()
        assert [c["message"] for c in api.chats()] == ["with right secret"]
    assert statuses == {"none": 403, "wrong": 403, "right": 200}


def test_logs_are_json_lines_with_the_apis_fields_and_no_token(polling_telegram, tmp_path):
    """Even at DEBUG, where httpx logs every Bot API URL (the bot token is in it): the configured secrets
    are redacted. Each update's lines carry a request id that our API received as X-Request-ID."""
    out = io.StringIO()
    handler = logs.handler("json", out, secrets=[TOKEN, BACKEND_TOKEN, WEBHOOK_SECRET])
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        with FakeAPI(ChatReply(("Fine.",), status=503)) as api:
            polling_telegram.push(polling_telegram.text_update(ME, "status?"))
            drive(settings_for(polling_telegram, api, tmp_path / "state.json"),
                  lambda: polling_telegram.sent_to(ME) == [EN.busy])
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert lines and all({"time", "level", "logger", "message", "request_id"} <= set(line) for line in lines)
    text = out.getvalue()
    assert TOKEN not in text and BACKEND_TOKEN not in text
    assert any(logs.REDACTED in line["message"] for line in lines if line["logger"].startswith("httpx"))
    [refused] = [line for line in lines if line["message"].startswith("chat 7: our API answered busy")]
    [chat] = api.chats()
    asked = [r for r in api.requests if r["body"] == chat]
    assert refused["request_id"] and asked[0]["request_id"] == refused["request_id"]
