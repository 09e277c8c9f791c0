"""``ragctl telegram``: run the Telegram bot, a client of this service's API (no database needed)."""

from __future__ import annotations

import asyncio
import logging
import signal

import click
from pydantic import ValidationError

from app.cli.root import cli


@cli.command()
def telegram() -> None:
    """Run the Telegram bot (long polling) against this service's API.

    Needs RAG_TELEGRAM_BOT_TOKEN (from @BotFather) and RAG_TELEGRAM_BACKEND_TOKEN (a `bot`-scoped
    token of this API); RAG_TELEGRAM_BACKEND_URL names the API (default http://127.0.0.1:8000).
    Stop it with Ctrl-C (or SIGTERM): the update in hand is finished first.

    Example:

        RAG_TELEGRAM_BOT_TOKEN=123:abc RAG_TELEGRAM_BACKEND_TOKEN=bot-secret ragctl telegram
    """
    from app.telegram.bot import run
    from app.telegram.config import TelegramSettings

    try:
        settings = TelegramSettings()
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise click.ClickException(f"bad configuration: {problems}\n"
                                   "Hint: set RAG_TELEGRAM_BOT_TOKEN and RAG_TELEGRAM_BACKEND_TOKEN (env or .env)") from None
    # httpx logs each request's URL at INFO, and a Bot API URL contains the bot token.
    logging.getLogger("httpx").setLevel(logging.WARNING)
    click.echo(f"telegram bot: polling {settings.api_url}…, answering from {settings.backend_url}", err=True)
    asyncio.run(_until_signalled(settings, run))


async def _until_signalled(settings, run) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await run(settings, stop)
