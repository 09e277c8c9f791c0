"""Both loopback fakes and ``drive``: run the real bot (app.telegram.bot.run) until a condition holds."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from app.telegram.bot import run
from app.telegram.config import TelegramSettings
from tests.telegram_bot.fake_api import BACKEND_TOKEN, FakeAPI
from tests.telegram_bot.fake_telegram import TOKEN, FakeTelegram


@pytest.fixture
def telegram() -> Iterator[FakeTelegram]:
    with FakeTelegram() as fake:
        yield fake


def settings_for(tg: FakeTelegram, api: FakeAPI, state: Path, **extra: object) -> TelegramSettings:
    fields: dict[str, object] = {"bot_token": TOKEN, "api_url": tg.url, "backend_url": api.url,
                                 "backend_token": BACKEND_TOKEN, "state_path": str(state), "poll_timeout_s": 1,
                                 "edit_interval_s": 0.0}
    return TelegramSettings(**(fields | extra))


def drive(settings: TelegramSettings, until: Callable[[], bool], timeout_s: float = 8.0) -> None:
    """Run the bot until ``until()`` holds (checked every 20 ms), then stop it as SIGINT would."""
    async def main() -> None:
        stop = asyncio.Event()

        async def watch() -> None:
            deadline = time.monotonic() + timeout_s
            while not until() and time.monotonic() < deadline:
                await asyncio.sleep(0.02)
            stop.set()

        watcher = asyncio.create_task(watch())
        await run(settings, stop)
        await watcher

    asyncio.run(main())
    assert until(), "the bot did not reach the expected state in time"
