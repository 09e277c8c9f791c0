"""``ragctl telegram``: run the Telegram bot, a client of this service's API (no database needed)."""

from __future__ import annotations

import asyncio
import logging
import signal

import click
from pydantic import ValidationError

from app.cli.root import cli


@cli.command()
@click.option("--webhook", "webhook_url", metavar="URL",
              help="Receive updates at this public HTTPS URL instead of long polling (or RAG_TELEGRAM_WEBHOOK_URL); "
                   "needs RAG_TELEGRAM_WEBHOOK_SECRET. The bot listens on RAG_TELEGRAM_WEBHOOK_LISTEN:"
                   "RAG_TELEGRAM_WEBHOOK_PORT (default 127.0.0.1:8443) behind your reverse proxy.")
def telegram(webhook_url: str | None) -> None:
    """Run the Telegram bot against this service's API (long polling, or a webhook).

    Needs RAG_TELEGRAM_BOT_TOKEN (from @BotFather) and RAG_TELEGRAM_BACKEND_TOKEN (a `bot`-scoped
    token of this API); RAG_TELEGRAM_BACKEND_URL names the API (default http://127.0.0.1:8000).
    It checks both tokens and the API at start and exits with one line if something is wrong.
    Stop it with Ctrl-C (or SIGTERM): the updates in hand are finished first.

    Example:

        RAG_TELEGRAM_BOT_TOKEN=123:abc RAG_TELEGRAM_BACKEND_TOKEN=bot-secret ragctl telegram

        RAG_TELEGRAM_WEBHOOK_SECRET=$(openssl rand -hex 32) ragctl telegram --webhook https://bot.example.com/tg
    """
    from app import logs
    from app.telegram.config import TelegramSettings
    from app.telegram.runner import StartupError, run

    try:
        settings = TelegramSettings(**({"webhook_url": webhook_url} if webhook_url else {}))
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'settings'}: {e['msg']}" for e in exc.errors())
        raise click.ClickException(f"bad configuration: {problems}\n"
                                   "Hint: set RAG_TELEGRAM_BOT_TOKEN and RAG_TELEGRAM_BACKEND_TOKEN (env or .env)") from None
    secrets = [s.get_secret_value() for s in (settings.bot_token, settings.backend_token, settings.webhook_secret) if s]
    logs.configure(settings.log_format, secrets=secrets)
    # httpx logs each request's URL at INFO, and a Bot API URL contains the bot token (redacted anyway).
    logging.getLogger("httpx").setLevel(logging.WARNING)
    try:
        asyncio.run(_until_signalled(settings, run))
    except StartupError as exc:
        raise click.ClickException(logs.redact(str(exc), secrets)) from None


async def _until_signalled(settings, run) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await run(settings, stop)
