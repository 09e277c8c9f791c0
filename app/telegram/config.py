"""The bot's settings (prefix ``RAG_TELEGRAM_``), separate from the API's: the bot needs no database."""

from __future__ import annotations

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


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
    # Whole-request deadline for our API, streaming included (the API's own LLM deadline is 60 s).
    backend_timeout_s: float = Field(120.0, gt=0)
    # chat id → conversation id and chosen scope, kept across restarts.
    state_path: str = "./data/telegram-state.json"
    # Telegram rate-limits edits of one message; the streamed answer is edited at most this often.
    edit_interval_s: float = Field(1.0, ge=0)
    # Long-polling wait of one getUpdates call.
    poll_timeout_s: int = Field(30, ge=0, le=60)

    @field_validator("api_url", "api_file_url", "backend_url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError("must be an http:// or https:// URL")
        return value
