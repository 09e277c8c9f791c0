"""The bot's handlers and its long-polling loop (python-telegram-bot), against this service's API.

Only private chats are answered: an answer carries what its asker may see, and in a group everyone
would read it. So a chat is one person, and the chat id keys their conversation.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from telegram import Update
from telegram.ext import Application, CommandHandler, ContextTypes, MessageHandler, filters

from app.telegram import text as say
from app.telegram.backend import Backend, BackendError
from app.telegram.config import TelegramSettings
from app.telegram.replies import StreamedReply
from app.telegram.state import ChatState, ChatStore

log = logging.getLogger(__name__)

MAX_QUESTION = 2000  # our API's limit on a chat message (a longer one is a 422)


class ChatBot:
    def __init__(self, settings: TelegramSettings, backend: Backend, store: ChatStore) -> None:
        self.settings, self.backend, self.store = settings, backend, store

    def handlers(self) -> list[Any]:
        private = filters.ChatType.PRIVATE
        return [
            MessageHandler(~private, self.not_private),
            CommandHandler(["help", "start"], self.help, filters=private),
            CommandHandler("new", self.new, filters=private),
            CommandHandler("scope", self.scope, filters=private),
            MessageHandler(private & filters.TEXT & ~filters.COMMAND, self.question),
            MessageHandler(private, self.help),  # a photo, a sticker, an unknown command
        ]

    async def not_private(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        if update.effective_message is not None:
            await update.effective_message.reply_text(say.PRIVATE_ONLY)

    async def help(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        await update.effective_message.reply_text(say.HELP)

    async def new(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        chat_id = update.effective_chat.id
        state = self.store.get(chat_id)
        state.conversation_id = None  # the scope carries over to the next conversation
        self.store.put(chat_id, state)
        await update.effective_message.reply_text(
            f"Started a new conversation. Scope: {say.scope_name(state.scope, state.scope_label)}.")

    async def scope(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        chat_id, message = update.effective_chat.id, update.effective_message
        state = self.store.get(chat_id)
        if not context.args:
            await message.reply_text(f"Scope: {say.scope_name(state.scope, state.scope_label)}.\n{say.SCOPE_USAGE}")
            return
        scope = say.parse_scope(context.args[0]) if len(context.args) == 1 else None
        if scope is None:
            await message.reply_text(say.SCOPE_USAGE)
            return
        if state.conversation_id is not None:
            try:
                conversation = await self.backend.set_scope(state.conversation_id, _telegram_id(update), scope)
                state.scope_label = conversation.get("rag_scope_label")
                scope = str(conversation.get("rag_scope") or scope)
            except BackendError as exc:
                if exc.kind != "not_found":
                    await message.reply_text(self._apology(exc, update, scope))
                    return
                # Gone (deleted, erased) or not theirs: the scope applies to the next conversation.
                state.conversation_id, state.scope_label = None, None
        else:
            state.scope_label = None  # named by our API once a conversation uses it
        state.scope = scope
        self.store.put(chat_id, state)
        await message.reply_text(f"Scope set: {say.scope_name(scope, state.scope_label)}.")

    async def question(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        chat_id, message = update.effective_chat.id, update.effective_message
        if len(message.text) > MAX_QUESTION:
            await message.reply_text(say.TOO_LONG.format(limit=MAX_QUESTION))
            return
        state = self.store.get(chat_id)
        reply = StreamedReply(context.bot, chat_id, self.settings.edit_interval_s)
        await reply.start()
        try:
            done = await self._ask(reply, _telegram_id(update), message.text, state)
        except BackendError as exc:
            log.warning("chat %s: our API answered %s", chat_id, exc)
            if exc.kind == "invalid" and state.conversation_id is None and state.scope is not None:
                state.scope, state.scope_label = None, None  # the remembered scope was refused
                self.store.put(chat_id, state)
            await reply.fail(self._apology(exc, update, state.scope))
            return
        final = say.format_answer(str(done.get("answer", "")), done.get("citations") or [], done.get("llm_error"))
        state.conversation_id = done.get("conversation_id", state.conversation_id)
        state.scope_label = done.get("rag_scope_label", state.scope_label)
        if done.get("new_rag_scope") is not None:  # the model switched the scope with a tool
            state.scope, state.scope_label = str(done["new_rag_scope"]), done.get("new_rag_scope_label")
            final += f"\n\nScope is now: {say.scope_name(state.scope, state.scope_label)}."
        self.store.put(chat_id, state)
        await reply.finish(final)

    async def _ask(self, reply: StreamedReply, telegram_id: str, question: str, state: ChatState) -> dict[str, Any]:
        try:
            return await self._stream(reply, telegram_id, question, state)
        except BackendError as exc:
            if exc.kind != "not_found" or state.conversation_id is None or reply.text:
                raise
        # Our API no longer knows this conversation for this person (deleted, erased): start afresh. A
        # second 404 then means the person is unknown.
        state.conversation_id = None
        return await self._stream(reply, telegram_id, question, state)

    async def _stream(self, reply: StreamedReply, telegram_id: str, question: str, state: ChatState) -> dict[str, Any]:
        async for event in self.backend.chat_stream(telegram_id, question, state.conversation_id, state.scope):
            if isinstance(event, dict):
                return event
            await reply.add(event)
        raise BackendError("failed", "no done event")

    def _apology(self, exc: BackendError, update: Update, scope: str | None) -> str:
        if exc.kind == "not_found":
            return say.UNKNOWN_USER.format(telegram_id=_telegram_id(update))
        if exc.kind == "invalid":
            return say.BAD_SCOPE.format(scope=scope, detail=exc.detail) if scope else f"Sorry, I couldn't use that: {exc.detail}"
        if exc.kind == "unauthorized":
            log.error("our API refused the bot's token (%s): check RAG_TELEGRAM_BACKEND_TOKEN", exc.status)
            return say.MISCONFIGURED
        return {"busy": say.BUSY, "unavailable": say.UNAVAILABLE}.get(exc.kind, say.FAILED)


def _telegram_id(update: Update) -> str:
    return str(update.effective_user.id)  # EMPLOYEES.TELEGRAM_ID holds the numeric user id as text


async def _log_error(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
    log.error("update %s failed", getattr(update, "update_id", "?"), exc_info=context.error)


def build_application(settings: TelegramSettings, backend: Backend, store: ChatStore) -> Application:
    application = (
        Application.builder()
        .token(settings.bot_token.get_secret_value())
        .base_url(settings.api_url)
        .base_file_url(settings.api_file_url)
        .build()
    )
    application.add_handlers(ChatBot(settings, backend, store).handlers())
    application.add_error_handler(_log_error)
    return application


async def run(settings: TelegramSettings, stop: asyncio.Event) -> None:
    """Long-poll Telegram and answer until ``stop`` is set; then finish the update in hand and close."""
    backend = Backend(settings.backend_url, settings.backend_token.get_secret_value(), settings.backend_timeout_s)
    application = build_application(settings, backend, ChatStore(settings.state_path))
    try:
        async with application:  # initialize (getMe) … shutdown
            await application.updater.start_polling(timeout=settings.poll_timeout_s, poll_interval=0.0,
                                                    allowed_updates=[Update.MESSAGE])
            await application.start()
            await stop.wait()
            await application.updater.stop()
            await application.stop()
    finally:
        await backend.aclose()
