"""The bot's settings (prefix ``RAG_TELEGRAM_``), separate from the API's: the bot needs no database."""

from __future__ import annotations

import re
from typing import Literal
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

# What Telegram accepts as a webhook's secret_token (Bot API, setWebhook).
_WEBHOOK_SECRET = re.compile(r"[A-Za-z0-9_-]{1,256}")


class TelegramSettings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="RAG_TELEGRAM_", env_file=".env", env_ignore_empty=True, extra="ignore",
        hide_input_in_errors=True,  # never echo a token in a validation error
    )

    bot_token: SecretStr  # from @BotFather
    # The Telegram Bot API; the token is appended (a Local Bot API Server, or a loopback fake in tests).
    api_url: str = "https://api.telegram.org/bot"
    api_file_url: str = "https://api.telegram.org/file/bot"
    backend_url: str = "http://127.0.0.1:8000"  # this service's API
    backend_token: SecretStr  # a `bot`-scoped token of this service (RAG_API_TOKEN_SCOPES)
    # The longest our API may stay silent (httpx's read timeout: a slow LLM before its first token); the API's
    # own LLM deadline is 60 s.
    backend_timeout_s: float = Field(120.0, gt=0)
    # chat id → conversation id and chosen scope, kept across restarts.
    state_path: str = "./data/telegram-state.json"
    # Telegram rate-limits edits of one message; the streamed answer is edited at most this often.
    edit_interval_s: float = Field(1.0, ge=0)
    # Long-polling wait of one getUpdates call.
    poll_timeout_s: int = Field(30, ge=0, le=60)
    # Updates handled at once (different chats; one chat's run one at a time). One more is told "busy,
    # try again in a moment". Keep it at or below the API's RAG_CHAT_MAX_CONCURRENCY.
    max_concurrent_answers: int = Field(16, ge=1, le=1000)
    # Webhook mode instead of long polling: the public HTTPS URL Telegram posts updates to (usually a
    # reverse proxy in front of webhook_listen:webhook_port, forwarding the URL's path unchanged).
    webhook_url: str | None = None
    webhook_listen: str = "127.0.0.1"
    webhook_port: int = Field(8443, ge=1, le=65535)
    # Telegram sends it in X-Telegram-Bot-Api-Secret-Token with every update; a request without it is
    # refused (403). Required in webhook mode: the URL alone would let anyone post fake updates.
    webhook_secret: SecretStr | None = None
    # The largest update the webhook reads; a longer one is refused (413) before its body is read. Telegram's
    # updates are a few KiB (a message holds at most 4,096 characters).
    webhook_max_body_bytes: int = Field(1_048_576, ge=1024, le=100 * 1_048_576)
    log_format: Literal["json", "text"] = "json"  # as the API's RAG_LOG_FORMAT

    @field_validator("api_url", "api_file_url", "backend_url", "webhook_url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("http://", "https://")):
            raise ValueError("must be an http:// or https:// URL")
        return value

    @field_validator("webhook_secret")
    @classmethod
    def _telegram_secret(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and not _WEBHOOK_SECRET.fullmatch(value.get_secret_value()):
            raise ValueError("must be 1-256 characters, each a letter, a digit, '_' or '-' (Telegram's rule)")
        return value

    @model_validator(mode="after")
    def _webhook_needs_a_secret(self) -> TelegramSettings:
        if self.webhook_url is not None and self.webhook_secret is None:
            raise ValueError("webhook mode needs RAG_TELEGRAM_WEBHOOK_SECRET (1-256 of A-Z a-z 0-9 _ -): without "
                             "it anyone who learns the URL can post updates as any user")
        return self

    @property
    def webhook_path(self) -> str:
        """The path the webhook server answers on: the public URL's (a reverse proxy forwards it as is)."""
        return urlsplit(self.webhook_url or "").path or "/"
