"""Starting and stopping the bot: the start-up checks, the command menu, then long polling or a webhook.

A misconfigured bot stops at start with one clear line (``StartupError``) instead of apologising to
every user: our API must answer and accept the backend token, Telegram must accept the bot token, and
in webhook mode Telegram must accept the URL and the port must be free.
"""

from __future__ import annotations

import asyncio
import logging

from telegram import BotCommand, Update
from telegram.error import InvalidToken, NetworkError, TelegramError
from telegram.ext import Application

from app.telegram.backend import Backend, BackendError
from app.telegram.bot import ChatBot
from app.telegram.catalogue import CATALOGUE, DEFAULT_LANGUAGE
from app.telegram.concurrency import PerChatProcessor
from app.telegram.config import TelegramSettings
from app.telegram.state import ChatStore, state_key
from app.telegram.webhook import WebhookReceiver

log = logging.getLogger(__name__)

UPDATES = [Update.MESSAGE]  # all the bot handles (edits, reactions, joins are not asked for)


class StartupError(Exception):
    """The bot cannot start as configured; the message is the one line an operator needs."""


def build_application(settings: TelegramSettings, backend: Backend, store: ChatStore) -> Application:
    chat_bot = ChatBot(settings, backend, store)
    builder = (
        Application.builder()
        .token(settings.bot_token.get_secret_value())
        .base_url(settings.api_url)
        .base_file_url(settings.api_file_url)
        .concurrent_updates(PerChatProcessor(settings.max_concurrent_answers, chat_bot.refuse))
    )
    if settings.webhook_url is not None:
        builder = builder.updater(None)  # our own webhook receiver (app/telegram/webhook.py) feeds the queue
    application = builder.build()
    application.add_handlers(chat_bot.handlers())
    application.add_error_handler(_log_error)
    return application


async def check_backend(backend: Backend) -> None:
    """Our API answers and accepts the backend token (a `bot` token; an admin one works but is too much)."""
    try:
        token = await backend.token()
    except BackendError as exc:
        if exc.kind == "unavailable":
            raise StartupError(f"cannot reach this service's API at {backend.base_url} ({exc.detail})") from None
        if exc.kind == "unauthorized":
            raise StartupError(f"the API at {backend.base_url} refused RAG_TELEGRAM_BACKEND_TOKEN "
                               f"({exc.status}: {exc.detail})") from None
        raise StartupError(f"the API at {backend.base_url} answered GET /token with {exc.status or exc.kind}: "
                           f"{exc.detail} (is RAG_TELEGRAM_BACKEND_URL this service?)") from None
    if token.get("scope") != "bot":
        log.warning("RAG_TELEGRAM_BACKEND_TOKEN is a %s token (%s): a bot needs only a `bot`-scoped one",
                    token.get("scope"), token.get("name"))
    log.info("our API at %s accepts the backend token %r", backend.base_url, token.get("name"))


async def set_commands(application: Application) -> None:
    """The command menu, in every language of the catalogue (Telegram picks by the user's language). A menu
    Telegram refuses is worth a warning, not a bot that does not start: the commands work without it."""
    for language, texts in CATALOGUE.items():
        commands = [BotCommand("start", texts.cmd_start), BotCommand("help", texts.cmd_help),
                    BotCommand("new", texts.cmd_new), BotCommand("scope", texts.cmd_scope),
                    BotCommand("projects", texts.cmd_projects)]
        try:
            await application.bot.set_my_commands(commands,
                                                  language_code=None if language == DEFAULT_LANGUAGE else language)
        except TelegramError as exc:
            log.warning("Telegram refused the %s command menu: %s", language, exc.message)


async def _receive_updates(application: Application, settings: TelegramSettings) -> WebhookReceiver | None:
    """Long polling (python-telegram-bot's updater), or our webhook receiver, which is returned to be stopped."""
    if settings.webhook_url is None:
        await application.updater.start_polling(timeout=settings.poll_timeout_s, poll_interval=0.0,
                                                allowed_updates=UPDATES)
        log.info("polling %s… for updates", settings.api_url)
        return None
    secret = settings.webhook_secret.get_secret_value()
    receiver = WebhookReceiver(listen=settings.webhook_listen, port=settings.webhook_port, path=settings.webhook_path,
                               secret=secret, max_body_bytes=settings.webhook_max_body_bytes, bot=application.bot,
                               queue=application.update_queue)
    try:
        receiver.start()  # the port first: Telegram is told of a URL only once something answers at it
    except OSError as exc:
        raise StartupError(f"cannot listen for the webhook on {settings.webhook_listen}:{settings.webhook_port} "
                           f"({exc.strerror or exc})") from None
    try:
        await application.bot.set_webhook(settings.webhook_url, secret_token=secret, allowed_updates=UPDATES)
    except TelegramError as exc:
        await receiver.stop()
        raise StartupError(f"Telegram refused the webhook {settings.webhook_url}: {exc.message}") from None
    log.info("receiving updates at %s (listening on %s:%d%s)", settings.webhook_url, settings.webhook_listen,
             settings.webhook_port, settings.webhook_path)
    return receiver


async def run(settings: TelegramSettings, stop: asyncio.Event) -> None:
    """Check, then answer until ``stop`` is set; then finish the updates in hand and close."""
    backend = Backend(settings.backend_url, settings.backend_token.get_secret_value(), settings.backend_timeout_s)
    try:
        await check_backend(backend)
        store = ChatStore(settings.state_path, state_key(settings.bot_token.get_secret_value()))
        application = build_application(settings, backend, store)
        try:
            await application.initialize()  # getMe
        except InvalidToken:  # its message holds the token: not repeated
            raise StartupError("Telegram refused RAG_TELEGRAM_BOT_TOKEN (getMe: unauthorized)") from None
        except NetworkError as exc:
            raise StartupError(f"cannot reach the Telegram Bot API at {settings.api_url}… ({exc.message})") from None
        try:
            await set_commands(application)
            receiver = await _receive_updates(application, settings)
            await application.start()
            log.info("answering as @%s, at most %d updates at once", application.bot.username,
                     settings.max_concurrent_answers)
            await stop.wait()
            if receiver is None:
                await application.updater.stop()
            else:
                await receiver.stop()
            await application.stop()
        finally:
            await application.shutdown()
    finally:
        await backend.aclose()


async def _log_error(update: object, context) -> None:
    log.error("update %s failed", getattr(update, "update_id", "?"), exc_info=context.error)
