"""Both loopback fakes and ``drive``: run the real bot (app.telegram.runner.run) until a condition holds.

The ``telegram`` fixture runs a test twice: the bot long-polling the fake Bot API, and the bot behind a
webhook the fake posts updates to (with the secret token), so both transports pass the same
conversation tests. ``polling_telegram`` and ``webhook_telegram`` are one each.
"""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from app.telegram.config import TelegramSettings
from app.telegram.runner import run
from tests.telegram_bot.fake_api import BACKEND_TOKEN, FakeAPI
from tests.telegram_bot.fake_telegram import TOKEN, FakeTelegram

WEBHOOK_SECRET = "webhook-secret_for-tests"


def _fake(transport: str) -> Iterator[FakeTelegram]:
    with FakeTelegram() as fake:
        fake.transport = transport
        yield fake


@pytest.fixture(params=["polling", "webhook"])
def telegram(request) -> Iterator[FakeTelegram]:
    yield from _fake(request.param)


@pytest.fixture
def polling_telegram() -> Iterator[FakeTelegram]:
    yield from _fake("polling")


@pytest.fixture
def webhook_telegram() -> Iterator[FakeTelegram]:
    yield from _fake("webhook")


def free_port() -> int:
    """A port nothing listens on now (the webhook server binds it a moment later)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def transport_settings(tg: FakeTelegram) -> dict[str, object]:
    if getattr(tg, "transport", "polling") == "polling":
        return {}
    port = free_port()
    return {"webhook_url": f"http://127.0.0.1:{port}/telegram/hook", "webhook_listen": "127.0.0.1",
            "webhook_port": port, "webhook_secret": WEBHOOK_SECRET}


def settings_for(tg: FakeTelegram, api: FakeAPI, state: Path, **extra: object) -> TelegramSettings:
    fields: dict[str, object] = {"bot_token": TOKEN, "api_url": tg.url, "backend_url": api.url,
                                 "backend_token": BACKEND_TOKEN, "state_path": str(state), "poll_timeout_s": 1,
                                 "edit_interval_s": 0.0, **transport_settings(tg)}
    return TelegramSettings(_env_file=None, **(fields | extra))


def drive(settings: TelegramSettings, until: Callable[[], bool], timeout_s: float = 30.0) -> None:
    """Run the bot until ``until()`` holds (checked every 20 ms), then stop it as SIGINT would. The
    timeout only bounds a failing test: a passing one ends as soon as the state is reached, however
    busy the machine."""
    async def main() -> None:
        stop = asyncio.Event()

        async def watch() -> None:
            deadline = time.monotonic() + timeout_s
            while not until() and time.monotonic() < deadline:
                await asyncio.sleep(0.02)
            stop.set()

        watcher = asyncio.create_task(watch())
        try:
            await run(settings, stop)
        finally:
            watcher.cancel()

    asyncio.run(main())
    assert until(), "the bot did not reach the expected state in time"
