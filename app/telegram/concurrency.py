"""How updates run: different chats at once, one chat's updates one at a time in the order sent, and a
bound on how many run, past which the user is told "busy, try again in a moment".

python-telegram-bot runs updates one by one unless given an update processor; a plain concurrent one
would let a chat's second message overtake its first (and both write the chat's conversation). So this
processor keeps a FIFO lock per chat. Order holds because python-telegram-bot starts one task per update
in the order received and each task reaches ``do_process_update`` without yielding first (the
library's semaphore, like asyncio's Lock, is FIFO), so a chat's lock is queued for in arrival order.

Bounds: at most ``max_running`` updates run at once (a slow LLM then holds up only that many chats, and
our API's own chat limit is not hammered), and at most ``CHAT_QUEUE`` more of one chat wait behind its
running one (one person typing fast cannot fill the bot). Past either, ``refuse(update)`` answers
instead, at once. Each update runs with a request id of its own, which our API's log lines share.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from telegram import Update
from telegram.ext import BaseUpdateProcessor

from app.logs import accept_request_id, request_id_var

log = logging.getLogger(__name__)

# Updates of one chat that may wait behind its running one: room for a long text Telegram split into
# several messages, not for a flood.
CHAT_QUEUE = 10


class _Chat:
    __slots__ = ("lock", "pending")

    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.pending = 0  # running or waiting


class PerChatProcessor(BaseUpdateProcessor):
    def __init__(self, max_running: int, refuse: Callable[[Any], Awaitable[None]]) -> None:
        # The library's own bound only caps the tasks alive at once (running, queued in a chat, being
        # refused); the bound that answers "busy" is max_running, below.
        super().__init__(max_running * (CHAT_QUEUE + 2))
        self.max_running, self.refuse = max_running, refuse
        self.running = 0
        self._chats: dict[int | None, _Chat] = {}

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        request_id_var.set(accept_request_id(None))  # this task's context only
        key = update.effective_chat.id if isinstance(update, Update) and update.effective_chat else None
        chat = self._chats.setdefault(key, _Chat())
        if chat.pending > CHAT_QUEUE:
            await self._refuse(update, coroutine, f"chat {key} already has {chat.pending} updates in hand")
            return
        chat.pending += 1
        try:
            async with chat.lock:
                if self.running >= self.max_running:
                    await self._refuse(update, coroutine, f"{self.running} updates running")
                    return
                self.running += 1
                try:
                    await coroutine
                finally:
                    self.running -= 1
        finally:
            chat.pending -= 1
            if chat.pending == 0:
                del self._chats[key]

    async def _refuse(self, update: object, coroutine: Awaitable[Any], why: str) -> None:
        if inspect.iscoroutine(coroutine):
            coroutine.close()  # never started: close it, so no "never awaited" warning
        log.warning("busy, refusing update %s: %s", getattr(update, "update_id", "?"), why)
        try:
            await self.refuse(update)
        except Exception:  # noqa: BLE001 (a refusal that fails must not look like the update's own failure)
            log.exception("could not tell the user the bot is busy")

    async def initialize(self) -> None:
        """Nothing to set up: the per-chat locks come and go with their chats."""

    async def shutdown(self) -> None:
        """Nothing to free: python-telegram-bot waits for the running updates before shutting down."""
