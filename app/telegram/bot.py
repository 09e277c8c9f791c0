"""The bot's handlers (python-telegram-bot), against this service's API, in the user's language.

Only private chats are answered: an answer carries what its asker may see, and in a group everyone
would read it. So a chat is one person, and the chat id keys their conversation. Handlers of different
chats run at once; one chat's run one at a time, in order (app/telegram/concurrency.py).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable
from typing import Any, TypeVar

from telegram import Update
from telegram.ext import CommandHandler, ContextTypes, MessageHandler, filters

from app.telegram.backend import Backend, BackendError, Done, Reset, Token
from app.telegram.catalogue import Texts, texts_for
from app.telegram.config import TelegramSettings
from app.telegram.replies import StreamedReply
from app.telegram.scoping import choose, fixed_scope
from app.telegram.state import ChatState, ChatStore
from app.telegram.text import format_answer, project_lines, scope_name, split_message

log = logging.getLogger(__name__)

T = TypeVar("T")
MAX_QUESTION = 2000  # our API's limit on a chat message (a longer one is a 422)
SEES_EVERYTHING = ("MANAGER", "ADMIN")


class ChatBot:
    def __init__(self, settings: TelegramSettings, backend: Backend, store: ChatStore) -> None:
        self.settings, self.backend, self.store = settings, backend, store

    def handlers(self) -> list[Any]:
        private = filters.ChatType.PRIVATE
        return [
            MessageHandler(~private, self.not_private),
            CommandHandler("start", self.start, filters=private),
            CommandHandler("help", self.help, filters=private),
            CommandHandler("new", self.new, filters=private),
            CommandHandler("scope", self.scope, filters=private),
            CommandHandler("projects", self.projects, filters=private),
            MessageHandler(private & filters.TEXT & ~filters.COMMAND, self.question),
            MessageHandler(private, self.help),  # a photo, a sticker, an unknown command
        ]

    async def refuse(self, update: object) -> None:
        """Past the bound on updates in hand (the update processor calls it instead of the handler)."""
        if isinstance(update, Update) and update.effective_message is not None:
            await update.effective_message.reply_text(_texts(update).busy)

    async def not_private(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        if update.effective_message is not None:
            await update.effective_message.reply_text(_texts(update).private_only)

    async def help(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        await update.effective_message.reply_text(_texts(update).help)

    async def start(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Greet a known user by name and say what they may ask (what they see depends on their role)."""
        texts = _texts(update)
        me = await self._or_apology(update, self.backend.caller(_telegram_id(update)))
        if me is None:
            return
        sees = texts.sees_everything if me.get("role") in SEES_EVERYTHING else texts.sees_own
        greeting = texts.greeting.format(name=me.get("first_name") or update.effective_user.first_name)
        await update.effective_message.reply_text("\n\n".join((f"{greeting} {sees}", texts.examples, texts.help)))

    async def new(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        chat_id = update.effective_chat.id
        state = self.store.get(chat_id)
        state.conversation_id = None  # the scope carries over to the next conversation
        self.store.put(chat_id, state)
        texts = _texts(update)
        await update.effective_message.reply_text(
            texts.new_conversation.format(scope=scope_name(texts, state.scope, state.scope_label)))

    async def projects(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        texts = _texts(update)
        found = await self._or_apology(update, self.backend.projects(_telegram_id(update)))
        if found is None:
            return
        listing = f"{texts.projects_header}\n{project_lines(found)}" if found else texts.projects_none
        for part in split_message(listing):
            await update.effective_message.reply_text(part)

    async def scope(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        chat_id, message, texts = update.effective_chat.id, update.effective_message, _texts(update)
        state = self.store.get(chat_id)
        arg = " ".join(context.args or ()).strip()
        if not arg:
            shown = texts.scope_is.format(scope=scope_name(texts, state.scope, state.scope_label))
            await message.reply_text(f"{shown}\n{texts.scope_usage}")
            return
        scope, label = fixed_scope(arg), None
        if scope is None:  # a project's name
            ranked = await self._or_apology(update, self.backend.projects(_telegram_id(update), query=arg))
            if ranked is None:
                return
            chosen, candidates = choose(arg, ranked)
            if chosen is None:
                offer = texts.choose_project if candidates else texts.no_project_match
                await message.reply_text("\n".join((offer.format(query=arg), project_lines(candidates))).strip())
                return
            scope, label = str(chosen["project_id"]), chosen["name"]
        if state.conversation_id is not None:
            try:
                conversation = await self.backend.set_scope(state.conversation_id, _telegram_id(update), scope)
                label = conversation.get("rag_scope_label")
                scope = str(conversation.get("rag_scope") or scope)
            except BackendError as exc:
                if exc.kind != "not_found":
                    await message.reply_text(self._apology(exc, update, scope))
                    return
                # Gone (deleted, erased) or not theirs: the scope applies to the next conversation.
                state.conversation_id = None
        state.scope, state.scope_label = scope, label  # a bare id is named by our API once a conversation uses it
        self.store.put(chat_id, state)
        await message.reply_text(texts.scope_set.format(scope=scope_name(texts, scope, label)))

    async def question(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        chat_id, message, texts = update.effective_chat.id, update.effective_message, _texts(update)
        if len(message.text) > MAX_QUESTION:
            await message.reply_text(texts.too_long.format(limit=MAX_QUESTION))
            return
        state = self.store.get(chat_id)
        reply = StreamedReply(context.bot, chat_id, self.settings.edit_interval_s, texts.thinking)
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
        final = format_answer(texts, str(done.get("answer", "")), done.get("citations") or [], done.get("llm_error"))
        state.conversation_id = done.get("conversation_id", state.conversation_id)
        state.scope_label = done.get("rag_scope_label", state.scope_label)
        if done.get("new_rag_scope") is not None:  # the model switched the scope with a tool
            state.scope, state.scope_label = str(done["new_rag_scope"]), done.get("new_rag_scope_label")
            final += "\n\n" + texts.scope_now.format(scope=scope_name(texts, state.scope, state.scope_label))
        self.store.put(chat_id, state)
        await reply.finish(final)

    async def _ask(self, reply: StreamedReply, telegram_id: str, question: str, state: ChatState) -> dict[str, Any]:
        try:
            return await self._stream(reply, telegram_id, question, state)
        except BackendError as exc:
            if exc.kind != "not_found" or state.conversation_id is None or reply.shown_any:
                raise
        # Our API no longer knows this conversation for this person (deleted, erased): start afresh. A
        # second 404 then means the person is unknown.
        state.conversation_id = None
        return await self._stream(reply, telegram_id, question, state)

    async def _stream(self, reply: StreamedReply, telegram_id: str, question: str, state: ChatState) -> dict[str, Any]:
        async for event in self.backend.chat_stream(telegram_id, question, state.conversation_id, state.scope):
            if isinstance(event, Token):
                await reply.add(event.text)
            elif isinstance(event, Reset):
                await reply.reset()
            elif isinstance(event, Done):
                return event.fields
        raise BackendError("failed", "no done event")

    async def _or_apology(self, update: Update, answer: Awaitable[T]) -> T | None:
        """Our API's answer; or None, once the user has been told why there is none."""
        try:
            return await answer
        except BackendError as exc:
            await update.effective_message.reply_text(self._apology(exc, update, None))
            return None

    def _apology(self, exc: BackendError, update: Update, scope: str | None) -> str:
        texts = _texts(update)
        if exc.kind == "not_found":
            self.store.forget(update.effective_chat.id)  # erased, or never added: nothing of them is kept
            return texts.unknown_user.format(telegram_id=_telegram_id(update))
        if exc.kind == "invalid":
            return texts.bad_scope.format(scope=scope, detail=exc.detail) if scope else \
                texts.cannot_use.format(detail=exc.detail)
        if exc.kind == "unauthorized":
            log.error("our API refused the bot's token (%s): check RAG_TELEGRAM_BACKEND_TOKEN", exc.status)
            return texts.misconfigured
        if exc.kind == "forbidden":  # the token's employee_ids or roles leave this person out
            log.warning("our API may not answer Telegram user %s with this token: %s", _telegram_id(update), exc.detail)
            return texts.not_allowed
        return {"busy": texts.busy, "unavailable": texts.unavailable}.get(exc.kind, texts.failed)


def _texts(update: Update) -> Texts:
    user = update.effective_user
    return texts_for(user.language_code if user is not None else None)


def _telegram_id(update: Update) -> str:
    return str(update.effective_user.id)  # EMPLOYEES.TELEGRAM_ID holds the numeric user id as text
