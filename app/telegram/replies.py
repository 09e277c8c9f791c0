"""One answer as the user sees it: a "thinking…" message, edited as tokens arrive, then the final text.

Telegram rate-limits edits of a message (roughly one a second), so the growing text is shown at most
once per ``interval_s``; an interim edit that fails is skipped (the next one, or the final text, catches
up). When our API starts the answer over (an SSE ``reset``: the LLM failed mid-answer and the extractive
answer follows), the text so far is dropped and the message goes back to "thinking…" at the next allowed
edit. The final text is split at the message limit: its first part replaces the thinking message, the
rest follow as new messages.
"""

from __future__ import annotations

import asyncio
import logging
import time
from datetime import timedelta

from telegram import Bot
from telegram.error import RetryAfter, TelegramError

from app.telegram.text import preview, split_message

log = logging.getLogger(__name__)


class StreamedReply:
    def __init__(self, bot: Bot, chat_id: int, interval_s: float, thinking: str) -> None:
        self.bot, self.chat_id, self.interval_s, self.thinking = bot, chat_id, interval_s, thinking
        self.message_id: int | None = None
        self.text = ""  # the tokens since the start (or the last reset)
        self.shown_any = False  # whether any answer text reached the user (then a retry would repeat it)
        self._shown = thinking
        self._last_edit = 0.0

    async def start(self) -> None:
        message = await self.bot.send_message(self.chat_id, self.thinking)
        self.message_id = message.message_id
        self._last_edit = time.monotonic()

    async def add(self, token: str) -> None:
        self.text += token
        self.shown_any = self.shown_any or bool(token)
        await self._show(preview(self.text))

    async def reset(self) -> None:
        """Drop the text so far: what follows is the answer from its start."""
        self.text = ""
        await self._show(self.thinking)

    async def _show(self, shown: str) -> None:
        """An interim edit, if the interval allows it and it changes something."""
        if time.monotonic() - self._last_edit < self.interval_s:
            return
        if not shown.strip() or shown == self._shown:
            return  # Telegram refuses an edit that changes nothing
        try:
            await self._edit(shown)
        except TelegramError as exc:
            log.info("skipping an interim edit in chat %s: %s", self.chat_id, exc)

    async def finish(self, final_text: str) -> None:
        first, *rest = split_message(final_text)
        await self._settle(first)
        for part in rest:
            await self._with_retry(lambda p=part: self.bot.send_message(self.chat_id, p))

    async def _settle(self, text: str) -> None:
        if text != self._shown:
            await self._with_retry(lambda: self._edit(text))

    async def fail(self, apology: str) -> None:
        """Replace whatever was shown (a partial answer is not stored, so it must not look final)."""
        try:
            await self._settle(apology)
        except TelegramError:
            log.exception("could not tell chat %s about a failure", self.chat_id)

    async def _edit(self, text: str) -> None:
        await self.bot.edit_message_text(text, chat_id=self.chat_id, message_id=self.message_id)
        self._shown, self._last_edit = text, time.monotonic()

    async def _with_retry(self, call) -> None:
        """The final text must arrive: wait out one flood-control answer, then try once more."""
        try:
            await call()
        except RetryAfter as exc:
            delay = exc.retry_after
            await asyncio.sleep(delay.total_seconds() if isinstance(delay, timedelta) else float(delay))
            await call()
